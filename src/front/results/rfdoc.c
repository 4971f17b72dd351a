/* rfdoc.c - reading a loaded document (results.h): its runs, names and regimes. */
#include "front/results/results.h"

#include <math.h>
#include <string.h>

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

double rf_time(const struct rf_run *run, size_t p)
{
	return isnan(run->t_regime[RF_STEADY][p]) ? run->t_regime[RF_COLD][p]
	                                          : run->t_regime[RF_STEADY][p];
}

const struct rf_run *rf_warm_run(const struct rf_doc *d, size_t k, size_t arm, size_t wl)
{
	return &d->warm_runs[(k * d->narms + arm) * d->nwl + wl];
}

const char *rf_regime_name(enum rf_regime g)
{
	return g == RF_STEADY ? "steady" : "cold";
}

const char *rf_regimes_measured(const struct rf_doc *d)
{
	if (d->has_regime[RF_COLD] && d->has_regime[RF_STEADY])
		return d->commands ? "cold and steady (steady: the phases the program repeated)"
		                   : "cold and steady";
	if (d->has_regime[RF_STEADY])
		return "steady only";
	return d->commands ? "cold only (commands: one process per run, no phase repeated)"
	                   : "cold only (one repetition per run)";
}

int rf_phase_measured(const struct rf_doc *d, const char *workload, const char *phase,
                      enum rf_regime g)
{
	for (size_t w = 0; w < d->nwl; w++) {
		int p = rf_phase(&d->wl[w], phase);
		if ((!workload || strcmp(d->wl[w].name, workload) == 0) && p >= 0 &&
		    d->wl[w].measured[g][p])
			return 1;
	}
	return 0;
}
