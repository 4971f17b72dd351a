/* rfusage.c - the resource counts of a run (docs/results-format.md, "Resource counts"): per regime
 * and phase the median over the regime's reps of each getrusage delta a driver record gives its
 * reps' phases, and a command run's process totals as its cold total. */
#include "front/results/rfload.h"

#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>

static const char *const count_key[RF_NCOUNTS] = {"user_ns", "sys_ns", "minflt",
                                                  "majflt",  "nvcsw",  "nivcsw"};
/* the same figures under their names in a run's "process" (wait4 of the command) */
static const char *const process_key[RF_NCOUNTS] = {
    "user_ns",      "sys_ns", "minor_faults", "major_faults", "voluntary_ctx_switches",
    "involuntary_ctx_switches"};

const char *rf_count_name(enum rf_count c)
{
	return c < RF_NCOUNTS ? count_key[c] : "?";
}

void rl_usage_init(struct rf_run *run)
{
	for (int g = 0; g < RF_NREGIMES; g++)
		for (size_t p = 0; p < RF_MAX_PHASES; p++)
			for (int c = 0; c < RF_NCOUNTS; c++)
				run->usage[g][p][c] = NAN;
}

/* The regime of every rep, as rl_record read them (it has checked them): its "regime", or for a
 * record without them steady_assign's. */
static void regimes_of(const cJSON *reps, size_t n, enum steady_regime *g)
{
	struct steady_rule rule = steady_default_rule();
	const cJSON *rep;
	size_t i = 0;

	steady_assign(n, &rule, g);
	cJSON_ArrayForEach(rep, reps)
	{
		const cJSON *v = rl_get(rep, "regime");
		int k = cJSON_IsString(v) ? steady_regime_parse(v->valuestring) : -1;
		if (k >= 0 && i < n)
			g[i] = (enum steady_regime)k;
		i++;
	}
}

int rl_usage_reps(struct loader *l, const struct rf_workload *w, const cJSON *reps,
                  struct rf_run *run, const char *at)
{
	static const enum steady_regime of[RF_NREGIMES] = {STEADY_COLD, STEADY_STEADY};
	size_t n = (size_t)cJSON_GetArraySize(reps);
	enum steady_regime g[RF_MAX_REPS];
	double v[RF_MAX_REPS];
	char obj[160];

	if (n > RF_MAX_REPS)
		return 0;
	regimes_of(reps, n, g);

	for (size_t p = 0; p < w->nrecord; p++)
		for (int c = 0; c < RF_NCOUNTS; c++)
			for (int r = 0; r < RF_NREGIMES; r++) {
				size_t k = 0, nan = 0;
				for (size_t i = 0; i < n; i++) {
					const cJSON *ph = rl_get(
					    rl_get(cJSON_GetArrayItem(reps, (int)i), "phases"),
					    w->phases[p]);
					if (g[i] != of[r])
						continue;
					snprintf(obj, sizeof obj, "reps[%zu].phases.%.100s", i,
					         w->phases[p]);
					if (rl_opt_num(l, ph, count_key[c], RF_MAX_FIGURE, at, obj,
					               &v[k]))
						return -1;
					nan += isnan(v[k++]);
				}
				run->usage[r][p][c] = k && !nan ? stats_median(v, k) : NAN;
			}
	return 0;
}

int rl_usage_process(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at)
{
	const cJSON *proc = rl_get(jr, "process");

	for (int c = 0; c < RF_NCOUNTS; c++)
		if (rl_opt_num(l, proc, process_key[c], RF_MAX_FIGURE, at, "process",
		               &run->usage[RF_COLD][0][c]))
			return -1;
	return 0;
}
