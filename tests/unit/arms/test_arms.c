/* test_arms.c - the arm kinds (src/front/arms/arms.h): the table, each kind's capabilities, the
 * argv it builds, what it describes an arm by, the CPU fold of a run's evidence, the modes the
 * reading side finds in the same table, the hooks and private data of the probed kinds, and the
 * marks of a run as a kind prepares and judges them. */
#include "front/arms/arms.h"
#include "front/results/results.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The modes are the kinds' own: one per family, found by config.mode, and what results reads. */
static void modes(void)
{
	char buf[64];

	CHECK(arm_kind_driver.doc_mode == arm_kind_configured.doc_mode &&
	          arm_kind_command.doc_mode == arm_kind_program.doc_mode &&
	          arm_kind_driver.doc_mode != arm_kind_command.doc_mode,
	      "modes: one per family (driver and configured; command and program)");
	CHECK(arm_mode_find("drivers") == arm_kind_driver.doc_mode &&
	          arm_mode_find("commands") == arm_kind_program.doc_mode &&
	          !arm_mode_find("command") && !arm_mode_find(NULL),
	      "modes: found by config.mode, nothing else");
	CHECK(rf_kind_find("drivers") == arm_kind_configured.doc_mode &&
	          rf_kind_find("commands") == arm_kind_command.doc_mode,
	      "modes: the reading side finds the kinds' own rows, not a table of its own");
	CHECK(strcmp(arm_mode_list(buf, sizeof buf), "\"drivers\" or \"commands\"") == 0,
	      "modes: listed once each: %s", buf);
	CHECK((arm_kind_driver.doc_mode->flags & ARM_MODE_DRIVER_RECORD) &&
	          (arm_kind_command.doc_mode->flags & ARM_MODE_WHOLE_PROCESS) &&
	          strcmp(arm_kind_driver.doc_mode->fallback_baseline, "system") == 0 &&
	          !arm_kind_command.doc_mode->fallback_baseline,
	      "modes: a driver's record with the system fallback; a whole process with none");
}

/* The hooks a kind has follow its flags; a command arm is probed once it has a proof. */
static void hooks(void)
{
	size_t n;
	const struct arm_kind_ops *const *k = arm_kinds(&n);
	struct arm_proof proof = {.allocator = "system"};
	struct arm_shell_data none = {.command = "true"},
	                      some = {.command = "true", .proof = &proof};

	for (size_t i = 0; i < n; i++) {
		int marks = arm_kind_has(k[i], ARM_KIND_MARKS_PHASES);

		CHECK(!marks == !k[i]->marks_prepare && !marks == !k[i]->marks_judge &&
		          !marks == !k[i]->marks_discard,
		      "kind %s has the marks hooks exactly when it marks phases", k[i]->name);
		CHECK(!arm_kind_has(k[i], ARM_KIND_PROBED) ||
		          (k[i]->probe_prepare && k[i]->probe_judge && k[i]->probe_discard &&
		           k[i]->free_data),
		      "kind %s: probed means the probe's hooks", k[i]->name);
	}
	CHECK(arm_probed(&arm_kind_program, NULL) && !arm_probed(&arm_kind_command, NULL) &&
	          !arm_probed(&arm_kind_command, &none) && arm_probed(&arm_kind_command, &some) &&
	          !arm_probed(&arm_kind_driver, NULL) && !arm_probed(NULL, &some),
	      "probed: a program always, a command with a proof, a driver never");
}

static void proof_data(void)
{
	struct arm_proof *d = calloc(1, sizeof *d);
	struct arm_shell_data *sd = NULL;
	cJSON *j;
	char *s = NULL;

	CHECK(d && (d->allocator = strdup("mimalloc")) &&
	          (d->preload = strdup("/l/libmimalloc.so")) && (d->version = strdup("")) &&
	          (d->env = calloc(2, sizeof *d->env)) &&
	          (d->env[0] = strdup("MIMALLOC_ARENA_EAGER_COMMIT=1")),
	      "proof: made");
	CHECK(d && (sd = arm_new_command("prog", d)) && sd->proof == d &&
	          arm_kind_program.proof(sd) == d,
	      "proof: a program arm's private data holds it");
	j = sd ? arm_kind_program.data_json(sd) : NULL;
	s = j ? cJSON_PrintUnformatted(j) : NULL;
	CHECK(s && strcmp(s, "{\"allocator\":\"mimalloc\",\"library\":\"/l/libmimalloc.so\","
	                     "\"version\":null,\"executable_counts\":false}") == 0,
	      "proof: what config.proof records (an unknown version is null): %s", s ? s : "");
	cJSON_free(s);
	cJSON_Delete(j);
	arm_kind_program.free_data(sd);
	arm_kind_command.free_data(NULL);
}

