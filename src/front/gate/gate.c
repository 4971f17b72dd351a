/* gate.c - the gate: a margin on t_candidate/t_baseline judged by the whole confidence interval
 * (docs/methodology.md, "The gate"), shared by `allocab gate` and `allocab bench --gate`; the
 * sequential interval when the document's rounds were looked at (docs/methodology.md,
 * "Sequential decisions"). Its rule is gaterule.c, its lines gateline.c. */
#include "front/gate/gateint.h"

#include "front/compare/compare.h"
#include "common/errmsg.h"
#include "common/status.h"
#include "common/utf8.h"
#include "front/results/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cmp_opts gate_cmp_opts(const struct gate_spec *g, const struct stats_seq_plan *seq)
{
	return (struct cmp_opts){.baseline = g->baseline,
	                         .candidate = g->candidate,
	                         .workload = g->workload,
	                         .phase = g->phase ? g->phase : "total",
	                         .conf = g->conf,
	                         .regimes = g->regime,
	                         .per_comparison = 1,
	                         .equivalence = NAN,
	                         .seq = seq};
}

void gate_spec_init(struct gate_spec *g)
{
	*g = (struct gate_spec){
	    .conf = GATE_DEFAULT_CONF, .regime = CMP_REGIMES_STEADY, .equivalence = NAN};
}

/* Whether the gate judges this row: the geometric mean with --on geomean (when the report has
 * one), else every workload's row. */
static int gated(const struct gate_spec *g, const struct cmp_row *row, int any_geomean)
{
	if (g->on_geomean && any_geomean)
		return row->workload == NULL;
	return row->workload != NULL;
}

/* Without --regime, a document that measured the cold regime only (one repetition per run, e.g.
 * written before regimes existed), or only for other phases than the one judged (a program's
 * total, a phase it ran once), is judged on cold (gate_lacks_steady); --regime steady refuses
 * it. Returns the document that lacks the steady regime when it fell back, else NULL. */
static const struct rf_doc *cold_only_fallback(struct cmp_opts *o, const struct rf_doc *old,
                                               const struct rf_doc *cand)
{
	const struct rf_doc *lacks = gate_lacks_steady(o, cand)  ? cand
	                             : old && gate_lacks_steady(o, old) ? old
	                                                               : NULL;

	if (lacks)
		o->regimes = CMP_REGIMES_COLD;
	return lacks;
}

/* Why arm has no ok run in d, in one line: the first failure's reason, else its status and the
 * last line of its stderr. */
static void no_rounds_reason(const struct rf_doc *d, const char *arm, char *buf, size_t len)
{
	for (size_t i = 0; i < d->nfails; i++) {
		const struct rf_fail *f = &d->fails[i];
		const char *tail = f->stderr_tail, *nl = tail ? strrchr(tail, '\n') : NULL;

		if (strcmp(f->arm, arm) != 0)
			continue;
		if (f->reason)
			snprintf(buf, len, "%s: %s", f->status, f->reason);
		else
			snprintf(buf, len, "%s%s%s", f->status, tail ? ": " : "",
			         tail ? (nl ? nl + 1 : tail) : "");
		return;
	}
	snprintf(buf, len, "no run of it was ok");
}

/* A judged comparison without a single usable pair is a failed setup, not missing data: writes
 * "gate: FAIL: no verified rounds for ARM: WHY" to out (and warn) and returns 1. */
static int no_pairs(const struct cmp_report *r, const struct cmp_row *row, FILE *out, FILE *warn)
{
	const struct rf_doc *d = r->cand;
	const char *arm = row->candidate;
	char why[1024], why2[1200], line[1200];

	if (row->n > 0)
		return 0;
	if (row->n_cand > 0 && row->n_base == 0) {
		arm = r->paired ? row->baseline : row->candidate;
		d = r->base;
	}
	if (row->n_cand > 0 && row->n_base > 0)
		snprintf(why, sizeof why, "no round in which both %s and %s ran ok", row->candidate,
		         row->baseline);
	else
		no_rounds_reason(d, arm, why, sizeof why);
	snprintf(why2, sizeof why2, "no verified rounds for %s: %s", arm, why);
	utf8_quote(line, sizeof line, why2);
	if (out)
		fprintf(out, "gate: FAIL: %s\n", line);
	if (warn && warn != out)
		fprintf(warn, "allocab: gate: %s\n", line);
	return 1;
}

/* The comparison a gate judges: cand against old, or (old NULL) cand's arms against its
 * baseline. */
static enum status build_cmp(const struct rf_doc *old, const struct rf_doc *cand,
                             const struct cmp_opts *o, struct cmp_report **r, char *err,
                             size_t errlen)
{
	return cmp_build(old ? old : cand, old ? cand : NULL, o, r, err, errlen);
}

/* The comparison c->r at the family level FAIL reads (c->fam_conf: Bonferroni over the k
 * comparisons gated), when more than one is gated: built again at that level, row for row.
 * Returns 0 or -1 (err set). */
static int family_report(const struct rf_doc *old, const struct gate_ctx *c, struct cmp_opts o,
                         struct cmp_report **fam, char *err, size_t errlen)
{
	o.conf = c->fam_conf;
	if (build_cmp(old, c->doc, &o, fam, err, errlen) != ST_OK)
		return -1;
	if ((*fam)->nrows != c->r->nrows)
		return errmsg_fail(err, errlen, "the family-level comparison differs");
	return 0;
}

/* Judges the gated rows of c->r (their family-level twins in fam, or themselves), writing their
 * lines; returns the gate's verdict. */
