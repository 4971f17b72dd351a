/* rfcpu.c - the CPU time of the runs of commands and programs, which phases have one, what
 * auto makes of a command, and each arm's CPU/wall ratio (results.h; docs/programs.md, "Which
 * time"). */
#include "front/results/rfload.h"

#include "front/stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The run's CPU time: every process of the run, user and system. The per-run cgroup's figures
 * (containment.cgroup_cpu) cover processes nobody waited for; wait4's rusage (process) covers
 * the process and the children it waited for. */
static int opt_ns(struct loader *l, const cJSON *o, const char *key, const char *at,
                  const char *obj, double *out)
{
	const cJSON *v = rl_get(o, key);
	uint64_t n;

	*out = NAN;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!jl_uint(v, (uint64_t)RF_MAX_WALL_NS, &n))
		return rl_fail(l, "%s: %s.%s is not an integer of nanoseconds in 0..%g", at, obj, key,
		               RF_MAX_WALL_NS);
	*out = (double)n;
	return 0;
}

int rl_cpu(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at)
{
	const cJSON *cg = rl_get(rl_get(jr, "containment"), "cgroup_cpu");
	const cJSON *src = cg && !cJSON_IsNull(cg) ? cg : rl_get(jr, "process");
	const char *obj = src == cg ? "containment.cgroup_cpu" : "process";
	double user, sys;

	if (opt_ns(l, src, "user_ns", at, obj, &user) || opt_ns(l, src, "sys_ns", at, obj, &sys))
		return -1;
	if (!isnan(user) && !isnan(sys) && user + sys >= 1)
		run->t_basis[RF_TIME_CPU][RF_COLD][0] = user + sys;
	return 0;
}

void rl_note_cpu(struct rf_workload *w, const struct rf_run *run)
{
	for (size_t p = 0; p < w->nphases; p++)
		for (int g = 0; g < RF_NREGIMES; g++)
			if (!isnan(run->t_basis[RF_TIME_WALL][g][p]) &&
			    isnan(run->t_basis[RF_TIME_CPU][g][p]))
				w->wall_only[p] = 1;
}

/* The regime a run's CPU/wall ratio is taken from: steady when the workload has one. */
static int ratio_regime(const struct rf_workload *w, size_t p)
{
	return w->measured[RF_STEADY][p] ? RF_STEADY : RF_COLD;
}

static double cpu_wall_of(const struct rf_doc *d, size_t arm, size_t wl)
{
	const struct rf_workload *w = &d->wl[wl];
	int tp = rf_phase(w, "total"), g;
	double *v = malloc((d->nrounds ? d->nrounds : 1) * sizeof *v), med;
	size_t n = 0;

	if (!v || tp < 0) {
		free(v);
		return NAN;
	}
	g = ratio_regime(w, (size_t)tp);
	for (size_t r = 0; r < d->nrounds; r++) {
		const struct rf_run *run = rf_run(d, r, arm, wl);
		double c = run->t_basis[RF_TIME_CPU][g][tp], t = run->t_basis[RF_TIME_WALL][g][tp];
		if (run->ok && c > 0 && t > 0)
			v[n++] = c / t;
	}
	med = n ? stats_median(v, n) : NAN;
	free(v);
	return med;
}

double rf_cpu_wall_ratio(const struct rf_doc *d, size_t arm, size_t wl)
{
	if (arm >= d->narms || wl >= d->nwl)
		return NAN;
	return d->cpu_wall ? d->cpu_wall[arm * d->nwl + wl] : cpu_wall_of(d, arm, wl);
}

/* d->cpu_wall filled for the runs d holds now; left NULL when memory runs out. */
static void cache_cpu_wall(struct rf_doc *d)
{
	free(d->cpu_wall);
	d->cpu_wall = NULL;
	if (!d->narms || !d->nwl || !(d->cpu_wall = malloc(d->narms * d->nwl * sizeof *d->cpu_wall)))
		return;
	for (size_t a = 0; a < d->narms; a++)
		for (size_t w = 0; w < d->nwl; w++)
			d->cpu_wall[a * d->nwl + w] = cpu_wall_of(d, a, w);
}

/* Whether auto gives command workload w CPU time: every arm's runs used at most
 * RF_AUTO_MAX_CPU_RATIO CPUs at once (median CPU/wall), as a single-threaded program does
 * however loaded the machine is. */
static int command_single(const struct rf_doc *d, size_t w)
{
	int any = 0;

	for (size_t a = 0; a < d->narms; a++) {
		double q = rf_cpu_wall_ratio(d, a, w);
		if (isnan(q))
			continue;
		if (q > RF_AUTO_MAX_CPU_RATIO)
			return 0;
		any = 1;
	}
	return any;
}

void rl_cpu_auto(struct rf_doc *d)
{
	cache_cpu_wall(d);
	for (size_t w = 0; rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && w < d->nwl; w++)
		d->wl[w].single_threaded = command_single(d, w);
}

enum rf_time rf_phase_time(const struct rf_doc *d, size_t wl, size_t p)
{
	const struct rf_workload *w = &d->wl[wl];

	return p < w->nphases ? w->ptime[p] : w->time;
}

const char *rf_phase_time_name(const struct rf_doc *d, const char *workload, const char *phase)
{
	int w = workload ? rf_workload(d, workload) : -1, p;
	size_t ncpu = 0, nwall = 0;

	if (w >= 0) {
		p = phase ? rf_phase(&d->wl[w], phase) : -1;
		return rf_time_name(p >= 0 ? d->wl[w].ptime[p] : d->wl[w].time);
	}
	for (size_t i = 0; i < d->nwl; i++) {
		p = phase ? rf_phase(&d->wl[i], phase) : -1;
		enum rf_time t = p >= 0 ? d->wl[i].ptime[p] : d->wl[i].time;
		ncpu += t == RF_TIME_CPU;
		nwall += t == RF_TIME_WALL;
	}
	return nwall == 0 && ncpu ? "cpu" : ncpu == 0 ? "wall" : "mixed";
}
