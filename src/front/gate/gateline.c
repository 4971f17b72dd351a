/* gateline.c - what the gate writes (docs/methodology.md, "The gate", "Output and exit status"):
 * one line per gated comparison in compare's convention, a note after each INCONCLUSIVE one, and
 * the final line with the rule, the sequential plan and the equivalence margin in force. */
#include "front/gate/gateint.h"

#include "front/calib/calib.h"

#include <math.h>
#include <string.h>

void gate_cold_warning(const struct rf_doc *d, const char *phase, const char *what, char *msg,
                       size_t len)
{
	if (d->has_regime[RF_STEADY])
		snprintf(msg, len,
		         "%s: phase %s has no steady times (a program's total, or a phase it ran "
		         "once): judging %s (--phase names a repeated phase)",
		         d->path, phase, what);
	else
		snprintf(msg, len, "%s measured %s: judging %s%s", d->path, rf_regimes_measured(d),
		         what,
		         rf_kind_has(d, RF_KIND_WHOLE_PROCESS)
		             ? ", the only one a --cmd or --program bench measures unless the program "
		               "marks repeated phases (docs/programs.md, \"Phases your program "
		               "marks\")"
		             : " (give --regime to choose; steady needs a bench with --reps auto, the "
		               "default)");
}

void gate_print_interval(FILE *out, const struct gate_ctx *c, const char *ratio,
                         const struct stats_interval *iv, const char *rel, double bound)
{
	char lv[16], b[64], rb[64];

	if (bound > 0) {
		snprintf(b, sizeof b, "%s %.3fx", rel, 1 / bound);
		snprintf(rb, sizeof rb, "%.3f", bound);
	} else {
		snprintf(b, sizeof b, "within ±%g%% of 1x", c->equiv_pct);
		snprintf(rb, sizeof rb, "[%.3f, %.3f]", exp(-c->equiv), exp(c->equiv));
	}
	fprintf(out, "speedup %.3fx, %s%s%% CI [%.3f, %.3f] %s (%s %.3f [%.3f, %.3f] vs %s)",
	        cmp_speedup(iv->est), c->seq ? "sequential " : "",
	        cmp_level_text(iv->level, lv, sizeof lv), cmp_speedup(iv->hi), cmp_speedup(iv->lo),
	        b, ratio, exp(iv->est), exp(iv->lo), exp(iv->hi), rb);
}

static void print_interval(FILE *out, const struct gate_ctx *c, const struct stats_interval *iv,
                           const char *rel, double bound)
{
	gate_print_interval(out, c, c->r->paired ? "t_cand/t_base" : "t_new/t_old", iv, rel, bound);
}

/* The first round of the plan at which the interval can reach its level at all. */
static size_t first_decision(const struct gate_ctx *c, double conf)
{
	return stats_seq_first_decision(c->seq, 1 - conf);
}

void gate_print_undecided(FILE *out, const struct gate_ctx *c, struct gate_iv v)
{
	char a[16], b[16];

	if (!c->seq) {
		fprintf(out,
		        "; the interval reaches only %s%% confidence, below the %g%% asked: more "
		        "rounds needed",
		        cmp_level_text(v.iv->level, a, sizeof a), 100 * c->g->conf);
	} else if (c->doc->nrounds > c->seq->planned) {
		fprintf(out, "; past the plan of %zu rounds: no sequential decision",
		        c->seq->planned);
	} else if (v.asked >= 1) {
		fprintf(out, "; before the first look (round %zu): no sequential decision",
		        c->seq->first_look);
	} else {
		size_t f = first_decision(c, c->g->conf);
		fprintf(out,
		        "; the sequential interval reaches only %s%%, below the %s%% this look "
		        "needs",
		        cmp_level_text(v.iv->level, a, sizeof a), cmp_level_text(v.asked, b, sizeof b));
		if (f)
			fprintf(out, " (plan of %zu rounds: decisions from round %zu on)",
			        c->seq->planned, f);
		else
			fprintf(out, " (a plan of %zu rounds cannot decide at all)", c->seq->planned);
	}
}

void gate_line(const struct gate_ctx *c, const struct cmp_row *row, const struct cmp_row *fam,
               enum gate_outcome o, enum gate_outcome shown, FILE *out)
{
	const struct cmp_report *r = c->r;
	struct gate_iv pass = gate_pass_iv(c, row), fail = gate_fail_iv(c, fam);
	int equiv_pass = o == GATE_PASS && pass.iv->hi > c->m;
	char n[64], lv[16];

