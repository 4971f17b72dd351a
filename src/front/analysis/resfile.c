/* resfile.c - loading and validating allocab-bench/1 documents (docs/results-format.md) into the
 * flat per-round tables of resfile.h. The checks that make a comparison meaningful live here too:
 * every ok run of a workload must have done the same work (checksum, params, seed, scale). */
#include "front/analysis/resfile.h"

#include "common/fingerprint.h"
#include "front/analysis/rfload.h"
#include "common/jsonload.h"
#include "common/status.h"
#include "front/analysis/stats.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RF_SCHEMA "allocab-bench/1"

static const char *const run_statuses[] = {"ok",         "failed",  "crashed", "timeout",
                                           "unverified", "invalid", NULL};
static const char *const bench_statuses[] = {"running",     "complete", "budget", "decided",
                                             "interrupted", "aborted",  NULL};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int in_list(const char *s, const char *const *list)
{
	for (size_t i = 0; s && list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

int rf_arm(const struct rf_doc *d, const char *name)
{
	return (int)nameidx_find(&d->arm_idx, name);
}

int rf_workload(const struct rf_doc *d, const char *name)
{
	return (int)nameidx_find(&d->wl_idx, name);
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

const struct rf_run *rf_warm_run(const struct rf_doc *d, size_t k, size_t arm, size_t wl)
{
	return &d->warm_runs[(k * d->narms + arm) * d->nwl + wl];
}

/* A non-empty array of distinct names into a new array of n elements of size elem, each name a
 * copy stored at offset name_off, indexed by idx; *out is set first so that rf_free can clean up
 * a failure. */
static int load_names(struct loader *l, const cJSON *arr, const char *what, void **out, size_t elem,
                      size_t name_off, size_t *n, struct nameidx *idx)
{
	const cJSON *v;
	size_t i = 0;
	long rep;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
		return rl_fail(l, "config.%s: missing or empty", what);
	if (!(*out = calloc((size_t)cJSON_GetArraySize(arr), elem)))
		return rl_nomem(l);
	cJSON_ArrayForEach(v, arr)
	{
		char **name = (char **)((char *)*out + i * elem + name_off);
		if (!cJSON_IsString(v) || !v->valuestring[0])
			return rl_fail(l, "config.%s[%zu]: not a name", what, i);
		if (!(*name = strdup(v->valuestring)))
			return rl_nomem(l);
		*n = ++i;
	}
	if (nameidx_build(idx, *out, *n, elem, name_off) != 0)
		return rl_nomem(l);
	if ((rep = nameidx_repeat(idx)) >= 0)
		return rl_fail(l, "config.%s: '%s' listed twice", what,
		               *(char **)((char *)*out + (size_t)rep * elem + name_off));
	return 0;
}

/* Arms x workloads: every round holds a run of each, every comparison a row of each. */
static int check_grid(struct loader *l, const cJSON *cfg)
{
	size_t na = (size_t)cJSON_GetArraySize(rl_get(cfg, "arms"));
	size_t nw = (size_t)cJSON_GetArraySize(rl_get(cfg, "workloads"));

	if (na > RF_MAX_CELLS || nw > RF_MAX_CELLS || na * nw > RF_MAX_CELLS)
		return rl_fail(
		    l,
		    "config: %zu arms x %zu workloads exceed the limit of %d arm-workload "
		    "pairs",
		    na, nw, RF_MAX_CELLS);
	return 0;
}

/* config.arm_configs (absent in older files): label -> {"allocator", "config": [...]}. */
static int load_arm_configs(struct loader *l, const cJSON *ac)
{
	struct rf_doc *d = l->d;
	const cJSON *c, *item;

	if (!cJSON_IsObject(ac) || !ac->child)
		return 0;
	if (!(d->arm_config = calloc(d->narms, sizeof *d->arm_config)))
		return rl_nomem(l);
	cJSON_ArrayForEach(c, ac)
	{
		const char *alloc = rl_get_str(c, "allocator");
		int a = rf_arm(d, c->string);
		char buf[1024];
		size_t k;

		if (a < 0 || !alloc || !cJSON_IsArray(rl_get(c, "config")))
			return rl_fail(
			    l, "config.arm_configs: want label -> {allocator, config} of an arm");
		k = (size_t)snprintf(buf, sizeof buf, "%s:", alloc);
		cJSON_ArrayForEach(item, rl_get(c, "config"))
		{
			if (cJSON_IsString(item) && k < sizeof buf)
				k += (size_t)snprintf(buf + k, sizeof buf - k, " %s",
				                      item->valuestring);
		}
		free(d->arm_config[a]);
		if (!(d->arm_config[a] = strdup(buf)))
			return rl_nomem(l);
	}
	return 0;
}

static int load_config(struct loader *l, const cJSON *cfg)
{
	struct rf_doc *d = l->d;
	const char *mode = rl_get_str(cfg, "mode");

	if (!cJSON_IsObject(cfg))
		return rl_fail(l, "config: missing");
	if (!mode || (strcmp(mode, "drivers") != 0 && strcmp(mode, "commands") != 0))
		return rl_fail(l, "config.mode: want \"drivers\" or \"commands\"");
	d->commands = strcmp(mode, "commands") == 0;
	if (rl_opt_num(l, cfg, "clock_ticks_per_s", 1e6, "config", "config", &l->clock_ticks_per_s))
		return -1;
	/* USER_HZ is 100 on every Linux architecture allocab builds on */
	if (!(l->clock_ticks_per_s >= 1))
		l->clock_ticks_per_s = 100;
	if (check_grid(l, cfg) != 0 ||
	    load_names(l, rl_get(cfg, "arms"), "arms", (void **)&d->arms, sizeof *d->arms, 0,
	               &d->narms, &d->arm_idx) != 0 ||
	    load_names(l, rl_get(cfg, "workloads"), "workloads", (void **)&d->wl, sizeof *d->wl,
	               offsetof(struct rf_workload, name), &d->nwl, &d->wl_idx) != 0)
		return -1;
	for (size_t i = 0; d->commands && i < d->nwl; i++) {
		d->wl[i].nphases = 1;
		if (!(d->wl[i].phases[0] = strdup("total")))
			return rl_nomem(l);
	}
	return load_arm_configs(l, rl_get(cfg, "arm_configs"));
}

static int load_machine(struct loader *l, const cJSON *m)
{
	struct rf_doc *d = l->d;
	const char *id = rl_get_str(m, "id"), *cpu = rl_get_str(m, "cpu_model"),
	           *kern = rl_get_str(m, "kernel");
	double ncpu;
	char desc[512];

	if (!cJSON_IsObject(m))
		return 0;
	if (rl_opt_num(l, m, "online_cpus", 1e6, "machine", "machine", &ncpu) != 0)
		return -1;
	if (id && strlen(id) < sizeof d->machine_id)
		strcpy(d->machine_id, id);
	else
		fingerprint_id(m, d->machine_id);
	snprintf(desc, sizeof desc, "%.200s, %.0f CPUs, kernel %.100s", cpu ? cpu : "unknown CPU",
	         isnan(ncpu) ? 0.0 : ncpu, kern ? kern : "unknown");
	if (!(d->machine_desc = strdup(desc)) || !(d->env = rl_compact(rl_get(m, "env"))))
		return rl_nomem(l);
	return 0;
}

static int add_fail(struct loader *l, const cJSON *jr, size_t round, int warmup, size_t a, size_t w,
                    const char *status, const char *at)
{
	struct rf_doc *d = l->d;
	struct rf_fail *f = &d->fails[d->nfails];
	const cJSON *es = rl_get(jr, "exit_status");
	int64_t code = -1;

	if (es && !cJSON_IsNull(es) && !jl_int(es, 0, 255, &code))
		return rl_fail(l, "%s: exit_status is not null or an integer in 0..255", at);
	d->nfails++;
	f->round = round;
	f->warmup = warmup;
	f->exit_status = (int)code;
	f->arm = strdup(d->arms[a]);
	f->workload = strdup(d->wl[w].name);
	f->status = strdup(status);
	f->signal = dup_or_null(rl_get_str(jr, "signal"));
	f->stderr_tail = dup_or_null(rl_get_str(jr, "stderr_tail"));
	f->reason = dup_or_null(rl_get_str(jr, "reason"));
	if (!f->arm || !f->workload || !f->status || (rl_get_str(jr, "signal") && !f->signal) ||
	    (rl_get_str(jr, "stderr_tail") && !f->stderr_tail) ||
	    (rl_get_str(jr, "reason") && !f->reason))
		return rl_nomem(l);
	return 0;
}

/* What the bench measured around the process: wall time and noise telemetry. */
static int load_process(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at)
{
	const cJSON *proc = rl_get(jr, "process"), *tel = rl_get(jr, "telemetry");
	const cJSON *w = rl_get(proc, "wall_ns");
	double steal;

	run->wall_ns = NAN;
	if (w && !cJSON_IsNull(w) && !rl_wall_ns(w, &run->wall_ns))
		return rl_fail(
		    l, "%s: process.wall_ns missing or not a positive integer of at most %.0f", at,
		    RF_MAX_WALL_NS);
	if (rl_opt_num(l, tel, "steal_ticks", RF_MAX_FIGURE, at, "telemetry", &steal) ||
	    rl_opt_num(l, proc, "involuntary_ctx_switches", RF_MAX_FIGURE, at, "process",
	               &run->invol_ctx) ||
	    rl_opt_num(l, tel, "loadavg_1m", 1e9, at, "telemetry", &run->loadavg_1m))
		return -1;
	run->steal_s = steal / l->clock_ticks_per_s;
	return 0;
}

/* Loads run jr of round `round` into its slot of the round's block row (a measured or a warm-up
 * round: rf_run, rf_warm_run). */
static int load_run(struct loader *l, const cJSON *jr, size_t round, int warmup, struct rf_run *row,
                    const char **first_arm, const char *at)
{
	struct rf_doc *d = l->d;
	const char *arm = rl_get_str(jr, "arm"), *wl = rl_get_str(jr, "workload");
	const char *status = rl_get_str(jr, "status");
	int a = arm ? rf_arm(d, arm) : -1, w = wl ? rf_workload(d, wl) : -1;
	struct rf_run *run;
	int measured = !warmup;

	if (a < 0)
		return rl_fail(l, "%s: arm %s%.100s%s is not in config.arms", at, arm ? "'" : "",
		               arm ? arm : "missing", arm ? "'" : "");
	if (w < 0)
		return rl_fail(l, "%s: workload %s%.100s%s is not in config.workloads", at,
		               wl ? "'" : "", wl ? wl : "missing", wl ? "'" : "");
	if (!in_list(status, run_statuses))
		return rl_fail(l, "%s: status %s%.100s%s is not a run status", at,
		               status ? "'" : "", status ? status : "missing", status ? "'" : "");
	run = &row[(size_t)a * d->nwl + (size_t)w];
	if (run->present)
		return rl_fail(l, "%s: second run of %s on %s in one round", at, arm, wl);
	memset(run, 0, sizeof *run);
	for (size_t p = 0; p < RF_MAX_PHASES; p++)
		run->t_ns[p] = run->t_regime[RF_COLD][p] = run->t_regime[RF_STEADY][p] = NAN;
	run->settled = -1;
	run->rss_first = run->rss_last = NAN;
	run->present = 1;
	run->ok = strcmp(status, "ok") == 0;
	run->max_rss_kib = run->retained_bytes = NAN;
	if (load_process(l, jr, run, at) != 0)
		return -1;
	if (!run->ok)
		return add_fail(l, jr, round, warmup, (size_t)a, (size_t)w, status, at);
	if (d->commands) {
		if (isnan(run->wall_ns))
			return rl_fail(
			    l, "%s: process.wall_ns missing or not a positive finite number", at);
		run->t_ns[0] = run->t_regime[RF_COLD][0] = run->wall_ns;
		d->has_regime[RF_COLD] |= measured;
		return rl_opt_num(l, rl_get(jr, "process"), "max_rss_kib", RF_MAX_FIGURE, at,
		                  "process", &run->max_rss_kib);
	}
	if (rl_record(l, &d->wl[w], &first_arm[w], arm, rl_get(jr, "record"), run, at) != 0)
		return -1;
	for (int r = 0; measured && r < RF_NREGIMES; r++)
		d->has_regime[r] |= !isnan(run->t_regime[r][0]);
	if (isnan(run->wall_ns))
		run->wall_ns = run->t_ns[rf_phase(&d->wl[w], "total")];
	return 0;
}

/* Round i's index (its place in the file: 0, 1, ...) and warm-up flag. */
static int round_head(struct loader *l, const cJSON *jr, size_t i, int *warmup)
{
	const cJSON *idx = rl_get(jr, "index"), *wu = rl_get(jr, "warmup");
	uint64_t k;

	if (!cJSON_IsObject(jr) || !cJSON_IsArray(rl_get(jr, "runs")))
		return rl_fail(l, "rounds[%zu]: no runs", i);
	if (wu && !cJSON_IsBool(wu))
		return rl_fail(l, "rounds[%zu].warmup: not true or false", i);
	*warmup = cJSON_IsTrue(wu);
	if (!idx)
		return rl_fail(l, "rounds[%zu]: index missing", i);
	if (cJSON_IsNumber(idx) && idx->valuedouble < 0)
		return rl_fail(l, "rounds[%zu]: index must be >= 0", i);
	if (!jl_uint(idx, (uint64_t)1 << 53, &k))
		return rl_fail(l, "rounds[%zu]: index is not an integer", i);
	if (k != i)
		return rl_fail(
		    l,
		    "rounds[%zu]: index %llu where %zu was due: rounds are numbered 0, 1, ... "
		    "in file order, each once",
		    i, (unsigned long long)k, i);
	return 0;
}

/* The run tables hold (measured + warm-up rounds) x arms x workloads slots: no more than the runs
 * the file holds can justify (a round holds one run per arm and workload). */
static int check_table(struct loader *l, size_t nruns)
{
	struct rf_doc *d = l->d;
	size_t cells = d->narms * d->nwl;

	if (d->nrounds + d->nwarmup > (2 * nruns + cells) / cells)
		return rl_fail(l,
		               "rounds: %zu measured and %zu warm-up rounds of %zu arms x %zu "
		               "workloads, but only %zu runs in the file",
		               d->nrounds, d->nwarmup, d->narms, d->nwl, nruns);
	return 0;
}

static int load_rounds(struct loader *l, const cJSON *rounds)
{
	struct rf_doc *d = l->d;
	const cJSON *jr, *run;
	const char **first_arm = NULL;
	size_t nruns = 0, i = 0, m = 0, wu = 0;
	int rc = 0, warmup = 0;

	if (!cJSON_IsArray(rounds))
		return rl_fail(l, "rounds: missing");
	cJSON_ArrayForEach(jr, rounds)
	{
		if (round_head(l, jr, i++, &warmup) != 0)
			return -1;
		d->nrounds += !warmup;
		d->nwarmup += warmup;
		nruns += (size_t)cJSON_GetArraySize(rl_get(jr, "runs"));
	}
	if (check_table(l, nruns) != 0)
		return -1;
	d->runs = calloc(d->nrounds * d->narms * d->nwl + 1, sizeof *d->runs);
	d->warm_runs = calloc(d->nwarmup * d->narms * d->nwl + 1, sizeof *d->warm_runs);
	d->round_index = calloc(d->nrounds + 1, sizeof *d->round_index);
	d->fails = calloc(nruns + 1, sizeof *d->fails);
	first_arm = calloc(d->nwl, sizeof *first_arm);
	if (!d->runs || !d->warm_runs || !d->round_index || !d->fails || !first_arm) {
		free(first_arm);
		return rl_nomem(l);
	}
	i = 0;
	cJSON_ArrayForEach(jr, rounds)
	{
		struct rf_run *row;
		size_t j = 0;
		char at[64];

		warmup = cJSON_IsTrue(rl_get(jr, "warmup"));
		if (warmup) {
			row = &d->warm_runs[wu++ * d->narms * d->nwl];
		} else {
			d->round_index[m] = i;
			row = &d->runs[m++ * d->narms * d->nwl];
		}
		cJSON_ArrayForEach(run, rl_get(jr, "runs"))
		{
			snprintf(at, sizeof at, "rounds[%zu].runs[%zu]", i, j++);
			if ((rc = load_run(l, run, i, warmup, row, first_arm, at)) != 0)
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
	const char *schema = rl_get_str(bench, "schema"), *status = rl_get_str(bench, "status");
	int rc;

	if (!d || !(d->path = strdup(name))) {
		free(d);
		snprintf(err, errlen, "%s: out of memory", name);
		*oom = 1;
		return NULL;
	}
	if (!cJSON_IsObject(bench))
		rc = rl_fail(&l, "not an allocab results document (not a JSON object)");
	else if (!schema)
		rc = rl_fail(&l, "not an allocab results document (no schema)");
	else if (strcmp(schema, RF_SCHEMA) != 0)
		rc = rl_fail(&l, "schema '%.100s' is not %s", schema, RF_SCHEMA);
	else if (!status)
		rc = rl_fail(&l, "status missing");
	else if (!in_list(status, bench_statuses))
		rc = rl_fail(&l, "status '%.100s' is not a bench status", status);
	else if (!(d->status = strdup(status)))
		rc = rl_nomem(&l);
	else
		rc = load_config(&l, rl_get(bench, "config"));
	if (rc == 0)
		rc = load_machine(&l, rl_get(bench, "machine"));
	if (rc == 0)
		rc = load_rounds(&l, rl_get(bench, "rounds"));
	for (size_t w = 0; rc == 0 && w < d->nwl; w++)
		if (d->wl[w].nphases == 0) {
			d->wl[w].nphases = 1;
			if (!(d->wl[w].phases[0] = strdup("total")))
				rc = rl_nomem(&l);
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

int rf_load(const char *path, struct rf_doc **out, char *err, size_t errlen)
{
	enum jl_why why;
	cJSON *root = jl_load(path, &why, err, errlen);
	int oom = 0;

	*out = NULL;
	if (!root)
		return why == JL_NOMEM ? ST_FAIL : ST_USAGE;
	*out = from_json(root, path, &oom, err, errlen);
	cJSON_Delete(root);
	return *out ? ST_OK : oom ? ST_FAIL : ST_USAGE;
}

void rf_free(struct rf_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->narms; i++) {
		free(d->arms[i]);
		if (d->arm_config)
			free(d->arm_config[i]);
	}
	free(d->arm_config);
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
	nameidx_free(&d->arm_idx);
	nameidx_free(&d->wl_idx);
	free(d->arms);
	free(d->wl);
	free(d->runs);
	free(d->warm_runs);
	free(d->round_index);
	free(d->fails);
	free(d->path);
	free(d->status);
	free(d->machine_desc);
	free(d->env);
	free(d);
}

const char *rf_regime_name(enum rf_regime g)
{
	return g == RF_STEADY ? "steady" : "cold";
}

const char *rf_regimes_measured(const struct rf_doc *d)
{
	if (d->has_regime[RF_COLD] && d->has_regime[RF_STEADY])
		return "cold and steady";
	if (d->has_regime[RF_STEADY])
		return "steady only";
	return d->commands ? "cold only (commands: one process per run)"
	                   : "cold only (one repetition per run)";
}
