/* duet.c - what `--duet` needs before the engine runs (front/plan/plan.h): workloads the
 * drivers mark single-threaded (a program or command is the user's, who says so by giving --duet)
 * and two CPUs to pin the runs to. */
#include "front/plan/plan.h"

#include "common/errmsg.h"
#include "front/proc/proc.h"

#include <stdio.h>

int bench_duet_workloads_ok(const struct bench_config *c, const struct bench_wl_list *l, char *err,
                            size_t errlen)
{
	char have[512] = "";
	size_t used = 0;

	if (!bench_all_arms(c, ARM_KIND_DRIVER_RECORD))
		return 0;
	for (size_t i = 0; i < l->n && used < sizeof have; i++)
		if (l->flags && (l->flags[i] & BENCH_WL_SINGLE_THREADED))
			used += (size_t)snprintf(have + used, sizeof have - used, "%s%s",
			                         used ? ", " : "", l->names[i]);
	for (size_t i = 0; i < c->nwl; i++)
		if (!(bench_wl_flags(l, c->wl[i].name) & BENCH_WL_SINGLE_THREADED))
			return errmsg_fail(
			    err, errlen,
			    "%s: workload '%s' is not single-threaded (the drivers "
			    "list as single_threaded: %s)",
			    c->duet_shared ? "--one-cpu" : "--duet", c->wl[i].name,
			    used ? have : "none");
	return 0;
}

int bench_duet_setup(struct bench_config *c, const struct bench_wl_list *l, int shared, char *err,
                     size_t errlen)
{
	int cpu[2];

	if (c->narms != 2 && !shared)
		return errmsg_fail(err, errlen,
		                   "--duet pairs exactly two allocators (-a A,B), not %zu (--one-cpu runs "
		                   "any number at once)",
		                   c->narms);
	if (shared && c->time != RF_POLICY_CPU)
		return errmsg_fail(err, errlen,
		                   "--one-cpu compares CPU time, not --time %s: a run's wall time there "
		                   "holds the other arms' turns on its CPU",
		                   c->time == RF_POLICY_WALL ? "wall" : "auto");
	if (shared && c->narms > DUET_MAX_SIDES)
		return errmsg_fail(err, errlen, "--one-cpu runs at most %d arms at once, not %zu",
		                   DUET_MAX_SIDES, c->narms);
	c->duet_shared = shared;
	if (bench_duet_workloads_ok(c, l, err, errlen) != 0 ||
	    duet_cpus(cpu, shared, err, errlen) != 0) {
		c->duet_shared = 0;
		return -1;
	}
	c->duet = 1;
	return 0;
}
