/* calibrate.c - the analysis behind `allocab calibrate` and the allocab-calibration/1 file it
 * writes (read back by calibfile.c): spread, false positives and drift of A/A log ratios, minimum
 * detectable effects, and the margin check of the gate. Method and file format:
 * docs/calibration.md, docs/results-format.md. */
#include "front/calib/calib.h"

#include "common/prng.h"
#include "front/compare/compare.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double calib_pct(double log_ratio)
{
	return expm1(log_ratio) * 100;
}

double calib_log(double pct)
{
	return log1p(pct / 100);
}

int calib_noise(const double *d, size_t n, double alpha, struct calib_noise *out)
{
	double w;

	if (n < 2 || stats_hl_interval(d, n, 1 - alpha, &out->est) != 0 ||
	    stats_wilcoxon(d, n, &w, &out->p) != 0)
		return -1;
	out->n = n;
	out->sd = stats_sd(d, n);
	out->mad = stats_mad(d, n);
	out->false_positive = out->p < alpha && (out->est.lo > 0 || out->est.hi < 0);
	return 0;
}

int calib_blocks(const double *d, size_t n, size_t size, double alpha, struct calib_blocks *out)
{
	struct calib_noise b;

	if (size < 2)
		return -1;
	out->size = size;
	out->count = n / size;
	out->rejected = 0;
	for (size_t i = 0; i < out->count; i++) {
		if (calib_noise(d + i * size, size, alpha, &b) != 0)
			return -1;
		out->rejected += (size_t)b.false_positive;
	}
	return 0;
}

/* The pairwise slopes of x: all n(n-1)/2 of them, or CALIB_MAX_SLOPES pairs i < j drawn with a
 * fixed seed when there are more (randomised Theil-Sen: the median of a uniform sample of the
 * slopes), so that memory and time stay bounded. Returns how many were written. */
static size_t pair_slopes(const double *x, size_t n, double *slopes)
{
	size_t m = n * (n - 1) / 2, k = 0;
	struct prng r;

	if (m <= CALIB_MAX_SLOPES) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				slopes[k++] = (x[j] - x[i]) / (double)(j - i);
		return k;
	}
	prng_seed(&r, CALIB_SLOPE_SEED);
	while (k < CALIB_MAX_SLOPES) {
		size_t i = (size_t)prng_below(&r, n), j = (size_t)prng_below(&r, n);
		if (i == j)
			continue;
		if (i > j) {
			size_t t = i;
			i = j;
			j = t;
		}
		slopes[k++] = (x[j] - x[i]) / (double)(j - i);
	}
	return k;
}

int calib_drift(const double *x, size_t n, struct calib_drift *out)
{
	size_t m = n * (n - 1) / 2;
	double *idx, *slopes;
	int rc = -1;

	if (n < 2)
		return -1;
	if (m > CALIB_MAX_SLOPES)
		m = CALIB_MAX_SLOPES;
	idx = malloc(n * sizeof *idx);
	slopes = malloc(m * sizeof *slopes);
	if (idx && slopes) {
		for (size_t i = 0; i < n; i++)
			idx[i] = (double)i;
		out->slope = stats_median(slopes, pair_slopes(x, n, slopes));
		rc = stats_spearman(idx, x, n, &out->rho, &out->p);
	}
	free(idx);
	free(slopes);
	return rc;
}

double calib_mde_pct(double sd, size_t n, double alpha, double power)
{
	double m = stats_mde(sd, n, alpha, power);

	return isfinite(m) ? calib_pct(m) : m;
}

size_t calib_rounds_for(double sd, double pct, double alpha, double power)
{
	if (!(pct > 0))
		return 0;
	return stats_rounds_needed(sd, calib_log(pct), alpha, power);
}

size_t calib_seq_rounds_for(double sd, double pct, double alpha, double power)
{
	if (!(pct > 0))
		return 0;
	return stats_seq_rounds_needed(sd, calib_log(pct), alpha, power);
}

double calib_equiv_pct(double sd, size_t n, double alpha, double power)
{
	double m = stats_equiv_margin(sd, n, alpha, power);

	return isfinite(m) ? calib_pct(m) : m;
}

/* ---- analysis of an A/A document ---- */

void calib_results_free(struct calib_result *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i].d);
	free(r);
}

static int errf(char *err, size_t errlen, const char *what, const char *name)
{
	snprintf(err, errlen, what, name);
	return -1;
}

