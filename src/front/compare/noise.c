/* noise.c - telemetry spike flags (compare.h). Rates are per second of the run's own wall time so
 * that a slow arm, which naturally collects more context switches, is not flagged for being slow.
 */
#include "front/compare/compare.h"

#include "common/trackmode.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct metric {
	const char *name;
	double floor; /* smallest value that counts: a quiet machine must not flag trivial blips */
	int machine;  /* a property of the machine, pooled over workloads; else per workload */
	double (*value)(const struct rf_run *run);
};

static double per_second(double count, const struct rf_run *run)
{
	return run->wall_ns > 0 ? count / (run->wall_ns * 1e-9) : NAN;
}

static double invol_rate(const struct rf_run *run)
{
	return per_second(run->invol_ctx, run);
}

static double steal_rate(const struct rf_run *run)
{
	return per_second(run->steal_s, run);
}

static double loadavg(const struct rf_run *run)
{
	return run->loadavg_1m;
}

static const struct metric metrics[] = {
    {.name = "involuntary_ctx_switches_per_s", .floor = 20.0, .value = invol_rate},
    {.name = "steal_cpu_s_per_s", .floor = 0.05, .machine = 1, .value = steal_rate},
    {.name = "loadavg_1m", .floor = 1.0, .machine = 1, .value = loadavg},
};

#define NMETRICS (sizeof metrics / sizeof *metrics)

static double value_of(const struct rf_doc *doc, size_t i, size_t a, size_t w, size_t m)
{
	const struct rf_run *run = rf_run(doc, i, a, w);

	return run->ok ? metrics[m].value(run) : NAN;
}

/* Whether metric m of workload w is judged against the runs of workload k. */
static int same_pool(size_t m, size_t w, size_t k)
{
	return metrics[m].machine || w == k;
}

/* This bench's normal for metric m around workload w, from the ok runs of its pool (every
 * workload for a machine metric): the upper far-out fence Q3 + k IQR of the values above zero
 * (how much steal or switching there is when there is any), at least the metric's floor; the
 * floor alone with fewer than 4 such values, however few the runs (docs/methodology.md, "Noise
 * telemetry and drift"). */
static double normal_limit(const struct rf_doc *doc, size_t w, size_t m, double *v)
{
	size_t n = 0;

	for (size_t k = 0; k < doc->nwl; k++)
		for (size_t i = 0; same_pool(m, w, k) && i < doc->nrounds; i++)
			for (size_t a = 0; a < doc->narms; a++) {
				double x = value_of(doc, i, a, k, m);
				if (x > 0)
					v[n++] = x;
			}
	if (n < 4)
		return metrics[m].floor;
	double q1 = stats_quantile(v, n, 0.25), q3 = stats_quantile(v, n, 0.75);
	return fmax(q3 + NOISE_FENCE_IQR * (q3 - q1), metrics[m].floor);
}

static int flag_metric(const struct rf_doc *doc, size_t w, size_t m, double *v,
                       struct noise_flag **flags, size_t *nflags)
{
	double thr = normal_limit(doc, w, m, v);
	for (size_t i = 0; i < doc->nrounds; i++)
		for (size_t a = 0; a < doc->narms; a++) {
			double x = value_of(doc, i, a, w, m);
			struct noise_flag *f;
			if (!(x > thr))
				continue;
			if (!(f = realloc(*flags, (*nflags + 1) * sizeof *f)))
				return -1;
			*flags = f;
			f[(*nflags)++] = (struct noise_flag){
			    .doc = doc,
			    .pos = i,
			    .round = doc->round_index[i],
			    .arm = a,
			    .wl = w,
			    .metric = metrics[m].name,
			    .value = x,
			    .threshold = thr,
			};
		}
	return 0;
}

int noise_flag_spikes(const struct rf_doc *doc, struct noise_flag **flags, size_t *nflags)
{
	double *v = malloc((doc->nrounds * doc->narms * doc->nwl + 1) * sizeof *v);
	int rc = v ? 0 : -1;

	for (size_t w = 0; rc == 0 && w < doc->nwl; w++)
		for (size_t m = 0; rc == 0 && m < NMETRICS; m++)
			rc = flag_metric(doc, w, m, v, flags, nflags);
	free(v);
	return rc;
}

int noise_spiked(const struct noise_flag *flags, size_t nflags, const struct rf_doc *doc,
                 size_t pos, size_t arm, size_t wl)
{
	for (size_t i = 0; i < nflags; i++)
		if (flags[i].doc == doc && flags[i].pos == pos && flags[i].arm == arm &&
		    flags[i].wl == wl)
			return 1;
	return 0;
}

int noise_warnf(char ***warn, size_t *n, const char *fmt, ...)
{
	char **w = realloc(*warn, (*n + 1) * sizeof *w);
	va_list ap;
	int len;

	if (!w)
		return -1;
	*warn = w;
	va_start(ap, fmt);
	len = vasprintf(&w[*n], fmt, ap);
	va_end(ap);
	if (len < 0)
		return -1;
	(*n)++;
	return 0;
}

