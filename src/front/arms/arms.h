/* arms.h - the arms module's public face: the kinds of arm a bench runs, as a table of
 * operations with capability flags in the manner of fio's ioengine_ops. The engine (front/engine)
 * asks a kind what it can do and lets it build a run's argv and fold a finished run's evidence;
 * it never checks a kind's name. The kinds: driver (an allocator driver, allocab-NAME), configured
 * (a driver run with allocator settings, docs/tuning.md), command (--cmd, the user's command line)
 * and program (--program, the user's command with an allocator preloaded, docs/programs.md). The
 * results file records each arm's kind (config.arm_kinds, docs/results-format.md). */
#ifndef ALLOCAB_ARMS_H
#define ALLOCAB_ARMS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* What a kind can do; the engine asks these, never the name. */
enum arm_kind_flag {
	/* a run is an allocator driver: its stdout is an allocab-run/1 record (none: invalid), exit
	 * status 4 means unverified, exit status 2 in the first round means bad arguments; it times
	 * cold and steady reps itself, and its workloads say whether they are single-threaded */
	ARM_KIND_DRIVER_RECORD = 1u << 0,
	/* every run carries the probe and must prove its allocator in every process (a command arm
	 * is probed only when --expect gives it a proof) */
	ARM_KIND_PROBED = 1u << 1,
	/* a run's CPU time is that of every process of the run (the run's "cpu": the per-run
	 * cgroup's when present, else wait4's rusage), kept per process in the probe's evidence */
	ARM_KIND_CPU_PER_PROCESS = 1u << 2,
	/* a run gets a marks file (ALLOCAB_PHASE_FILE) and its marks become "phase_marks" */
	ARM_KIND_MARKS_PHASES = 1u << 3,
	/* the arm carries allocator settings (KEY=VALUE, --arm) */
	ARM_KIND_CONFIGURED = 1u << 4,
	/* a run is /bin/sh -c COMMAND: an exit status 128 + N reports the program killed by signal
	 * N (dash does not exec the last command of -c) */
	ARM_KIND_SHELL = 1u << 5,
	/* its runs can run at the same time as other arms' runs, pinned (--duet: each its own CPU;
	 * --one-cpu: one shared CPU), the probe and the marks judged as in a run alone */
	ARM_KIND_PAIRABLE = 1u << 6,
};

/* What a kind needs to build one run's argv. Strings are only read. */
struct arm_run_args {
	const char *path;     /* the driver executable (driver kinds) */
	const char *command;  /* the command line (shell kinds) */
	const char *workload; /* the workload's name */
	const char *scale;
	uint64_t seed;
	unsigned reps;       /* 0: auto */
	int steady_cpu;      /* the driver's steady rule judges CPU times (--steady-time cpu) */
	char *const *params; /* "KEY=VALUE" of the workload */
	size_t nparams;
	char *const *config; /* the arm's settings (configured kinds) */
	size_t nconfig;
};

struct arm_kind_ops {
	const char *name; /* recorded in config.arm_kinds */
	unsigned flags;   /* enum arm_kind_flag */
	/* config.mode of a bench of arms of this kind: "drivers" or "commands" (every arm of one
	 * bench has the same) */
	const char *doc_mode;
	/* The argv of one run (malloc'd; its strings point into a or num) and in *path the file to
	 * execute. NULL when memory ran out. */
	char **(*argv)(const struct arm_run_args *a, char num[2][24], const char **path);
	/* Folds a finished run's evidence into its run object, after the probe and the marks are
	 * judged (NULL: nothing to fold). */
	void (*fold)(cJSON *run);
	/* What config.drivers or config.commands records for an arm of this kind. */
	const char *(*describe)(const struct arm_run_args *a);
};

extern const struct arm_kind_ops arm_kind_driver, arm_kind_configured, arm_kind_command,
    arm_kind_program;

/* The kinds, in the order above; *n set to their count. */
const struct arm_kind_ops *const *arm_kinds(size_t *n);
/* The kind called name (a results file's config.arm_kinds), or NULL. */
const struct arm_kind_ops *arm_kind_find(const char *name);
/* Whether kind k (NULL: none) has every flag of flags. */
int arm_kind_has(const struct arm_kind_ops *k, unsigned flags);

/* Adds the run's "cpu" {user_ns, sys_ns, total_ns, source}: every process of the run, from its
 * containment.cgroup_cpu when present ("cgroup"), else from wait4's rusage of the process and the
 * children it waited for (process.user_ns, sys_ns: "wait4"); nothing when neither is known. The
 * fold of the kinds with ARM_KIND_CPU_PER_PROCESS. */
void arm_fold_cpu(cJSON *run);

#endif
