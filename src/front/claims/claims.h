/* claims.h - checking quoted speedups against a comparison: an allocab-claims/1 file
 * (docs/claims.md) lists expected speedups as ranges, each mapped to the workloads or phases it
 * describes, and every mapping gets a verdict from the measured interval, the one compare prints
 * (at the report's family level): confirmed (the interval lies inside the claimed range), refuted
 * (outside it; the reason says when the interval is also equivalent within the report's margin:
 * no difference that matters), partly (they overlap), or not measured. */
#ifndef ALLOCAB_CLAIMS_H
#define ALLOCAB_CLAIMS_H

#include "front/compare/compare.h"

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#define CLAIMS_SCHEMA      "allocab-claims/1"
#define CLAIMS_MAX_BYTES   (1 << 20)
#define CLAIMS_MAX_CLAIMS  256
#define CLAIMS_MAX_TARGETS 16

enum claims_verdict { CLAIM_CONFIRMED, CLAIM_PARTLY, CLAIM_REFUTED, CLAIM_NOT_MEASURED };

struct claims_target {
	char *workload; /* "geomean" for the geometric mean over workloads */
	char *phase;    /* "total" when the file names none */
};

struct claim {
	char *name, *allocator, *baseline, *source; /* baseline NULL: the comparison's */
	double lo, hi; /* claimed speedup range, t_baseline / t_candidate, 0 < lo <= hi */
	int regime;    /* enum rf_regime, or -1: steady when the comparison has it, else cold */
	size_t ntargets;
	struct claims_target *targets;
};

struct claims_file {
	char *path, *title; /* title may be NULL */
	size_t n;
	struct claim *c;
};

/* One verdict per claim and target, in file order. */
struct claims_check {
	const struct claim *claim;
	const struct claims_target *target;
	const struct cmp_row *row; /* NULL when the comparison has no such row */
	enum rf_regime regime;     /* the regime judged */
	enum claims_verdict verdict;
	double s_lo, s_hi, s_est; /* measured speedup and interval; NAN when not measured */
	double level;             /* the interval's level */
	int equivalent;           /* the row is equivalent within +-equiv_pct */
	double equiv_pct;         /* the report's margin, NAN: none */
};

struct claims_result {
	const struct claims_file *file;
	size_t n;
	struct claims_check *checks;
	size_t count[4]; /* by verdict */
};

/* Reads and validates the claims file at path (a regular file of at most CLAIMS_MAX_BYTES),
 * strict JSON as jl_parse reads it (common/jsonload.h). Returns it (claims_free) or NULL with
 * "PATH: problem" in err. */
struct claims_file *claims_load(const char *path, char *err, size_t errlen);
/* Parses an in-memory document of n bytes, named name in messages. */
struct claims_file *claims_parse(const char *text, size_t n, const char *name, char *err,
                                 size_t errlen);
void claims_free(struct claims_file *f);

/* Judges every claim of f against r. Returns a result (claims_result_free; points into f and r)
 * or NULL when memory ran out. */
struct claims_result *claims_check(const struct claims_file *f, const struct cmp_report *r);
void claims_result_free(struct claims_result *res);

/* "confirmed", "partly", "refuted" or "not measured". */
const char *claims_verdict_name(enum claims_verdict v);
/* The verdict with its reason when it has one ("refuted: equivalent within ±2%"). Returns buf. */
const char *claims_verdict_text(const struct claims_check *k, char *buf, size_t len);

#endif
