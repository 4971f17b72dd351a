/* rfsessions.c - the optional "sessions" of a results file (docs/results-format.md, "sessions"):
 * the sessions of processes a bench continued with --resume ran in, each with the round it began
 * at. Read strictly: a list that does not describe the file's rounds is refused. */
#include "front/results/rfload.h"
#include "common/jsonload.h"

#include <stdint.h>
#include <string.h>

#define RF_MAX_SESSIONS 100000
#define SEED_MAX        9007199254740991ULL /* 2^53 - 1 */

/* One session, i of the list; *first: the round it must not begin before, then its own. */
static int load_session(struct loader *l, const cJSON *s, size_t i, uint64_t nrounds,
                        const char *const *statuses, uint64_t *first)
{
	const cJSON *argv = rl_get(s, "argv"), *a;
	const char *started = rl_get_str(s, "started_utc"), *status = rl_get_str(s, "status");
	uint64_t u;

	if (!cJSON_IsObject(s))
		return rl_fail(l, "sessions[%zu]: not an object", i);
	if (!started || !*started || strlen(started) > 64)
		return rl_fail(l, "sessions[%zu].started_utc: want a time stamp", i);
	if (!jl_uint(rl_get(s, "shuffle_seed"), SEED_MAX, &u))
		return rl_fail(
		    l, "sessions[%zu].shuffle_seed: want a whole number from 0 to 2^53-1", i);
	if (!jl_uint(rl_get(s, "first_round"), nrounds, &u) || (i == 0 && u != 0) || u < *first)
		return rl_fail(l,
		               "sessions[%zu].first_round: want a round index from %llu to %llu "
		               "(sessions begin in order, the first at round 0)",
		               i, (unsigned long long)(i ? *first : 0),
		               (unsigned long long)(i ? nrounds : 0));
	*first = u;
	if (!rl_in_list(status, statuses))
		return rl_fail(l, "sessions[%zu].status: not a bench status", i);
	if (!cJSON_IsArray(argv))
		return rl_fail(l, "sessions[%zu].argv: want an array of strings", i);
	cJSON_ArrayForEach(a, argv)
	{
		if (!cJSON_IsString(a))
			return rl_fail(l, "sessions[%zu].argv: want an array of strings", i);
	}
	return 0;
}

int rl_sessions(struct loader *l, const cJSON *sessions, const char *const *statuses)
{
	uint64_t nrounds = l->d->nrounds + l->d->nwarmup, first = 0;
	const cJSON *s;
	size_t i = 0;

	if (!sessions || cJSON_IsNull(sessions))
		return 0;
	if (!cJSON_IsArray(sessions) || !sessions->child)
		return rl_fail(l, "sessions: want a non-empty array of sessions");
	cJSON_ArrayForEach(s, sessions)
	{
		if (i == RF_MAX_SESSIONS)
			return rl_fail(l, "sessions: more than %d", RF_MAX_SESSIONS);
		if (load_session(l, s, i++, nrounds, statuses, &first) != 0)
			return -1;
	}
	l->d->nsessions = i;
	return 0;
}
