/* gatefleet.c - the gate on a fleet of machines (gate.h): each gated comparison judged on its
 * pooled interval (random effects, front/fleet/fleet.h) or on every machine's own interval, with
 * the same three outcomes and the same Bonferroni rule for FAIL as one file (docs/fleet.md, "The
 * gate"). */
#include "front/gate/gateint.h"

#include "common/errmsg.h"
#include "common/status.h"
#include "front/fleet/fleet.h"
#include "front/results/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct fleet_gate {
	const struct gate_spec *g;
	/* the rule of one file's gate; fixed-n for the pooled interval, each machine's own plan
	 * (judge_machine) for its own */
	struct gate_ctx ctx;
	const struct fleet_report *f, *fam; /* fam: each machine's intervals at the family level */
	double bound, m, fam_conf;
	enum cmp_regimes regime; /* the regime judged (g->regime, or cold by the fallback) */
	size_t judged, count[3];
	FILE *out;
};

static int gated(const struct gate_spec *g, const struct fleet_row *row, int any_geomean)
{
	if (g->on_geomean && any_geomean)
		return row->workload == NULL;
	return row->workload != NULL;
}

static void line_head(const struct fleet_gate *fg, enum gate_outcome o, const struct fleet_row *row,
                      const char *machine)
{
	char name[256];

	fprintf(fg->out, "%-12s %s %s %s vs %s", gate_outcome_name(o),
	        fleet_row_name(row, name, sizeof name), rf_regime_name(row->regime), row->candidate,
	        row->baseline);
	if (machine)
		fprintf(fg->out, " on %s: ", machine);
	else if (row->sessions_of)
		fprintf(fg->out, ", pooled over %zu sessions of machine %s: ", row->nunits,
		        row->sessions_of);
	else
		fprintf(fg->out, ", pooled over %zu of %zu machines: ", row->nunits, fg->f->nunits);
}

/* A machine's cell that cannot be judged: FAIL without a single usable round (a failed setup, as
 * for one file), else INCONCLUSIVE (missing, not poolable). Prints the line when machine-wise. */
static enum gate_outcome gap_verdict(const struct fleet_cell *c)
{
	return c->row && c->row->n == 0 ? GATE_FAIL : GATE_INCONCLUSIVE;
}

static void gap_reason(const struct fleet_cell *c, char *buf, size_t len)
{
	if (c->row && c->row->n == 0)
		snprintf(buf, len, "no verified rounds for %s or %s", c->row->candidate,
		         c->row->baseline);
	else
		snprintf(buf, len, "%s", c->why);
}

static enum gate_outcome judge_pooled(struct fleet_gate *fg, const struct fleet_row *row)
{
	const struct fleet_report *f = fg->f;
	enum gate_outcome o = GATE_INCONCLUSIVE;
	struct stats_interval iv = {row->meta.mu, row->meta.lo, row->meta.hi, row->meta.level};
	double flo = NAN, fhi = NAN;
	char why[256];
	size_t gaps = 0, copies = 0;
	struct gate_failures fl = {0};
	enum gate_outcome shown;

	for (size_t i = 0; i < f->nm; i++)
		if (!row->cells[i].pooled && !row->cells[i].copy) {
			gaps++;
			if (gap_verdict(&row->cells[i]) == GATE_FAIL)
				o = GATE_FAIL;
		}
	if (!gaps && row->has_meta &&
	    (row->meta.hi <= fg->m || gate_equivalent(&fg->ctx, (struct gate_iv){&iv, 0})))
		o = GATE_PASS;
	else if (!gaps && row->has_meta && fleet_pooled_at(row, fg->fam_conf, &flo, &fhi) == 0 &&
	         flo > gate_fail_bound(&fg->ctx))
		o = GATE_FAIL;
	for (size_t i = 0; i < f->nm; i++)
		if (row->cells[i].row && !row->cells[i].copy)
			gate_count_failures(f->m[i].doc, f->m[i].doc, row->cells[i].row, &fl);
	shown = gate_failure_rule(o, &fl);
	if (!fg->out)
		return shown;
	line_head(fg, shown, row, NULL);
	if (row->has_meta) {
		struct stats_interval fam = {row->meta.mu, flo, fhi, fg->fam_conf};
		gate_print_interval(fg->out, &fg->ctx, "t_cand/t_base",
		                    o == GATE_FAIL && !gaps ? &fam : &iv,
		                    o == GATE_PASS             ? ">="
		                    : o == GATE_FAIL && !gaps  ? "<"
		                    : row->meta.lo > fg->m     ? "<"
		                                               : "straddles",
		                    fg->bound);
		fprintf(fg->out, "; tau %.3g, I^2 %.0f%%", row->meta.tau, 100 * row->meta.i2);
	} else {
		fprintf(fg->out, "fewer than two machines to pool");
	}
	for (size_t i = 0; i < f->nm; i++)
		if (!row->cells[i].pooled && !row->cells[i].copy) {
			gap_reason(&row->cells[i], why, sizeof why);
			fprintf(fg->out, "; %s not pooled: %s", f->m[i].label, why);
		}
	for (size_t i = 0; i < f->nm; i++)
		copies += row->cells[i].copy;
	if (copies)
		fprintf(fg->out, "; %zu file%s repeating another's measurements counted once", copies,
		        copies == 1 ? "" : "s");
	if (gaps && o != GATE_FAIL)
		fprintf(fg->out, "; a fleet with a machine left out is never PASS");
	fprintf(fg->out, "\n");
	gate_print_failures(fg->out,
	                    &(struct cmp_row){.candidate = row->candidate, .baseline = row->baseline},
	                    &fl);
	return shown;
}

