/* resfile.c - loading and validating allocab-bench/1 documents (docs/results-format.md) into the
 * flat per-round tables of resfile.h. The checks that make a comparison meaningful live here too:
 * every ok run of a workload must have done the same work (checksum, params, seed, scale). */
#include "front/analysis/resfile.h"

#include "common/atomicio.h"
#include "common/fingerprint.h"
#include "common/status.h"
#include "front/analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RF_SCHEMA   "allocab-bench/1"
#define RUN_SCHEMA  "allocab-run/1"
#define RF_MAX_REPS 4096

static const char *const run_statuses[] = {"ok",      "failed",     "crashed",
                                           "timeout", "unverified", "invalid"};

struct loader {
	struct rf_doc *d;
	char *err;
	size_t errlen;
	int nomem;
	double clock_ticks_per_s; /* USER_HZ, the unit of telemetry.steal_ticks */
};

static int fail(struct loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct loader *l, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(l->err, l->errlen, "%s: ", l->d->path);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < l->errlen)
		vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int nomem(struct loader *l)
{
	l->nomem = 1;
	return fail(l, "out of memory");
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *get_str(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A measurement that may be null or absent: NAN then. */
static double get_num(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static char *compact(const cJSON *v)
{
	return v ? cJSON_PrintUnformatted(v) : strdup("null");
}

int rf_arm(const struct rf_doc *d, const char *name)
{
	for (size_t i = 0; i < d->narms; i++)
		if (strcmp(d->arms[i], name) == 0)
			return (int)i;
	return -1;
}

int rf_workload(const struct rf_doc *d, const char *name)
{
	for (size_t i = 0; i < d->nwl; i++)
		if (strcmp(d->wl[i].name, name) == 0)
			return (int)i;
	return -1;
}

int rf_phase(const struct rf_workload *w, const char *name)
{
	for (size_t i = 0; i < w->nphases; i++)
		if (strcmp(w->phases[i], name) == 0)
			return (int)i;
	return -1;
}

const struct rf_run *rf_run(const struct rf_doc *d, size_t round, size_t arm, size_t wl)
{
	return &d->runs[(round * d->narms + arm) * d->nwl + wl];
}

/* A non-empty array of distinct names into a new array of n elements of size elem, each name a
 * copy stored at offset name_off; *out is set first so that rf_free can clean up a failure. */
static int load_names(struct loader *l, const cJSON *arr, const char *what, void **out, size_t elem,
                      size_t name_off, size_t *n)
{
	const cJSON *v;
	size_t i = 0;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
		return fail(l, "config.%s: missing or empty", what);
	if (!(*out = calloc((size_t)cJSON_GetArraySize(arr), elem)))
		return nomem(l);
	*n = (size_t)cJSON_GetArraySize(arr);
	cJSON_ArrayForEach(v, arr)
	{
		char **name = (char **)((char *)*out + i * elem + name_off);
		if (!cJSON_IsString(v) || !v->valuestring[0])
			return fail(l, "config.%s[%zu]: not a name", what, i);
		for (size_t j = 0; j < i; j++)
			if (strcmp(*(char **)((char *)*out + j * elem + name_off),
			           v->valuestring) == 0)
				return fail(l, "config.%s: '%s' listed twice", what,
				            v->valuestring);
		if (!(*name = strdup(v->valuestring)))
			return nomem(l);
		i++;
	}
	return 0;
}

static int load_config(struct loader *l, const cJSON *cfg)
{
	struct rf_doc *d = l->d;
	const char *mode = get_str(cfg, "mode");

	if (!cJSON_IsObject(cfg))
		return fail(l, "config: missing");
	if (!mode || (strcmp(mode, "drivers") != 0 && strcmp(mode, "commands") != 0))
		return fail(l, "config.mode: want \"drivers\" or \"commands\"");
	d->commands = strcmp(mode, "commands") == 0;
	/* USER_HZ is 100 on every Linux architecture allocab builds on */
	l->clock_ticks_per_s = get_num(cfg, "clock_ticks_per_s");
	if (!(l->clock_ticks_per_s > 0))
		l->clock_ticks_per_s = 100;
	if (load_names(l, get(cfg, "arms"), "arms", (void **)&d->arms, sizeof *d->arms, 0,
	               &d->narms) != 0 ||
	    load_names(l, get(cfg, "workloads"), "workloads", (void **)&d->wl, sizeof *d->wl,
	               offsetof(struct rf_workload, name), &d->nwl) != 0)
		return -1;
	for (size_t i = 0; d->commands && i < d->nwl; i++) {
		d->wl[i].nphases = 1;
		if (!(d->wl[i].phases[0] = strdup("total")))
			return nomem(l);
	}
	return 0;
}

static int load_machine(struct loader *l, const cJSON *m)
{
	struct rf_doc *d = l->d;
	const char *id = get_str(m, "id"), *cpu = get_str(m, "cpu_model"),
	           *kern = get_str(m, "kernel");
	double ncpu = get_num(m, "online_cpus");
	char desc[512];

	if (!cJSON_IsObject(m))
		return 0;
	if (id && strlen(id) < sizeof d->machine_id)
		strcpy(d->machine_id, id);
	else
		fingerprint_id(m, d->machine_id);
	snprintf(desc, sizeof desc, "%s, %.0f CPUs, kernel %s", cpu ? cpu : "unknown CPU",
	         isnan(ncpu) ? 0.0 : ncpu, kern ? kern : "unknown");
	if (!(d->machine_desc = strdup(desc)) || !(d->env = compact(get(m, "env"))))
		return nomem(l);
	return 0;
}

/* Records (or checks against the first ok run) what work a workload did. */
static int same_work(struct loader *l, struct rf_workload *w, const char **first_arm,
                     const char *arm, const char *checksum, char *work)
{
	if (!w->work) {
		w->work = work;
		*first_arm = arm;
		if (checksum && !(w->checksum = strdup(checksum)))
			return nomem(l);
		return 0;
	}
	if (checksum && w->checksum && strcmp(checksum, w->checksum) != 0) {
		free(work);
		return fail(l,
		            "%s: checksum differs between %s (%s) and %s (%s): not the same work",
		            w->name, *first_arm, w->checksum, arm, checksum);
	}
	if (strcmp(work, w->work) != 0) {
		fail(l,
		     "%s: effective parameters differ between %s (%s) and %s (%s): not the same "
		     "work",
		     w->name, *first_arm, w->work, arm, work);
		free(work);
		return -1;
	}
	free(work);
	return 0;
}

static int load_phases(struct loader *l, struct rf_workload *w, const cJSON *list, const char *at)
{
	const cJSON *v;
	size_t n = 0;
	int has_total = 0;

	if (!cJSON_IsArray(list))
		return fail(l, "%s: record.phases missing", at);
	if (cJSON_GetArraySize(list) > RF_MAX_PHASES)
		return fail(l, "%s: more than %d phases", at, RF_MAX_PHASES);
	cJSON_ArrayForEach(v, list)
	{
		if (!cJSON_IsString(v))
			return fail(l, "%s: record.phases: not a list of names", at);
		has_total |= strcmp(v->valuestring, "total") == 0;
		if (w->nphases == 0) {
			if (!(w->phases[n] = strdup(v->valuestring)))
				return nomem(l);
		} else if (n >= w->nphases || strcmp(w->phases[n], v->valuestring) != 0) {
			return fail(l, "%s: record.phases differ from other runs of %s", at,
			            w->name);
		}
		n++;
	}
	if (!has_total)
		return fail(l, "%s: record.phases lacks \"total\"", at);
	if (w->nphases != 0 && n != w->nphases)
		return fail(l, "%s: record.phases differ from other runs of %s", at, w->name);
	w->nphases = n;
	return 0;
}

/* Median over reps of each phase's wall_ns. */
static int load_reps(struct loader *l, const struct rf_workload *w, const cJSON *reps,
                     struct rf_run *run, const char *at)
{
	double v[RF_MAX_REPS];
	size_t n = (size_t)cJSON_GetArraySize(reps);

	if (!cJSON_IsArray(reps) || n < 1 || n > RF_MAX_REPS)
		return fail(l, "%s: record.reps missing or empty", at);
	for (size_t p = 0; p < w->nphases; p++) {
		size_t i = 0;
		const cJSON *rep;
		cJSON_ArrayForEach(rep, reps)
		{
			double ns = get_num(get(get(rep, "phases"), w->phases[p]), "wall_ns");
			if (!(ns > 0 && isfinite(ns)))
				return fail(
				    l,
				    "%s: reps[%zu].phases.%s.wall_ns missing or not a positive "
				    "finite number",
				    at, i, w->phases[p]);
			v[i++] = ns;
		}
		run->t_ns[p] = stats_median(v, n);
	}
	return 0;
}

static char *work_of(const cJSON *wl)
{
	char *params = compact(get(wl, "params")), *seed = compact(get(wl, "seed"));
	char *scale = compact(get(wl, "scale")), *out = NULL;

	if (params && seed && scale &&
	    asprintf(&out, "params %s, seed %s, scale %s", params, seed, scale) < 0)
		out = NULL;
	free(params);
	free(seed);
	free(scale);
	return out;
}

static int load_record(struct loader *l, struct rf_workload *w, const char **first_arm,
                       const char *arm, const cJSON *rec, struct rf_run *run, const char *at)
{
	const char *schema = get_str(rec, "schema"), *name = get_str(get(rec, "workload"), "name");
	const char *checksum = get_str(rec, "checksum");
	char *work;

	if (!cJSON_IsObject(rec))
		return fail(l, "%s: status ok but no record", at);
	if (!schema || strcmp(schema, RUN_SCHEMA) != 0)
		return fail(l, "%s: record.schema is not %s", at, RUN_SCHEMA);
	if (!name || strcmp(name, w->name) != 0)
		return fail(l, "%s: record is of workload '%s', not '%s'", at, name ? name : "?",
		            w->name);
	if (!checksum)
		return fail(l, "%s: record.checksum missing", at);
	if (load_phases(l, w, get(rec, "phases"), at) != 0 ||
	    load_reps(l, w, get(rec, "reps"), run, at) != 0)
		return -1;
	if (!(work = work_of(get(rec, "workload"))))
		return nomem(l);
	if (same_work(l, w, first_arm, arm, checksum, work) != 0)
		return -1;
	run->max_rss_kib = get_num(get(rec, "rusage"), "max_rss_kib");
	run->retained_bytes = get_num(get(rec, "rss"), "retained_bytes");
	if (cJSON_IsNumber(get(get(rec, "rusage"), "involuntary_ctx_switches")))
		run->invol_ctx = get_num(get(rec, "rusage"), "involuntary_ctx_switches");
	return 0;
}

static int known_status(const char *s)
{
	for (size_t i = 0; i < sizeof run_statuses / sizeof *run_statuses; i++)
		if (strcmp(s, run_statuses[i]) == 0)
			return 1;
	return 0;
}

static int add_fail(struct loader *l, const cJSON *jr, size_t round, int warmup, size_t a, size_t w,
                    const char *status)
{
	struct rf_doc *d = l->d;
	struct rf_fail *f = &d->fails[d->nfails++];
	double es = get_num(jr, "exit_status");

	f->round = round;
	f->warmup = warmup;
	f->exit_status = isnan(es) ? -1 : (int)es;
	f->arm = strdup(d->arms[a]);
	f->workload = strdup(d->wl[w].name);
	f->status = strdup(status);
	f->signal = dup_or_null(get_str(jr, "signal"));
	f->stderr_tail = dup_or_null(get_str(jr, "stderr_tail"));
	f->reason = dup_or_null(get_str(jr, "reason"));
	if (!f->arm || !f->workload || !f->status || (get_str(jr, "signal") && !f->signal) ||
	    (get_str(jr, "stderr_tail") && !f->stderr_tail) ||
	    (get_str(jr, "reason") && !f->reason))
		return nomem(l);
	return 0;
}

static int load_run(struct loader *l, const cJSON *jr, size_t round, int warmup, int measured,
                    const char **first_arm, const char *at)
{
	struct rf_doc *d = l->d;
	const char *arm = get_str(jr, "arm"), *wl = get_str(jr, "workload");
	const char *status = get_str(jr, "status");
	const cJSON *proc = get(jr, "process"), *tel = get(jr, "telemetry");
	int a = arm ? rf_arm(d, arm) : -1, w = wl ? rf_workload(d, wl) : -1;
	struct rf_run scratch, *run = &scratch;

	if (a < 0)
		return fail(l, "%s: arm %s%s%s is not in config.arms", at, arm ? "'" : "",
		            arm ? arm : "missing", arm ? "'" : "");
	if (w < 0)
		return fail(l, "%s: workload %s%s%s is not in config.workloads", at, wl ? "'" : "",
		            wl ? wl : "missing", wl ? "'" : "");
	if (!status || !known_status(status))
		return fail(l, "%s: status %s%s%s is not a run status", at, status ? "'" : "",
		            status ? status : "missing", status ? "'" : "");
	if (measured >= 0) {
		run = &d->runs[((size_t)measured * d->narms + (size_t)a) * d->nwl + (size_t)w];
		if (run->present)
			return fail(l, "%s: second run of %s on %s in one round", at, arm, wl);
	}
	memset(run, 0, sizeof *run);
	for (size_t p = 0; p < RF_MAX_PHASES; p++)
		run->t_ns[p] = NAN;
	run->present = 1;
	run->ok = strcmp(status, "ok") == 0;
	run->wall_ns = get_num(proc, "wall_ns");
	run->max_rss_kib = run->retained_bytes = NAN;
	run->steal_s = get_num(tel, "steal_ticks") / l->clock_ticks_per_s;
	run->invol_ctx = get_num(proc, "involuntary_ctx_switches");
	run->loadavg_1m = get_num(tel, "loadavg_1m");
	if (!run->ok)
		return add_fail(l, jr, round, warmup, (size_t)a, (size_t)w, status);
	if (d->commands) {
		if (!(run->wall_ns > 0 && isfinite(run->wall_ns)))
			return fail(
			    l, "%s: process.wall_ns missing or not a positive finite number", at);
		run->t_ns[0] = run->wall_ns;
		run->max_rss_kib = get_num(proc, "max_rss_kib");
		return 0;
	}
	if (load_record(l, &d->wl[w], &first_arm[w], arm, get(jr, "record"), run, at) != 0)
		return -1;
	if (isnan(run->wall_ns))
		run->wall_ns = run->t_ns[rf_phase(&d->wl[w], "total")];
	return 0;
}

static int load_rounds(struct loader *l, const cJSON *rounds)
{
	struct rf_doc *d = l->d;
	const cJSON *jr, *run;
	const char **first_arm = NULL;
	size_t nruns = 0, i = 0;
	int rc = 0;

	if (!cJSON_IsArray(rounds))
		return fail(l, "rounds: missing");
	cJSON_ArrayForEach(jr, rounds)
	{
		if (!cJSON_IsObject(jr) || !cJSON_IsArray(get(jr, "runs")))
			return fail(l, "rounds[%zu]: no runs", i);
		if (!cJSON_IsTrue(get(jr, "warmup")))
			d->nrounds++;
		nruns += (size_t)cJSON_GetArraySize(get(jr, "runs"));
		i++;
	}
	d->runs = calloc(d->nrounds * d->narms * d->nwl + 1, sizeof *d->runs);
	d->round_index = calloc(d->nrounds + 1, sizeof *d->round_index);
	d->fails = calloc(nruns + 1, sizeof *d->fails);
	first_arm = calloc(d->nwl, sizeof *first_arm);
	if (!d->runs || !d->round_index || !d->fails || !first_arm) {
		free(first_arm);
		return nomem(l);
	}
	i = 0;
	size_t m = 0;
	cJSON_ArrayForEach(jr, rounds)
	{
		double idx = get_num(jr, "index");
		int warmup = cJSON_IsTrue(get(jr, "warmup")), measured = warmup ? -1 : (int)m;
		size_t j = 0;
		char at[64];

		if (!(idx >= 0) || idx != floor(idx)) {
			rc = fail(l, "rounds[%zu]: index missing", i);
			break;
		}
		if (warmup)
			d->nwarmup++;
		else
			d->round_index[m++] = (size_t)idx;
		cJSON_ArrayForEach(run, get(jr, "runs"))
		{
			snprintf(at, sizeof at, "rounds[%zu].runs[%zu]", i, j++);
			if ((rc = load_run(l, run, (size_t)idx, warmup, measured, first_arm, at)) !=
			    0)
				break;
		}
		if (rc)
			break;
		i++;
	}
	free(first_arm);
	return rc;
}

/* rf_from_json, with *oom set when memory ran out. */
static struct rf_doc *from_json(const cJSON *bench, const char *name, int *oom, char *err,
                                size_t errlen)
{
	struct rf_doc *d = calloc(1, sizeof *d);
	struct loader l = {.d = d, .err = err, .errlen = errlen};
	const char *schema = get_str(bench, "schema"), *status = get_str(bench, "status");
	int rc;

	if (!d || !(d->path = strdup(name))) {
		free(d);
		snprintf(err, errlen, "%s: out of memory", name);
		*oom = 1;
		return NULL;
	}
	if (!cJSON_IsObject(bench))
		rc = fail(&l, "not an allocab results document (not a JSON object)");
	else if (!schema)
		rc = fail(&l, "not an allocab results document (no schema)");
	else if (strcmp(schema, RF_SCHEMA) != 0)
		rc = fail(&l, "schema '%s' is not %s", schema, RF_SCHEMA);
	else if (!status)
		rc = fail(&l, "status missing");
	else if (!(d->status = strdup(status)))
		rc = nomem(&l);
	else
		rc = load_config(&l, get(bench, "config"));
	if (rc == 0)
		rc = load_machine(&l, get(bench, "machine"));
	if (rc == 0)
		rc = load_rounds(&l, get(bench, "rounds"));
	for (size_t w = 0; rc == 0 && w < d->nwl; w++)
		if (d->wl[w].nphases == 0) {
			d->wl[w].nphases = 1;
			if (!(d->wl[w].phases[0] = strdup("total")))
				rc = nomem(&l);
		}
	if (rc != 0) {
		*oom = l.nomem;
		rf_free(d);
		return NULL;
	}
	return d;
}

struct rf_doc *rf_from_json(const cJSON *bench, const char *name, char *err, size_t errlen)
{
	int oom = 0;

	return from_json(bench, name, &oom, err, errlen);
}

int rf_same_work(const struct rf_doc *a, const struct rf_doc *b, char *err, size_t errlen)
{
	if (a->commands != b->commands) {
		snprintf(err, errlen, "%s holds %s runs and %s holds %s runs: not comparable",
		         a->path, a->commands ? "command" : "driver", b->path,
		         b->commands ? "command" : "driver");
		return -1;
	}
	for (size_t i = 0; i < b->nwl; i++) {
		const struct rf_workload *y = &b->wl[i];
		int j = rf_workload(a, y->name);
		const struct rf_workload *x = j < 0 ? NULL : &a->wl[j];
		const char *what = NULL, *vx = NULL, *vy = NULL;
		if (!x || !x->work || !y->work)
			continue;
		if (x->checksum && y->checksum && strcmp(x->checksum, y->checksum) != 0)
			what = "checksum", vx = x->checksum, vy = y->checksum;
		else if (strcmp(x->work, y->work) != 0)
			what = "effective parameters", vx = x->work, vy = y->work;
		if (what) {
			snprintf(err, errlen,
			         "%s: %s differs between %s (%s) and %s (%s): not the same work",
			         y->name, what, a->path, vx, b->path, vy);
			return -1;
		}
		int same = x->nphases == y->nphases;
		for (size_t p = 0; same && p < x->nphases; p++)
			same = strcmp(x->phases[p], y->phases[p]) == 0;
		if (!same) {
			snprintf(err, errlen, "%s: phases differ between %s and %s", y->name,
			         a->path, b->path);
			return -1;
		}
	}
	return 0;
}

/* Whether text ends inside a string or an open object/array: a file cut short, not bad JSON. */
static int truncated(const char *text, size_t n)
{
	size_t depth = 0;
	int in_str = 0;

	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && depth > 0) {
			depth--;
		}
	}
	return in_str || depth > 0;
}

int rf_load(const char *path, struct rf_doc **out, char *err, size_t errlen)
{
	int oom = 0;
	size_t n;
	char *text;

	*out = NULL;
	text = read_file(path, &n);
	const char *end = NULL;
	cJSON *root;
	struct rf_doc *d;

	if (!text) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return errno == ENOMEM ? ST_FAIL : ST_USAGE;
	}
	root = cJSON_ParseWithLengthOpts(text, n + 1, &end, 1);
	if (!root) {
		size_t at = end && end >= text ? (size_t)(end - text) : 0;
		if (n == 0)
			snprintf(err, errlen, "%s: empty file", path);
		else if (at >= n || truncated(text, n))
			snprintf(err, errlen, "%s: truncated JSON (ends at byte %zu)", path, n);
		else
			snprintf(err, errlen, "%s: not JSON (parse error at byte %zu)", path, at);
		free(text);
		return ST_USAGE;
	}
	free(text);
	d = from_json(root, path, &oom, err, errlen);
	cJSON_Delete(root);
	*out = d;
	return d ? ST_OK : oom ? ST_FAIL : ST_USAGE;
}

void rf_free(struct rf_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->narms; i++)
		free(d->arms[i]);
	for (size_t i = 0; i < d->nwl; i++) {
		for (size_t p = 0; p < RF_MAX_PHASES; p++)
			free(d->wl[i].phases[p]);
		free(d->wl[i].name);
		free(d->wl[i].checksum);
		free(d->wl[i].work);
	}
	for (size_t i = 0; i < d->nfails; i++) {
		struct rf_fail *f = &d->fails[i];
		free(f->arm);
		free(f->workload);
		free(f->status);
		free(f->signal);
		free(f->stderr_tail);
		free(f->reason);
	}
	free(d->arms);
	free(d->wl);
	free(d->runs);
	free(d->round_index);
	free(d->fails);
	free(d->path);
	free(d->status);
	free(d->machine_desc);
	free(d->env);
	free(d);
}
