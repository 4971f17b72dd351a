/* benchprogress.c - `allocab bench`'s progress line (benchprogress.h): the round, the time spent
 * and left, and per arm the sum over workloads of its median times so far. */
#include "front/engine/benchprogress.h"

#include "front/engine/benchengine.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a bench is. */
struct bench_progress {
	const struct bench_config *c;
	const cJSON *rounds;     /* the document's rounds array so far */
	unsigned done, measured; /* rounds finished this session; of them, measured (not warm-up) */
	unsigned done0;          /* --resume: the rounds the file held; rounds are numbered after them */
	int64_t measured_ns;     /* summed wall time of the measured rounds, as if each had run the
	                            cells that still run (adaptive allocation) */
	double elapsed_s;        /* since the bench started */
	unsigned owed;           /* measured rounds the budget was extended to and not yet run
	                            (engine_need_check): the time left covers them */
};

/* The CPU time of an ok run as its bench compares it: a command run's `cpu.total_ns` (every
 * process), a driver run's median `phases.total.cpu_ns` over its steady reps (its last
 * `regimes.steady_reps`, rep 0 without any); NAN without them. */
static double run_cpu_time(const cJSON *run)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "status");
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(run, "record");
	const cJSON *reps = cJSON_GetObjectItemCaseSensitive(rec, "reps");
	const cJSON *sr = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(rec, "regimes"), "steady_reps");
	int nrep = cJSON_GetArraySize(reps);
	int k = cJSON_IsNumber(sr) ? (int)sr->valuedouble : 0;
	int from = k > 0 && k < nrep ? nrep - k : 0, to = k > 0 ? nrep : (nrep > 0);
	double t[64];
	size_t n = 0;

	if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok") != 0)
		return NAN;
	if (!rec) {
		const cJSON *tot = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(run, "cpu"), "total_ns");
		return cJSON_IsNumber(tot) && tot->valuedouble > 0 ? tot->valuedouble : NAN;
	}
	for (int i = from; i < to && n < sizeof t / sizeof *t; i++) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(
		        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(reps, i), "phases"), "total"),
		    "cpu_ns");

		if (!cJSON_IsNumber(c))
			return NAN;
		t[n++] = c->valuedouble;
	}
	return n ? stats_median(t, n) : NAN;
}

/* Whether the progress line shows CPU time: the bench compares it (config.time cpu or auto;
 * docs/methodology.md, "Which time"). */
static int shows_cpu(const struct bench_progress *e)
{
	return e->c->time != RF_POLICY_WALL;
}

/* Per arm: the sum over workloads of the median time of its measured ok runs so far (CPU time
 * where shows_cpu, else wall), NAN while a workload has none. */
static double arm_suite_median(const struct bench_progress *e, size_t arm)
{
	const struct bench_config *c = e->c;
	size_t cap = e->measured ? e->measured : 1;
	double *t = malloc(cap * sizeof *t), sum = 0;
	const cJSON *round;

	if (!t)
		return NAN;
	for (size_t w = 0; w < c->nwl; w++) {
		size_t n = 0;

		cJSON_ArrayForEach(round, e->rounds)
		{
			const cJSON *run;

			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(round, "warmup")))
				continue;
			cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(round, "runs"))
			{
				const cJSON *ra = cJSON_GetObjectItemCaseSensitive(run, "arm");
				const cJSON *rw = cJSON_GetObjectItemCaseSensitive(run, "workload");
				double x = shows_cpu(e) ? run_cpu_time(run) : benchdoc_run_time(run);

				if (!isnan(x) && n < cap &&
				    strcmp(ra->valuestring, c->arms[arm].name) == 0 &&
				    strcmp(rw->valuestring, c->wl[w].name) == 0)
					t[n++] = x;
			}
		}
		sum = n ? sum + stats_median(t, n) : NAN;
	}
	free(t);
	return sum;
}

