/* gate.c - the gate: a margin on t_candidate/t_baseline judged by the whole confidence interval
 * (docs/methodology.md, "The gate"), shared by `allocab gate` and `allocab bench --gate`. */
#include "front/gate/gateint.h"

#include "front/calib/calib.h"
#include "front/compare/compare.h"
#include "common/errmsg.h"
#include "common/status.h"
#include "front/results/results.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cmp_opts gate_cmp_opts(const struct gate_spec *g)
{
	return (struct cmp_opts){.baseline = g->baseline,
	                         .candidate = g->candidate,
	                         .workload = g->workload,
	                         .phase = g->phase ? g->phase : "total",
	                         .conf = g->conf,
	                         .regimes = g->regime};
}

void gate_spec_init(struct gate_spec *g)
{
	*g = (struct gate_spec){.conf = GATE_DEFAULT_CONF, .regime = CMP_REGIMES_STEADY};
}

const char *gate_outcome_name(enum gate_outcome o)
{
	return o == GATE_PASS ? "PASS" : o == GATE_FAIL ? "FAIL" : "INCONCLUSIVE";
}

int gate_outcome_status(enum gate_outcome o)
{
	return o == GATE_PASS ? ST_OK : o == GATE_FAIL ? ST_FAIL : ST_INCONCLUSIVE;
}

/* The speedup convention of compare (CMP_CONVENTION) for a gate line: the speedup, its interval
 * at the level it reached, the bound as a speedup; the ratio t_cand/t_base in parentheses. */
void gate_print_interval(FILE *out, const char *ratio, const struct stats_interval *iv,
                         const char *rel, double bound)
{
	fprintf(out,
	        "speedup %.3fx, %.3g%% CI [%.3f, %.3f] %s %.3fx (%s %.3f [%.3f, %.3f] vs %.3f)",
	        cmp_speedup(iv->est), 100 * iv->level, cmp_speedup(iv->hi), cmp_speedup(iv->lo),
	        rel, 1 / bound, ratio, exp(iv->est), exp(iv->lo), exp(iv->hi), bound);
}

static void print_interval(FILE *out, const struct cmp_report *r, const struct stats_interval *iv,
                           const char *rel, double bound)
{
	gate_print_interval(out, r->paired ? "t_cand/t_base" : "t_new/t_old", iv, rel, bound);
}

enum gate_outcome gate_row_verdict(const struct gate_spec *g, const struct cmp_row *row,
                                   const struct cmp_row *fam, double fam_conf, double m)
{
	if (!row->usable || row->d.level < g->conf - 1e-9)
		return GATE_INCONCLUSIVE;
	if (row->d.hi <= m)
		return GATE_PASS;
	if (fam->usable && fam->d.level >= fam_conf - 1e-9 && fam->d.lo > m)
		return GATE_FAIL;
	return GATE_INCONCLUSIVE;
}

/* One comparison against the bound on t_candidate/t_baseline, printed in one line on out. */
static enum gate_outcome judge_row(const struct gate_spec *g, const struct cmp_report *r,
                                   const struct cmp_row *row, const struct cmp_row *fam,
                                   double fam_conf, size_t k, double bound, FILE *out)
{
	double m = log(bound);
	enum gate_outcome o = gate_row_verdict(g, row, fam, fam_conf, m);
	int short_level = row->usable && row->d.level < g->conf - 1e-9;
	char n[64];

	if (!out)
		return o;
	if (r->paired)
		snprintf(n, sizeof n, "%zu", row->n);
	else
		snprintf(n, sizeof n, "%zu+%zu", row->n_base, row->n_cand);
	fprintf(out, "%-12s %s/%s %s %s ", gate_outcome_name(o),
	        row->workload ? row->workload : "geomean", row->phase, rf_regime_name(row->regime),
	        row->candidate);
	if (r->paired)
		fprintf(out, "vs %s: ", row->baseline);
	else
		fprintf(out, "of %s vs %s: ", r->cand->path, r->base->path);
	if (!row->usable) {
		fprintf(out, "insufficient data (%s usable rounds; at least 2 needed)\n", n);
		return o;
	}
	if (o == GATE_FAIL)
		print_interval(out, r, &fam->d, "<", bound);
	else
		print_interval(out, r, &row->d,
		               short_level      ? "undecided vs"
		               : o == GATE_PASS ? ">="
		               : row->d.lo > m  ? "<"
		                                : "straddles",
		               bound);
	fprintf(out, ", n %s", n);
	if (short_level)
		fprintf(out,
		        "; the interval reaches only %.3g%% confidence, below the %g%% asked: "
		        "more rounds needed",
		        100 * row->d.level, 100 * g->conf);
	else if (o == GATE_INCONCLUSIVE && row->d.lo > m)
		fprintf(
		    out,
		    "; not FAIL: with %zu comparisons gated FAIL needs the whole %.3g%% interval "
		    "(Bonferroni) below %.3fx, and it reaches %.3fx",
		    k, 100 * fam->d.level, 1 / bound, cmp_speedup(fam->d.lo));
	fprintf(out, "\n");
	return o;
}

