/* cmpreplay.c - what a comparison of replays says about the recorded program (compare.h): the
 * process replayed, and the prediction of docs/methodology.md, "Does the replay predict the
 * program?", computed from the replay's cold rows and the program's own time. */
#include "front/compare/cmpint.h"

#include "common/errmsg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* P = t_prog / (t_prog - (t_base - t_base / s)): the program's speedup when the replay's saving
 * t_base (1 - 1/s) is taken off the program's time; INFINITY when the saving reaches it. */
static double predict(double t_prog, double t_base, double s)
{
	double left = t_prog - t_base * (1 - 1 / s);

	return left > 0 ? t_prog / left : INFINITY;
}

int cmp_program_time(const struct rf_doc *prog, const char *arm, double *t_ns, const char **used,
                     char *err, size_t errlen)
{
	int a = arm ? rf_arm(prog, arm) : -1;
	double *v;
	size_t n = 0;

	if (!rf_kind_has(prog, RF_KIND_WHOLE_PROCESS))
		return errmsg_fail(err, errlen,
		                   "%s is not a --program or --cmd bench (its mode is %s): it "
		                   "holds no whole-program times",
		                   prog->path, prog->kind->mode);
	if (a < 0)
		a = rf_arm(prog, prog->baseline);
	if (a < 0 || !(v = malloc((prog->nrounds + 1) * sizeof *v)))
		return errmsg_fail(err, errlen, "%s: out of memory", prog->path);
	for (size_t i = 0; i < prog->nrounds; i++) {
		const struct rf_run *run = rf_run(prog, i, (size_t)a, 0);
		if (run->ok && run->t_regime[RF_COLD][0] > 0)
			v[n++] = run->t_regime[RF_COLD][0];
	}
	*t_ns = cmp_median(v, n);
	free(v);
	*used = prog->arms[a];
	if (n == 0)
		return errmsg_fail(err, errlen, "%s: arm %s has no ok measured run", prog->path,
		                   prog->arms[a]);
	return 0;
}

/* The replay of workload name: the document that ran it (the candidate's with two files) and
 * its input, or NULL. */
static const struct rf_input *input_of(const struct cmp_report *r, const char *name)
{
	int w = rf_workload(r->cand, name);

	return w < 0 ? NULL : r->cand->wl[w].input;
}

/* The predictions of x from the usable total rows of its workload in regime g. */
static int predict_rows(const struct cmp_report *r, struct cmp_replay *x, enum rf_regime g)
{
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		struct cmp_prediction *p;
		if (!row->workload || strcmp(row->workload, x->workload) != 0 ||
		    strcmp(row->phase, "total") != 0 || row->regime != g || !row->usable)
			continue;
		p = &x->p[x->n++];
		p->row = row;
		p->est = predict(x->t_prog_ns, x->t_replay_ns, cmp_speedup(row->d.est));
		p->lo = predict(x->t_prog_ns, x->t_replay_ns, cmp_speedup(row->d.hi));
		p->hi = predict(x->t_prog_ns, x->t_replay_ns, cmp_speedup(row->d.lo));
		if (isinf(p->est)) {
			snprintf(
			    x->why_not, sizeof x->why_not,
			    "the replay under %s saves %.3g ms, at least the program's %.3g ms: "
			    "that time cannot be the program's",
			    row->candidate, x->t_replay_ns * (1 - exp(row->d.est)) * 1e-6,
			    x->t_prog_ns * 1e-6);
			x->n = 0;
			return 0;
		}
	}
	if (x->n == 0 && !x->why_not[0])
		snprintf(x->why_not, sizeof x->why_not,
		         "no %s comparison of it has an interval (too few usable rounds)",
		         rf_regime_name(g));
	return 0;
}

/* Fills x for workload wl: the program's time and its source, the baseline's replay time, the
 * predictions, or why there are none. */
static void replay_of(const struct cmp_report *r, const struct cmp_program *prog, const char *wl,
                      struct cmp_replay *x)
{
	const struct cmp_row *base = NULL;

	x->workload = wl;
	x->input = input_of(r, wl);
	x->regime = RF_COLD;
	x->t_prog_ns = x->t_replay_ns = NAN;
	for (size_t i = 0; i < r->nrows && !base; i++)
		if (r->rows[i].workload && strcmp(r->rows[i].workload, wl) == 0 &&
		    strcmp(r->rows[i].phase, "total") == 0 && r->rows[i].regime == RF_COLD)
			base = &r->rows[i];
	if (prog && prog->path) {
		x->t_prog_ns = prog->t_ns;
		x->t_prog_from = prog->path;
		x->t_prog_arm = prog->arm;
	} else if (x->input && x->input->duration_ns > 0) {
		x->t_prog_ns = x->input->duration_ns;
	}
	if (!r->compared[RF_COLD])
		snprintf(x->why_not, sizeof x->why_not,
		         "it rests on the cold regime (the first repetition: a program that runs "
		         "once), which this report does not compare (--regime steady)");
	else if (isnan(x->t_prog_ns))
		snprintf(
		    x->why_not, sizeof x->why_not,
		    "the program's own time is unknown: the trace records no duration for this "
		    "process; give a --program bench of it with --program-results");
	else if (!base || isnan(base->med_regime_base[RF_COLD]))
		snprintf(x->why_not, sizeof x->why_not, "the baseline has no ok cold replay");
	else {
		x->t_replay_ns = base->med_regime_base[RF_COLD];
		predict_rows(r, x, RF_COLD);
	}
}

int cmp_replays(const struct cmp_report *r, const struct cmp_program *prog, struct cmp_replay **out,
                size_t *nout)
{
	const struct rf_doc *d = r->cand;
	struct cmp_replay *x;
	size_t n = 0;

	*out = NULL;
	*nout = 0;
	for (size_t w = 0; w < d->nwl; w++)
		n += d->wl[w].input != NULL;
	if (n == 0)
		return 0;
	if (!(x = calloc(n, sizeof *x)))
		return -1;
	n = 0;
	for (size_t w = 0; w < d->nwl; w++) {
		int used = 0;
		if (!d->wl[w].input)
			continue;
		for (size_t i = 0; i < r->nrows && !used; i++)
			used =
			    r->rows[i].workload && strcmp(r->rows[i].workload, d->wl[w].name) == 0;
		if (!used)
			continue;
		if (!(x[n].p = calloc(r->nrows + 1, sizeof *x[n].p))) {
			cmp_replays_free(x, n);
			return -1;
		}
		replay_of(r, prog, d->wl[w].name, &x[n++]);
	}
	*out = x;
	*nout = n;
	return 0;
}

void cmp_replays_free(struct cmp_replay *x, size_t n)
{
	for (size_t i = 0; x && i < n; i++)
		free(x[i].p);
	free(x);
}
