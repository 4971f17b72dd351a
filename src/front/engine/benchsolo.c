/* benchsolo.c - the solo anchor rounds of a shared-CPU bench and the threads its runs started
 * (benchsolo.h; docs/methodology.md, "Solo anchor rounds"). */
#include "front/engine/benchsolo.h"
#include "front/engine/benchengine.h"
#include "common/errmsg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SOLO_SEED_XOR 0x50105010a5c4e2d1ULL

static unsigned block_size(double share)
{
	double k = round(1 / share);

	return k < 1 ? 1 : k > BENCHSOLO_MAX_BLOCK ? BENCHSOLO_MAX_BLOCK : (unsigned)k;
}

int benchsolo_round(const struct engine *e)
{
	const struct bench_config *c = e->c;
	unsigned k, m = e->measured;
	struct prng r;

	if (!c->duet || !(c->solo_share > 0))
		return 0;
	if (engine_warming(e))
		return e->done == e->done0;
	k = block_size(c->solo_share);
	prng_seed(&r, (c->shuffle_seed ^ SOLO_SEED_XOR) + 0x9e3779b97f4a7c15ULL * (uint64_t)(m / k));
	return m % k == (unsigned)prng_below(&r, k);
}

void benchsolo_mark(const struct engine *e, cJSON *round)
{
	if (e->c->duet)
		cJSON_AddStringToObject(round, "placement", benchsolo_round(e) ? "solo" : "shared");
}

static double run_threads(const cJSON *run)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(run, "probe"), "thread_count");

	return cJSON_IsNumber(t) ? t->valuedouble : NAN;
}

static const char *run_str(const cJSON *run, const char *key)
{
	const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, key));

	return s ? s : "?";
}

/* The most threads a run of arm on workload started in the shared rounds so far (-1: none). */
static double shared_threads(const struct engine *e, const char *arm, const char *wl)
{
	const cJSON *round, *run;
	double most = -1;

	cJSON_ArrayForEach(round, e->rounds)
	{
		const char *p = run_str(round, "placement");

		if (strcmp(p, "shared") != 0)
			continue;
		cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(round, "runs"))
		{
			double t = run_threads(run);
			if (!isnan(t) && t > most && strcmp(run_str(run, "arm"), arm) == 0 &&
			    strcmp(run_str(run, "workload"), wl) == 0)
				most = t;
		}
	}
	return most;
}

int benchsolo_threads(struct engine *e, const cJSON *runs, int from, enum status *fatal, char *err,
                      size_t errlen)
{
	const struct bench_config *c = e->c;
	int solo = benchsolo_round(e);

	for (int i = from; c->duet_shared && !c->threads_ok && i < cJSON_GetArraySize(runs); i++) {
		const cJSON *run = cJSON_GetArrayItem(runs, i);
		const char *arm = run_str(run, "arm"), *wl = run_str(run, "workload");
		double t = run_threads(run), sh = solo ? shared_threads(e, arm, wl) : -1;

		if (!(t > 0))
			continue;
		*fatal = ST_USAGE;
		if (sh == 0)
			return errmsg_fail(err, errlen,
			                   "--one-cpu: arm '%s' started %.0f thread%s on '%s' in a solo "
			                   "round but none pinned to one CPU: it sizes its threads from its "
			                   "CPU affinity (OpenMP, a thread pool), so --one-cpu measures "
			                   "another program; bench it without --one-cpu, or give "
			                   "--one-cpu-threads to measure it so",
			                   arm, t, t == 1 ? "" : "s", wl);
		return errmsg_fail(err, errlen,
		                   "--one-cpu: arm '%s' started %.0f thread%s on '%s' "
		                   "(probe.thread_count): on one CPU its threads take turns, which is "
		                   "not how it runs; bench it without --one-cpu, or give "
		                   "--one-cpu-threads to measure it with its threads serialised",
		                   arm, t, t == 1 ? "" : "s", wl);
	}
	return 0;
}