/* Each kind's private data gives its runs' inputs (run_args); NULL data gives none. */
static void run_inputs(void)
{
	char *config[] = {"K=1"};
	struct arm_proof proof = {
	    .allocator = "mimalloc", .backend = "mimalloc", .config = config, .nconfig = 1};
	struct arm_driver_data *d = arm_new_driver("/d", "jemalloc", "jemalloc", config, 1);
	struct arm_shell_data *c = arm_new_command("echo hi", NULL);
	struct arm_shell_data p = {.command = "prog", .proof = &proof};
	struct arm_run_args q = {0}, r = {0}, t = {0}, u = {.path = "keep"};

	if (d)
		arm_kind_configured.run_args(d, &q);
	if (c)
		arm_kind_command.run_args(c, &r);
	arm_kind_program.run_args(&p, &t);
	arm_kind_driver.run_args(NULL, &u);
	CHECK(d && strcmp(q.path, "/d/allocab-jemalloc") == 0 &&
	          strcmp(q.backend, "jemalloc") == 0 && q.config == config && q.nconfig == 1 &&
	          !q.command,
	      "configured: the driver's path, its backend and settings");
	CHECK(c && strcmp(r.command, "echo hi") == 0 && !r.path && !r.backend && !r.nconfig &&
	          !arm_kind_command.proof(c),
	      "command: its command line, no proof");
	CHECK(strcmp(t.command, "prog") == 0 && strcmp(t.backend, "mimalloc") == 0 &&
	          t.config == config && t.nconfig == 1,
	      "configured program: its settings are its proof's");
	CHECK(strcmp(u.path, "keep") == 0, "no private data: nothing set");
	arm_kind_configured.free_data(d);
	arm_kind_command.free_data(c);
}

/* The probed kinds' setup from their options, where it needs no trial run. */
static void proof_setup(void)
{
	struct arm_proof *d = (struct arm_proof *)1;
	char err[256];

	CHECK(arm_proof_expect("sorter", "jemalloc", &d, err, sizeof err) == ST_OK && d &&
	          strcmp(d->allocator, "jemalloc") == 0 && d->exe_counts && !d->object &&
	          !d->preload,
	      "--expect: the allocator, the executable's own copy counting");
	arm_proof_free(d);
	CHECK(arm_proof_expect("sorter", "hoard", &d, err, sizeof err) == ST_USAGE && !d &&
	          strcmp(err, "--expect sorter=hoard: unknown allocator (system, mimalloc, "
	                      "jemalloc, tcmalloc)") == 0,
	      "--expect: an unknown allocator is refused: %s", err);
	CHECK(arm_proof_program("system", NULL, "/nonexistent/probe.so", &d, err, sizeof err) ==
	              ST_OK &&
	          d && strcmp(d->allocator, "system") == 0 && !d->preload && !d->object,
	      "program: the platform's allocator is proven by name, nothing preloaded");
	arm_proof_free(d);
	CHECK(arm_proof_program("hoard", NULL, "/nonexistent/probe.so", &d, err, sizeof err) ==
	              ST_USAGE &&
	          !d && strstr(err, "-a: unknown allocator 'hoard'") == err,
	      "program: an unknown allocator without --preload is refused: %s", err);
}

