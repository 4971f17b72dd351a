/* plan.h - the plan module: what `allocab bench` and `allocab calibrate` set up before the engine
 * (front/engine/engine.h) runs, between the command lines (front/cmd/) and the engine.
 *
 * The contract, stated once:
 * - A plan is a struct bench_config (engine.h) with everything it points to: the arms, the
 *   workloads with their parameters, the time policy, the design (rounds, warm-up, the rounds
 *   rule's need), the budget, the output paths, the task and its machine lock, the resume state,
 *   the probe's paths. Commands fill it from their parsed options through this module only; the
 *   engine reads it (bench_run) and never changes it, except that bench_run takes over
 *   c->resume and c->resume_disk.
 * - What the plan points to is owned by whoever built it (the command, through the functions
 *   below and their *_free partners), lives until after bench_run returns, and is freed by the
 *   partner of the function that made it: bench_drivers_free, bench_wl_list_free,
 *   bench_free_workloads, bench_resume_free, bench_task_unlock.
 * - Nothing here runs a measured process: drivers are asked for their lists (`list --json`) and
 *   their settings (`env --config`), files and directories are checked, signals are caught. Each
 *   function returns 0 or an enum status (common/status.h), with one line in the caller's err.
 *
 * Files: the drivers and the backends they declare (drivers.c), a driver's workloads and the
 * routing of -w and --param (workloads.c), --duet's rule (duet.c), signals, the default shuffle
 * seed and output directories (setup.c), a task of a job array and its machine lock (task.c), a
 * bench continued from its file (resume.c). The names and comma lists, the configured arms'
 * parser (armspec) and the program arms' setup stay in the engine for now (front/engine/engine.h),
 * whose program arms use them. */
#ifndef ALLOCAB_PLAN_H
#define ALLOCAB_PLAN_H

#include "common/status.h"
#include "front/engine/engine.h"
#include "front/gate/gate.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Whether s is a label: 1 to BENCH_TASK_LABEL_MAX characters of [A-Za-z0-9_.:@+-]. */
int bench_task_valid_label(const char *s);
/* A shard index: an integer in 0..BENCH_TASK_SHARD_MAX. Returns 0 and *out, or -1. */
int bench_task_parse_shard(const char *s, uint64_t *out);
/* Fills *t: the label from label (--label) when not NULL, else $ALLOCAB_LABEL, else
 * $SLURMD_NODENAME, else the host name; the shard from shard (--shard) when not NULL, else
 * $ALLOCAB_SHARD, $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX (the first set), else none; the
 * host and boot id. The flags are checked by the caller; a variable that is not a label or an
 * index is refused. Returns 0, or -1 with "VARIABLE='value': ..." in err. */
int bench_task_resolve(struct bench_task *t, const char *label, const char *shard, char *err,
                       size_t errlen);
/* The task's shuffle seed when --shuffle-seed is not given: splitmix64 of its shard index, so
 * that task i of any array shuffles alike and two tasks of one array differ. */
uint64_t bench_task_shuffle_seed(const struct bench_task *t);
/* Takes the machine's bench lock in dir: DIR/.allocab-bench.BOOT_ID.lock (flock, exclusive,
 * released when the process ends, shared by every container of one kernel that sees dir), and
 * writes who holds it into it. Returns ST_OK with t->lock and t->lock_fd set, or ST_FAIL with a
 * one-line reason in err: another bench holds it (err names it), or the file cannot be opened. */
enum status bench_task_lock(struct bench_task *t, const char *dir, char *err, size_t errlen);
/* Whether a live bench holds the lock file at path (a file that locks nothing, or none, is not
 * held); when held, who holds it in who. */
int bench_task_lock_held(const char *path, char *who, size_t len);
/* Removes the lock file and releases the lock (nothing when none is held). A bench killed
 * before it leaves a file that locks nothing; the next bench takes it. */
