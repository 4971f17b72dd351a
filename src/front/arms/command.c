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

static void shell_run_args(const void *data, struct arm_run_args *q)
{
	const struct arm_shell_data *d = data;

	if (!d)
		return;
	q->command = d->command;
	if (d->proof) {
		q->backend = d->proof->backend;
		q->config = d->proof->config;
		q->nconfig = d->proof->nconfig;
	}
}

static const struct arm_proof *shell_proof(const void *data)
{
	return data ? ((const struct arm_shell_data *)data)->proof : NULL;
}

static int shell_probe_prepare(const struct arm_run_env *b, const void *data,
                               struct arm_probe_run *p, char *err, size_t errlen)
{
	return arm_probe_prepare(b, shell_proof(data), p, err, errlen);
}

static cJSON *shell_probe_judge(const void *data, struct arm_probe_run *p,
                                const struct runner_result *r)
{
	return arm_probe_judge(shell_proof(data), p, r);
}

static cJSON *shell_proof_json(const void *data)
{
	return arm_proof_json(shell_proof(data));
}

static void shell_free(void *data)
{
	struct arm_shell_data *d = data;

	if (d)
		arm_proof_free(d->proof);
	free(d);
}

struct arm_shell_data *arm_new_command(const char *command, struct arm_proof *proof)
{
	struct arm_shell_data *d = calloc(1, sizeof *d);

	if (d)
		*d = (struct arm_shell_data){.command = command, .proof = proof};
	return d;
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
    .run_args = shell_run_args,
    .proof = shell_proof,
    .probe_prepare = shell_probe_prepare,
    .probe_judge = shell_probe_judge,
    .probe_discard = arm_probe_discard,
    .marks_prepare = arm_marks_prepare,
    .marks_judge = arm_marks_judge,
    .marks_discard = arm_marks_discard,
    .data_json = shell_proof_json,
    .free_data = shell_free,
};

const struct arm_kind_ops arm_kind_program = {
    .name = "program",
    .flags = ARM_KIND_SHELL | ARM_KIND_PROBED | ARM_KIND_CPU_PER_PROCESS | ARM_KIND_MARKS_PHASES |
             ARM_KIND_PAIRABLE,
    .doc_mode = &commands_mode,
    .argv = shell_argv,
    .fold = arm_fold_cpu,
    .describe = describe_command,
    .run_args = shell_run_args,
    .proof = shell_proof,
    .probe_prepare = shell_probe_prepare,
    .probe_judge = shell_probe_judge,
    .probe_discard = arm_probe_discard,
    .marks_prepare = arm_marks_prepare,
    .marks_judge = arm_marks_judge,
    .marks_discard = arm_marks_discard,
    .data_json = shell_proof_json,
    .free_data = shell_free,
};
