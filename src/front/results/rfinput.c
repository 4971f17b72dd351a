/* rfinput.c - what the results reader keeps of a workload's input (a replay's recorded process,
 * record.workload.input) and of a probed run's probe summary (its processes and calls); the
 * fields are described in docs/results-format.md. */
#include "front/results/rfload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RF_MAX_INPUT_TEXT 1024 /* bytes of an input's path, executable or command line */

/* The malloc family of probe.counts_total (src/preload/count.c); "bytes" is not a call. */
static const char *const call_keys[] = {"malloc",   "free",           "calloc",
                                        "realloc",  "posix_memalign", "aligned_alloc",
                                        "memalign", "valloc",         "pvalloc"};

/* probe.NAME (rusage_total, cpu_total): absent, null, or an object of counts, each an integer in
 * 0..RF_MAX_FIGURE like every resource count (a fraction, a negative or 1e300 is refused). */
static int probe_counts(struct loader *l, const cJSON *probe, const char *name, const char *at)
{
	const cJSON *o = rl_get(probe, name), *m;
	double v;

	if (!o || cJSON_IsNull(o))
		return 0;
	if (!cJSON_IsObject(o))
		return rl_fail(l, "%s: probe.%s is not an object", at, name);
	cJSON_ArrayForEach(m, o)
	{
		if (rl_count(m, &v) != 0)
			return rl_fail(l, "%s: probe.%s.%.40s is not an integer in 0..%g", at, name,
			               m->string, RF_MAX_FIGURE);
	}
	return 0;
}

int rl_probe(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at)
{
	const cJSON *probe = rl_get(jr, "probe"), *counts;
	double v;

	run->processes = run->calls = run->threads = NAN;
	if (!probe || cJSON_IsNull(probe))
		return 0;
	if (!cJSON_IsObject(probe))
		return rl_fail(l, "%s: probe is not an object", at);
	if (rl_opt_num(l, probe, "thread_count", RF_MAX_FIGURE, at, "probe", &run->threads))
		return -1;
	if (run->ok && cJSON_IsFalse(rl_get(probe, "verified")))
		return rl_fail(l,
		               "%s: status \"ok\" with probe.verified false: a run whose proof "
		               "failed is \"unverified\" and never compared (docs/results-format.md)",
		               at);
	if (rl_opt_count(l, probe, "process_count", at, "probe", &run->processes) ||
	    probe_counts(l, probe, "rusage_total", at) || probe_counts(l, probe, "cpu_total", at))
		return -1;
	counts = rl_get(probe, "counts_total");
	if (!counts || cJSON_IsNull(counts))
		return 0;
	if (!cJSON_IsObject(counts))
		return rl_fail(l, "%s: probe.counts_total is not an object", at);
	run->calls = 0;
	for (size_t k = 0; k < sizeof call_keys / sizeof call_keys[0]; k++) {
		if (rl_opt_count(l, counts, call_keys[k], at, "probe.counts_total", &v))
			return -1;
		run->calls += isnan(v) ? 0 : v;
	}
	return 0;
}

void rf_input_free(struct rf_input *in)
{
	if (!in)
		return;
	free(in->trace);
	free(in->exe);
	free(in->command);
	free(in->ended);
	free(in);
}

/* An optional string member of o (absent or null: *out NULL), at most RF_MAX_INPUT_TEXT bytes,
 * copied. Returns 0, or -1 with the reason set. */
static int opt_text(struct loader *l, const cJSON *o, const char *key, const char *where,
                    char **out)
{
	const cJSON *v = rl_get(o, key);

	*out = NULL;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || strlen(v->valuestring) > RF_MAX_INPUT_TEXT)
		return rl_fail(l, "%s.%s is not a string of at most %d bytes", where, key,
		               RF_MAX_INPUT_TEXT);
	if (!(*out = strdup(v->valuestring)))
		return rl_nomem(l);
	return 0;
}

static int load_input(struct loader *l, struct rf_workload *w, const cJSON *wl)
{
	const cJSON *in = rl_get(wl, "input");
	struct rf_input *x;
	char where[160];

	if (!in || cJSON_IsNull(in))
		return 0;
	snprintf(where, sizeof where, "%s: the record.workload.input of its first ok run", w->name);
	if (!cJSON_IsObject(in))
		return rl_fail(l, "%s is not an object", where);
	if (!(x = calloc(1, sizeof *x)))
		return rl_nomem(l);
	w->input = x;
	if (opt_text(l, rl_get(wl, "params"), "trace", where, &x->trace) ||
	    opt_text(l, in, "exe", where, &x->exe) ||
	    opt_text(l, in, "command", where, &x->command) ||
	    opt_text(l, in, "ended", where, &x->ended) ||
	    rl_opt_num(l, in, "index", RF_MAX_FIGURE, where, "input", &x->index) ||
	    rl_opt_num(l, in, "pid", RF_MAX_FIGURE, where, "input", &x->pid) ||
	    rl_opt_num(l, in, "threads", RF_MAX_FIGURE, where, "input", &x->threads) ||
	    rl_opt_num(l, in, "events", RF_MAX_FIGURE, where, "input", &x->events) ||
	    rl_opt_num(l, in, "duration_ns", RF_MAX_WALL_NS, where, "input", &x->duration_ns))
		return -1;
	return 0;
}

int rl_inputs(struct loader *l)
{
	for (size_t w = 0; l->first_wl && w < l->d->nwl; w++)
		if (l->first_wl[w] && load_input(l, &l->d->wl[w], l->first_wl[w]) != 0)
			return -1;
	return 0;
}