/* The arms of an A/A analysis: arm ib over arm ia, at phase index p. */
struct pair_at {
	size_t ia, ib;
	int p;
};

/* The log ratios of workload w at phase at->p, arm at->ib over arm at->ia, in round order. */
static int analyze_one(const struct rf_doc *doc, size_t w, const struct pair_at *at,
                       const struct calib_plan *plan, struct calib_result *r)
{
	const size_t ia = at->ia, ib = at->ib;
	const int p = at->p;
	double *la = malloc((doc->nrounds + 1) * sizeof *la);
	double *ta = malloc((doc->nrounds + 1) * sizeof *ta);
	double *wall = malloc((doc->nrounds + 1) * sizeof *wall);
	size_t nwall = 0;
	int rc = -1;

	r->d = malloc((doc->nrounds + 1) * sizeof *r->d);
	if (!la || !ta || !wall || !r->d)
		goto out;
	for (size_t i = 0; i < doc->nrounds; i++) {
		const struct rf_run *a = rf_run(doc, i, ia, w);
		const struct rf_run *b = rf_run(doc, i, ib, w);

		if (!a->present || !b->present || !a->ok || !b->ok || !(rf_time(a, p) > 0) ||
		    !(rf_time(b, p) > 0))
			continue;
		r->d[r->n] = stats_log_ratio(rf_time(b, p), rf_time(a, p));
		ta[r->n] = rf_time(a, p);
		la[r->n++] = log(rf_time(a, p));
		if (isfinite(a->wall_ns) && isfinite(b->wall_ns))
			wall[nwall++] = (a->wall_ns + b->wall_ns) / 1e9;
	}
	r->median_a_ns = r->n ? stats_median(ta, r->n) : NAN;
	r->round_s = nwall ? stats_median(wall, nwall) : NAN;
	if (r->n < 2) {
		rc = 0; /* reported as too few rounds */
		goto out;
	}
	if (calib_noise(r->d, r->n, plan->alpha, &r->noise) != 0 ||
	    calib_blocks(r->d, r->n, plan->block, plan->alpha, &r->blocks) != 0 ||
	    calib_drift(r->d, r->n, &r->drift_ratio) != 0 ||
	    calib_drift(la, r->n, &r->drift_time) != 0)
		goto out;
	rc = 0;
out:
	free(la);
	free(ta);
	free(wall);
	return rc;
}

int calib_analyze(const struct rf_doc *doc, const struct calib_ask *ask, struct calib_result **out,
                  size_t *nout, char *err, size_t errlen)
{
	const char *a = ask->a, *b = ask->b, *phase = ask->phase;
	int ia = rf_arm(doc, a), ib = rf_arm(doc, b);
	struct calib_result *r;
	size_t n = 0;

	if (ia < 0)
		return errf(err, errlen, "arm '%s' is not in the results", a);
	if (ib < 0)
		return errf(err, errlen, "arm '%s' is not in the results", b);
	if (!(r = calloc(doc->nwl + 1, sizeof *r)))
		return errf(err, errlen, "%s", "out of memory");
	for (size_t w = 0; w < doc->nwl; w++) {
		int p = rf_phase(&doc->wl[w], phase ? phase : "total");

		if (p < 0)
			continue;
		r[n].workload = doc->wl[w].name;
		r[n].phase = doc->wl[w].phases[p];
		r[n].time = doc->wl[w].time;
		const struct pair_at at = {(size_t)ia, (size_t)ib, p};
		if (analyze_one(doc, w, &at, ask->plan, &r[n++]) != 0) {
			calib_results_free(r, n);
			return errf(err, errlen, "%s", "out of memory");
		}
	}
	if (n == 0) {
		calib_results_free(r, n);
		return errf(err, errlen, "no workload has a phase '%s'", phase ? phase : "total");
	}
	*out = r;
	*nout = n;
	return 0;
}

/* ---- the allocab-calibration/1 document ---- */

static void add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *mde_row(const struct calib_result *r, const struct calib_plan *plan, size_t n,
                      double budget_s)
{
	cJSON *o = cJSON_CreateObject();

	if (budget_s > 0)
		add_num(o, "budget_s", budget_s);
	cJSON_AddNumberToObject(o, "rounds", (double)n);
	add_num(o, "pct", calib_mde_pct(r->noise.sd, n, plan->alpha, plan->power));
	add_num(o, "equivalence_pct", calib_equiv_pct(r->noise.sd, n, plan->alpha, plan->power));
	return o;
}

