/* benchprogress.c - the text of `allocab bench`'s progress line: the round, the time spent and
 * left, and per arm the sum over workloads of its median times so far. */
#include "front/engine/benchprogress.h"

#include "front/engine/benchdoc.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void bench_progress_text(const struct bench_progress *e, size_t run, size_t nruns, char *line,
                         size_t len)
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
