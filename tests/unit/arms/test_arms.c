/* test_arms.c - the arm kinds (src/front/arms/arms.h): the table, each kind's capabilities, the
 * argv it builds, what it describes an arm by, and the CPU fold of a run's evidence. */
#include "front/arms/arms.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int argv_is(char **v, const char *const *want)
{
	size_t i = 0;

	for (; want[i]; i++)
		if (!v[i] || strcmp(v[i], want[i]) != 0)
			return 0;
	return v[i] == NULL;
}

static void table(void)
{
	size_t n, drivers = 0;
	const struct arm_kind_ops *const *k = arm_kinds(&n);

	CHECK(n == 4, "four kinds: %zu", n);
	for (size_t i = 0; i < n; i++) {
		CHECK(arm_kind_find(k[i]->name) == k[i], "kind %s is found by its name",
		      k[i]->name);
		CHECK(k[i]->argv && k[i]->describe, "kind %s builds an argv and describes an arm",
		      k[i]->name);
		CHECK(arm_kind_has(k[i], ARM_KIND_DRIVER_RECORD) ==
		          (strcmp(k[i]->doc_mode->mode, "drivers") == 0),
		      "kind %s: a drivers document exactly when its runs print a driver record",
		      k[i]->name);
		CHECK(arm_kind_has(k[i], ARM_KIND_SHELL) !=
		          arm_kind_has(k[i], ARM_KIND_DRIVER_RECORD),
		      "kind %s runs either a driver or a shell", k[i]->name);
		CHECK(!arm_kind_has(k[i], ARM_KIND_CPU_PER_PROCESS) || k[i]->fold == arm_fold_cpu,
		      "kind %s: CPU per process means the CPU fold", k[i]->name);
		drivers += arm_kind_has(k[i], ARM_KIND_DRIVER_RECORD);
	}
	CHECK(drivers == 2, "driver and configured run drivers");
	CHECK(arm_kind_find("nonesuch") == NULL && arm_kind_find(NULL) == NULL,
	      "an unknown or missing name is no kind");
	CHECK(!arm_kind_has(NULL, 0) && arm_kind_has(&arm_kind_driver, 0),
	      "no kind has nothing; every kind has no flag");
}

static void flags(void)
{
	CHECK(arm_kind_has(&arm_kind_driver, ARM_KIND_DRIVER_RECORD) &&
	          !arm_kind_has(&arm_kind_driver, ARM_KIND_CONFIGURED) &&
	          !arm_kind_has(&arm_kind_driver, ARM_KIND_PROBED) && !arm_kind_driver.fold,
	      "driver: a record, no settings, no probe, nothing to fold");
	CHECK(arm_kind_has(&arm_kind_configured, ARM_KIND_DRIVER_RECORD | ARM_KIND_CONFIGURED),
	      "configured: a driver with settings");
	CHECK(arm_kind_has(&arm_kind_command,
	                   ARM_KIND_SHELL | ARM_KIND_CPU_PER_PROCESS | ARM_KIND_MARKS_PHASES) &&
	          !arm_kind_has(&arm_kind_command, ARM_KIND_PROBED),
	      "command: a shell, CPU of every process, marks; probed only by --expect");
	CHECK(arm_kind_has(&arm_kind_program, ARM_KIND_SHELL | ARM_KIND_PROBED |
	                                          ARM_KIND_CPU_PER_PROCESS | ARM_KIND_MARKS_PHASES),
	      "program: a probed shell, CPU of every process, marks");
}