void bench_task_unlock(struct bench_task *t);
/* --resume (resume.c; docs/results-format.md, "sessions"): reads the results file path and
 * checks that c continues it: written by this version on this machine, every round loadable,
 * not decided, no --gate on either side, a sequential plan not spent, the configuration the bench
 * would record equal to the file's but for what a session may change (its command line, shuffle
 * seed, rounds, budget and --min-rounds), and a shuffle seed no session of the file used. Returns
 * ST_OK with c->resume the file's document, its "sessions" list ending with this session's, and,
 * when out (the output) is path and the file is allocab-bench/2, c->resume_keep and
 * c->resume_disk; ST_USAGE with one line naming the first difference in err ("PATH: ...");
 * ST_FAIL when memory ran out. */
enum status bench_resume_load(struct bench_config *c, const char *path, const char *out,
                              char *err, size_t errlen);
/* Frees what bench_resume_load left in c (bench_run takes it over when it runs). */
void bench_resume_free(struct bench_config *c);

/* Workload names from the output of `<driver> list --json`: an array of objects with a "name",
 * or an object with such an array under "workloads". Each object's "params" (array of objects
 * with "name") goes into params[i] as a comma-separated ",a,b," string for lookup. Returns the
 * count, or -1 if the text is not that shape. */
int bench_parse_workload_list(const char *json, char ***names, char ***params);

/* What a workload's table declares, from the "flags" of `list --json` (docs/results-format.md). */
enum bench_wl_flag {
	BENCH_WL_SINGLE_THREADED = 1u << 0, /* "single_threaded": --duet may pair it */
	BENCH_WL_SHOW_PHASES = 1u << 1,     /* "show_phases": compare shows its phases by default */
	BENCH_WL_NEEDS_INPUT = 1u << 2,     /* "needs_input": run only when -w names it */
};

/* A driver's workloads as `list --json` gives them; owns every array. */
struct bench_wl_list {
	char **names;
	char **params;   /* per workload: its parameter names as ",a,b," */
	size_t *nphases; /* per workload: how many phases it times (1 when the list does not say) */
	unsigned *flags; /* per workload: enum bench_wl_flag */
	size_t n;
	char **defaults; /* the workloads run when -w is not given: all but those that need input */
	size_t ndefaults;
	unsigned backend_flags; /* enum bench_backend_flag of the driver that gave the list */
};

/* What a backend declares of itself, from "allocator"."flags" of `list --json` (src/driver/
 * backend.h, enum backend_flags): commands choose arms by these, never by a backend's name. */
enum bench_backend_flag {
	BENCH_BACKEND_BASELINE = 1u << 0,    /* "baseline": compared against by default, first */
	BENCH_BACKEND_CALIBRATION = 1u << 1, /* "calibration": run only when named with -a */
};

/* The backend flags of a `list --json` text (0 when it declares none). */
unsigned bench_parse_backend_flags(const char *json);

/* The drivers of a directory and what each backend declares (drivers.c). */
struct bench_drivers {
	char dir[4096];
	char **names;    /* backend names: allocab-NAME; the baseline first, then by name */
	unsigned *flags; /* per driver: enum bench_backend_flag */
	size_t n;
};

/* Backend names of the executable files allocab-NAME in dir into *names (malloc'd, sorted by
 * name; bench_free_list frees them). Returns the count, or -1 with err. */
int bench_find_drivers(const char *dir, char ***names, char *err, size_t errlen);
/* The drivers of the directory bench_driver_dir(given) finds, each asked for its flags (`list
 * --json`; stop as in runner_spec). Returns ST_OK, or ST_FAIL with err (free d with
 * bench_drivers_free either way). */
enum status bench_drivers_find(const char *given, const volatile sig_atomic_t *stop,
                               struct bench_drivers *d, char *err, size_t errlen);
void bench_drivers_free(struct bench_drivers *d);
/* The index of backend name in d, or -1. */
long bench_drivers_index(const struct bench_drivers *d, const char *name);
/* The names of d joined by ", " ("none" when empty) into buf. */
void bench_drivers_join(const struct bench_drivers *d, char *buf, size_t len);

