/* runfacts.c - what the runner saw of a finished run, as the engine records it: the processes
 * the tracker counted and the containment object (docs/results-format.md). */
#include "front/proc/proc.h"
#include "front/proc/contain.h"
#include "front/proc/ptrack.h"

size_t runner_tracked_processes(const struct runner_result *r)
{
	return r->track && r->track->mode == PTRACK_TRACED ? r->track->processes : 0;
}

cJSON *runner_containment_json(const struct runner_result *r)
{
	const struct contain *c = r->contain;
	cJSON *o, *cpu, *pids;

	if (!c || !(o = cJSON_CreateObject()))
		return NULL;
	cJSON_AddStringToObject(o, "mechanism", contain_mechanism(c));
	cJSON_AddBoolToObject(o, "escapes_excluded",
	                      c->connector && !c->lost && !c->execs_truncated);
	if (c->why[0])
		cJSON_AddStringToObject(o, "missing", c->why);
	if (c->have_cpu && (cpu = cJSON_AddObjectToObject(o, "cgroup_cpu"))) {
		cJSON_AddNumberToObject(cpu, "user_ns", (double)c->user_ns);
		cJSON_AddNumberToObject(cpu, "sys_ns", (double)c->sys_ns);
	} else {
		cJSON_AddNullToObject(o, "cgroup_cpu");
	}
	cJSON_AddNumberToObject(o, "left_behind", (double)c->left_behind);
	if (c->left_behind && (pids = cJSON_AddArrayToObject(o, "left_behind_pids"))) {
		for (size_t i = 0; i < c->left_behind && i < CONTAIN_LEFT_LISTED; i++)
			cJSON_AddItemToArray(pids, cJSON_CreateNumber((double)c->left_pid[i]));
		cJSON_AddStringToObject(o, "left_behind_exe", c->left_exe);
	}
	if (c->not_emptied)
		cJSON_AddBoolToObject(o, "not_emptied", 1);
	if (c->strays)
		cJSON_AddNumberToObject(o, "left_cgroup", (double)c->strays);
	return o;
}
