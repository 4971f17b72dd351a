/* engine.h - the engine module's public face: the bench engine that runs interleaved rounds of
 * allocator drivers (or of the user's own commands), each run a fresh padded process started by
 * the proc module (front/proc/proc.h), and writes an allocab-bench/2 file; what a command sets up
 * before it (drivers, workload lists, configured arms, program arms and their proof, signals);
 * the progress modes. The command lines
 * are front/cmd/bench.c and front/cmd/calibrate.c. The other headers of this folder are private to
 * it. */
#ifndef ALLOCAB_ENGINE_H
#define ALLOCAB_ENGINE_H

#include "common/status.h"
#include "front/arms/arms.h"
#include "front/results/results.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The bench engine (benchrun.c): interleaved rounds of allocator drivers (or of the user's own
 * commands), each run a fresh padded process, written as an allocab-bench/2 file: a line
 * appended after every round. benchrun.c is its loop, each round a path through the stages
 * benchengine.h lists, and benchdoc.c builds the document. What a command does before it runs the engine (drivers, workload lists,
 * signals) is below; the command lines are front/cmd/bench.c (options: front/cmd/benchopt.h)
 * and front/cmd/calibrate.c. */

/* The environment variable whose random-length value pads every run's environment. */
#define BENCH_PAD_VAR "ALLOCAB_PAD" /* the runner's RUNNER_PAD_VAR (front/proc/proc.h) */
/* 2^53 - 1: exact in every JSON reader. */
#define BENCH_SEED_MAX 9007199254740991ULL
/* One environment string must stay far below MAX_ARG_STRLEN (128 KiB). */
#define BENCH_PAD_MAX_LIMIT 65536
/* How long a process has between SIGTERM and SIGKILL (runner_spec.grace_s). */
#define BENCH_KILL_GRACE_S 2.0

/* Run statuses: ok, failed, unverified, crashed, timeout, invalid (bench_run_status_name). */
#define BENCH_NSTATUS 6

/* One arm, of one kind (front/arms/arms.h: driver, configured, command or program; every arm of a
 * bench has the same mode). What it runs are the inputs of its kind's argv (struct arm_run_args),
 * set by whoever makes the arm, NULL or 0 where its kind takes none; what else a kind needs is its
 * private data, which only the kind reads. */
struct bench_arm {
	const struct arm_kind_ops *kind; /* NULL: arm_kind_driver */
	char *name;
	char *path;    /* driver kinds: the driver executable */
	char *command; /* shell kinds: run as /bin/sh -c command */
	/* configured kinds (--arm, docs/tuning.md): the backend and its "KEY=VALUE" settings, each
	 * passed to the driver as --config (a program's are its private data's) */
	const char *backend;
	char **config;
	size_t nconfig;
	/* the kind's private data: a probed arm's proof (struct arm_proof), made by
	 * bench_setup_program or bench_setup_expects and freed by bench_free_proof; NULL: none */
	void *data;
};

struct bench_workload {
	char *name;
	char **params; /* the "KEY=VALUE" that apply to this workload */
	size_t nparams;
	int single_threaded; /* flagged single_threaded by the drivers' list */
};

struct runner_spec;
struct runner_result;
struct telemetry_sample;
struct facts;
struct cmp_row;

/* Adaptive allocation (benchalloc.c; docs/methodology.md, "Adaptive allocation"): after every
 * measured round from min_rounds on, the engine asks which arm x workload cells still need runs.
 * A cell that does not leaves the rounds for good (each later round lists it under "left"), and
 * the bench ends "decided" when no cell is left. */
struct bench_alloc {
	const char *name; /* recorded as config.allocation */
	void *ctx;
	/* With the rounds so far (as compare reads them), clears need[a * nwl + w] for every cell
	 * (arm a, workload w) that needs no more runs; never sets an entry. Returns 0, or -1 with a
	 * reason in err. */
	int (*update)(void *ctx, const struct rf_doc *d, unsigned char *need, size_t ncells,
	              char *err, size_t errlen);
};

