/* command.c - the shell family of arm kinds (arms.h): command, the user's command line (--cmd,
 * probed when --expect gives it a proof), and program, the user's command with an allocator
 * preloaded and proven in every process (--program, docs/programs.md); their mode, "commands".
 * Their private data and their runs' probe are in probe.c. */
#include "front/arms/arms.h"

#include <math.h>
#include <stdlib.h>

/* sh -c COMMAND. */
static char **shell_argv(const struct arm_run_args *a, char num[2][24], const char **path)
{
	char **v = calloc(4, sizeof *v);

	(void)num;
	if (!v)
		return NULL;
	v[0] = "sh";
	v[1] = "-c";
	v[2] = (char *)a->command;
	*path = "/bin/sh";
	return v;
}

static const char *describe_command(const struct arm_run_args *a)
{
	return a->command;
}

static double num_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

void arm_fold_cpu(cJSON *run)
{
	const cJSON *cg = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(run, "containment"), "cgroup_cpu");
	const cJSON *src =
	    cJSON_IsObject(cg) ? cg : cJSON_GetObjectItemCaseSensitive(run, "process");
	double user = num_of(src, "user_ns"), sys = num_of(src, "sys_ns");
	cJSON *o;

	if (isnan(user) || isnan(sys) || cJSON_GetObjectItemCaseSensitive(run, "cpu") ||
	    !(o = cJSON_AddObjectToObject(run, "cpu")))
		return;
	cJSON_AddNumberToObject(o, "user_ns", user);
	cJSON_AddNumberToObject(o, "sys_ns", sys);
	cJSON_AddNumberToObject(o, "total_ns", user + sys);
	cJSON_AddStringToObject(o, "source", src == cg ? "cgroup" : "wait4");
}

static const struct arm_mode commands_mode = {
    .mode = "commands",
    .runs = "command",
    .flags = ARM_MODE_WHOLE_PROCESS,
};

const struct arm_kind_ops arm_kind_command = {
    .name = "command",
    .flags = ARM_KIND_SHELL | ARM_KIND_CPU_PER_PROCESS | ARM_KIND_MARKS_PHASES |
             ARM_KIND_PAIRABLE,
    .doc_mode = &commands_mode,
    .argv = shell_argv,
    .fold = arm_fold_cpu,
    .describe = describe_command,
    .probe_prepare = arm_probe_prepare,
    .probe_judge = arm_probe_judge,
    .probe_discard = arm_probe_discard,
    .marks_prepare = arm_marks_prepare,
    .marks_judge = arm_marks_judge,
    .marks_discard = arm_marks_discard,
    .data_json = arm_proof_json,
    .free_data = arm_proof_free,
};

const struct arm_kind_ops arm_kind_program = {
    .name = "program",
    .flags = ARM_KIND_SHELL | ARM_KIND_PROBED | ARM_KIND_CPU_PER_PROCESS | ARM_KIND_MARKS_PHASES |
             ARM_KIND_PAIRABLE,
    .doc_mode = &commands_mode,
    .argv = shell_argv,
    .fold = arm_fold_cpu,
    .describe = describe_command,
    .probe_prepare = arm_probe_prepare,
    .probe_judge = arm_probe_judge,
    .probe_discard = arm_probe_discard,
    .marks_prepare = arm_marks_prepare,
    .marks_judge = arm_marks_judge,
    .marks_discard = arm_marks_discard,
    .data_json = arm_proof_json,
    .free_data = arm_proof_free,
};