/* Rounds of a bench like this one (same workloads, two arms) that fit in budget_s. */
static size_t rounds_in(double budget_s, double round_s)
{
	return round_s > 0 && budget_s > 0 ? (size_t)floor(budget_s / round_s) : 0;
}

static cJSON *result_json(const struct calib_result *r, const struct calib_plan *plan,
                          double suite_round_s)
{
	cJSON *o = cJSON_CreateObject(), *d, *mde, *need, *blk, *drift;

	cJSON_AddStringToObject(o, "workload", r->workload);
	cJSON_AddStringToObject(o, "phase", r->phase);
	cJSON_AddStringToObject(o, "time", rf_time_name(r->time));
	cJSON_AddNumberToObject(o, "rounds", (double)r->n);
	add_num(o, "median_ns", r->median_a_ns);
	d = cJSON_AddArrayToObject(o, "log_ratios");
	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(d, cJSON_CreateNumber(r->d[i]));
	if (r->n < 2)
		return o;
	add_num(o, "sd", r->noise.sd);
	add_num(o, "mad", r->noise.mad);
	add_num(o, "estimate", r->noise.est.est);
	add_num(o, "lo", r->noise.est.lo);
	add_num(o, "hi", r->noise.est.hi);
	add_num(o, "level", r->noise.est.level);
	add_num(o, "p", r->noise.p);
	cJSON_AddBoolToObject(o, "false_positive", r->noise.false_positive);
	blk = cJSON_AddObjectToObject(o, "blocks");
	cJSON_AddNumberToObject(blk, "size", (double)r->blocks.size);
	cJSON_AddNumberToObject(blk, "count", (double)r->blocks.count);
	cJSON_AddNumberToObject(blk, "rejected", (double)r->blocks.rejected);
	drift = cJSON_AddObjectToObject(o, "drift");
	add_num(drift, "ratio_rho", r->drift_ratio.rho);
	add_num(drift, "ratio_p", r->drift_ratio.p);
	add_num(drift, "ratio_slope", r->drift_ratio.slope);
	add_num(drift, "time_rho", r->drift_time.rho);
	add_num(drift, "time_p", r->drift_time.p);
	add_num(drift, "time_slope_pct", calib_pct(r->drift_time.slope));
	mde = cJSON_AddArrayToObject(o, "mde");
	cJSON_AddItemToArray(mde, mde_row(r, plan, r->n, 0));
	for (size_t i = 0; i < 4 && plan->for_rounds[i]; i++)
		cJSON_AddItemToArray(mde, mde_row(r, plan, plan->for_rounds[i], 0));
	if (plan->for_budget_s > 0)
		cJSON_AddItemToArray(mde,
		                     mde_row(r, plan, rounds_in(plan->for_budget_s, suite_round_s),
		                             plan->for_budget_s));
	need = cJSON_AddArrayToObject(o, "rounds_needed");
	for (size_t i = 0; i < plan->neffects; i++) {
		cJSON *e = cJSON_CreateObject();
		size_t k =
		    calib_rounds_for(r->noise.sd, plan->effects[i], plan->alpha, plan->power);
		size_t q =
		    calib_seq_rounds_for(r->noise.sd, plan->effects[i], plan->alpha, plan->power);

		cJSON_AddNumberToObject(e, "effect_pct", plan->effects[i]);
		add_num(e, "rounds", k ? (double)k : NAN);
		add_num(e, "time_s", k ? (double)k * suite_round_s : NAN);
		add_num(e, "sequential_rounds", q ? (double)q : NAN);
		add_num(e, "sequential_time_s", q ? (double)q * suite_round_s : NAN);
		cJSON_AddItemToArray(need, e);
	}
	return o;
}

cJSON *calib_json(const struct calib_result *r, size_t n, const struct calib_plan *plan,
                  double suite_round_s, const cJSON *meta)
{
	cJSON *doc = cJSON_CreateObject(), *m, *wl;

	if (!doc)
		return NULL;
	cJSON_AddStringToObject(doc, "schema", CALIB_SCHEMA);
	cJSON_ArrayForEach(m, meta) cJSON_AddItemToObject(doc, m->string, cJSON_Duplicate(m, 1));
	add_num(doc, "round_s", suite_round_s);
	wl = cJSON_AddArrayToObject(doc, "workloads");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(wl, result_json(&r[i], plan, suite_round_s));
	/* cJSON reports allocation failures only by missing members: check the last ones. */
	if (!wl || cJSON_GetArraySize(wl) != (int)n) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}