/* The median telemetry.runnable over d's ok measured runs of workload w (NAN: unknown). */
static double median_runnable(const struct rf_doc *d, size_t w)
{
	double *v = malloc((d->nrounds * d->narms + 1) * sizeof *v), m;
	size_t n = 0;

	if (!v)
		return NAN;
	for (size_t r = 0; r < d->nrounds; r++)
		for (size_t a = 0; a < d->narms; a++) {
			const struct rf_run *run = rf_run(d, r, a, w);
			if (run->ok && !isnan(run->runnable))
				v[n++] = run->runnable;
		}
	m = n ? stats_median(v, n) : NAN;
	free(v);
	return m;
}

/* Where a command's CPU time may not measure the job (docs/programs.md, "Which time"): an arm
 * whose runs keep more than NOISE_CPU_PARALLEL CPUs busy on average (threads at once: a pool that
 * spins counts its spinning as work), or less than NOISE_CPU_IDLE of one (the job waits: I/O, a
 * GPU, a sleep, or a CPU under load, which CPU time does not see); of its share of one with
 * --one-cpu, where the arms of a round take turns on their CPU. */
#define NOISE_CPU_PARALLEL 1.5
#define NOISE_CPU_IDLE     0.5
/* A run-to-run spread (MAD of the log total) of CPU time this many times that of wall time, and
 * at least NOISE_CPU_SPREAD_MIN, with 5 ok runs or more, in an arm whose CPU/wall is above 1
 * (threads at once): CPU time is not the calmer measure here (threads spinning for a CPU the load
 * took: the more load, the more spinning). A job that waits (CPU/wall well below 1) has a steady
 * wall time and a CPU time that moves, and is not this. */
#define NOISE_CPU_SPREAD     2.0
#define NOISE_CPU_SPREAD_MIN 0.05

/* How many times the spread of arm a's CPU totals on workload w is that of its wall totals
 * (0: too few runs, or a CPU spread below NOISE_CPU_SPREAD_MIN). */
static double cpu_spread_ratio(const struct rf_doc *d, size_t a, size_t w)
{
	double *c = malloc(2 * (d->nrounds + 1) * sizeof *c), *t, mc, mt;
	int tp = rf_phase(&d->wl[w], "total");
	size_t n = 0;

	if (!c || tp < 0) {
		free(c);
		return 0;
	}
	t = c + d->nrounds + 1;
	for (size_t r = 0; r < d->nrounds; r++) {
		const struct rf_run *run = rf_run(d, r, a, w);
		double x = run->t_basis[RF_TIME_CPU][RF_COLD][tp],
		       y = run->t_basis[RF_TIME_WALL][RF_COLD][tp];
		if (run->ok && x > 0 && y > 0)
			c[n] = log(x), t[n++] = log(y);
	}
	mc = n >= 5 ? stats_mad(c, n) : 0;
	mt = n >= 5 ? stats_mad(t, n) : 0;
	free(c);
	if (!(mc >= NOISE_CPU_SPREAD_MIN))
		return 0;
	return mt > 0 ? mc / mt : INFINITY;
}

/* What to do when CPU time counts spinning threads, the end of both warnings that say so. */
#define NOISE_SPIN_ADVICE                                                                          \
	"compare --time wall on the same file; or bench again with OMP_WAIT_POLICY=passive in "    \
	"the "                                                                                     \
	"bench's environment, which every arm inherits (OpenMP: XGBoost, BLAS, PyTorch's "         \
	"intra-op "                                                                                \
	"pool), or with more rounds (docs/programs.md, \"Which time\")"

/* The arm of workload w whose CPU time spreads the most against its wall time, if one spreads
 * NOISE_CPU_SPREAD times as much, as a warning. */
static int spread_warning(const struct rf_doc *d, size_t w, char ***warn, size_t *nwarn)
{
	double hi = 0;
	size_t ahi = 0;
	char times[32] = "far more than";

	for (size_t a = 0; a < d->narms; a++) {
		double x = rf_cpu_wall_ratio(d, a, w) > 1 ? cpu_spread_ratio(d, a, w) : 0;
		if (x > hi)
			hi = x, ahi = a;
	}
	if (hi < NOISE_CPU_SPREAD)
		return 0;
	if (isfinite(hi))
		snprintf(times, sizeof times, "%.1f times as much as", hi);
	return noise_warnf(
	    warn, nwarn,
	    "WARNING: %s: %s: CPU time spreads %s wall time "
	    "from run to run for %s (CPU/wall %.2f): threads that wait busily for "
	    "each other or for a CPU (OpenMP, BLAS, a thread pool) count their "
	    "spinning as work, and spin longer the more the machine is loaded: " NOISE_SPIN_ADVICE,
	    d->path, d->wl[w].name, times, d->arms[ahi], rf_cpu_wall_ratio(d, ahi, w));
}