/* Fills l->defaults from l->names and l->flags: the workloads not flagged needs_input (the replay
 * workload needs a trace). Returns 0, or -1 out of memory. */
int bench_wl_defaults(struct bench_wl_list *l);

/* Per workload of the `list --json` text (as bench_parse_workload_list reads it), the length of
 * its "phases" array (1 when absent) and its flags into malloc'd arrays of n. Returns 0, or -1
 * when memory ran out or the text has fewer than n workloads. */
int bench_parse_workload_info(const char *json, size_t n, size_t **nphases, unsigned **flags);

/* The flags of the workload called name in l (0 when l does not have it). */
/* The index of the workload called name in l, or -1. */
long bench_wl_index(const struct bench_wl_list *l, const char *name);
unsigned bench_wl_flags(const struct bench_wl_list *l, const char *name);

/* --duet's rule: when the arms are drivers, every workload of c is flagged single_threaded in l
 * (two multi-threaded runs on two CPUs would compete for both); a program or command is the
 * user's, who vouches for it by giving --duet. Returns 0, or -1 with the first other workload and
 * the single-threaded ones of l named in err. */
int bench_duet_workloads_ok(const struct bench_config *c, const struct bench_wl_list *l, char *err,
                            size_t errlen);
/* Turns c into a duet (c->duet = 1) when c has two arms, the rule above holds and this machine
 * has two CPUs to pin the runs to; with shared (--one-cpu) every arm runs on one of them at a time (c->duet_shared
 * = 1), compared on CPU time. Returns 0, or -1 with the reason in err. */
int bench_duet_setup(struct bench_config *c, const struct bench_wl_list *l, int shared, char *err,
                     size_t errlen);

/* Frees what l owns and empties it; accepts NULL and an empty list. */
void bench_wl_list_free(struct bench_wl_list *l);

enum bench_route {
	BENCH_ROUTED,
	BENCH_ROUTE_NOMEM,
	BENCH_ROUTE_UNKNOWN_WL,   /* a name in sel that the list lacks */
	BENCH_ROUTE_UNUSED_PARAM, /* a --param that no selected workload takes */
};

/* Sets c->wl to the workloads sel[0..nsel) of the list l, each with those of c->params
 * ("KEY=VALUE", checked by bench_parse_args) whose KEY it takes. c->wl, its names and params
 * arrays are malloc'd and freed by bench_free_workloads, even after a failure; the params entries
 * point into c->params. Returns BENCH_ROUTED, or the failure with *bad pointing to the name in sel
 * or the entry of c->params it concerns: the caller words the message. */
enum bench_route bench_route_workloads(struct bench_config *c, char *const *sel, size_t nsel,
                                       const struct bench_wl_list *l, const char **bad);

/* Frees c->wl as bench_route_workloads built it and sets c->wl NULL, c->nwl 0. */
void bench_free_workloads(struct bench_config *c);

/* From now on SIGINT, SIGTERM and SIGHUP only set a flag, and SIGPIPE is ignored. Returns the
 * flag (static storage) for bench_run's stop. */
const volatile sig_atomic_t *bench_catch_signals(void);

/* The default --shuffle-seed: from the clock and the pid, 0..BENCH_SEED_MAX. */
uint64_t bench_clock_seed(void);

/* Fails early when no file can be created in dir (atomic_write still decides): creates and
 * removes a probe file. Returns 0, or -1 with "cannot write WHAT: reason" in err. */
int bench_dir_writable(const char *dir, const char *what, char *err, size_t errlen);

/* Asks the driver at path for its workloads (`path list --json`; stop as in runner_spec, may be
 * NULL) into *l, which the caller frees with bench_wl_list_free. Returns 0, or -1 with the reason
 * in err: the driver could not be run, or it gave no workload list ("PATH list --json: " and the
 * driver's last stderr line). */
