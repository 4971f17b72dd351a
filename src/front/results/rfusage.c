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

/* A block of nphases x RF_NREGIMES x RF_NCOUNTS counts for run in the document's pool, all NAN;
 * NULL when memory ran out (the reason set). */
static double *usage_block(struct loader *l, struct rf_run *run, size_t nphases)
{
	struct rf_doc *d = l->d;
	size_t need = nphases * RF_NREGIMES * RF_NCOUNTS;
	double *b;

	if (rl_grow(l, (void **)&d->usage, &l->usage_cap, d->nusage + need, sizeof *d->usage) != 0)
		return NULL;
	b = d->usage + d->nusage;
	for (size_t i = 0; i < need; i++)
		b[i] = NAN;
	run->usage = d->nusage + 1;
	run->usage_phases = (unsigned char)nphases;
	d->nusage += need;
	return b;
}

/* Counts c of phase p, regime g in block b of run's usage_phases phases. */
static size_t usage_at(size_t nphases, int g, size_t p, int c)
{
	return ((size_t)g * nphases + p) * RF_NCOUNTS + (size_t)c;
}

const double *rf_run_usage(const struct rf_doc *d, const struct rf_run *run, enum rf_regime g,
                           size_t p)
{
	static const double none[RF_NCOUNTS] = {NAN, NAN, NAN, NAN, NAN, NAN};

	if (!run->usage || p >= run->usage_phases || (unsigned)g >= RF_NREGIMES)
		return none;
	return d->usage + run->usage - 1 + usage_at(run->usage_phases, g, p, 0);
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

/* The counts of phase p of every rep into v[c][i] (NAN where absent), whether any is not an
 * integer in range (bad[c][i]; rl_opt_count says why), and each rep's phase object ph[i]; phase
 * objects are looked up once a rep. */
static void read_phase(const cJSON *reps, const char *phase, size_t n,
                       double v[RF_NCOUNTS][RF_MAX_REPS], unsigned char bad[RF_NCOUNTS][RF_MAX_REPS],
                       const cJSON **ph_of)
{
	const cJSON *rep = reps ? reps->child : NULL;

	for (size_t i = 0; i < n; i++, rep = rep ? rep->next : NULL) {
		const cJSON *ph = ph_of[i] = rl_get(rl_get(rep, "phases"), phase), *cur = NULL;
		for (int c = 0; c < RF_NCOUNTS; c++) {
			bad[c][i] = rl_count(rl_get_after(ph, &cur, count_key[c]), &v[c][i]) != 0;
		}
	}
}

int rl_usage_reps(struct loader *l, const struct rf_workload *w, const cJSON *reps,
                  struct rf_run *run, const char *at)
{
	static const enum steady_regime of[RF_NREGIMES] = {STEADY_COLD, STEADY_STEADY};
	size_t n = (size_t)cJSON_GetArraySize(reps);
	enum steady_regime g[RF_MAX_REPS];
	double v[RF_MAX_REPS], all[RF_NCOUNTS][RF_MAX_REPS], *b;
	unsigned char bad[RF_NCOUNTS][RF_MAX_REPS];
	const cJSON *ph[RF_MAX_REPS];
	char obj[160];

	if (n > RF_MAX_REPS || w->nrecord == 0)
		return 0;
	if (!(b = usage_block(l, run, w->nrecord)))
		return -1;
	regimes_of(reps, n, g);

	for (size_t p = 0; p < w->nrecord; p++) {
		read_phase(reps, w->phases[p], n, all, bad, ph);
		for (int c = 0; c < RF_NCOUNTS; c++) {
			/* every rep's, a warm-up one's too, though only the regimes' are kept */
			for (size_t i = 0; i < n; i++)
				if (bad[c][i]) {
					snprintf(obj, sizeof obj, "reps[%zu].phases.%.100s", i,
					         w->phases[p]);
					return rl_opt_count(l, ph[i], count_key[c], at, obj, &v[0]);
				}
			for (int r = 0; r < RF_NREGIMES; r++) {
				size_t k = 0, nan = 0;
				for (size_t i = 0; i < n; i++)
					if (g[i] == of[r])
						nan += isnan(v[k++] = all[c][i]);
				b[usage_at(w->nrecord, r, p, c)] =
				    k && !nan ? stats_median(v, k) : NAN;
			}
		}
	}
	return 0;
}

int rl_usage_process(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at)
{
	const cJSON *proc = rl_get(jr, "process");
	double *b = usage_block(l, run, 1);

	if (!b)
		return -1;
	for (int c = 0; c < RF_NCOUNTS; c++)
		if (rl_opt_count(l, proc, process_key[c], at, "process",
		                 &b[usage_at(1, RF_COLD, 0, c)]))
			return -1;
	return 0;
}
