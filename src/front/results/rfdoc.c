/* rfdoc.c - reading a loaded document (results.h): its runs, names, regimes and the time its
 * comparisons use. */
#include "front/results/results.h"
#include "front/results/rfload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
		return rf_kind_has(d, RF_KIND_WHOLE_PROCESS) ? "cold and steady (steady: the phases the program repeated)"
		                   : "cold and steady";
	if (d->has_regime[RF_STEADY])
		return "steady only";
	return rf_kind_has(d, RF_KIND_WHOLE_PROCESS) ? "cold only (commands: one process per run, no phase repeated)"
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

static const char *const policy_names[] = {"wall", "cpu", "auto"};

const char *rf_time_name(enum rf_time t)
{
	return t == RF_TIME_CPU ? "cpu" : "wall";
}

const char *rf_time_policy_name(enum rf_time_policy p)
{
	return (unsigned)p < 3 ? policy_names[p] : "wall";
}

int rf_time_policy_parse(const char *s, enum rf_time_policy *out)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, policy_names[i]) == 0) {
			*out = (enum rf_time_policy)i;
			return 0;
		}
	return -1;
}

static void runs_use(struct rf_run *runs, size_t nrounds, const struct rf_doc *d)
{
	for (size_t i = 0; i < nrounds * d->narms * d->nwl; i++) {
		const struct rf_workload *w = &d->wl[i % d->nwl];
		for (size_t p = 0; p < RF_MAX_PHASES; p++)
			for (int g = 0; g < RF_NREGIMES; g++)
				runs[i].t_regime[g][p] = runs[i].t_basis[w->ptime[p]][g][p];
	}
}

void rf_use_time(struct rf_doc *d, enum rf_time_policy p)
{
	for (size_t w = 0; w < d->nwl; w++) {
		struct rf_workload *wl = &d->wl[w];
		int cpu = p == RF_POLICY_CPU || (p == RF_POLICY_AUTO && wl->single_threaded);
		int tp = rf_phase(wl, "total");

		wl->cpu_wanted = cpu;
		for (size_t k = 0; k < RF_MAX_PHASES; k++)
			wl->ptime[k] = cpu && !wl->wall_only[k] ? RF_TIME_CPU : RF_TIME_WALL;
		wl->time = wl->ptime[tp >= 0 ? tp : 0];
	}
	runs_use(d->runs, d->nrounds, d);
	runs_use(d->warm_runs, d->nwarmup, d);
	d->time_policy = p;
}

/* " (wall time for PHASE of WORKLOAD, ...: no CPU time in their runs)" for the phases on wall time
 * that the time policy would give CPU time (the total included), appended at buf[*k]. */
static void wall_phases(const struct rf_doc *d, char *buf, size_t len, size_t *k)
{
	size_t n = 0;

	for (size_t w = 0; w < d->nwl; w++)
		for (size_t p = 0; p < d->wl[w].nphases && *k < len; p++)
			if (d->wl[w].cpu_wanted && d->wl[w].wall_only[p])
				*k += (size_t)snprintf(buf + *k, len - *k, "%s%s of %s",
				                       n++ ? ", " : " (wall time for ",
				                       d->wl[w].phases[p], d->wl[w].name);
	if (n && *k < len)
		*k += (size_t)snprintf(buf + *k, len - *k,
		                       ": %s no CPU time: a CPU figure missing or 0, or marks without "
		                       "a CPU field or of 0 ns)",
		                       n > 1 ? "their runs have" : "its runs have");
}

const char *rf_times_used(const struct rf_doc *d, char *buf, size_t len)
{
	size_t ncpu = 0, k = 0;

	for (size_t w = 0; w < d->nwl; w++)
		ncpu += d->wl[w].time == RF_TIME_CPU;
	if (ncpu == 0 || ncpu == d->nwl) {
		k = (size_t)snprintf(buf, len, "%s", ncpu ? "CPU time" : "wall time");
		wall_phases(d, buf, len, &k);
		return buf;
	}
	k = (size_t)snprintf(buf, len, "CPU time for ");
	for (size_t w = 0, i = 0; w < d->nwl && k < len; w++)
		if (d->wl[w].time == RF_TIME_CPU)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", i++ ? ", " : "",
			                      d->wl[w].name);
	if (k < len)
		k += (size_t)snprintf(buf + k, len - k, " (%s), wall time for the others",
		                      d->time_policy != RF_POLICY_AUTO ? "all with CPU times"
		                      : rf_kind_has(d, RF_KIND_WHOLE_PROCESS) ? "CPU/wall at most 1.1 in every arm"
		                                    : "single-threaded");
	wall_phases(d, buf, len, &k);
	return buf;
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
		rf_input_free(d->wl[i].input);
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
	free(d->usage);
	free(d->cpu_wall);
	free(d->round_index);
	free(d->round_solo);
	free(d->fails);
	free(d->path);
	free(d->status);
	free(d->machine_desc);
	free(d->env);
	free(d->tracking);
	free(d->label);
	free(d->host);
	free(d->boot_id);
	free(d->machine_id_stored);
	free(d->ran);
	free(d->cpu_vendor);
	free(d);
}
