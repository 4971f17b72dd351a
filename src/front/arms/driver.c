/* arms.c - the table of arm kinds and the operations of each (arms.h). */
#include "front/arms/arms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The argv of one driver run: DRIVER run WORKLOAD --scale S --seed N [--reps N] [--steady-time
 * cpu] [--param KV]... [--config KV]... --out -. */
static char **driver_argv(const struct arm_run_args *a, char num[2][24], const char **path)
{
	size_t n = 0;
	char **v = calloc(14 + 2 * a->nparams + 2 * a->nconfig, sizeof *v);

	if (!v)
		return NULL;
	snprintf(num[0], 24, "%llu", (unsigned long long)a->seed);
	snprintf(num[1], 24, "%u", a->reps);
	v[n++] = (char *)a->path;
	v[n++] = "run";
	v[n++] = (char *)a->workload;
	v[n++] = "--scale";
	v[n++] = (char *)a->scale;
	v[n++] = "--seed";
	v[n++] = num[0];
	if (a->reps) {
		v[n++] = "--reps";
		v[n++] = num[1];
	}
	if (a->steady_cpu) {
		v[n++] = "--steady-time";
		v[n++] = "cpu";
	}
	for (size_t i = 0; i < a->nparams; i++) {
		v[n++] = "--param";
		v[n++] = a->params[i];
	}
	for (size_t i = 0; i < a->nconfig; i++) {
		v[n++] = "--config";
		v[n++] = a->config[i];
	}
	v[n++] = "--out";
	v[n++] = "-";
	*path = a->path;
	return v;
}

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

static const char *describe_driver(const struct arm_run_args *a)
{
	return a->path;
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

const struct arm_kind_ops arm_kind_driver = {
    .name = "driver",
    .flags = ARM_KIND_DRIVER_RECORD | ARM_KIND_PAIRABLE,
    .doc_mode = "drivers",
    .argv = driver_argv,
    .describe = describe_driver,
};

const struct arm_kind_ops arm_kind_configured = {
    .name = "configured",
    .flags = ARM_KIND_DRIVER_RECORD | ARM_KIND_CONFIGURED | ARM_KIND_PAIRABLE,
    .doc_mode = "drivers",
    .argv = driver_argv,
    .describe = describe_driver,
};

const struct arm_kind_ops arm_kind_command = {
    .name = "command",
    .flags = ARM_KIND_SHELL | ARM_KIND_CPU_PER_PROCESS | ARM_KIND_MARKS_PHASES |
             ARM_KIND_PAIRABLE,
    .doc_mode = "commands",
    .argv = shell_argv,
    .fold = arm_fold_cpu,
    .describe = describe_command,
};

const struct arm_kind_ops arm_kind_program = {
    .name = "program",
    .flags = ARM_KIND_SHELL | ARM_KIND_PROBED | ARM_KIND_CPU_PER_PROCESS | ARM_KIND_MARKS_PHASES |
             ARM_KIND_PAIRABLE,
    .doc_mode = "commands",
    .argv = shell_argv,
    .fold = arm_fold_cpu,
    .describe = describe_command,
};

static const struct arm_kind_ops *const kinds[] = {&arm_kind_driver, &arm_kind_configured,
                                                   &arm_kind_command, &arm_kind_program};

const struct arm_kind_ops *const *arm_kinds(size_t *n)
{
	*n = sizeof kinds / sizeof kinds[0];
	return kinds;
}

const struct arm_kind_ops *arm_kind_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kinds[i]->name, name) == 0)
			return kinds[i];
	return NULL;
}

int arm_kind_has(const struct arm_kind_ops *k, unsigned flags)
{
	return k && (k->flags & flags) == flags;
}
