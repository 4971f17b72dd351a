/* arms.h - the arms module's public face: the kinds of arm a bench runs, as a table of
 * operations with capability flags in the manner of fio's ioengine_ops. The engine (front/engine)
 * asks a kind what it can do and lets it build a run's argv, prepare and judge a run's evidence
 * and fold it into the run object; the reading side (front/results) asks the kind's mode what its
 * runs are; neither checks a kind's name. The kinds, one file per family: driver (an allocator
 * driver, allocab-NAME) and configured (a driver run with allocator settings, docs/tuning.md) in
 * driver.c; command (--cmd, the user's command line) and program (--program, the user's command
 * with an allocator preloaded, docs/programs.md) in command.c; the proofs of the probed ones
 * and their runs' probe in probe.c, their runs' phase marks in marks.c; the table in
 * arms.c. The results file records each arm's kind (config.arm_kinds) and the kinds' mode
 * (config.mode, docs/results-format.md). */
#ifndef ALLOCAB_ARMS_H
#define ALLOCAB_ARMS_H

#include "common/status.h"
#include "marks/marks.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct runner_result;

/* What a kind can do; the engine asks these, never the name. */
enum arm_kind_flag {
	/* a run is an allocator driver: its stdout is an allocab-run/1 record (none: invalid), exit
	 * status 4 means unverified, exit status 2 in the first round means bad arguments; it times
	 * cold and steady reps itself, and its workloads say whether they are single-threaded */
	ARM_KIND_DRIVER_RECORD = 1u << 0,
	/* every run carries the probe and must prove its allocator in every process (a command arm
	 * is probed only when --expect gives it a proof: its private data) */
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

/* What the runs of a kind's arms are to the reading side (front/results, which names these
 * RF_KIND_*): results, compare, gate, fleet and export ask these, never config.mode. */
enum arm_mode_flag {
	/* a run is the user's command, timed whole by the bench (process.wall_ns, the CPU time of
	 * every process): one pseudo-workload whose phases are "total" and those the program marks;
	 * a steady regime only from the phases it repeats; no checksum */
	ARM_MODE_WHOLE_PROCESS = 1u << 0,
	/* a run is an allocator driver's allocab-run/1 record: reps it times itself, cold and steady
	 * regimes (--reps auto measures both), the workload's parameters and checksum */
	ARM_MODE_DRIVER_RECORD = 1u << 1,
};

/* The mode of a family of kinds: what a bench of its arms records as config.mode (every arm of
 * one bench has the same), and what its runs are when the file is read back. */
struct arm_mode {
	const char *mode; /* config.mode: "drivers" or "commands" */
	const char *runs; /* what one run is, in messages: "driver", "command" */
	unsigned flags;   /* enum arm_mode_flag */
	/* the arm compared against when the file names no config.baseline and has this arm (the
	 * platform's allocator of a drivers bench); NULL: the first arm */
	const char *fallback_baseline;
};

/* What a kind needs to build one run's argv. Strings are only read. */
struct arm_run_args {
	const char *path;     /* the driver executable (driver kinds) */
	const char *command;  /* the command line (shell kinds) */
	const char *backend;  /* a configured arm's backend (docs/tuning.md), else NULL */
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

/* The proof of a probed arm (probe.c), in its private data: what every run must prove
 * (front/proc/proc.h, struct probe_expect) and what its runs' environment carries. Made by
 * arm_proof_program or arm_proof_expect for the bench's setup (front/engine/engine.h,
 * bench_setup_program and bench_setup_expects), freed by arm_proof_free. allocator or object is
 * set. */
struct arm_proof {
	char *allocator; /* the known allocator that must serve malloc, or NULL */
	char *object;    /* the preloaded library (realpath) that must serve it, or NULL */
	int exe_counts;  /* --expect: the executable's own copy of the allocator is proof */
	char *preload;   /* program arms: the allocator library put first in LD_PRELOAD, or NULL */
	char *version;   /* the preloaded allocator's version ("" unknown), or NULL */
	char **env;      /* further "NAME=VALUE" for the arm's runs, NULL-terminated, or NULL */
	/* a configured program arm (--arm): its backend and settings, which the arm points at */
	char *backend;
	char **config;
	size_t nconfig;
};

/* The private data of the driver kinds (arm_new_driver). */
struct arm_driver_data {
	char *path;          /* the driver executable */
	const char *backend; /* configured: the backend, else NULL */
	char *const *config; /* configured: its "KEY=VALUE" settings, each passed as --config */
	size_t nconfig;
};

/* The private data of the shell kinds (arm_new_command): a configured program arm's backend and
 * settings are its proof's. */
struct arm_shell_data {
	const char *command; /* run as /bin/sh -c command */
	/* what every run must prove, or NULL (a command arm without --expect) */
	struct arm_proof *proof;
};

/* What the bench gives its kinds' per-run hooks for one run (bench_config's probe fields). */
struct arm_run_env {
	const char *probe_lib; /* build/liballocab-probe.so */
	const char *count_lib; /* --count-calls: build/liballocab-count.so, else NULL */
	const char *dir;       /* private directory of the per-run record files */
	const char *arm;       /* the arm's name, for messages */
	unsigned long n;       /* the run's number in the bench: its files' names */
};

/* The probe's record file and environment of one run of a probed arm. */
struct arm_probe_run {
	char file[PATH_MAX];
	int fd; /* the bench's own descriptor of file, which the judgement reads */
	dev_t dev;
	ino_t ino;
	char vars[4][PATH_MAX + 64];
	char preload[3 * PATH_MAX + 16];
	char *set[64]; /* runner_spec.env_set */
};

/* The phase names of the bench's first ok run that marked phases: every later ok run must mark
 * the same ones. Zero-initialise. */
struct arm_phase_names {
	int known;
	size_t n;
	char name[PHASEMARK_MAX_PHASES][PHASEMARK_MAX_NAME + 1];
};

/* One run's marks file and environment (marks.c). */
struct arm_marks_run {
	char file[PATH_MAX];
	char var[PATH_MAX + 32]; /* ALLOCAB_PHASE_FILE=file */
	char **set;              /* runner_spec.env_set: the given variables, then var (malloc'd) */
	int64_t lo, hi;          /* CLOCK_MONOTONIC just before the run started and after it ended */
	/* the regimes are judged on the spans' CPU times when every span has one (the bench
	 * compares CPU time: docs/programs.md, "Which time"), else on their wall times */
	int cpu_rule;
};

struct arm_kind_ops {
	const char *name;                /* recorded in config.arm_kinds */
	unsigned flags;                  /* enum arm_kind_flag */
	const struct arm_mode *doc_mode; /* the kind's family: config.mode and the reading side */
	/* The argv of one run (malloc'd; its strings point into a or num) and in *path the file to
	 * execute. NULL when memory ran out. */
	char **(*argv)(const struct arm_run_args *a, char num[2][24], const char **path);
	/* Folds a finished run's evidence into its run object, after the probe and the marks are
	 * judged (NULL: nothing to fold). */
	void (*fold)(cJSON *run);
	/* What config.drivers or config.commands records for an arm of this kind. */
	const char *(*describe)(const struct arm_run_args *a);
	/* Sets the inputs of q that the arm with private data data (NULL: none, nothing set) gives
	 * its runs: path, command, backend, config and nconfig. */
	void (*run_args)(const void *data, struct arm_run_args *q);
	/* The proof in an arm's private data data, or NULL (NULL hook: the kind has none). */
	const struct arm_proof *(*proof)(const void *data);
	/* The probe of a run of an arm whose private data is data (NULL hooks: the kind has no
	 * proof). probe_prepare creates run b->n's record file and environment in *p,
	 * probe_judge reads and judges them after the run, probe_discard removes what an
	 * unjudged run left. */
	int (*probe_prepare)(const struct arm_run_env *b, const void *data, struct arm_probe_run *p,
	                     char *err, size_t errlen);
	cJSON *(*probe_judge)(const void *data, struct arm_probe_run *p,
	                      const struct runner_result *r);
	void (*probe_discard)(struct arm_probe_run *p);
	/* The marks of a run of the kinds with ARM_KIND_MARKS_PHASES (NULL otherwise):
	 * marks_prepare creates run n's marks file in dir and in p->set the variables base
	 * (NULL-terminated, may be NULL) followed by ALLOCAB_PHASE_FILE (-1 with err: p then holds
	 * nothing to free); marks_judge adds the finished ok run's "phase_marks" (null when the
	 * program marked nothing), or returns -1 with why the marks make the run invalid: a
	 * malformed file, spans that hold more CPU time than the kernel counted for the run (its
	 * "process" and "containment", already in run), or phase names other than ref's, which the
	 * first run that marked sets; marks_discard then removes the file and frees p->set. */
	int (*marks_prepare)(const char *dir, unsigned long n, char *const *base,
	                     struct arm_marks_run *p, char *err, size_t errlen);
	int (*marks_judge)(struct arm_marks_run *p, struct arm_phase_names *ref, cJSON *run,
	                   char *err, size_t errlen);
	void (*marks_discard)(struct arm_marks_run *p);
	/* What config.proof records of an arm whose private data has a proof (NULL: memory). */
	cJSON *(*data_json)(const void *data);
	/* Frees the private data of an arm (accepts NULL). */
	void (*free_data)(void *data);
};

extern const struct arm_kind_ops arm_kind_driver, arm_kind_configured, arm_kind_command,
    arm_kind_program;

/* The kinds, in the order above; *n set to their count. */
const struct arm_kind_ops *const *arm_kinds(size_t *n);
/* The kind called name (a results file's config.arm_kinds), or NULL. */
const struct arm_kind_ops *arm_kind_find(const char *name);
/* Whether kind k (NULL: none) has every flag of flags. */
int arm_kind_has(const struct arm_kind_ops *k, unsigned flags);
/* Whether runs of an arm of kind k with private data data are probed: the kind's flag, or a
 * proof given to it (--expect). */
int arm_probed(const struct arm_kind_ops *k, const void *data);

/* The private data of a driver arm (driver.c): the executable DIR/allocab-EXE, and for a
 * configured arm its backend and settings, which the data points at (the caller keeps them
 * alive). NULL when memory ran out. Freed by the kind's free_data. */
struct arm_driver_data *arm_new_driver(const char *dir, const char *exe, const char *backend,
                                       char *const *config, size_t nconfig);
/* The private data of a command or program arm (command.c): command, which the data points at,
 * and proof (NULL: none), which it takes over. NULL when memory ran out (proof not taken). Freed
 * by the kind's free_data. */
struct arm_shell_data *arm_new_command(const char *command, struct arm_proof *proof);

/* The mode of some kind called config.mode mode, or NULL. */
const struct arm_mode *arm_mode_find(const char *mode);
/* The kinds' modes, as "\"drivers\" or \"commands\"" into buf (for messages). */
const char *arm_mode_list(char *buf, size_t len);

/* Adds the run's "cpu" {user_ns, sys_ns, total_ns, source}: every process of the run, from its
 * containment.cgroup_cpu when present ("cgroup"), else from wait4's rusage of the process and the
 * children it waited for (process.user_ns, sys_ns: "wait4"); nothing when neither is known. The
 * fold of the kinds with ARM_KIND_CPU_PER_PROCESS. */
void arm_fold_cpu(cJSON *run);

/* The probe of a proof (probe.c), which the probed kinds' hooks call with their data's proof.
 * probe_prepare: program arms
 * get LD_PRELOAD=[count:]allocator:probe, --cmd arms [count:]probe (their command sets its own
 * LD_PRELOAD; the probe's exec wrappers put themselves back), plus the proof's env; -1 with
 * err. probe_judge: {"verified": BOOL, "reason": TEXT, "summary": the probe's summary or null},
 * read from the bench's own descriptor, never through a path the program may have replaced (a
 * replaced file makes the run unverified); closes and removes the file; made where r's tracking
 * evidence is (in a duet, its helper: front/proc/proc.h); NULL when memory ran out. */
int arm_probe_prepare(const struct arm_run_env *b, const void *data, struct arm_probe_run *p,
                      char *err, size_t errlen);
cJSON *arm_probe_judge(const void *data, struct arm_probe_run *p, const struct runner_result *r);
void arm_probe_discard(struct arm_probe_run *p);
cJSON *arm_proof_json(const void *data);
void arm_proof_free(void *data);

/* The probed kinds' setup from their options (probe.c). arm_proof_program: the proof of a program
 * arm for name, a known allocator (common/allocknown.h) or a --preload name whose library is lib
 * (NULL: none): the allocator's library preloaded (none for the platform's own), resolved by a
 * trial run with the probe (front/proc/proc.h, preload_resolve), as the object that must serve
 * malloc. arm_proof_expect: the proof --expect NAME=ALLOCATOR gives a command arm (the
 * executable's own copy of the allocator counts). Both return ST_OK with *out (free with
 * arm_proof_free), else NULL and ST_USAGE (an unknown allocator; a library that cannot be
 * loaded, or one of another allocator than its name) or ST_FAIL (memory) with err. */
enum status arm_proof_program(const char *name, const char *lib, const char *probe,
                              struct arm_proof **out, char *err, size_t errlen);
enum status arm_proof_expect(const char *name, const char *allocator, struct arm_proof **out,
                             char *err, size_t errlen);

/* The marks hooks of the kinds that mark phases (marks.c), as their tables name them. */
int arm_marks_prepare(const char *dir, unsigned long n, char *const *base, struct arm_marks_run *p,
                      char *err, size_t errlen);
int arm_marks_judge(struct arm_marks_run *p, struct arm_phase_names *ref, cJSON *run, char *err,
                    size_t errlen);
void arm_marks_discard(struct arm_marks_run *p);

#endif