/* A decision rule on the comparisons `allocab compare` makes by default: whether a row needs no
 * more rounds. It must stay valid however often it is asked (an anytime-valid decision, never
 * the fixed-n interval): the engine asks it after every round. */
struct bench_rule {
	const char *name;
	int (*decided)(void *ctx, const struct cmp_row *row);
	void *ctx;
};

/* The allocation that keeps a cell while any primary comparison of compare's default report that
 * uses it is undecided by rule: the row of its workload with its arm as candidate or baseline in
 * the primary family (docs/methodology.md, "Multiplicity": each workload's total, or the phase
 * config.primary names, in its primary regime); secondary rows (other phases and regimes, the
 * geometric means) hold no cell. The rows come from compare with the document's plan
 * (config.sequential, fixed by the engine at its first look; the bench ends when it is spent),
 * primary rows and equivalence margin. rule must outlive the bench. */
void bench_alloc_by_rule(struct bench_alloc *a, const struct bench_rule *rule);

/* The valid rule (docs/methodology.md, "Sequential decisions"): a row is decided when its
 * sequential interval over the plan, at its family's level, has reached its look's level
 * and excludes 0 (faster or slower) or lies within the equivalence margin (equivalent). */
extern const struct bench_rule bench_rule_sequential;

/* How the engine starts a process and reads the clock: bench_real_runner (runner_run of
 * front/proc/proc.h and CLOCK_MONOTONIC) unless a test gives fakes (tests/unit/engine/test_benchrun.c). */
struct bench_runner {
	void *ctx; /* passed to both functions */
	/* As runner_run: 0 with *r filled (the engine frees it with runner_result_free), or -1 with
	 * a reason in err when the process could not be started. */
	int (*run)(void *ctx, const struct runner_spec *spec, struct runner_result *r, char *err,
	           size_t errlen);
	/* A monotonic clock in nanoseconds (round times, --budget, progress). */
	int64_t (*now_ns)(void *ctx);
	/* What the machine was doing around a run, as telemetry_sample (front/proc/proc.h) fills
	 * it; NULL: telemetry_sample. */
	void (*telemetry)(void *ctx, struct telemetry_sample *t);
	/* The document's machine object (the caller of bench_run owns nothing of it), as
	 * fingerprint_json builds it; NULL: fingerprint_json. */
	cJSON *(*machine)(void *ctx);
	/* The machine's facts at the bench's start and end (when: "start", "end"), as facts_measure
	 * (front/proc/proc.h) measures them; NULL: none recorded (a fake runs no process on this
	 * machine). Only with a runner given: bench_real_runner measures them. */
	void (*facts)(void *ctx, const char *when, struct facts *f);
};

extern const struct bench_runner bench_real_runner;