static enum gate_outcome judge_rows(struct gate_ctx *c, const struct cmp_report *fam,
                                    int any_geomean, FILE *out, enum cmp_regimes regime)
{
	size_t count[3] = {0};

	for (size_t i = 0; i < c->r->nrows; i++) {
		const struct cmp_row *row = &c->r->rows[i], *frow = fam ? &fam->rows[i] : row;
		if (!gated(c->g, row, any_geomean))
			continue;
		struct gate_failures fl = {0};
		gate_count_failures(c->r->base, c->r->cand, row, &fl);
		enum gate_outcome vt = gate_verdict(c, row, frow), v = gate_failure_rule(vt, &fl);
		/* shared-CPU rounds that disagree with the solo ones never make a PASS */
		if (row->solo_decided || frow->solo_decided)
			v = v == GATE_PASS ? GATE_INCONCLUSIVE : v;
		count[v]++;
		if (out)
			gate_line(c, row, frow, vt, v, out);
		if (out)
			gate_print_failures(out, row, &fl);
		if (out && v == GATE_INCONCLUSIVE)
			gate_note(c, row, out);
		if (out && (row->solo_decided || frow->solo_decided))
			fprintf(out, "    the shared-CPU rounds disagree with the solo rounds: judged on "
			        "the solo rounds, and never PASS (docs/methodology.md, \"Solo anchor "
			        "rounds\")\n");
	}
	enum gate_outcome res = count[GATE_FAIL]                         ? GATE_FAIL
	                        : count[GATE_INCONCLUSIVE] || !c->judged ? GATE_INCONCLUSIVE
	                                                                 : GATE_PASS;
	if (out)
		gate_summary(c, res, count, regime, out);
	return res;
}

/* Judges one loaded document (cand) against its baseline arm or against OLD into j->verdict.
 * Returns 0 or -1 (err set). */
static int judge(const struct gate_spec *g, const struct rf_doc *cand, struct gate_judged *j,
                 char *err, size_t errlen)
{
	FILE *out = j->out, *warn = j->warn;
	const struct stats_seq_plan *seq = cand->seq.planned ? &cand->seq : NULL;
	struct cmp_opts o = gate_cmp_opts(g, seq);
	struct rf_doc *old = NULL;
	struct cmp_report *r = NULL, *fam = NULL;
	struct gate_ctx c = {.g = g, .doc = cand, .seq = seq};
	int rc = 0;

	c.bound = g->slowdown ? 1 + g->pct / 100 : 1 - g->pct / 100;
	c.m = log(c.bound);
	c.equiv_pct = g->slowdown ? cmp_pick_equivalence(g->equivalence, cand, NAN) : NAN;
	c.equiv = cmp_equiv_log(c.equiv_pct);
	if (g->against && rf_load(g->against, &old, err, errlen) != ST_OK)
		return -1;
	const struct rf_doc *cold_only = g->regime_given ? NULL : cold_only_fallback(&o, old, cand);
	if (build_cmp(old, cand, &o, &r, err, errlen) != ST_OK) {
		rf_free(old);
		return -1;
	}
	c.r = r;
	if (cold_only && warn) {
		char msg[1024];
		gate_cold_warning(cold_only, o.phase, "the cold regime", msg, sizeof msg);
		errmsg_warn(warn, "gate", msg);
	}
	for (size_t i = 0; warn && i < r->nwarn; i++)
		if ((long)i != r->verdict_warning)
			errmsg_warn(warn, "gate", r->warn[i]);
	int any_geomean = 0;
	for (size_t i = 0; i < r->nrows; i++)
		any_geomean |= r->rows[i].workload == NULL;
	for (size_t i = 0; i < r->nrows && !c.judged; i++)
		if (r->rows[i].workload && no_pairs(r, &r->rows[i], out, warn))
			c.judged = (size_t)-1;
	if (c.judged == (size_t)-1) {
		j->verdict = GATE_FAIL;
		goto done;
	}
	for (size_t i = 0; i < r->nrows; i++)
		c.judged += gated(g, &r->rows[i], any_geomean);
	c.fam_conf = c.judged > 1 ? 1 - (1 - g->conf) / (double)c.judged : g->conf;
	if (c.judged > 1 && family_report(old, &c, o, &fam, err, errlen) != 0)
		rc = -1;
	else
		j->verdict = judge_rows(&c, fam, any_geomean, out, o.regimes);
done:
	cmp_free(r);
	cmp_free(fam);
	rf_free(old);
	return rc;
}

int gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
                   enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct rf_doc *d = rf_from_json(bench, "the bench document", err, errlen);
	struct gate_judged j = {.out = out};
	int rc;

	if (!d)
		return -1;
	if ((rc = judge(g, d, &j, err, errlen)) == 0) /* the verdict is set when judged */
		*verdict = j.verdict;
	rf_free(d);
	return rc;
}

int gate_spec_judge(const struct gate_spec *g, const struct rf_doc *d, FILE *out,
                    enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct gate_judged j = {.out = out};
	int rc = judge(g, d, &j, err, errlen);

	if (rc == 0) /* the verdict is set when judged */
		*verdict = j.verdict;
	return rc;
}

int gate_spec_judge_file(const struct gate_spec *g, const char *path, struct gate_judged *j,
                         char *err, size_t errlen)
{
	struct rf_doc *d;
	int rc;

	if (rf_load(path, &d, err, errlen) != ST_OK)
		return -1;
	rc = judge(g, d, j, err, errlen);
	rf_free(d);
	return rc;
}