/* A probed run's record file and environment, then the file removed. */
static void probe_run(const char *dir)
{
	char *env[] = {"A=1", NULL}, err[256];
	struct arm_proof d = {.preload = "/l/lib.so", .env = env};
	struct arm_shell_data sd = {.command = "prog", .proof = &d};
	struct arm_run_env b = {
	    .probe_lib = "/p/probe.so", .count_lib = "/p/count.so", .dir = dir, .arm = "m", .n = 3};
	struct arm_probe_run p;
	char want[PATH_MAX + 32];
	struct stat st;

	snprintf(want, sizeof want, "ALLOCAB_PROBE_FILE=%s/run-3.jsonl", dir);
	CHECK(arm_kind_program.probe_prepare(&b, &sd, &p, err, sizeof err) == 0,
	      "probe: prepared: %s", err);
	CHECK(
	    strcmp(p.set[0], "LD_PRELOAD=/p/count.so:/l/lib.so:/p/probe.so") == 0 &&
	        strcmp(p.set[1], want) == 0 &&
	        strcmp(p.set[2], "ALLOCAB_PROBE_LIB=/p/probe.so") == 0 &&
	        strcmp(p.set[3], "ALLOCAB_COUNT_LIB=/p/count.so") == 0 &&
	        strcmp(p.set[4], "A=1") == 0 && !p.set[5],
	    "probe: count, the allocator and the probe preloaded, the record file, the arm's env");
	CHECK(stat(p.file, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0,
	      "probe: the record file is there, empty");
	arm_kind_program.probe_discard(&p);
	CHECK(stat(p.file, &st) != 0 && p.fd == -1, "probe: discarded, the file is gone");
}

/* Marks a run of kind k with lines into a fresh marks file and judges them against ref. */
static int mark(const char *dir, unsigned long n, const char *lines, struct arm_phase_names *ref,
                cJSON *run, char *err, size_t errlen)
{
	struct arm_marks_run p;
	FILE *f;
	int rc;

	if (arm_kind_command.marks_prepare(dir, n, NULL, &p, err, errlen) != 0)
		return -2;
	if ((f = fopen(p.file, "a"))) {
		fputs(lines, f);
		fclose(f);
	}
	p.lo = 1;
	p.hi = 1000000000;
	p.cpu_rule = 0;
	rc = arm_kind_command.marks_judge(&p, ref, run, err, errlen);
	arm_kind_command.marks_discard(&p);
	return rc;
}

static void marks(const char *dir)
{
	struct arm_phase_names ref = {0};
	cJSON *r1 = cJSON_Parse("{\"process\":{\"user_ns\":1000000,\"sys_ns\":0}}");
	cJSON *r2 = cJSON_Duplicate(r1, 1), *r3 = cJSON_Duplicate(r1, 1);
	const cJSON *ph;
	char err[512] = "";

	CHECK(mark(dir, 1, "begin load 1000\nend load 5000\n", &ref, r1, err, sizeof err) == 0,
	      "marks: a span judged: %s", err);
	ph = cJSON_GetObjectItemCaseSensitive(r1, "phase_marks");
	CHECK(cJSON_IsObject(ph) && ref.known && ref.n == 1 && strcmp(ref.name[0], "load") == 0,
	      "marks: phase_marks added; the first run's names kept");
	CHECK(mark(dir, 2, "begin fit 1000\nend fit 5000\n", &ref, r2, err, sizeof err) == -1 &&
	          strstr(err, "differ from those of the first ok run") &&
	          !cJSON_GetObjectItemCaseSensitive(r2, "phase_marks"),
	      "marks: other names are refused: %s", err);
	CHECK(mark(dir, 3, "", &ref, r3, err, sizeof err) == -1,
	      "marks: no names against a first "
	      "run that had one are refused: %s",
	      err);
	cJSON_Delete(r1);
	cJSON_Delete(r2);
	cJSON_Delete(r3);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];

	snprintf(dir, sizeof dir, "%s/test_arms.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	table();
	flags();
	argvs();
	cpu_fold();
	modes();
	hooks();
	proof_data();
	run_inputs();
	proof_setup();
	if (!mkdtemp(dir)) {
		SKIP("probe and marks files", "no temporary directory");
		return CHECK_DONE();
	}
	probe_run(dir);
	marks(dir);
	rmdir(dir);
	return CHECK_DONE();
}