	if (r->paired)
		snprintf(n, sizeof n, "%zu", row->n);
	else
		snprintf(n, sizeof n, "%zu+%zu", row->n_base, row->n_cand);
	fprintf(out, "%-12s %s/%s %s %s ", gate_outcome_name(shown),
	        row->workload ? row->workload : "geomean", row->phase, rf_regime_name(row->regime),
	        row->candidate);
	if (r->paired)
		fprintf(out, "vs %s: ", row->baseline);
	else
		fprintf(out, "of %s vs %s: ", r->cand->path, r->base->path);
	if (!row->usable) {
		fprintf(out, "insufficient data (%s usable rounds; at least 2 needed)\n", n);
		return;
	}
	if (o == GATE_FAIL)
		print_interval(out, c, fail.iv, "<", exp(gate_fail_bound(c)));
	else if (equiv_pass)
		print_interval(out, c, pass.iv, NULL, 0);
	else
		print_interval(out, c, pass.iv,
		               !gate_reached(pass)  ? "undecided vs"
		               : o == GATE_PASS     ? ">="
		               : pass.iv->lo > c->m ? "<"
		                                    : "straddles",
		               c->bound);
	fprintf(out, ", n %s", n);
	if (c->seq)
		fprintf(out, ", after round %zu of %zu planned", c->doc->nrounds, c->seq->planned);
	if (!gate_reached(pass))
		gate_print_undecided(out, c, pass);
	else if (equiv_pass)
		fprintf(out,
		        "; PASS by equivalence: the whole interval lies within ±%g%%, a slowdown "
		        "that counts as none",
		        c->equiv_pct);
	else if (o == GATE_INCONCLUSIVE && pass.iv->lo > gate_fail_bound(c))
		fprintf(out,
		        "; not FAIL: with %zu comparison%s gated FAIL needs the whole %s%s%% "
		        "interval (Bonferroni) below %.3fx, and it reaches %.3fx",
		        c->judged, c->judged == 1 ? "" : "s", c->seq ? "sequential " : "",
		        cmp_level_text(fail.asked < 1 ? fail.asked : fail.iv->level, lv, sizeof lv),
		        exp(-gate_fail_bound(c)), cmp_speedup(fail.iv->lo));
	else if (o == GATE_INCONCLUSIVE && pass.iv->lo > c->m)
		fprintf(out,
		        "; not FAIL: only the interval's lower end (t_cand/t_base %.3f) lies within "
		        "the ±%g%% equivalence margin, its upper end (%.3f) beyond: FAIL needs all "
		        "of it beyond %.3f, PASS by equivalence all of it within",
		        exp(pass.iv->lo), c->equiv_pct, exp(pass.iv->hi), exp(gate_fail_bound(c)));
	fprintf(out, "\n");
}

/* The first measured round from which the candidate's or the baseline's cell of row's workload
 * had left the rounds (adaptive allocation), or 0. */
static size_t left_from(const struct gate_ctx *c, const struct cmp_row *row)
{
	int w = row->workload ? rf_workload(c->doc, row->workload) : -1;
	int arms[2] = {rf_arm(c->doc, row->candidate), rf_arm(c->doc, row->baseline)};

	if (w < 0 || !c->doc->nleft)
		return 0;
	for (size_t i = 0; i < c->doc->nrounds; i++)
		for (int k = 0; k < 2; k++)
			if (arms[k] >= 0 && rf_run(c->doc, i, (size_t)arms[k], (size_t)w)->left)
				return i + 1;
	return 0;
}

/* For an INCONCLUSIVE paired comparison: how far its estimate lies from the margin, the smallest
 * distance its rounds (or its plan) can resolve at CALIB_POWER, and the rounds that distance
 * needs. One line; a second when its cell left the rounds under adaptive allocation, which
 * decided it against no difference, not against this gate's margin: more rounds of that bench
 * never come to it. */
void gate_note(const struct gate_ctx *c, const struct cmp_row *row, FILE *out)
{
	size_t left = c->r->paired && row->usable ? left_from(c, row) : 0;

	if (left)
		fprintf(out,
		        "note: %s/%s %s %s: its cell left the rounds from measured round %zu "
		        "(adaptive allocation decided it faster, slower or equivalent against 1x, "
		        "not against this margin), so more rounds of this bench never come to it; "
		        "to decide the margin, bench it with --gate and this rule, or with "
		        "--allocation none\n",
		        row->workload ? row->workload : "geomean", row->phase,
		        rf_regime_name(row->regime), row->candidate, left);
	double dist = fabs(row->d.est - c->m), alpha = stats_seq_spent(c->seq, 1 - c->g->conf);
	size_t plan = c->seq ? c->seq->planned : row->n;
	double mde = c->seq ? stats_seq_mde(row->sd, plan, alpha, CALIB_POWER)
	                    : stats_mde(row->sd, row->n, alpha, CALIB_POWER);
	size_t need;

	if (!c->r->paired || !row->usable || !(row->sd > 0) ||
	    !gate_reached(gate_pass_iv(c, row)))
		return;
	fprintf(out, "note: %s/%s %s %s: the estimate lies %.2f%% from the margin; ",
	        row->workload ? row->workload : "geomean", row->phase, rf_regime_name(row->regime),
	        row->candidate, calib_pct(dist));
	if (isfinite(mde))
		fprintf(out, "%s%zu rounds resolve%s about %.2f%% (%.0f%% power, sd of log ratios %.3g)",
		        c->seq ? "a sequential plan of " : "", plan, c->seq ? "s" : "",
		        calib_pct(mde), 100 * CALIB_POWER, row->sd);
	else
		fprintf(out, "%zu rounds resolve no distance at this level", plan);
	need = dist <= 0        ? 0
	       : c->seq ? stats_seq_rounds_needed(row->sd, dist, alpha, CALIB_POWER)
	                : stats_rounds_needed(row->sd, dist, alpha, CALIB_POWER);
	if (need == 0 || need > 1000)
		fprintf(out,
		        "; the estimate is too close to the margin for more rounds to decide it "
		        "soon: the true effect is about the margin's size\n");
	else if (need <= plan && (!c->seq || c->doc->nrounds < plan))
		fprintf(out, "; a few more rounds should decide it if the estimate holds\n");
	else if (c->seq)
		fprintf(out, "; a bench planned for about %zu rounds would decide it if the estimate "
		             "holds\n",
		        need);
	else
		fprintf(out, "; about %zu rounds would decide it if the estimate holds\n", need);
}