static enum gate_outcome judge_machine(struct fleet_gate *fg, size_t ri, size_t m)
{
	const struct fleet_row *row = &fg->f->rows[ri];
	const struct fleet_cell *cell = &row->cells[m];
	const struct cmp_row *r = cell->row, *fam = fg->fam->rows[ri].cells[m].row;
	enum gate_outcome o, shown;
	struct gate_failures fl = {0};
	char why[256];

	if (!r || r->n == 0 || !fam) {
		o = r ? gap_verdict(cell) : GATE_INCONCLUSIVE;
		if (fg->out) {
			gap_reason(cell, why, sizeof why);
			line_head(fg, o, row, fg->f->m[m].label);
			fprintf(fg->out, "%s\n", why);
		}
		return o;
	}
	/* the machine as its own file is judged: by its sequential plan when it has one (its rows
	 * carry its sequential intervals, front/fleet/fleet.c) */
	struct gate_ctx c = fg->ctx;
	c.doc = fg->f->m[m].doc;
	c.r = fg->f->m[m].r;
	c.seq = c.doc->seq.planned ? &c.doc->seq : NULL;
	o = gate_verdict(&c, r, fam);
	gate_count_failures(fg->f->m[m].doc, fg->f->m[m].doc, r, &fl);
	shown = gate_failure_rule(o, &fl);
	if (!fg->out)
		return shown;
	line_head(fg, shown, row, fg->f->m[m].label);
	if (!r->usable) {
		fprintf(fg->out, "insufficient data (%zu usable rounds; at least 2 needed)\n", r->n);
		return o;
	}
	struct gate_iv pass = gate_pass_iv(&c, r), fail = gate_fail_iv(&c, fam);
	gate_print_interval(fg->out, &c, "t_cand/t_base", o == GATE_FAIL ? fail.iv : pass.iv,
	                    o == GATE_PASS           ? ">="
	                    : o == GATE_FAIL         ? "<"
	                    : !gate_reached(pass)    ? "undecided vs"
	                    : pass.iv->lo > fg->m    ? "<"
	                                             : "straddles",
	                    fg->bound);
	fprintf(fg->out, ", n %zu", r->n);
	if (c.seq)
		fprintf(fg->out, ", after round %zu of %zu planned (its own plan)", c.doc->nrounds,
		        c.seq->planned);
	if (!gate_reached(pass))
		gate_print_undecided(fg->out, &c, pass);
	fprintf(fg->out, "\n");
	gate_print_failures(fg->out, r, &fl);
	return shown;
}

static void summary(const struct fleet_gate *fg, enum gate_outcome res)
{
	const struct gate_spec *g = fg->g;

	if (!fg->out)
		return;
	fprintf(fg->out,
	        "gate: %s (%zu pass, %zu fail, %zu inconclusive; %s at %s %g%% %s than %s: speedup "
	        ">= %.4gx (t_candidate/t_baseline <= %.4g); PASS needs the whole %g%% interval "
	        "within the margin, FAIL the whole %.3g%% interval beyond it (Bonferroni over %zu)%s; "
	        "on %s %zu machine%s, %s; %s regime)\n",
	        gate_outcome_name(res), fg->count[GATE_PASS], fg->count[GATE_FAIL],
	        fg->count[GATE_INCONCLUSIVE], g->candidate, g->slowdown ? "most" : "least", g->pct,
	        g->slowdown ? "slower" : "faster", fg->f->rows[0].baseline, 1 / fg->bound,
	        fg->bound, 100 * g->conf, 100 * fg->fam_conf, fg->judged,
	        g->each_machine ? "; a machine whose file has a sequential plan by its sequential "
	                          "interval, as its own gate"
	                        : "",
	        g->each_machine ? "each of the" : "the pooled estimate (random effects) of",
	        g->each_machine ? fg->f->nm : fg->f->nunits,
	        (g->each_machine ? fg->f->nm : fg->f->nunits) == 1 ? "" : "s",
	        g->on_geomean ? "the geometric mean" : "each workload",
	        fg->regime == CMP_REGIMES_COLD ? "cold" : "steady");
}