static int cpu_warnings(const struct rf_doc *d, char ***warn, size_t *nwarn)
{
	for (size_t w = 0; rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && w < d->nwl; w++) {
		double hi = 0, lo = INFINITY, load,
		       share = d->cpu_shared ? 1.0 / (double)d->narms : 1;
		size_t ahi = 0, alo = 0;
		int rc = 0;
		char of[96] = "";

		if (d->wl[w].time != RF_TIME_CPU)
			continue;
		for (size_t a = 0; a < d->narms; a++) {
			double q = rf_cpu_wall_ratio(d, a, w);
			if (isnan(q))
				continue;
			if (q > hi)
				hi = q, ahi = a;
			if (q < lo)
				lo = q, alo = a;
		}
		if (hi > NOISE_CPU_PARALLEL)
			rc = noise_warnf(
			    warn, nwarn,
			    "WARNING: %s: %s: CPU/wall %.2f for %s: its processes "
			    "keep %.1f CPUs busy at once%s, and CPU time counts every "
			    "thread's work, spinning included (a thread pool, OpenMP or "
			    "BLAS waiting busily): " NOISE_SPIN_ADVICE,
			    d->path, d->wl[w].name, hi, d->arms[ahi], hi,
			    !isnan(d->online_cpus) && hi >= 0.9 * d->online_cpus
			        ? ", every CPU of the machine"
			        : "");
		else
			rc = spread_warning(d, w, warn, nwarn);
		if (rc == 0 && lo < NOISE_CPU_IDLE * share) {
			load = median_runnable(d, w);
			if (d->cpu_shared)
				snprintf(of, sizeof of, ", %zu runs at once on its CPU (--one-cpu)",
				         d->narms);
			rc = noise_warnf(
			    warn, nwarn,
			    "WARNING: %s: %s: CPU/wall %.2f for %s%s: the job is off the CPU for "
			    "most of "
			    "its wall time (blocked on I/O, a GPU or a sleep%s), which CPU time "
			    "does "
			    "not count: check that compare --time wall agrees (docs/programs.md, "
			    "\"Which time\")",
			    d->path, d->wl[w].name, lo, d->arms[alo], of,
			    !isnan(load) && !isnan(d->online_cpus) && load > d->online_cpus
			        ? ", or waiting for a CPU: the machine was loaded"
			        : "");
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int steering(const char *env)
{
	return env && strcmp(env, "{}") != 0 && strcmp(env, "null") != 0;
}

int noise_doc_warnings(const struct rf_doc *a, const struct rf_doc *b, char ***warn, size_t *nwarn)
{
	int rc = 0;

	for (const struct rf_doc *d = a; d && rc == 0; d = d == b ? NULL : b) {
		if (strcmp(d->status, "complete") != 0 && strcmp(d->status, "decided") != 0 &&
		    strcmp(d->status, "budget") != 0)
			rc = noise_warnf(warn, nwarn,
			                 "%s: bench status '%s' after %zu measured rounds", d->path,
			                 d->status, d->nrounds);
		if (rc == 0 && d->tracking &&
		    !trackmode_has(d->tracking, TRACKMODE_EVERY_PROCESS))
			rc = noise_warnf(warn, nwarn,
			                 "WARNING: %s: process tracking: %s: processes started "
			                 "past the probe's exec wrappers could not be seen "
			                 "(docs/programs.md, \"Process tracking\")",
			                 d->path, d->tracking);
		if (rc == 0)
			rc = cpu_warnings(d, warn, nwarn);
		if (rc == 0 && steering(d->env))
			rc = noise_warnf(warn, nwarn,
			                 "%s: ran with allocator-steering environment %s", d->path,
			                 d->env);
	}
	if (rc || !b)
		return rc;
	if (!a->machine_id[0] || !b->machine_id[0])
		rc = noise_warnf(warn, nwarn,
		                 "WARNING: %s has no machine fingerprint: cannot tell whether both "
		                 "files come from the same machine",
		                 a->machine_id[0] ? b->path : a->path);
	else if (strcmp(a->machine_id, b->machine_id) != 0)
		rc =
		    noise_warnf(warn, nwarn,
		                "WARNING: machine fingerprints differ: %s (%s: %s) vs %s (%s: %s): "
		                "the differences mix machine and allocator effects",
		                a->path, a->machine_id, a->machine_desc, b->path, b->machine_id,
		                b->machine_desc);
	if (rc == 0 && a->env && b->env && strcmp(a->env, b->env) != 0)
		rc = noise_warnf(warn, nwarn,
		                 "WARNING: allocator environment differs: %s %s vs %s %s", a->path,
		                 a->env, b->path, b->env);
	return rc;
}
