/* calibrate.c - the analysis behind `allocab calibrate` and the allocab-calibration/1 file: spread,
 * false positives and drift of A/A log ratios, minimum detectable effects, and the margin check of
 * the gate. Method and file format: docs/calibration.md, docs/results-format.md. */
#include "front/calib/calib.h"

#include "common/errmsg.h"
#include "common/jsonload.h"
#include "common/prng.h"
#include "common/status.h"
#include "common/utf8.h"
#include "front/compare/compare.h"
#include "front/stats/stats.h"

#include <errno.h>
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

/* ---- the calibration file ---- */

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static char *dup_str(const cJSON *v)
{
	return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

void calib_file_free(struct calib_file *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].workload);
		free(c->e[i].phase);
	}
	free(c->e);
	free(c->path);
	free(c->backend);
	free(c->scale);
	free(c->created_utc);
	free(c);
}

static enum status load_fail(struct calib_file *c, enum status status, char *err, size_t errlen,
                             const char *path, const char *problem)
{
	char msg[1024];

	snprintf(msg, sizeof msg, "%s: %s", path, problem);
	utf8_quote(err, errlen, msg);
	calib_file_free(c);
	return status;
}

static int by_entry(const void *x, const void *y)
{
	const struct calib_entry *a = x, *b = y;
	int k = strcmp(a->workload, b->workload);

	return k ? k : strcmp(a->phase, b->phase);
}

/* The first workload and phase calibrated twice (a copy in tmp, c->n entries), or NULL. */
static const struct calib_entry *repeated_entry(const struct calib_file *c, struct calib_entry *tmp)
{
	memcpy(tmp, c->e, c->n * sizeof *tmp);
	qsort(tmp, c->n, sizeof *tmp, by_entry);
	for (size_t i = 1; i < c->n; i++)
		if (by_entry(&tmp[i - 1], &tmp[i]) == 0)
			return &tmp[i];
	return NULL;
}

/* Returns 0, -1 (invalid: reason in why), or -2 (out of memory). */
static int load_entries(struct calib_file *c, const cJSON *arr, char *why, size_t len)
{
	const cJSON *w;
	const struct calib_entry *rep;
	struct calib_entry *tmp;
	size_t i = 0;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
		return errmsg_fail(why, len, "workloads: missing or empty");
	if (!(c->e = calloc((size_t)cJSON_GetArraySize(arr), sizeof *c->e)))
		return -2;
	cJSON_ArrayForEach(w, arr)
	{
		struct calib_entry *e = &c->e[c->n];
		const cJSON *sd = get(w, "sd"), *time = get(w, "time");
		uint64_t rounds;
		double v;

		if (!cJSON_IsString(get(w, "workload")) || !cJSON_IsString(get(w, "phase")) ||
		    !jl_uint(get(w, "rounds"), CALIB_MAX_ROUNDS, &rounds))
			return errmsg_fail(why, len,
			                   "workloads[%zu]: want workload, phase and rounds (an "
			                   "integer in 0..%.0f)",
			                   i, (double)CALIB_MAX_ROUNDS);
		i++;
		if (time && (!cJSON_IsString(time) || (strcmp(time->valuestring, "wall") != 0 &&
		                                       strcmp(time->valuestring, "cpu") != 0)))
			return errmsg_fail(why, len, "workloads[%zu]: time must be wall or cpu", i - 1);
		if (!sd || cJSON_IsNull(sd))
			continue; /* too few rounds to measure a spread */
		if (!jl_range(sd, 0, CALIB_MAX_SD, &v) || rounds < 2)
			return errmsg_fail(why, len,
			                   "workloads[%zu]: sd must be null or a number in 0..%g, "
			                   "with rounds >= 2",
			                   i - 1, CALIB_MAX_SD);
		c->n++;
		if (!(e->workload = dup_str(get(w, "workload"))) ||
		    !(e->phase = dup_str(get(w, "phase"))))
			return -2;
		e->rounds = (size_t)rounds;
		e->sd = v;
		e->time = time && strcmp(time->valuestring, "cpu") == 0 ? RF_TIME_CPU : RF_TIME_WALL;
	}
	if (!(tmp = malloc((c->n + 1) * sizeof *tmp)))
		return -2;
	rep = repeated_entry(c, tmp);
	if (rep)
		errmsg_fail(why, len, "workloads: %.100s, phase %.100s, calibrated twice",
		            rep->workload, rep->phase);
	free(tmp);
	return rep ? -1 : 0;
}

/* Checks the members every calibration has; returns NULL or the reason. */
static const char *bad_header(const cJSON *doc)
{
	const cJSON *cfg = get(doc, "config");

	if (!cJSON_IsString(get(doc, "schema")) ||
	    strcmp(get(doc, "schema")->valuestring, CALIB_SCHEMA) != 0)
		return "schema is not " CALIB_SCHEMA;
	if (!cJSON_IsString(get(doc, "backend")))
		return "backend missing or not a string";
	if (!cJSON_IsString(get(cfg, "scale")))
		return "config.scale missing or not a string";
	if (!jl_range(get(cfg, "alpha"), CALIB_ALPHA_MIN, CALIB_ALPHA_MAX, NULL) ||
	    get(cfg, "alpha")->valuedouble == CALIB_ALPHA_MAX)
		return "config.alpha missing or not a number in [1e-06, 0.5)";
	if (!jl_range(get(cfg, "power"), CALIB_POWER_MIN, CALIB_POWER_MAX, NULL) ||
	    get(cfg, "power")->valuedouble == CALIB_POWER_MAX)
		return "config.power missing or not a number in [0.01, 1)";
	if (get(doc, "created_utc") && !cJSON_IsString(get(doc, "created_utc")))
		return "created_utc is not a string";
	return NULL;
}