/* What bench_run runs. Every pointer is owned by the caller and only read during bench_run. */
struct bench_config {
	struct bench_arm *arms;
	size_t narms;
	/* The arm compared against by default (config.baseline): the platform's own allocator when
	 * an arm runs it plainly, else the first arm; NULL: the first arm. Not owned. */
	const char *baseline;
	struct bench_workload *wl; /* commands mode: one, named "command" */
	size_t nwl;
	const char *scale; /* drivers mode */
	uint64_t seed;
	unsigned reps; /* --reps N for every driver; 0: auto (cold, then until steady) */
	/* the time compare uses for this bench (config.time; docs/methodology.md, "Which time"):
	 * a workload compared on CPU time gets --steady-time cpu, so that its driver's rule judges
	 * the times compared */
	enum rf_time_policy time;
	char **params; /* every --param as given, for the record */
	size_t nparams;
	unsigned rounds; /* most measured rounds; 0 = no limit (budget decides) */
	double budget_s; /* 0 = none; counts from the start, warm-up included */
	unsigned warmup;
	unsigned min_rounds; /* measured rounds run whatever the budget; first gate check */
	/* The rounds rule (docs/methodology.md, "Multiplicity"), as bench_rounds_rule applied it
	 * before the first round: the comparisons compare makes by default (bench_comparisons) and
	 * the fewest measured rounds whose intervals can reach their level (0: none counted), and
	 * whether a --budget too small for them is extended (--budget alone) or only told so. After
	 * the first round the engine counts again with the phases a program marked. */
	size_t need_comparisons;
	unsigned need_rounds;
	int need_extends;
	double equivalence;  /* --equivalence M (percent, recorded for compare and gate); NAN */
	const char *primary; /* --primary ROWS (config.primary: compare's primary rows), or NULL */
	double timeout_s, grace_s;
	uint64_t shuffle_seed;
	size_t pad_max;
	int progress;     /* enum progress_mode (below): how progress goes to stderr */
	char **out_paths; /* every path gets the whole document after every round */
	size_t nout;
	char **argv; /* the command line, for the record */
	int argc;
	/* the arms of a workload run at once (front/proc/proc.h): --duet, two arms pinned to two CPUs
	 * that swap every round; with duet_shared (--one-cpu), every arm on one CPU, drawn per round */
	int duet, duet_shared;
	double solo_share; int threads_ok; /* solo rounds, serialised threads (benchsolo.h) */
	const struct bench_runner *runner; /* NULL: bench_real_runner; duet runs are always real */
	const char *program;               /* --program as given (commands mode), or NULL */
	const char *probe_lib; /* build/liballocab-probe.so when an arm is probed, else NULL */
	const char *count_lib; /* --count-calls: build/liballocab-count.so, else NULL */
	const char *probe_dir; /* private directory for the per-run probe record files */
	/* how probed runs' processes are known, the recorded text of a tracking mode
	 * (common/trackmode.h: ptrace, or probe only (ptrace: EPERM) when this process may not
	 * trace, front/proc/ptrack.h); NULL when no arm is probed */
	const char *tracking;
	/* how runs are contained (front/proc/contain.h): "cgroup+proc-connector", "cgroup",
	 * "proc-connector" or "none"; NULL when no arm is probed */
	const char *containment;
	struct gate_spec *gate; /* NULL without --gate */
	char **gate_argv;       /* the --gate options, for the record */
	int gate_argc;
	const struct bench_task *task;   /* written as the document's "task"; NULL: none */
	const struct bench_alloc *alloc; /* NULL: every cell runs in every round */
	/* --resume: the document of the bench continued (bench_resume_load), whose rounds the
	 * engine keeps and follows with this session's; bench_run takes it over and frees it
	 * whatever it returns. NULL: a new bench. */
	cJSON *resume;
	/* --resume into the allocab-bench/2 file it continues: the length of its complete lines (a
	 * torn last line after them is cut off) and the head they state (bench_run takes it over),
	 * which this session's lines follow; resume_keep -1 otherwise (the output is written anew,
	 * as allocab-bench/2) */
	long resume_keep;
	cJSON *resume_disk;
};

/* A bench as one task of a job array (task.c, docs/fleet.md). */
#define BENCH_TASK_LABEL_MAX 128
#define BENCH_TASK_SHARD_MAX 4294967295ULL

struct bench_task {
	char label[BENCH_TASK_LABEL_MAX + 1]; /* the machine's name in a fleet; "" none */
	const char *label_from; /* "--label", the variable it came from, "hostname"; NULL none */
	long long shard;        /* the task's index in its array, -1 none */
	const char *shard_from; /* "--shard" or the variable; NULL none */
	char host[BENCH_TASK_LABEL_MAX + 1]; /* uname's node name ("" unless a valid label) */
	char boot_id[64]; /* /proc/sys/kernel/random/boot_id: one per running kernel ("" unknown) */
	char lock[4096 + 64]; /* the lock file held ("" none) */
	int lock_fd;          /* -1 when not held */
};

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

