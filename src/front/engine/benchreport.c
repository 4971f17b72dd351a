/* benchreport.c - what a bench says of its arms when its rounds end (engine.h): the arms whose
 * proof failed for good in the first round, and the arms with no verified successful run. */
#include "front/engine/benchprog.h"
#include "common/errmsg.h"

#include <stdio.h>
#include <string.h>

/* Why a run was not ok, in one line: its reason, else its status, exit or signal and the last
 * line of its stderr. */
static void run_reason(const cJSON *run, char *buf, size_t len)
{
	const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "status"));
	const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "reason"));
	const char *tail =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "stderr_tail"));
	const char *sig = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "signal"));
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(run, "exit_status");
	const char *nl = tail ? strrchr(tail, '\n') : NULL;
	char what[64];

	if (why) {
		snprintf(buf, len, "%s: %s", st ? st : "?", why);
		return;
	}
	if (sig)
		snprintf(what, sizeof what, "%s, %s", st ? st : "?", sig);
	else if (cJSON_IsNumber(ex))
		snprintf(what, sizeof what, "%s, exit %d", st ? st : "?", ex->valueint);
	else
		snprintf(what, sizeof what, "%s", st ? st : "?");
	snprintf(buf, len, "%s%s%s", what, tail ? ": " : "", tail ? (nl ? nl + 1 : tail) : "");
}

static const char *get_str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

size_t bench_report_hopeless(const struct bench_config *c, const cJSON *round, FILE *f)
{
	size_t named = 0;

	for (size_t i = 0; i < c->narms; i++) {
		const cJSON *run, *bad = NULL;
		int all = 1;

		if (!bench_arm_probed(&c->arms[i]))
			continue;
		cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(round, "runs"))
		{
			const cJSON *probe = cJSON_GetObjectItemCaseSensitive(run, "probe");
			const char *st = get_str(run, "status"), *arm = get_str(run, "arm");

			if (!arm || strcmp(arm, c->arms[i].name) != 0)
				continue;
			if (!st || strcmp(st, "unverified") != 0 ||
			    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(probe, "deterministic")))
				all = 0;
			else if (!bad)
				bad = run;
		}
		if (!all || !bad)
			continue;
		if (f)
			errmsg_print(f, "bench", "%s: no verified successful run: unverified: %s",
			             c->arms[i].name, get_str(bad, "reason"));
		named++;
	}
	return named;
}

size_t bench_report_unproven(const struct bench_config *c, const cJSON *doc, FILE *f)
{
	const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds"), *round, *run;
	size_t named = 0;

	for (size_t i = 0; i < c->narms; i++) {
		const char *arm = c->arms[i].name;
		const cJSON *bad = NULL;
		size_t ok = 0;
		char why[1024];

		cJSON_ArrayForEach(round, rounds)
		{
			int warm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(round, "warmup"));

			cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(round, "runs"))
			{
				const char *a = cJSON_GetStringValue(
				    cJSON_GetObjectItemCaseSensitive(run, "arm"));
				const char *st = cJSON_GetStringValue(
				    cJSON_GetObjectItemCaseSensitive(run, "status"));

				if (!a || strcmp(a, arm) != 0)
					continue;
				if (st && strcmp(st, "ok") == 0)
					ok += !warm;
				else if (!bad)
					bad = run;
			}
		}
		if (ok)
			continue;
		if (bad)
			run_reason(bad, why, sizeof why);
		else
			snprintf(why, sizeof why, "no measured run");
		errmsg_print(f, "bench", "%s: no verified successful run: %s", arm, why);
		named++;
	}
	return named;
}