enum status calib_from_json(const cJSON *doc, const char *path, struct calib_file **out,
                            char *err, size_t errlen)
{
	struct calib_file *c = calloc(1, sizeof *c);
	const cJSON *cfg = get(doc, "config"), *id = get(get(doc, "machine"), "id");
	const char *bad = cJSON_IsObject(doc) ? bad_header(doc) : "not a JSON object";
	char why[512];
	int rc;

	*out = NULL;
	if (!c)
		return load_fail(c, ST_FAIL, err, errlen, path, "out of memory");
	if (bad)
		return load_fail(c, ST_USAGE, err, errlen, path, bad);
	c->alpha = get(cfg, "alpha")->valuedouble;
	c->power = get(cfg, "power")->valuedouble;
	if (cJSON_IsString(id))
		snprintf(c->machine_id, sizeof c->machine_id, "%s", id->valuestring);
	c->path = strdup(path);
	c->backend = dup_str(get(doc, "backend"));
	c->scale = dup_str(get(cfg, "scale"));
	c->created_utc = dup_str(get(doc, "created_utc"));
	rc = load_entries(c, get(doc, "workloads"), why, sizeof why);
	if (rc == -1)
		return load_fail(c, ST_USAGE, err, errlen, path, why);
	if (rc < 0 || !c->path || !c->backend || !c->scale ||
	    (cJSON_IsString(get(doc, "created_utc")) && !c->created_utc))
		return load_fail(c, ST_FAIL, err, errlen, path, "out of memory");
	*out = c;
	return ST_OK;
}

struct calib_file *calib_load(const char *path, int *absent, char *err, size_t errlen)
{
	enum jl_why why;
	cJSON *doc = jl_load(path, &why, err, errlen);
	struct calib_file *c = NULL;

	*absent = why == JL_MISSING;
	if (!doc)
		return NULL;
	calib_from_json(doc, path, &c, err, errlen);
	cJSON_Delete(doc);
	return c;
}

const struct calib_entry *calib_find(const struct calib_file *c, const char *workload,
                                     const char *phase)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (strcmp(c->e[i].workload, workload) == 0 && strcmp(c->e[i].phase, phase) == 0)
			return &c->e[i];
	return NULL;
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

/* The log ratios of workload w at phase p, arm ib over arm ia, in round order. */
static int analyze_one(const struct rf_doc *doc, size_t w, int p, int ia, int ib,
                       const struct calib_plan *plan, struct calib_result *r)
{
	double *la = malloc((doc->nrounds + 1) * sizeof *la);
	double *ta = malloc((doc->nrounds + 1) * sizeof *ta);
	double *wall = malloc((doc->nrounds + 1) * sizeof *wall);
	size_t nwall = 0;
	int rc = -1;

	r->d = malloc((doc->nrounds + 1) * sizeof *r->d);
	if (!la || !ta || !wall || !r->d)
		goto out;
	for (size_t i = 0; i < doc->nrounds; i++) {
		const struct rf_run *a = rf_run(doc, i, (size_t)ia, w);
		const struct rf_run *b = rf_run(doc, i, (size_t)ib, w);

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

int calib_analyze(const struct rf_doc *doc, const char *a, const char *b, const char *phase,
                  const struct calib_plan *plan, struct calib_result **out, size_t *nout, char *err,
                  size_t errlen)
{
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
		if (analyze_one(doc, w, p, ia, ib, plan, &r[n++]) != 0) {
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

/* ---- compare's noise floor ---- */

int calib_apply(struct cmp_report *r, const char *path, struct calib_file **out, char *warn,
                size_t wlen, char *err, size_t errlen)
{
	int absent;
	struct calib_file *c = calib_load(path ? path : CALIB_DEFAULT_PATH, &absent, err, errlen);
	int other_machine;
	size_t used = 0;

	*out = NULL;
	warn[0] = '\0';
	if (!c && path)
		return -1;
	if (!c) {
		if (!absent)
			snprintf(warn, wlen, "calibration ignored: %s", err);
		return 0;
	}
	other_machine = c->machine_id[0] && r->base->machine_id[0] &&
	                strcmp(c->machine_id, r->base->machine_id) != 0;
	/* The default file belongs to this machine: results from elsewhere do not get its floor. */
	if (!path && other_machine) {
		calib_file_free(c);
		return 0;
	}
	*out = c;
	for (size_t i = 0; r->paired && i < r->nrows; i++) {
		struct cmp_row *row = &r->rows[i];
		const struct calib_entry *e =
		    row->workload ? calib_find(c, row->workload, row->phase) : NULL;
		int w = row->workload ? rf_workload(r->base, row->workload) : -1;

		/* a noise floor of one time says nothing of the other */
		if (e && w >= 0 && e->time != r->base->wl[w].time)
			e = NULL;
		if (e && row->usable) {
			row->floor_pct =
			    calib_mde_pct(e->sd, row->n, 1 - cmp_row_family_conf(r, row), c->power);
			used++;
		}
	}
	if (!used) {
		if (path)
			snprintf(warn, wlen, "%s calibrates none of these comparisons%s", c->path,
			         r->paired ? "" : " (two files cannot be paired)");
		return 0;
	}
	snprintf(c->desc, sizeof c->desc,
	         "noise floor: smallest slowdown detectable with %.0f%% power in that many rounds "
	         "at the intervals' level, from %s (%s against itself, scale %s, %s)",
	         c->power * 100, c->path, c->backend, c->scale,
	         c->created_utc ? c->created_utc : "undated");
	r->calibration = c->desc;
	if (other_machine)
		snprintf(warn, wlen,
		         "%s was measured on another machine (%s, results %s): its noise floor may "
		         "not apply",
		         c->path, c->machine_id, r->base->machine_id);
	return 0;
}