struct bench_result {
	/* complete, budget, decided, interrupted, or aborted when the first round showed a proof
	 * failure no later round can change (bench_report_hopeless); a static string */
	const char *status;
	unsigned rounds_done; /* finished rounds, warm-up included */
	unsigned measured;
	size_t runs, failed;             /* runs in finished rounds; those not ok */
	size_t by_status[BENCH_NSTATUS]; /* runs by status index, see bench_run_status_name */
	int gate;                        /* final gate outcome (enum gate_outcome) or -1 */
	size_t planned;                  /* the sequential gate's plan of rounds (0: none) */
	unsigned looks;                  /* gate checks made after rounds */
	double elapsed_s;
	/* --resume: the rounds and measured rounds the file held (rounds_done and measured count
	 * them too; this session's first round is round rounds0); 0 for a new bench */
	unsigned rounds0, measured0;
	/* aborted because the document could not be written (a full disk): rounds_done and measured
	 * are then what the file keeps, and --resume continues it (docs/methodology.md, "Resuming a
	 * bench"); 0 otherwise */
	int resumable;
};

/* Runs the bench described by c, writing the document to every c->out_paths entry after every
 * round. stop is set asynchronously to interrupt (may be NULL). After the first round (warm-up or
 * not) it stops with status "aborted" when an arm's proof failed there for a reason no later
 * round can change (bench_report_hopeless). Returns ST_OK (common/status.h) with *res filled and,
 * if doc is not NULL, the final document in *doc (the caller cJSON_Deletes it). Otherwise returns
 * ST_FAIL on a runtime failure or ST_USAGE on bad input met while running (a driver rejected its
 * arguments in the first round, or the gate cannot judge the document), with a one-line reason in
 * err; the file is then either not written at all (failure before the first round ended) or has
 * status "aborted". */
enum status bench_run(const struct bench_config *c, const volatile sig_atomic_t *stop, cJSON **doc,
                      struct bench_result *res, char *err, size_t errlen);

/* --resume (benchresume.c; docs/results-format.md, "sessions"): reads the results file path and
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

/* Name of the i-th counted run status ("ok", "failed", "unverified", "crashed", "timeout",
 * "invalid"), NULL past the end. */
const char *bench_run_status_name(size_t i);

/* Setup: what `allocab bench` and `allocab calibrate` do before they run the engine: find the
 * drivers (drivers.c), ask one for its workloads and route the --param values by that list
 * (workloads.c), check the names given (names.c) and --duet's rule (benchduet.c), check output
 * directories, draw the default shuffle seed, and catch the signals that stop a bench (setup.c). */

/* The arms' kinds as the engine asks them (benchkind.c). The kind of arm a (arm_kind_driver when
 * it names none). */
const struct arm_kind_ops *bench_arm_kind(const struct bench_arm *a);
/* Whether some arm of c has every flag of flags (enum arm_kind_flag); bench_all_arms: every arm
 * (and c has one). */
int bench_any_arm(const struct bench_config *c, unsigned flags);
int bench_all_arms(const struct bench_config *c, unsigned flags);

/* Whether s[0..n) is a name of [A-Za-z0-9_.-]+ (arms, workloads, --cmd names). */
int bench_valid_name(const char *s, size_t n);

/* Splits a comma-separated list into *items (malloc'd array of malloc'd strings). Refuses empty
 * items, duplicates and names outside [A-Za-z0-9_.-]. Returns the count, or -1 with a reason. */
int bench_split_list(const char *list, const char *what, char ***items, char *err, size_t errlen);
/* Frees n items and the array; accepts NULL. */
void bench_free_list(char **items, size_t n);

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

/* The one workload setup of bench and calibrate: asks driver for its workloads (into *list, which
 * the caller frees with bench_wl_list_free), and routes the -w selection (workloads, a comma list;
 * NULL: the defaults) and the --param values to c->wl (bench_route_workloads). Returns ST_OK, or
 * with err ST_USAGE (an unknown workload, a --param no selected workload takes) or ST_FAIL. */
