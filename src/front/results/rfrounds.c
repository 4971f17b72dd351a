/* rfrounds.c - the rounds of a results document, read one at a time (from a stream or an array in
 * memory) into the flat per-round tables of results.h, which grow with the rounds that are there.
 */
#include "front/results/rfload.h"

#include "common/jsonload.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const run_statuses[] = {"ok",         "failed",  "crashed", "timeout",
                                           "unverified", "invalid", NULL};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Where a run sits: its round (measured or warm-up), arm and workload. */
struct run_at {
	size_t round;
	int warmup;
	size_t a, w;
};

static int add_fail(struct loader *l, const cJSON *jr, const struct run_at *ra, const char *status,
                    const char *at)
{
	const size_t round = ra->round, a = ra->a, w = ra->w;
	const int warmup = ra->warmup;
	struct rf_doc *d = l->d;
	struct rf_fail *f;
	const cJSON *es = rl_get(jr, "exit_status");
	int64_t code = -1;

	if (es && !cJSON_IsNull(es) && !jl_int(es, 0, 255, &code))
		return rl_fail(l, "%s: exit_status is not null or an integer in 0..255", at);
	if (rl_grow(l, (void **)&d->fails, &l->fails_cap, d->nfails + 1, sizeof *d->fails) != 0)
		return -1;
	f = &d->fails[d->nfails++];
	memset(f, 0, sizeof *f);
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
	    rl_opt_num(l, tel, "loadavg_1m", 1e9, at, "telemetry", &run->loadavg_1m) ||
	    rl_opt_num(l, tel, "runnable", 1e9, at, "telemetry", &run->runnable))
		return -1;
	run->steal_s = steal / l->clock_ticks_per_s;
	return rl_probe(l, jr, run, at);
}

/* Which regimes and phases an ok run of workload w has times of, when it is measured. */
static void note_measured(struct rf_doc *d, struct rf_workload *w, const struct rf_run *run,
                          int measured)
{
	if (measured) /* a warm-up run decides nothing: it is discarded */
		rl_note_cpu(w, run);
	for (int r = 0; measured && r < RF_NREGIMES; r++)
		for (size_t p = 0; p < w->nphases; p++)
			if (!isnan(run->t_regime[r][p])) {
				w->measured[r][p] = 1;
				d->has_regime[r] = 1;
			}
}

/* Loads run jr of round `round` into its slot of the round's block row (a measured or a warm-up
 * round: rf_run, rf_warm_run). */
static int load_run(struct loader *l, const cJSON *jr, size_t round, int warmup, struct rf_run *row,
                    const char *at)
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
	if (!rl_in_list(status, run_statuses))
		return rl_fail(l, "%s: status %s%.100s%s is not a run status", at,
		               status ? "'" : "", status ? status : "missing", status ? "'" : "");
	run = &row[(size_t)a * d->nwl + (size_t)w];
	if (run->present)
		return rl_fail(l, "%s: second run of %s on %s in one round", at, arm, wl);
	memset(run, 0, sizeof *run);
	for (size_t p = 0; p < RF_MAX_PHASES; p++)
		for (int g = 0; g < RF_NREGIMES; g++) {
			run->t_regime[g][p] = NAN;
			for (int t = 0; t < RF_NTIMES; t++)
				run->t_basis[t][g][p] = NAN;
		}
	run->settled = -1;
	memset(run->settled_phase, -1, sizeof run->settled_phase);
	run->rss_first = run->rss_last = NAN;
	run->present = 1;
	run->ok = strcmp(status, "ok") == 0;
	run->max_rss_kib = run->retained_bytes = NAN;
	if (load_process(l, jr, run, at) != 0)
		return -1;
	if (!run->ok) {
		const struct run_at ra = {round, warmup, (size_t)a, (size_t)w};
		return add_fail(l, jr, &ra, status, at);
	}
	if (rf_kind_has(d, RF_KIND_WHOLE_PROCESS)) {
		if (isnan(run->wall_ns))
			return rl_fail(
			    l, "%s: process.wall_ns missing or not a positive finite number", at);
		run->t_regime[RF_COLD][0] = run->t_basis[RF_TIME_WALL][RF_COLD][0] = run->wall_ns;
		if (rl_cpu(l, jr, run, at) != 0 || rl_marks(l, (size_t)w, jr, run, at) != 0 ||
		    rl_usage_process(l, jr, run, at) != 0)
			return -1;
		note_measured(d, &d->wl[w], run, measured);
		return rl_opt_num(l, rl_get(jr, "process"), "max_rss_kib", RF_MAX_FIGURE, at,
		                  "process", &run->max_rss_kib);
	}
	if (rl_record(l, (size_t)w, d->arms[a], rl_get(jr, "record"), run, at) != 0 ||
	    rl_usage_reps(l, &d->wl[w], rl_get(rl_get(jr, "record"), "reps"), run, at) != 0 ||
	    rl_marks(l, (size_t)w, rl_get(jr, "record"), run, at) != 0)
		return -1;
	note_measured(d, &d->wl[w], run, measured);
	if (isnan(run->wall_ns))
		run->wall_ns = rf_time(run, (size_t)rf_phase(&d->wl[w], "total"));
	return 0;
}

/* The cells that had left the rounds (adaptive allocation, docs/results-format.md): objects
 * {"arm", "workload"} of known names, each once, none with a run in the round. */
static int load_left(struct loader *l, const cJSON *left, size_t i, int warmup,
                     struct rf_run *row)
{
	struct rf_doc *d = l->d;
	const cJSON *e;
	size_t j = 0;