static void argvs(void)
{
	char *params[] = {"rows=10"}, *config[] = {"mmap_threshold=32M"}, num[2][24], **v;
	struct arm_run_args a = {.path = "/d/allocab-system",
	                         .command = "echo hi",
	                         .workload = "pipeline",
	                         .scale = "small",
	                         .seed = 7,
	                         .params = params,
	                         .nparams = 1,
	                         .config = config,
	                         .nconfig = 1};
	const char *path = NULL;
	static const char *const plain[] = {"/d/allocab-system",
	                                    "run",
	                                    "pipeline",
	                                    "--scale",
	                                    "small",
	                                    "--seed",
	                                    "7",
	                                    "--param",
	                                    "rows=10",
	                                    "--config",
	                                    "mmap_threshold=32M",
	                                    "--out",
	                                    "-",
	                                    NULL};
	static const char *const timed[] = {"/d/allocab-system",
	                                    "run",
	                                    "pipeline",
	                                    "--scale",
	                                    "small",
	                                    "--seed",
	                                    "7",
	                                    "--reps",
	                                    "3",
	                                    "--steady-time",
	                                    "cpu",
	                                    "--param",
	                                    "rows=10",
	                                    "--config",
	                                    "mmap_threshold=32M",
	                                    "--out",
	                                    "-",
	                                    NULL};
	static const char *const sh[] = {"sh", "-c", "echo hi", NULL};

	v = arm_kind_driver.argv(&a, num, &path);
	CHECK(v && argv_is(v, plain) && strcmp(path, "/d/allocab-system") == 0,
	      "driver argv: run WORKLOAD, scale, seed, params, settings, --out -; no --reps for "
	      "auto");
	free(v);
	a.reps = 3;
	a.steady_cpu = 1;
	v = arm_kind_configured.argv(&a, num, &path);
	CHECK(v && argv_is(v, timed), "configured argv: --reps 3 and --steady-time cpu");
	free(v);
	v = arm_kind_program.argv(&a, num, &path);
	CHECK(v && argv_is(v, sh) && strcmp(path, "/bin/sh") == 0, "program argv: sh -c COMMAND");
	free(v);
	CHECK(strcmp(arm_kind_driver.describe(&a), "/d/allocab-system") == 0 &&
	          strcmp(arm_kind_command.describe(&a), "echo hi") == 0,
	      "a driver is described by its path, a command by its line");
}

static const char *fold(const char *run_json, char *buf, size_t len)
{
	cJSON *run = cJSON_Parse(run_json), *cpu;
	char *s;

	arm_fold_cpu(run);
	cpu = cJSON_GetObjectItemCaseSensitive(run, "cpu");
	s = cpu ? cJSON_PrintUnformatted(cpu) : NULL;
	snprintf(buf, len, "%s", s ? s : "none");
	cJSON_free(s);
	cJSON_Delete(run);
	return buf;
}

static void cpu_fold(void)
{
	char b[256];

	CHECK(strcmp(fold("{\"process\":{\"user_ns\":300,\"sys_ns\":200}}", b, sizeof b),
	             "{\"user_ns\":300,\"sys_ns\":200,\"total_ns\":500,\"source\":\"wait4\"}") == 0,
	      "without a cgroup: wait4's user + sys: %s", b);
	CHECK(strcmp(fold("{\"process\":{\"user_ns\":300,\"sys_ns\":200},\"containment\":{"
	                  "\"cgroup_cpu\":{\"user_ns\":900,\"sys_ns\":100}}}",
	                  b, sizeof b),
	             "{\"user_ns\":900,\"sys_ns\":100,\"total_ns\":1000,\"source\":\"cgroup\"}") ==
	          0,
	      "the run's cgroup, which sees every process, comes first: %s", b);
	CHECK(strcmp(fold("{\"process\":{\"wall_ns\":5}}", b, sizeof b), "none") == 0,
	      "no CPU figures: no cpu object");
	CHECK(strcmp(fold("{\"process\":{\"user_ns\":1,\"sys_ns\":1},\"cpu\":{\"total_ns\":9}}", b,
	                  sizeof b),
	             "{\"total_ns\":9}") == 0,
	      "a run that has its cpu keeps it");
}

int main(void)
{
	table();
	flags();
	argvs();
	cpu_fold();
	return CHECK_DONE();
}
