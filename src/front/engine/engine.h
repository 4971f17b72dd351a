/* engine.h - the engine module's public face: the bench engine that runs a finished plan
 * (struct bench_config, built by front/plan/plan.h) in interleaved rounds of allocator drivers (or
 * of the user's own commands), each run a fresh padded process started by the proc module
 * (front/proc/proc.h), and writes an allocab-bench/2 file; the program arms and their proof, with
 * the names, lists and configured arms they share with the plan; the progress modes. The other
 * headers of this folder are private to it. */
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

/* The bench engine (benchrun.c): interleaved rounds, each run a fresh padded process, written as
 * an allocab-bench/2 file, a line appended after every round; each round is a path through the
 * stages benchengine.h lists, and benchdoc.c builds the document. What it runs is set up by the
 * plan (front/plan/plan.h), which bench and calibrate call. */

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
 * bench has the same mode). What it runs and what else its kind needs are the kind's private
 * data, which only the kind reads: its runs' inputs through the kind's run_args (bench_arm_args),
 * its proof through the probe hooks. */
struct bench_arm {
	const struct arm_kind_ops *kind; /* NULL: arm_kind_driver */
	char *name;
	/* made by the kind's constructor (arm_new_driver, arm_new_command) and freed by its
	 * free_data; NULL: none (no inputs, no proof) */
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

/* What --resume compares a file with (front/plan/plan.h, bench_resume_load), and what the engine
 * writes its own documents with. A new document with status "running", config from c, the
 * machine fingerprint and no rounds: what bench_run would start for c (benchdoc.c; the caller
 * owns it, cJSON_Delete; NULL when memory ran out). */
cJSON *benchdoc_new(const struct bench_config *c);
/* Current UTC time as 2026-11-29T21:50:00Z. */
void benchdoc_utc_now(char buf[32]);
/* Replaces the top-level member key by a string (NULL: JSON null). */
void benchdoc_set_string(cJSON *d, const char *key, const char *value);
/* ST_OK when every image the file's config.images lists is the same file now (path, size and
 * hash: exeid_same), and every arm's executable is identified somewhere (its command's, or images
 * the runs exec'd); else ST_USAGE with one line in err naming the first image that changed or is
 * gone, or the arm whose executable nothing identifies (benchimages.c). */
enum status bench_images_same(const char *path, const cJSON *file_cfg, const cJSON *fresh_cfg,
                              char *err, size_t errlen);

/* Name of the i-th counted run status ("ok", "failed", "unverified", "crashed", "timeout",
 * "invalid"), NULL past the end. */
const char *bench_run_status_name(size_t i);

/* The arms' kinds as the engine asks them (benchkind.c). The kind of arm a (arm_kind_driver when
 * it names none). */
const struct arm_kind_ops *bench_arm_kind(const struct bench_arm *a);
/* Sets q's path, command, backend, config and nconfig from arm a's kind (the rest untouched). */
void bench_arm_args(const struct bench_arm *a, struct arm_run_args *q);
/* Whether some arm of c has every flag of flags (enum arm_kind_flag); bench_all_arms: every arm
 * (and c has one). */
int bench_any_arm(const struct bench_config *c, unsigned flags);
int bench_all_arms(const struct bench_config *c, unsigned flags);

/* The rounds rule's count (benchjudge.c): how many comparisons share the level `allocab compare`
 * reads c's results by: its primary family (docs/methodology.md, "Multiplicity"), one per
 * candidate arm and workload (the total, or the phase --primary names, in one regime; at most that
 * many when some workloads lack the phase). With --primary all, every comparison it makes by
 * default: per arm but the first, shown[i] rows for workload i (its total, or every phase of a
 * workload flagged show_phases; NULL = 1 each) and the geometric mean when there are two workloads
 * or more; twice that for drivers that measure both regimes (reps auto or more than one). */
size_t bench_comparisons(const struct bench_config *c, const size_t *shown);

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

/* What a bench says of its arms at its end (benchreport.c). */

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