int bench_list_workloads(const char *path, const volatile sig_atomic_t *stop,
                         struct bench_wl_list *l, char *err, size_t errlen);

/* The rounds rule's constants (docs/methodology.md, "Multiplicity"): the default rounds, the
 * spare rounds beyond the rule's minimum (a few disagreeing rounds may occur), compare's default
 * level, and the sequential gate's first look (with n < 6 no signed-rank interval reaches even
 * 95%). The solo anchor plans on the upper per-round sds of the log ratios (shared 0.05, solo
 * 0.13) to find a 10% disagreement with 80% power (docs/methodology.md, "Solo anchor rounds"). */
#define PLAN_DEFAULT_ROUNDS    10
#define PLAN_SPARE_ROUNDS      3
#define PLAN_RULE_ALPHA        0.05
#define PLAN_GATE_MIN_ROUNDS   6
#define PLAN_ANCHOR_SD_SHARED  0.05
#define PLAN_ANCHOR_SD_SOLO    0.13
#define PLAN_ANCHOR_EFFECT_PCT 10.0
#define PLAN_ANCHOR_POWER      0.8

/* Program arms (program.c), the program side of `allocab bench`: --program arms, one per
 * allocator, preloading the library front/proc/proc.h resolves; --expect on --cmd arms; each
 * arm's proof its private data, whose per-run probe is its kind's (front/arms/arms.h); the probe's
 * paths (planint.h: their setup). docs/programs.md describes the behaviour. */

/* What the command line chose for the program side (front/cmd/benchopt.h fills it); strings
 * point into argv, except the names, which the option parser owns. */
struct bench_program_opts {
	const char *program;        /* --program COMMAND, or NULL */
	const char *allocators;     /* -a as given, or NULL */
	const char **preload_names; /* --preload NAME=LIB split at the first '=' */
	const char **preload_paths;
	size_t npreloads;
	const char **expect_names; /* --expect NAME=ALLOCATOR split likewise */
	const char **expect_allocs;
	size_t nexpects;
	int count_calls; /* --count-calls */
	/* --arm LABEL=BACKEND[:KEY=VALUE]...: program arms of a known allocator whose settings go
	 * into the program's environment (docs/tuning.md, "Programs") */
	const char **arm_specs;
	size_t narm_specs;
};

/* Where the probed arms' helpers are; zero-initialise, freed by bench_free_proof. */
struct bench_probe_paths {
	char probe[PATH_MAX]; /* build/liballocab-probe.so */
	char count[PATH_MAX]; /* build/liballocab-count.so (--count-calls) */
	char dir[PATH_MAX];   /* private directory of the per-run record files ("" none) */
	char tracking[192];   /* bench_config.tracking */
	char containment[32]; /* bench_config.containment */
};

/* What the options of `allocab bench` (front/cmd/benchopt.h, its rows) and `allocab calibrate`
 * chose, before any file system lookup: the input of the plan. Strings point into argv. */