enum status bench_setup_workloads(struct bench_config *c, const char *driver, const char *workloads,
                                  const char *const *params, size_t nparams,
                                  const volatile sig_atomic_t *stop, struct bench_wl_list *list,
                                  char *err, size_t errlen);

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

/* The rounds rule's count (benchjudge.c): how many comparisons share the level `allocab compare`
 * reads c's results by: its primary family (docs/methodology.md, "Multiplicity"), one per
 * candidate arm and workload (the total, or the phase --primary names, in one regime; at most that
 * many when some workloads lack the phase). With --primary all, every comparison it makes by
 * default: per arm but the first, shown[i] rows for workload i (its total, or every phase of a
 * workload flagged show_phases; NULL = 1 each) and the geometric mean when there are two workloads
 * or more; twice that for drivers that measure both regimes (reps auto or more than one). */
size_t bench_comparisons(const struct bench_config *c, const size_t *shown);

/* Frees what l owns and empties it; accepts NULL and an empty list. */
void bench_wl_list_free(struct bench_wl_list *l);

enum bench_route {
	BENCH_ROUTED,
	BENCH_ROUTE_NOMEM,
	BENCH_ROUTE_UNKNOWN_WL,   /* a name in sel that the list lacks */
	BENCH_ROUTE_UNUSED_PARAM, /* a --param that no selected workload takes */
};

/* Sets c->wl to the workloads sel[0..nsel) of the list l, each with those of params[0..nparams)
 * ("KEY=VALUE", checked by bench_parse_args) whose KEY it takes. c->wl, its names and params
 * arrays are malloc'd and freed by bench_free_workloads, even after a failure; the params entries
 * point into params. Returns BENCH_ROUTED, or the failure with *bad pointing to the name in sel or
 * the entry of params it concerns: the caller words the message. */
enum bench_route bench_route_workloads(struct bench_config *c, char *const *sel, size_t nsel,
                                       const struct bench_wl_list *l, const char *const *params,
                                       size_t nparams, const char **bad);

/* Frees c->wl as bench_route_workloads built it and sets c->wl NULL, c->nwl 0. */
void bench_free_workloads(struct bench_config *c);

/* From now on SIGINT, SIGTERM and SIGHUP only set a flag, and SIGPIPE is ignored. Returns the
 * flag (static storage) for bench_run's stop. */
const volatile sig_atomic_t *bench_catch_signals(void);

/* The default --shuffle-seed: from the clock and the pid, 0..BENCH_SEED_MAX. */
uint64_t bench_clock_seed(void);

/* The directory of the drivers into dir (len bytes): given (--driver-dir) when not NULL, else
 * $ALLOCAB_DRIVER_DIR, else the directory of the running allocab. Returns 0, or -1 with a reason
 * in err. */
int bench_driver_dir(const char *given, char *dir, size_t len, char *err, size_t errlen);

/* Fails early when no file can be created in dir (atomic_write still decides): creates and
 * removes a probe file. Returns 0, or -1 with "cannot write WHAT: reason" in err. */
int bench_dir_writable(const char *dir, const char *what, char *err, size_t errlen);

/* Asks the driver at path for its workloads (`path list --json`; stop as in runner_spec, may be
 * NULL) into *l, which the caller frees with bench_wl_list_free. Returns 0, or -1 with the reason
 * in err: the driver could not be run, or it gave no workload list ("PATH list --json: " and the
 * driver's last stderr line). */
int bench_list_workloads(const char *path, const volatile sig_atomic_t *stop,
                         struct bench_wl_list *l, char *err, size_t errlen);

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

/* Progress (progress.c): how `allocab bench` and `allocab calibrate` show progress on stderr: on a
 * terminal one line rewritten in place and cut to the terminal's width; elsewhere (a CI log, a
 * pipe, a file, TERM=dumb) one plain line per finished round; nothing with --quiet. No colour is
 * used. */