	if (!left)
		return 0;
	if (!cJSON_IsArray(left))
		return rl_fail(l, "rounds[%zu].left: not an array", i);
	cJSON_ArrayForEach(e, left)
	{
		const char *arm = rl_get_str(e, "arm"), *wl = rl_get_str(e, "workload");
		int a = arm ? rf_arm(d, arm) : -1, w = wl ? rf_workload(d, wl) : -1;
		struct rf_run *run;

		if (a < 0 || w < 0)
			return rl_fail(l, "rounds[%zu].left[%zu]: not an arm and a workload of config",
			               i, j);
		run = &row[(size_t)a * d->nwl + (size_t)w];
		if (run->present || run->left)
			return rl_fail(l, "rounds[%zu].left[%zu]: %s on %s %s", i, j, arm, wl,
			               run->present ? "has a run in this round" : "is listed twice");
		run->left = 1;
		l->d->nleft += !warmup;
		j++;
	}
	return 0;
}

/* Round i's index (its place in the file: 0, 1, ...) and warm-up flag. */
static int round_head(struct loader *l, const cJSON *jr, size_t i, int *warmup, int *solo)
{
	const cJSON *idx = rl_get(jr, "index"), *wu = rl_get(jr, "warmup");
	const cJSON *pl = rl_get(jr, "placement");
	uint64_t k;

	if (!cJSON_IsObject(jr) || !cJSON_IsArray(rl_get(jr, "runs")))
		return rl_fail(l, "rounds[%zu]: no runs", i);
	if (wu && !cJSON_IsBool(wu))
		return rl_fail(l, "rounds[%zu].warmup: not true or false", i);
	*warmup = cJSON_IsTrue(wu);
	/* absent (older files, benches on no shared CPU): as before, the bench's placement */
	if (pl && !(cJSON_IsString(pl) && (strcmp(pl->valuestring, "solo") == 0 ||
	                                   strcmp(pl->valuestring, "shared") == 0)))
		return rl_fail(l, "rounds[%zu].placement: want \"solo\" or \"shared\"", i);
	*solo = pl && strcmp(pl->valuestring, "solo") == 0;
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
 * and left cells read so far can justify (a round holds one run per arm and workload or lists the
 * cell as left; up to half may be missing). */
static int check_table(struct loader *l, size_t nrounds)
{
	struct rf_doc *d = l->d;
	size_t cells = d->narms * d->nwl;

	if (nrounds > (2 * l->nruns + cells) / cells)
		return rl_fail(
		    l,
		    "rounds: %zu rounds of %zu arms x %zu workloads, but only %zu runs in "
		    "them",
		    nrounds, d->narms, d->nwl, l->nruns);
	return 0;
}

/* A new round's row of arms x workloads slots, none present yet. */
static struct rf_run *new_row(struct loader *l, int warmup, int solo, size_t i)
{
	struct rf_doc *d = l->d;
	size_t cells = d->narms * d->nwl, k = warmup ? d->nwarmup : d->nrounds;
	struct rf_run **tab = warmup ? &d->warm_runs : &d->runs;
	size_t *cap = warmup ? &l->warm_cap : &l->runs_cap;

	if (rl_grow(l, (void **)tab, cap, (k + 1) * cells, sizeof **tab) != 0)
		return NULL;
	if (!warmup) {
		if (rl_grow(l, (void **)&d->round_index, &l->index_cap, k + 1,
		         sizeof *d->round_index) != 0)
			return NULL;
		d->round_index[k] = i;
		if (rl_grow(l, (void **)&d->round_solo, &l->solo_cap, k + 1, 1) != 0)
			return NULL;
		d->round_solo[k] = (unsigned char)solo;
		d->nsolo += solo != 0;
		d->nrounds++;
	} else {
		d->nwarmup++;
	}
	memset(*tab + k * cells, 0, cells * sizeof **tab);
	return *tab + k * cells;
}

int rl_round(struct loader *l, const cJSON *jr)
{
	struct rf_doc *d = l->d;
	size_t i = d->nrounds + d->nwarmup, j = 0;
	const cJSON *run;
	struct rf_run *row;
	int warmup = 0, solo = 0;
	char at[64];

	if (round_head(l, jr, i, &warmup, &solo) != 0)
		return -1;
	l->nruns += (size_t)cJSON_GetArraySize(rl_get(jr, "runs")) +
	            (size_t)cJSON_GetArraySize(rl_get(jr, "left"));
	if (check_table(l, i + 1) != 0)
		return -1;
	if (!l->first_arm && (!(l->first_arm = calloc(d->nwl, sizeof *l->first_arm)) ||
	                      !(l->first_wl = calloc(d->nwl, sizeof *l->first_wl))))
		return rl_nomem(l);
	if (!(row = new_row(l, warmup, solo, i)))
		return -1;
	cJSON_ArrayForEach(run, rl_get(jr, "runs"))
	{
		snprintf(at, sizeof at, "rounds[%zu].runs[%zu]", i, j++);
		if (load_run(l, run, i, warmup, row, at) != 0)
			return -1;
	}
	return load_left(l, rl_get(jr, "left"), i, warmup, row);
}

void rl_forget(struct loader *l)
{
	for (size_t w = 0; l->first_wl && w < l->d->nwl; w++)
		cJSON_Delete(l->first_wl[w]);
	free(l->first_wl);
	free(l->first_arm);
	free(l->rep_t);
	free(l->rep_c);
	l->rep_t = l->rep_c = NULL;
	l->first_wl = NULL;
	l->first_arm = NULL;
}