struct bench_opts {
	/* The plan's settings that are options (--seed, --param, --reps, --time, --rounds, --budget,
	 * --warmup, --min-rounds, --timeout, --shuffle-seed, --pad-max, --solo-share,
	 * --one-cpu-threads as threads_ok, --equivalence (NAN when not given), --primary; scale is
	 * --scale's word): their rows write here, and plan_init starts the plan from it. */
	struct bench_config cfg;
	const char *allocators; /* -a as given, or NULL */
	const char *workloads;  /* -w as given, or NULL */
	int scale_index;        /* --scale: its index in bench_scale_values */
	int seed_set;
	int reps_set;
	int allocation; /* --allocation: 1 sequential (default), 0 none */
	int allocation_set;
	int rounds_set;
	int min_rounds_set;
	int shuffle_seed_set;
	const char *out;
	const char *results_dir;
	const char *resume; /* --resume FILE: the results file of the bench continued, or NULL */
	const char *driver_dir;
	const char *label; /* --label: the machine's name in a fleet (docs/fleet.md), or NULL */
	const char *shard; /* --shard: the task's index in its job array, or NULL */
	int quiet;
	int duet, one_cpu;
	int help;
	const char *
	    *arm_specs; /* --arm LABEL=BACKEND[:KEY=VALUE]... as given (front/engine/engine.h) */
	size_t narm_specs;
	const char **cmd_names; /* --cmd NAME=COMMAND split at the first '=' (names are copies) */
	const char **cmd_lines;
	size_t ncmds;
	/* --program, --preload, --expect, --count-calls (prog.allocators is -a once parsed) */
	struct bench_program_opts prog;
	char **gate_argv; /* "--gate" and what follows, or NULL */
	int gate_argc;
	/* allocab calibrate: an A/A bench of one backend (-a as allocators, or the one --arm), two
	 * arms NAME.A and NAME.B written to aa_runs only, beside the calibration aa_out; aa_make_dir:
	 * their directory may be created (-o not given). NULL: a bench. */
	const char *aa_runs, *aa_out;
	int aa_make_dir;
};

/* The smallest plan whose last look can give the sequential gate g a decision: at its FAIL
 * level, Bonferroni over the comparisons it gates (each of nwl workloads, or one; times narms
 * with --against and no --candidate). */
unsigned bench_gate_need(const struct gate_spec *g, size_t nwl, size_t narms);

/* The rounds rule (docs/methodology.md, "Multiplicity"): with m comparisons at alpha 0.05,
 * need = stats_signrank_min_n(0.05, m), the fewest rounds whose simultaneous intervals reach
 * their level. gate_need (0 without --gate): the smallest plan whose last look can give the
 * sequential gate a decision (stats_seq_min_planned at the gate's FAIL level). Without --rounds
 * and --budget the bench runs max(10, need + 3, gate_need + 3, --min-rounds) rounds; with
 * --budget and neither --rounds, --min-rounds nor --gate, at least need rounds whatever the
 * budget. Returns need; when --rounds was given below it (and no --gate), or below gate_need
 * (with --gate), a one-line warning in warn (printed unless --quiet), else warn is "". */
unsigned bench_rounds_rule(const struct bench_opts *o, struct bench_config *c, size_t m,
                           unsigned gate_need, char *warn, size_t len);

/* A plan as the commands build it: c is what bench_run runs; the rest is what c points to, owned
 * here until plan_free. Zero-initialised by plan_init. */
struct bench_plan {
	struct bench_config c;
	const volatile sig_atomic_t *stop;
	struct bench_wl_list list;
	struct bench_drivers drv;
	char **sel; /* the driver arms' names */
	size_t nsel;
	char *paths[2];
	struct bench_probe_paths pp;
	struct arm_spec *specs; /* --arm, owned; configured arms point into them */
	size_t nspecs;
	struct gate_spec gate;    /* --gate (the command parses it): c.gate points here */
	char primary[80];         /* the gate's phase as c.primary when --primary was not given */
	struct bench_alloc alloc; /* --allocation sequential: c.alloc points here */
	struct bench_task task;   /* c.task points here */
	char outdir[4096];        /* where the results go: the lock's directory */
};

/* The first step of bench and calibrate alike: catches the signals (bench_catch_signals),
 * resolves a bench's task from o->label and o->shard (calibrate's is resolved when it locks),
 * and starts p->c from o->cfg with the command line argv, the kill grace, the progress mode and,
 * unless given, a shuffle seed from the clock; a bench's shard draws the
 * shuffle seed when --shuffle-seed is not given. Returns ST_OK, or ST_USAGE with err (a bad
 * label or shard in the environment); plan_free p either way. */
enum status plan_init(struct bench_plan *p, struct bench_opts *o, int argc, char **argv,
                      char *err, size_t errlen);