static void describe_rule(const struct gate_spec *g, const struct cmp_report *r, double bound,
                          char *buf, size_t len)
{
	const char *dir = g->slowdown ? "slower" : "faster", *most = g->slowdown ? "most" : "least";

	if (g->against)
		snprintf(
		    buf, len,
		    "%s of %s at %s %g%% %s than in %s: speedup >= %.4gx (t_new/t_old <= %.4g)",
		    g->candidate ? g->candidate : "every arm", r->cand->path, most, g->pct, dir,
		    r->base->path, 1 / bound, bound);
	else
		snprintf(buf, len,
		         "%s at %s %g%% %s than %s: speedup >= %.4gx (t_candidate/t_baseline <= "
		         "%.4g)",
		         g->candidate, most, g->pct, dir, r->baseline, 1 / bound, bound);
}

/* For an INCONCLUSIVE paired comparison: how far its estimate lies from the margin, the smallest
 * distance its rounds can resolve (MDE at CALIB_POWER) and the rounds that distance needs. One
 * line on out. */
static void distance_note(const struct gate_spec *g, const struct cmp_report *r,
                          const struct cmp_row *row, double bound, FILE *out)
{
	double dist = fabs(row->d.est - log(bound)), alpha = 1 - g->conf;
	double mde = stats_mde(row->sd, row->n, alpha, CALIB_POWER);
	size_t need;

	if (!out || !r->paired || !row->usable || !(row->sd > 0) || row->d.level < g->conf - 1e-9)
		return;
	fprintf(out, "note: %s/%s %s %s: the estimate lies %.2f%% from the margin; ",
	        row->workload ? row->workload : "geomean", row->phase, rf_regime_name(row->regime),
	        row->candidate, calib_pct(dist));
	if (isfinite(mde))
		fprintf(out,
		        "%zu rounds resolve about %.2f%% (%.0f%% power, sd of log ratios %.3g)",
		        row->n, calib_pct(mde), 100 * CALIB_POWER, row->sd);
	else
		fprintf(out, "%zu rounds resolve no distance at this level", row->n);
	need = dist > 0 ? stats_rounds_needed(row->sd, dist, alpha, CALIB_POWER) : 0;
	if (need == 0 || need > 1000)
		fprintf(out,
		        "; the estimate is too close to the margin for more rounds to decide it "
		        "soon: the true effect is about the margin's size\n");
	else if (need <= row->n)
		fprintf(out, "; a few more rounds should decide it if the estimate holds\n");
	else
		fprintf(out, "; about %zu rounds would decide it if the estimate holds\n", need);
}

/* Whether the gate judges this row: the geometric mean with --on geomean (when the report has
 * one), else every workload's row. */
static int gated(const struct gate_spec *g, const struct cmp_row *row, int any_geomean)
{
	if (g->on_geomean && any_geomean)
		return row->workload == NULL;
	return row->workload != NULL;
}

static void summary_line(FILE *out, const struct gate_spec *g, enum gate_outcome res,
                         const size_t count[3], size_t judged, double fam_conf, const char *rule,
                         enum cmp_regimes regime)
{
	fprintf(out,
	        "gate: %s (%zu pass, %zu fail, %zu inconclusive; %s; PASS needs the whole "
	        "%g%% interval (or more, as each line shows) of each comparison within the margin",
	        gate_outcome_name(res), count[GATE_PASS], count[GATE_FAIL],
	        count[GATE_INCONCLUSIVE], rule, 100 * g->conf);
	if (judged > 1)
		fprintf(out,
		        ", FAIL the whole %.3g%% interval of one beyond it (Bonferroni over %zu)",
		        100 * fam_conf, judged);
	else
		fprintf(out, ", FAIL the whole interval beyond it");
	fprintf(out, "; on %s, %s regime)\n",
	        g->on_geomean ? "the geometric mean" : "each workload",
	        regime == CMP_REGIMES_COLD ? "cold" : "steady");
}

/* Without --regime, a document that measured the cold regime only (one repetition per run, e.g.
 * written before regimes existed), or only for other phases than the one judged (a program's
 * total, a phase it ran once), is judged on cold; --regime steady refuses it. Returns the
 * document that lacks the steady regime when it fell back, else NULL. */