static void describe_rule(const struct gate_ctx *c, char *buf, size_t len)
{
	const struct gate_spec *g = c->g;
	const char *dir = g->slowdown ? "slower" : "faster", *most = g->slowdown ? "most" : "least";
	const struct cmp_report *r = c->r;

	if (g->against)
		snprintf(
		    buf, len,
		    "%s of %s at %s %g%% %s than in %s: speedup >= %.4gx (t_new/t_old <= %.4g)",
		    g->candidate ? g->candidate : "every arm", r->cand->path, most, g->pct, dir,
		    r->base->path, 1 / c->bound, c->bound);
	else
		snprintf(buf, len,
		         "%s at %s %g%% %s than %s: speedup >= %.4gx (t_candidate/t_baseline <= "
		         "%.4g)",
		         g->candidate, most, g->pct, dir, r->baseline, 1 / c->bound, c->bound);
}

/* The sequential rule in force at this look: the plan, the looks so far, the levels asked. */
static void sequential_text(FILE *out, const struct gate_ctx *c)
{
	const struct stats_seq_plan *p = c->seq;
	size_t n = c->doc->nrounds;
	double a = stats_seq_alpha(p, n, 1 - c->g->conf), af = stats_seq_alpha(p, n, 1 - c->fam_conf);
	double spent = stats_seq_spent(p, 1 - c->g->conf);
	char x[16], y[16];

	fprintf(out,
	        "; sequential: after round %zu of the %zu planned, %zu look%s from round %zu on; "
	        "O'Brien-Fleming boundary under continuous monitoring, c = %.4f: this look's "
	        "interval at 1 - 2(1 - Phi(c sqrt(%zu/%zu)))",
	        n, p->planned, n >= p->first_look ? n - p->first_look + 1 : 0,
	        n == p->first_look ? "" : "s", p->first_look, stats_seq_boundary(spent),
	        p->planned, n);
	if (a > 0)
		fprintf(out, " = %s%%", cmp_level_text(1 - a, x, sizeof x));
	if (c->judged > 1 && af > 0)
		fprintf(out, ", FAIL's at %s%%", cmp_level_text(1 - af, y, sizeof y));
	if (spent < 1 - c->g->conf)
		fprintf(out,
		        " (c for alpha %.4g: this stage of an extendable plan spends %g%% of the "
		        "%g%% error, the stages after it the rest)",
		        spent, 100 * p->share, 100 * (1 - c->g->conf));
}

void gate_summary(const struct gate_ctx *c, enum gate_outcome res, const size_t count[3],
                  enum cmp_regimes regime, FILE *out)
{
	char rule[512], lv[16];

	describe_rule(c, rule, sizeof rule);
	fprintf(out, "gate: %s (%zu pass, %zu fail, %zu inconclusive; %s; PASS needs the whole ",
	        gate_outcome_name(res), count[GATE_PASS], count[GATE_FAIL],
	        count[GATE_INCONCLUSIVE], rule);
	if (c->seq && stats_seq_spent(c->seq, 1) < 1)
		fprintf(out,
		        "sequential interval (%g%% over every look of the plan and its extensions, "
		        "%s%% over this stage's)",
		        100 * c->g->conf,
		        cmp_level_text(1 - stats_seq_spent(c->seq, 1 - c->g->conf), lv, sizeof lv));
	else if (c->seq)
		fprintf(out, "sequential interval (%g%% over every look of the plan)", 100 * c->g->conf);
	else
		fprintf(out, "%g%% interval (or more, as each line shows)", 100 * c->g->conf);
	fprintf(out, " of each comparison within the margin");
	if (!isnan(c->equiv))
		fprintf(out, " or within ±%g%% (equivalent)", c->equiv_pct);
	if (c->judged > 1)
		fprintf(out, ", FAIL the whole %s interval of one beyond it (%s%%, Bonferroni over %zu)",
		        c->seq ? "sequential" : "family", cmp_level_text(c->fam_conf, lv, sizeof lv),
		        c->judged);
	else
		fprintf(out, ", FAIL the whole interval beyond it");
	if (c->seq)
		sequential_text(out, c);
	fprintf(out, "; on %s, %s regime)\n",
	        c->g->on_geomean ? "the geometric mean" : "each workload",
	        regime == CMP_REGIMES_COLD ? "cold" : "steady");
}
