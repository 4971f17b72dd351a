/* benchdocrun.c - the run objects of an allocab-bench/2 file, one per finished process: its
 * status (classified from the process's end and, for a driver, its record), exit, signal,
 * stderr tail, process figures and telemetry; the probe's judgement added to it; the time a run
 * shows. Field meanings: docs/results-format.md. */
#include "front/engine/benchdoc.h"
#include "front/proc/proc.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[RS_COUNT] = {"ok",      "failed",  "unverified",
                                                   "crashed", "timeout", "invalid"};

const char *bench_run_status_name(size_t i)
{
	return i < RS_COUNT ? status_names[i] : NULL;
}

static cJSON *parse_record(const struct runner_result *r, const char **why)
{
	cJSON *rec, *schema;

	if (r->out_truncated) {
		*why = "stdout exceeded 16 MiB";
		return NULL;
	}
	if (!r->out || !(rec = cJSON_ParseWithLength(r->out, r->out_len))) {
		*why = "stdout is not JSON";
		return NULL;
	}
	schema = cJSON_GetObjectItemCaseSensitive(rec, "schema");
	if (!cJSON_IsObject(rec) || !cJSON_IsString(schema) ||
	    strcmp(schema->valuestring, "allocab-run/1") != 0) {
		cJSON_Delete(rec);
		*why = "stdout is not an allocab-run/1 document";
		return NULL;
	}
	return rec;
}

/* The signal a command's shell reports as exit status 128 + N for a child killed by signal N
 * (dash does not exec the last command of -c, so that is how a crash of the user's program
 * reaches us); 0 for other statuses and for kinds that are not run by a shell. */
static int shell_signal(const struct bench_arm *a, const struct runner_result *r)
{
	int sig = r->exit_code - 128;

	return arm_kind_has(bench_arm_kind(a), ARM_KIND_SHELL) && r->end == RUNNER_EXITED &&
	               sig >= 1 && sig <= 31 &&
	               runner_signal_name(sig)
	           ? sig
	           : 0;
}

static enum run_status classify(const struct bench_arm *a, const struct runner_result *r,
                                const cJSON *rec)
{
	int records = arm_kind_has(bench_arm_kind(a), ARM_KIND_DRIVER_RECORD);

	if (r->end == RUNNER_TIMEOUT)
		return RS_TIMEOUT;
	if (r->end == RUNNER_SIGNALED || shell_signal(a, r))
		return RS_CRASHED;
	if (r->exit_code == 4 && records)
		return RS_UNVERIFIED;
	if (r->exit_code != 0)
		return RS_FAILED;
	return records && !rec ? RS_INVALID : RS_OK;
}

static cJSON *process_json(const struct runner_result *r)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddNumberToObject(p, "wall_ns", (double)r->wall_ns);
	cJSON_AddNumberToObject(p, "user_ns", (double)r->user_ns);
	cJSON_AddNumberToObject(p, "sys_ns", (double)r->sys_ns);
	cJSON_AddNumberToObject(p, "max_rss_kib", (double)r->max_rss_kib);
	cJSON_AddNumberToObject(p, "minor_faults", (double)r->minor_faults);
	cJSON_AddNumberToObject(p, "major_faults", (double)r->major_faults);
	cJSON_AddNumberToObject(p, "voluntary_ctx_switches", (double)r->vol_ctx_switches);
	cJSON_AddNumberToObject(p, "involuntary_ctx_switches", (double)r->invol_ctx_switches);
	return p;
}

static cJSON *telemetry_json(const struct telemetry_sample *before,
                             const struct telemetry_sample *after)
{
	cJSON *t = cJSON_CreateObject();

	if (before->have_steal && after->have_steal && after->steal_ticks >= before->steal_ticks)
		cJSON_AddNumberToObject(t, "steal_ticks",
		                        (double)(after->steal_ticks - before->steal_ticks));
	else
		cJSON_AddNullToObject(t, "steal_ticks");
	if (before->have_load)
		cJSON_AddNumberToObject(t, "loadavg_1m", before->loadavg_1m);
	else
		cJSON_AddNullToObject(t, "loadavg_1m");
	if (before->have_runnable)
		cJSON_AddNumberToObject(t, "runnable", before->runnable);
	else
		cJSON_AddNullToObject(t, "runnable");
	return t;
}