/* The rest, once the command has put its --gate into p->gate and p->c.gate: the arms (drivers,
 * configured, commands, programs, or calibrate's two), the workloads, the probe, --duet's rule,
 * the rounds rule (printing its warning unless quiet), adaptive allocation, the file resumed,
 * the outputs and the machine lock. Returns ST_OK with p->c ready for bench_run (the command
 * checks p->stop before it runs); else ST_USAGE or ST_FAIL with err. */
enum status plan_build(struct bench_plan *p, struct bench_opts *o, char *err, size_t errlen);

/* Frees everything p owns, releases the lock and removes the probe's record directory. */
void plan_free(struct bench_plan *p);

/* Whether allocab may write path (common/atomicio.h, atomic_target) and a file could be created
 * beside it, its directory made first when make_dir. Returns 0, or -1 with err. */
int plan_out_writable(const char *path, int make_dir, char *err, size_t errlen);

/* Whether s[0..n) is a name of [A-Za-z0-9_.-]+ (arms, workloads, --cmd names). */
int bench_valid_name(const char *s, size_t n);

/* Splits a comma-separated list into *items (malloc'd array of malloc'd strings). Refuses empty
 * items, duplicates and names outside [A-Za-z0-9_.-]. Returns the count, or -1 with a reason. */
int bench_split_list(const char *list, const char *what, char ***items, char *err, size_t errlen);
/* Frees n items and the array; accepts NULL. */
void bench_free_list(char **items, size_t n);

/* The directory of the drivers into dir (len bytes): given (--driver-dir) when not NULL, else
 * $ALLOCAB_DRIVER_DIR, else the directory of the running allocab. Returns 0, or -1 with a reason
 * in err. */
int bench_driver_dir(const char *given, char *dir, size_t len, char *err, size_t errlen);

/* Configured arms (armspec.c), `--arm LABEL=BACKEND[:KEY=VALUE]...` (docs/tuning.md): the
 * parser, and the check that asks the backend's driver (`allocab-BACKEND env --config ...`)
 * whether it takes the settings, which also yields the environment a program needs for them. */

struct arm_spec {
	char *label;   /* [A-Za-z0-9_.-]+, the arm's name in results, compare and gate */
	char *backend; /* [a-z0-9_]+: the driver allocab-BACKEND */
	char **config; /* "KEY=VALUE" as given, for the driver's --config */
	size_t nconfig;
};

/* Parses one --arm value into *a (every string malloc'd). Refuses a missing '=', a bad label or
 * backend name, an empty, malformed or repeated KEY=VALUE. Returns 0, or -1 with a one-line
 * reason in err ("--arm: ..."); *a is then empty. */
int armspec_parse(const char *s, struct arm_spec *a, char *err, size_t errlen);

/* Frees what a owns and empties it; accepts NULL. */
void armspec_free(struct arm_spec *a);

/* "mmap_threshold=32M trim_threshold=256M": the settings joined by blanks, into buf. */
void armspec_join(const struct arm_spec *a, char *buf, size_t len);

/* Runs `driver env --config KEY=VALUE...` for a's settings (stop may be NULL). Returns 0 with the
 * output of `driver env --probe ...` (NAME=VALUE lines, the probe's read-back spec
 * ALLOCAB_PROBE_CONFIG among them; malloc'd) in *env when env is not NULL; ST_USAGE when the
 * driver refused a setting (err: its one line); ST_FAIL when it could not be run (err set). */
enum status armspec_check(const char *driver, const struct arm_spec *a,
                          const volatile sig_atomic_t *stop, char **env, char *err, size_t errlen);

/* Splits the output of `driver env` ("NAME=VALUE" lines) into a NULL-terminated array of
 * malloc'd strings, the form an arm's extra environment takes for a program's runs. Refuses a
 * line that is not NAME=VALUE with NAME in [A-Z0-9_]. Returns the count, or -1 with a reason in
 * err; free the array with armspec_env_free. */
int armspec_env_list(const char *text, char ***env, char *err, size_t errlen);
void armspec_env_free(char **env);

#endif