enum progress_mode { PROGRESS_NONE, PROGRESS_TTY, PROGRESS_LINES };

/* The mode for file descriptor fd: none when quiet; TTY when fd is a terminal and $TERM is set
 * and not "dumb"; plain lines otherwise. */
enum progress_mode progress_mode_for(int quiet, int fd);

/* Columns of the terminal on fd (TIOCGWINSZ), else $COLUMNS when it is a number in 20..10000,
 * else 80. */
size_t progress_width(int fd);

/* Cuts the NUL-terminated line so that it takes at most width - 1 columns (the last column is
 * left free so that the terminal does not wrap); a cut line ends in "...". The line is ASCII. */
void progress_fit(char *line, size_t width);

/* Program arms (benchprog.c), the program side of `allocab bench`: --program arms, one per
 * allocator, preloading the library front/proc/proc.h resolves; --expect on --cmd arms; each
 * arm's proof its private data, whose per-run probe is its kind's (front/arms/arms.h); the probe's
 * paths. What a bench says of its arms at its end (benchreport.c): the arms without a verified
 * successful run. docs/programs.md describes the behaviour. */

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

/* --program: c->arms from -a (default: system and every allocator whose Debian library is
 * installed, or none when --arm is given) plus the --preload names and the --arm arms (their
 * settings checked by the backend's driver and put in the arm's env), each running o->program, with
 * its library resolved and its proof set; c->wl the one workload "command"; c->program. Arm names
 * are malloc'd (the caller frees them and c->arms); the proof fields are freed by bench_free_proof.
 * Returns ST_OK, ST_FAIL (runtime: the probe library is missing, memory) or ST_USAGE (unknown
 * allocator, a library that cannot be loaded, a bad --arm, fewer than two arms) with a one-line
 * reason in err (common/status.h). */
enum status bench_setup_program(struct bench_config *c, const struct bench_program_opts *o,
                                struct bench_probe_paths *pp, char *err, size_t errlen);

/* --expect NAME=ALLOCATOR: sets the proof of those --cmd arms of c (the executable's own copy of
 * the allocator counts). Returns ST_OK, ST_FAIL (memory) or ST_USAGE (unknown allocator) with
 * err. */
enum status bench_setup_expects(struct bench_config *c, const struct bench_program_opts *o,
                                char *err, size_t errlen);

/* When an arm of c is probed: finds the probe (and, with --count-calls, the counting library),
 * creates the record directory under $TMPDIR or /tmp and finds out whether processes can be
 * tracked (front/proc/ptrack.h); sets c->probe_lib, c->count_lib, c->probe_dir and
 * c->tracking. Returns ST_OK, or ST_FAIL with err (a runtime failure: no bad input here). */
enum status bench_setup_probe(struct bench_config *c, const struct bench_program_opts *o,
                              struct bench_probe_paths *pp, char *err, size_t errlen);

/* Frees the arms' private data (their proof, and a program's settings and environment) and
 * removes the record directory with whatever an interrupted bench left in it. */
void bench_free_proof(struct bench_config *c, struct bench_probe_paths *pp);

/* The arms of c whose every run in round (a round object of the document) is unverified for a
 * reason no later run can change (the run's probe.deterministic: preload failed, static
 * executable, setuid program, program links its own allocator, other allocator serves malloc;
 * docs/programs.md, "Failing loudly"). Writes "allocab: bench: ARM: no verified successful run:
 * unverified: REASON" for each to f (unless NULL) and returns how many. */
size_t bench_report_hopeless(const struct bench_config *c, const cJSON *round, FILE *f);

/* Writes "allocab: bench: ARM: no verified successful run: WHY" to f for every arm of c without
 * an ok run in a measured round of doc (WHY: the first failed run's reason, else its status,
 * exit or signal and last stderr line). Returns how many arms it named. */
size_t bench_report_unproven(const struct bench_config *c, const cJSON *doc, FILE *f);

#endif
