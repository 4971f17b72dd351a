/* calibfile.c - the allocab-calibration/1 file (docs/results-format.md): loading it strictly,
 * finding a workload's entry, and compare's noise-floor column from it (calib_apply). The
 * analysis that writes it is calibrate.c's. */
#include "front/calib/calib.h"

#include "common/errmsg.h"
#include "common/jsonload.h"
#include "common/status.h"
#include "common/utf8.h"
#include "front/compare/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			return errmsg_fail(why, len, "workloads[%zu]: time must be wall or cpu",
			                   i - 1);
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
		e->time =
		    time && strcmp(time->valuestring, "cpu") == 0 ? RF_TIME_CPU : RF_TIME_WALL;
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

enum status calib_from_json(const cJSON *doc, const char *path, struct calib_file **out, char *err,
                            size_t errlen)
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

/* ---- compare's noise floor ---- */

int calib_apply(struct cmp_report *r, const char *path, struct calib_floor *out, char *err,
                size_t errlen)
{
	char *warn = out->warn;
	const size_t wlen = sizeof out->warn;
	int absent;
	struct calib_file *c = calib_load(path ? path : CALIB_DEFAULT_PATH, &absent, err, errlen);
	int other_machine;
	size_t used = 0;

	out->file = NULL;
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
	out->file = c;
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