static void judge(struct fleet_gate *fg)
{
	const struct fleet_report *f = fg->f;
	int any_geomean = 0;

	for (size_t i = 0; i < f->nrows; i++)
		any_geomean |= f->rows[i].workload == NULL;
	for (size_t i = 0; i < f->nrows; i++)
		if (gated(fg->g, &f->rows[i], any_geomean))
			fg->judged += fg->g->each_machine ? f->nm : 1;
	fg->fam_conf = fg->judged > 1 ? 1 - (1 - fg->g->conf) / (double)fg->judged : fg->g->conf;
	fg->ctx.fam_conf = fg->fam_conf;
	fg->ctx.judged = fg->judged;
}

static void verdicts(struct fleet_gate *fg)
{
	const struct fleet_report *f = fg->f;
	int any_geomean = 0;

	for (size_t i = 0; i < f->nrows; i++)
		any_geomean |= f->rows[i].workload == NULL;
	for (size_t i = 0; i < f->nrows; i++) {
		if (!gated(fg->g, &f->rows[i], any_geomean))
			continue;
		if (!fg->g->each_machine)
			fg->count[judge_pooled(fg, &f->rows[i])]++;
		for (size_t m = 0; fg->g->each_machine && m < f->nm; m++)
			fg->count[judge_machine(fg, i, m)]++;
	}
}

/* Without --regime, a fleet with a machine that has no steady time for the judged phase (it
 * measured the cold regime only, or the phase is a program's total or ran once) is judged on
 * cold, as one such file is (gate_lacks_steady), with the same warning. */
static void cold_fallback(const struct gate_spec *g, struct rf_doc **d, size_t n,
                          struct cmp_opts *o, FILE *warn)
{
	char msg[1024];

	for (size_t i = 0; !g->regime_given && i < n; i++)
		if (gate_lacks_steady(o, d[i])) {
			o->regimes = CMP_REGIMES_COLD;
			gate_cold_warning(d[i], o->phase, "the whole fleet on the cold regime", msg,
			                  sizeof msg);
			if (warn)
				errmsg_warn(warn, "gate", msg);
			return;
		}
}

/* Builds the fleet at the gate's level (and, machine-wise, at the family level) and judges it. */
static int judge_docs(const struct gate_spec *g, struct rf_doc **d, size_t n, struct gate_judged *j,
                      char *err, size_t errlen)
{
	FILE *out = j->out, *warn = j->warn;
	enum gate_outcome *verdict = &j->verdict;
	struct cmp_opts o = gate_cmp_opts(g, NULL);
	struct fleet_report *f = NULL, *fam = NULL;
	struct fleet_gate fg = {.g = g, .out = out};

	fg.bound = g->slowdown ? 1 + g->pct / 100 : 1 - g->pct / 100;
	fg.m = log(fg.bound);
	fg.ctx = (struct gate_ctx){.g = g, .bound = fg.bound, .m = fg.m};
	fg.ctx.equiv_pct = g->slowdown ? g->equivalence : NAN;
	fg.ctx.equiv = cmp_equiv_log(fg.ctx.equiv_pct);
	cold_fallback(g, d, n, &o, warn);
	if (fleet_build(d, n, &o, &f, err, errlen) != ST_OK)
		return -1;
	for (size_t i = 0; warn && i < f->nwarn; i++)
		errmsg_warn(warn, "gate", f->warn[i]);
	fg.f = fg.fam = f;
	fg.regime = o.regimes;
	judge(&fg);
	o.conf = fg.fam_conf;
	if (g->each_machine && fg.judged > 1 &&
	    (fleet_build(d, n, &o, &fam, err, errlen) != ST_OK || fam->nrows != f->nrows)) {
		if (fam)
			errmsg_fail(err, errlen, "the family-level fleet differs");
		fleet_free(f);
		fleet_free(fam);
		return -1;
	}
	if (fam)
		fg.fam = fam;
	verdicts(&fg);
	*verdict = fg.count[GATE_FAIL]                           ? GATE_FAIL
	           : fg.count[GATE_INCONCLUSIVE] || !fg.judged ? GATE_INCONCLUSIVE
	                                                       : GATE_PASS;
	summary(&fg, *verdict);
	fleet_free(f);
	fleet_free(fam);
	return 0;
}

int gate_fleet_judge_files(const struct gate_spec *g, const char *const *paths, size_t n,
                           struct gate_judged *j, char *err, size_t errlen)
{
	struct rf_doc **d;
	int rc = 0;

	if (g->against)
		return errmsg_fail(err, errlen,
		                   "--against judges two sessions of one machine; several files are a "
		                   "fleet, one machine each");
	if (!g->candidate)
		return errmsg_fail(err, errlen, "a fleet gate needs --candidate NAME");
	if (!(d = calloc(n, sizeof *d)))
		return errmsg_fail(err, errlen, "out of memory");
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = rf_load(paths[i], &d[i], err, errlen) == ST_OK ? 0 : -1;
	if (rc == 0)
		rc = judge_docs(g, d, n, j, err, errlen);
	for (size_t i = 0; i < n; i++)
		rf_free(d[i]);
	free(d);
	return rc;
}
