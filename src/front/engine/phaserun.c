/* phaserun.c - the clock and directory of the runs' marks files, and their judgement turned into
 * the run's status (phaserun.h); the marks themselves are the kinds' (front/arms/marks.c). */
#include "front/engine/phaserun.h"

#include "common/errmsg.h"
#include "front/proc/proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t phaserun_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int phaserun_dir(char dir[PATH_MAX], char *err, size_t errlen)
{
	const char *tmp = sweep_tmpdir();

	snprintf(dir, PATH_MAX, "%s/" SWEEP_PHASES_PREFIX "%ld.XXXXXX", tmp, (long)sweep_owner());
	if (mkdtemp(dir)) {
		sweep_claim(dir); /* held while the bench lives */
		return 0;
	}
	dir[0] = '\0';
	return errmsg_fail(err, errlen, "cannot create a directory in %s: %s", tmp,
	                   strerror(errno));
}

static void make_invalid(cJSON *run, const char *why, enum run_status *st)
{
	char reason[600];

	snprintf(reason, sizeof reason, "phase marks: %s", why);
	*st = RS_INVALID;
	benchdoc_set_string(run, "status", bench_run_status_name(RS_INVALID));
	if (cJSON_GetObjectItemCaseSensitive(run, "reason"))
		benchdoc_set_string(run, "reason", reason);
	else
		cJSON_AddStringToObject(run, "reason", reason);
}

void phaserun_finish(const struct arm_kind_ops *k, struct arm_marks_run *p,
                     struct arm_phase_names *ref, cJSON *run, enum run_status *st)
{
	char err[512];

	if (run && *st == RS_OK && k->marks_judge(p, ref, run, err, sizeof err) != 0)
		make_invalid(run, err, st);
	k->marks_discard(p);
}
