/* gateint.h - private to the gate's files: gate.c judges one file, gatefleet.c a fleet, gaterule.c
 * holds the rule both use, gateline.c writes the lines. Other modules include gate.h only. */
#ifndef ALLOCAB_GATEINT_H
#define ALLOCAB_GATEINT_H

#include "front/gate/gate.h"

#include "front/results/results.h"

#include <stdio.h>

/* One judgement: the spec, the comparisons built for it, and the rule's numbers. */
struct gate_ctx {
	const struct gate_spec *g;
	const struct cmp_report *r;       /* every interval at g->conf */
	const struct rf_doc *doc;         /* the judged (new) document */
	const struct stats_seq_plan *seq; /* the document's sequential plan, NULL: fixed-n */
	double bound, m;                  /* bound on t_candidate/t_baseline and its log */
	double equiv;   /* the equivalence margin on the log scale, NAN: none */
	double equiv_pct;
	double fam_conf; /* FAIL's level: 1 - (1 - conf) / judged (Bonferroni) */
	size_t judged;   /* comparisons gated */
};

/* The interval one decision is read from, and the level it must reach to decide (1: it cannot
 * decide at this look). */
struct gate_iv {
	const struct stats_interval *iv;
	double asked;
};

/* gaterule.c. PASS reads row's interval at the gate's level, FAIL fam's at the family level; both are the
 * sequential intervals when the document has a plan. */
struct gate_iv gate_pass_iv(const struct gate_ctx *c, const struct cmp_row *row);
struct gate_iv gate_fail_iv(const struct gate_ctx *c, const struct cmp_row *fam);
/* Whether v's interval reached the level it must reach. */
int gate_reached(struct gate_iv v);
/* The log-scale bound beyond which FAIL is decided: the margin, or the equivalence margin when
 * that is wider. */
double gate_fail_bound(const struct gate_ctx *c);
/* Whether the pass interval lies within the equivalence margin. */
int gate_equivalent(const struct gate_ctx *c, struct gate_iv v);
/* The verdict of one gated comparison (fam: its row at the family level, or row itself). */
enum gate_outcome gate_verdict(const struct gate_ctx *c, const struct cmp_row *row,
                               const struct cmp_row *fam);

/* The failed runs of a gated comparison's two arms in their measured rounds (gaterule.c): failed
 * counts failed, crashed, timeout and invalid runs; unverified those whose proof failed. The
 * rule (docs/ci.md, "Failed runs"): a candidate with more failed runs than the baseline is FAIL;
 * any other failed or unverified run of either arm makes a PASS INCONCLUSIVE. Failures remove
 * rounds, and the rounds left are those the failing arm survived. */
struct gate_failures {
	size_t cand_runs, cand_failed, cand_unverified;
	size_t base_runs, base_failed, base_unverified;
	char cand_what[64], base_what[64]; /* the first failure's status and signal */
};
/* Adds row's failures (the candidate's in cand, the baseline's in base: one document when
 * paired) to *out. */
void gate_count_failures(const struct rf_doc *base, const struct rf_doc *cand,
                         const struct cmp_row *row, struct gate_failures *out);
enum gate_outcome gate_failure_rule(enum gate_outcome v, const struct gate_failures *f);
/* The line under a verdict when some run failed; nothing when none did. */
void gate_print_failures(FILE *out, const struct cmp_row *row, const struct gate_failures *f);

/* gaterule.c: whether d, compared as o says, has no steady time for the judged phase (o->phase of
 * o->workload, or of any workload) but a cold one: the one-file and the fleet gate then judge
 * the cold regime unless --regime was given. */
int gate_lacks_steady(const struct cmp_opts *o, const struct rf_doc *d);
/* gateline.c: the warning of that fallback for d, judging `what` ("the cold regime", "the whole
 * fleet on the cold regime"), into msg: the same words for one file and a fleet. */
void gate_cold_warning(const struct rf_doc *d, const char *phase, const char *what, char *msg,
                       size_t len);

/* gate.c: what a gate compares (its arms, workload, phase: total by default, level, regime), with
 * the sequential plan seq (NULL: fixed-n). */
struct cmp_opts gate_cmp_opts(const struct gate_spec *g, const struct stats_seq_plan *seq);

/* gateline.c: the speedup in compare's convention for a gate line: the speedup, its interval at
 * the level it reached, how it stands to the bound (rel) as a speedup (bound 0: the equivalence
 * margin of c instead); the ratio (named ratio: "t_cand/t_base", "t_new/t_old") in parentheses. */
void gate_print_interval(FILE *out, const struct gate_ctx *c, const char *ratio,
                         const struct stats_interval *iv, const char *rel, double bound);
/* gateline.c: the verdict line of one gated comparison (o the outcome its times give, shown the
 * one printed: o, or what the failed runs made of it; fam its row at the family level), the note
 * after an INCONCLUSIVE one, and the final line. */
void gate_line(const struct gate_ctx *c, const struct cmp_row *row, const struct cmp_row *fam,
               enum gate_outcome o, enum gate_outcome shown, FILE *out);
void gate_note(const struct gate_ctx *c, const struct cmp_row *row, FILE *out);
/* gateline.c: why a comparison whose interval v did not reach its level decides nothing yet
 * ("; the sequential interval reaches only ..."), after its line's interval (c->doc and c->seq
 * those of the judged file). */
void gate_print_undecided(FILE *out, const struct gate_ctx *c, struct gate_iv v);
void gate_summary(const struct gate_ctx *c, enum gate_outcome res, const size_t count[3],
                  enum cmp_regimes regime, FILE *out);

#endif