cJSON *benchdoc_run(const struct bench_arm *a, const struct bench_workload *w, size_t pad,
                    const struct runner_result *r, const struct telemetry_sample tel[2],
                    enum run_status *st)
{
	const char *why = NULL;
	cJSON *rec = arm_kind_has(bench_arm_kind(a), ARM_KIND_DRIVER_RECORD) &&
	                     r->end == RUNNER_EXITED
	                 ? parse_record(r, &why)
	                 : NULL;
	cJSON *o = cJSON_CreateObject();
	int signo = r->term_signal ? r->term_signal : shell_signal(a, r);
	const char *sig = signo ? runner_signal_name(signo) : NULL;
	char signum[16];

	*st = classify(a, r, rec);
	cJSON_AddStringToObject(o, "arm", a->name);
	cJSON_AddStringToObject(o, "workload", w->name);
	cJSON_AddNumberToObject(o, "pad_bytes", (double)pad);
	cJSON_AddStringToObject(o, "status", status_names[*st]);
	if (r->end == RUNNER_EXITED || (r->end == RUNNER_TIMEOUT && !r->term_signal))
		cJSON_AddNumberToObject(o, "exit_status", r->exit_code);
	else
		cJSON_AddNullToObject(o, "exit_status");
	if (signo && !sig) {
		snprintf(signum, sizeof signum, "SIG%d", signo);
		sig = signum;
	}
	if (sig)
		cJSON_AddStringToObject(o, "signal", sig);
	else
		cJSON_AddNullToObject(o, "signal");
	if (*st != RS_OK && r->tail_len)
		cJSON_AddStringToObject(o, "stderr_tail", r->tail);
	else
		cJSON_AddNullToObject(o, "stderr_tail");
	if (*st == RS_INVALID)
		cJSON_AddStringToObject(o, "reason", why);
	cJSON_AddItemToObject(o, "process", process_json(r));
	cJSON_AddItemToObject(o, "telemetry", telemetry_json(&tel[0], &tel[1]));
	if (rec)
		cJSON_AddItemToObject(o, "record", rec);
	return o;
}

void benchdoc_apply_probe(cJSON *run, int verified, const char *reason, cJSON *summary,
                          const char *tail, enum run_status *st)
{
	if (summary)
		cJSON_AddItemToObject(run, "probe", summary);
	if (verified || (*st != RS_OK && *st != RS_FAILED))
		return;
	*st = RS_UNVERIFIED;
	benchdoc_set_string(run, "status", status_names[*st]);
	if (cJSON_GetObjectItemCaseSensitive(run, "reason"))
		benchdoc_set_string(run, "reason", reason);
	else
		cJSON_AddStringToObject(run, "reason", reason);
	if (tail && *tail)
		benchdoc_set_string(run, "stderr_tail", tail);
}

double benchdoc_run_time(const cJSON *run)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "status");
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(run, "record");
	const cJSON *steady = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(rec, "regimes"), "steady_ns");
	const cJSON *reps = cJSON_GetObjectItemCaseSensitive(rec, "reps"), *rep;
	size_t n = 0, cap = (size_t)cJSON_GetArraySize(reps);
	double *t, med;

	if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok") != 0)
		return NAN;
	if (!rec) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(run, "process");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(p, "wall_ns");
		return cJSON_IsNumber(w) ? w->valuedouble : NAN;
	}
	if (cJSON_IsNumber(steady) && steady->valuedouble > 0)
		return steady->valuedouble;
	if (cap == 0 || !(t = malloc(cap * sizeof *t)))
		return NAN;
	cJSON_ArrayForEach(rep, reps)
	{
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(rep, "phases");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(ph, "total"), "wall_ns");

		if (cJSON_IsNumber(w))
			t[n++] = w->valuedouble;
	}
	med = n ? stats_median(t, n) : NAN;
	free(t);
	return med;
}