static void fmt_clock(double s, char *buf, size_t len)
{
	long v = s > 0 ? (long)(s + 0.5) : 0;

	if (v >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
	else
		snprintf(buf, len, "%ld:%02ld", v / 60, v % 60);
}

static void fmt_time(double ns, char *buf, size_t len)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (ns < 1e9)
		snprintf(buf, len, "%.0f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

/* Seconds left: rounds still to run times the mean round time, capped by the budget, but never
 * below the rounds the budget was extended to. */
static double remaining_s(const struct bench_progress *e, double elapsed, double round_s)
{
	const struct bench_config *c = e->c;
	double left = INFINITY;

	if (c->rounds)
		left = (c->warmup + c->rounds - e->done) * round_s;
	if (c->budget_s > 0 && c->budget_s - elapsed < left)
		left = c->budget_s - elapsed > 0 ? c->budget_s - elapsed : 0;
	if (e->owed && left < e->owed * round_s)
		left = e->owed * round_s;
	return left;
}

/* Writes the progress text into line (len bytes, cut when longer), the rounds numbered as in the
 * file (a resumed bench's first round is done0 + 1): "round 3/10 (warm-up), run 4/8, 0:12
 * elapsed, ~1:02 left | sum of medians, CPU: system 324 ms, ...": the CPU time where the bench
 * compares it (config.time cpu or auto), else "wall:". run 0: the round just finished ("round
 * 3/10 done"); the time left only once a round has finished, the medians only once a measured
 * round has. */
static void bench_progress_text(const struct bench_progress *e, size_t run, size_t nruns,
                                char *line, size_t len)
{
	const struct bench_config *c = e->c;
	double elapsed = e->elapsed_s;
	double round_s = e->measured ? (double)e->measured_ns / 1e9 / e->measured
	                             : (e->done ? elapsed / e->done : NAN);
	unsigned shown = e->done0 + (run ? e->done + 1 : e->done);
	int warm = run ? e->done < c->warmup : e->done <= c->warmup;
	char el[32], left[32];
	size_t k;

	fmt_clock(elapsed, el, sizeof el);
	if (c->rounds)
		k = (size_t)snprintf(line, len, "round %u/%u", shown, e->done0 + c->warmup + c->rounds);
	else
		k = (size_t)snprintf(line, len, "round %u", shown);
	if (run)
		k += (size_t)snprintf(line + k, len - k, "%s, run %zu/%zu, %s elapsed",
		                      warm ? " (warm-up)" : "", run, nruns, el);
	else
		k += (size_t)snprintf(line + k, len - k, "%s done, %s elapsed",
		                      warm ? " (warm-up)" : "", el);
	if (!isnan(round_s) && k < len) {
		fmt_clock(remaining_s(e, elapsed, round_s), left, sizeof left);
		k += (size_t)snprintf(line + k, len - k, ", ~%s left", left);
	}
	for (size_t a = 0; e->measured && a < c->narms && k < len; a++) {
		char t[32];

		fmt_time(arm_suite_median(e, a), t, sizeof t);
		k += (size_t)snprintf(line + k, len - k, "%s%s %s %s",
		                      a            ? ","
		                      : c->nwl > 1 ? " | sum of medians, "
		                                   : " | median ",
		                      a ? "" : shows_cpu(e) ? "CPU:" : "wall:", c->arms[a].name, t);
	}
}

/* The progress text of the bench so far. */
static void progress_text(struct engine *e, size_t run, size_t nruns, char *line, size_t len)
{
	const struct bench_progress p = {
	    .c = e->c,
	    .rounds = e->rounds,
	    .done = e->done - e->done0,
	    .done0 = e->done0,
	    .measured = e->measured - e->measured0,
	    .measured_ns = (int64_t)((double)e->measured_ns * bench_cells_share(&e->cells)),
	    .elapsed_s = (double)(engine_now(e) - e->t_start) / 1e9,
	    .owed = e->need_session > e->measured - e->measured0
	                ? e->need_session - (e->measured - e->measured0)
	                : 0,
	};

	bench_progress_text(&p, run, nruns, line, len);
}

void engine_progress_run(struct engine *e, size_t run, size_t nruns)
{
	char line[1024];

	progress_text(e, run, nruns, line, sizeof line);
	progress_fit(line, progress_width(2));
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	e->progress_shown = 1;
}

void engine_progress_written(struct engine *e)
{
	char line[1024];

	if (e->c->progress != PROGRESS_LINES || e->kept != e->done || e->shown >= e->done)
		return;
	progress_text(e, 0, 0, line, sizeof line);
	fprintf(stderr, "allocab: %s\n", line);
	fflush(stderr);
	e->shown = e->done;
}
