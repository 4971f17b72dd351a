/* cmpint.h - private to compare.c and its parts (cmpfamily.c, cmprow.c, cmpside.c,
 * cmpverdict.c): the builder cmp_build threads through its steps. compare.h is the public API. */
#ifndef ALLOCAB_CMPINT_H
#define ALLOCAB_CMPINT_H

#include "front/compare/compare.h"

#include <stddef.h>

/* What cmp_build's steps share: the report being built and its scratch. */
/* The figures of one arm and workload of a document that neither phase nor regime changes:
 * medians of memory figures. */
struct cmp_side_memo {
	const struct rf_doc *doc; /* NULL: empty */
	size_t arm, w;
	double retained, peak, rss_first, rss_last, growth;
	double processes, calls; /* per run: processes started, malloc-family calls (probed runs) */
};

struct cmp_builder {
	struct cmp_side_memo memo[2]; /* the last two sides computed (a row's base and candidate) */
	unsigned memo_next;
	struct cmp_report *r;
	const struct cmp_opts *o;
	enum rf_regime g; /* the regime of the rows being built */
	double *a, *b;    /* scratch, one value per measured round (the larger document) */
	double *pa, *pb;  /* round positions matching a and b */
	double *rss;      /* scratch for memory figures */
	size_t cap;
	int counting; /* a first pass that only counts the usable rows (the family's size) */
};

/* The builder's steps return an enum status (common/status.h): ST_OK, ST_USAGE for bad input
 * (err set), ST_FAIL when memory ran out. */

/* One side of a comparison: arm arm of workload w, at phase index p, in document doc. */
struct cmp_at {
	const struct rf_doc *doc;
	size_t arm, w, p;
};

/* cmpfamily.c */

/* Adds the rows of the report (each arm, workload, phase and regime compared, then the geometric
 * means), arms paired with arm base_arm of a one-file report; with b->counting set, no statistic
 * is computed. Returns ST_OK or ST_FAIL. */
enum status cmp_add_rows(struct cmp_builder *b, size_t base_arm);
/* Sets each family's size and level (r->fam, r->family, r->family_conf) from a counting pass of
 * cmp_add_rows, and settles r->primary; asked: the primary rows were asked for (--primary), so a
 * report without them is refused (ST_USAGE, err set). Returns ST_OK, ST_USAGE or ST_FAIL. */
enum status cmp_count_family(struct cmp_builder *b, size_t base_arm, int asked, char *err,
                             size_t errlen);

/* cmprow.c */

/* Sets every figure of row to NAN and its verdict to CMP_INSUFFICIENT. */
void cmp_row_set_na(struct cmp_row *row);
/* One file: fills row with cand against base, both of b->r->base and of the same workload and
 * phase, regime b->g, rounds paired (uses b's scratch). Returns ST_OK or ST_FAIL. */
enum status cmp_row_paired(struct cmp_builder *b, struct cmp_row *row, const struct cmp_at *base,
                           const struct cmp_at *cand);
/* Two files: cand (of b->r->cand) against base (of b->r->base), regime b->g. Returns ST_OK or
 * ST_FAIL. */
enum status cmp_row_unpaired(struct cmp_builder *b, struct cmp_row *row, const struct cmp_at *base,
                             const struct cmp_at *cand);

/* The workloads a geometric mean covers: w[k] at phase index ph[k]. */
struct cmp_gm_set {
	size_t n;
	size_t *w, *ph;
};

/* The geometric mean over the workloads of sb (base) and sc (cand; paired: unused) of arm ac
 * against arm ab, regime b->g. Returns ST_OK or ST_FAIL. */
enum status cmp_row_geomean(struct cmp_builder *b, struct cmp_row *row, const struct cmp_gm_set *sb,
                            const struct cmp_gm_set *sc, size_t ab, size_t ac);

/* cmpside.c */

/* The median of v[0..n), NAN when n is 0. */
double cmp_median(double *v, size_t n);
/* Sets row's per-side figures (median times, memory, growth, unsettled runs, n_base, n_cand)
 * from base and cand, regime b->g (uses b->rss as scratch). */
void cmp_row_sides(struct cmp_builder *b, struct cmp_row *row, const struct cmp_at *base,
                   const struct cmp_at *cand);

/* compare.c: cmp_build on one document or two, without the solo check (cmpsolo.c's cmp_build
 * adds it). */
enum status cmp_build_one(const struct rf_doc *base, const struct rf_doc *cand,
                          const struct cmp_opts *o, struct cmp_report **out, char *err,
                          size_t errlen);

/* cmpverdict.c */

/* The verdicts of the usable rows of b->r, read off their family-level intervals: sets r->need
 * and each usable row's p_adj, equivalent and verdict. Returns 0. */
int cmp_decide(struct cmp_builder *b);
/* Appends the report's warnings (drift, too few rounds, insufficient data, regimes, runs that
 * never settled, telemetry) and sets verdict_warning and telemetry_warning. Returns ST_OK or
 * ST_FAIL. */
enum status cmp_warnings(struct cmp_builder *b);

#endif