static const struct rf_doc *cold_only_fallback(struct cmp_opts *o, const struct rf_doc *old,
                                               const struct rf_doc *cand)
{
	const struct rf_doc *lacks =
	    !rf_phase_measured(cand, o->workload, o->phase, RF_STEADY)         ? cand
	    : old && !rf_phase_measured(old, o->workload, o->phase, RF_STEADY) ? old
	                                                                       : NULL;

	if (!lacks || !lacks->has_regime[RF_COLD])
		return NULL;
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
	char why[1024], line[1200];

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
	snprintf(line, sizeof line, "no verified rounds for %s: %s", arm, why);
	if (out)
		fprintf(out, "gate: FAIL: %s\n", line);
	if (warn && warn != out)
		fprintf(warn, "allocab: gate: %s\n", line);
	return 1;
}

/* Judges one loaded document (cand) against its baseline arm or against OLD into *verdict.
 * Returns 0 or -1 (err set). */
static int judge(const struct gate_spec *g, struct rf_doc *cand, FILE *out, FILE *warn,
                 enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct cmp_opts o = gate_cmp_opts(g);
	struct rf_doc *old = NULL;
	struct cmp_report *r = NULL, *fam = NULL;
	double bound = g->slowdown ? 1 + g->pct / 100 : 1 - g->pct / 100;
	size_t count[3] = {0}, judged = 0;
	char rule[512];

	if (g->against && rf_load(g->against, &old, err, errlen) != ST_OK)
		return -1;
	const struct rf_doc *cold_only = g->regime_given ? NULL : cold_only_fallback(&o, old, cand);
	if (cmp_build(old ? old : cand, old ? cand : NULL, &o, &r, err, errlen) != ST_OK) {
		rf_free(old);
		return -1;
	}
	if (cold_only && warn) {
		char msg[1024];
		if (cold_only->has_regime[RF_STEADY])
			snprintf(msg, sizeof msg,
			         "%s: phase %s has no steady times (a program's total, or a phase "
			         "it ran once): judging the cold regime (--phase names a repeated "
			         "phase)",
			         cold_only->path, o.phase);
		else
			snprintf(msg, sizeof msg,
			         "%s measured %s: judging the cold regime (give --regime to "
			         "choose; steady needs a bench with --reps auto, the default)",
			         cold_only->path, rf_regimes_measured(cold_only));
		errmsg_warn(warn, "gate", msg);
	}
	for (size_t i = 0; warn && i < r->nwarn; i++)
		if ((long)i != r->verdict_warning)
			errmsg_warn(warn, "gate", r->warn[i]);
	int any_geomean = 0;
	for (size_t i = 0; i < r->nrows; i++)
		any_geomean |= r->rows[i].workload == NULL;
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].workload && no_pairs(r, &r->rows[i], out, warn)) {
			cmp_free(r);
			rf_free(old);
			*verdict = GATE_FAIL;
			return 0;
		}
	for (size_t i = 0; i < r->nrows; i++)
		judged += gated(g, &r->rows[i], any_geomean);
	double fam_conf = judged > 1 ? 1 - (1 - g->conf) / (double)judged : g->conf;
	if (judged > 1) {
		o.conf = fam_conf;
		if (cmp_build(old ? old : cand, old ? cand : NULL, &o, &fam, err, errlen) !=
		        ST_OK ||
		    fam->nrows != r->nrows) {
			if (fam && fam->nrows != r->nrows)
				errmsg_fail(err, errlen, "the family-level comparison differs");
			cmp_free(r);
			cmp_free(fam);
			rf_free(old);
			return -1;
		}
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!gated(g, row, any_geomean))
			continue;
		enum gate_outcome v =
		    judge_row(g, r, row, fam ? &fam->rows[i] : row, fam_conf, judged, bound, out);
		count[v]++;
		if (v == GATE_INCONCLUSIVE)
			distance_note(g, r, row, bound, out);
	}
	describe_rule(g, r, bound, rule, sizeof rule);
	enum gate_outcome res = count[GATE_FAIL]                      ? GATE_FAIL
	                        : count[GATE_INCONCLUSIVE] || !judged ? GATE_INCONCLUSIVE
	                                                              : GATE_PASS;
	if (out)
		summary_line(out, g, res, count, judged, fam_conf, rule, o.regimes);
	cmp_free(r);
	cmp_free(fam);
	rf_free(old);
	*verdict = res;
	return 0;
}

int gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
                   enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct rf_doc *d = rf_from_json(bench, "the bench document", err, errlen);
	int rc;

	if (!d)
		return -1;
	rc = judge(g, d, out, NULL, verdict, err, errlen);
	rf_free(d);
	return rc;
}

int gate_spec_judge_file(const struct gate_spec *g, const char *path, FILE *out, FILE *warn,
                         enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct rf_doc *d;
	int rc;

	if (rf_load(path, &d, err, errlen) != ST_OK)
		return -1;
	rc = judge(g, d, out, warn, verdict, err, errlen);
	rf_free(d);
	return rc;
}
