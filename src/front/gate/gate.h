/* gate.h - the gate as a library for `allocab gate` and `allocab bench --gate` (sequential
 * sampling: bench asks after every round whether it may stop), and for a fleet of machines
 * (`allocab gate` with several files: gatefleet.c). Its options are read by front/cmd/gateopt.c.
 * A document whose rounds a sequential gate looked at (rf_doc.seq, written by bench --gate) is
 * judged with the sequential interval of its plan, whoever judges it; any other with the fixed-n
 * interval (docs/methodology.md, "The gate", "Sequential decisions"). */
#ifndef ALLOCAB_GATE_H
#define ALLOCAB_GATE_H

#include "front/compare/compare.h"

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

/* The verdicts; their exit statuses are gate_outcome_status's. */
#define GATE_DEFAULT_CONF 0.95

enum gate_outcome { GATE_PASS, GATE_FAIL, GATE_INCONCLUSIVE };

/* "PASS", "FAIL" or "INCONCLUSIVE". */
const char *gate_outcome_name(enum gate_outcome o);
/* The exit status of a verdict (common/status.h): ST_OK, ST_FAIL or ST_INCONCLUSIVE. */
enum status gate_outcome_status(enum gate_outcome o);

/* What a gate judges: a margin on t_candidate/t_baseline for one candidate against a baseline
 * in one file, or for every arm of a new file against itself in an old one (against). Names are
 * not owned (NULL: not given). */
struct gate_spec {
	const char *candidate, *baseline, *phase, *workload, *against;
	int slowdown; /* a bound of at most pct % slower; else at least pct % faster */
	double pct;
	int on_geomean; /* judge the geometric mean; else every workload's comparison */
	int each_machine; /* a fleet: judge every machine's own interval; else the pooled one */
	int fleet_on;     /* --on pooled or each-machine was given (a fleet's option) */
	double conf;
	enum cmp_regimes regime; /* cold or steady (default) */
	int regime_given;        /* the regime was asked for (else a cold-only file is judged cold) */
	/* --equivalence M (percent; NAN: not given, then the document's config.equivalence_pct):
	 * with a --max-slowdown requirement, a comparison whose whole interval lies within +-M%
	 * passes as equivalent, and only a slowdown beyond both P and M fails */
	double equivalence;
};

/* The defaults: nothing named, conf GATE_DEFAULT_CONF, steady regime, no equivalence. */
void gate_spec_init(struct gate_spec *g);

/* Judges an in-memory bench document (allocab-bench/2 or /1) into *verdict. Returns 0, or -1 with a reason in
 * err when it cannot be judged (e.g. the candidate is not in the document: bad input). Writes the
 * verdict lines to out when out is not NULL. Does not keep bench. */
int gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
                   enum gate_outcome *verdict, char *err, size_t errlen);
/* Judges a loaded document (the bench engine's, built round by round: rf_builder) as
 * gate_spec_eval judges one in memory. */
int gate_spec_judge(const struct gate_spec *g, const struct rf_doc *d, FILE *out,
                    enum gate_outcome *verdict, char *err, size_t errlen);
/* Where a judgement of files goes: the verdict lines to out and the warnings to warn (either
 * NULL: none), and its verdict. */
struct gate_judged {
	FILE *out, *warn;
	enum gate_outcome verdict;
};

/* Judges the results file at path as gate_spec_eval judges a document into j->verdict. Returns 0,
 * or -1 with the reason in err. */
int gate_spec_judge_file(const struct gate_spec *g, const char *path, struct gate_judged *j,
                         char *err, size_t errlen);

/* Judges the results files paths[0..n) (n >= 2), one machine each, as a fleet
 * (front/fleet/fleet.h): each gated comparison's pooled interval (g->each_machine 0) or every
 * machine's own interval (1) against the margin, FAIL at the Bonferroni level over every
 * interval judged. A comparison that a machine lacks, or that a machine cannot pool, is
 * INCONCLUSIVE (never PASS); one without a single usable round on a machine is FAIL, as for one
 * file. g->against is refused. Verdict lines go to j->out, the fleet's warnings to j->warn.
 * Returns 0 with j->verdict, or -1 with the reason in err (bad input). */
int gate_fleet_judge_files(const struct gate_spec *g, const char *const *paths, size_t n,
                           struct gate_judged *j, char *err, size_t errlen);

#endif
