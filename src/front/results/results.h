/* results.h - a bench results file (allocab-bench/2 or /1), validated and reduced to what compare
 * and gate need: per measured round, arm and workload one run with its status, its time per
 * phase (median over reps), its memory figures and its noise telemetry. Warm-up rounds are kept apart
 * (rf_warm_run) for reports to show; they never enter a comparison, and their failures are listed
 * with the others. Everything is copied: a loaded document keeps no cJSON. */
#ifndef ALLOCAB_RESULTS_H
#define ALLOCAB_RESULTS_H

#include "common/jsonload.h"
#include "common/nameidx.h"
#include "common/status.h"
#include "front/arms/arms.h"
#include "front/stats/stats.h"

#include <stddef.h>
#include <cjson/cJSON.h>

#define RF_MAX_PHASES 8
/* Limits on what a document may hold (docs/results-format.md, "Reading files"). */
#define RF_MAX_CELLS   10000 /* arms x workloads */
#define RF_MAX_WALL_NS 1e15  /* ns (11.6 days): any time above is refused */
#define RF_MAX_FIGURE  1e18  /* counts, bytes, KiB, ticks */
#define RF_MAX_LABEL   128   /* bytes of task.label and task.host */

/* The two regimes a driver run measures (docs/methodology.md, "Cold start and steady state"). */
enum rf_regime { RF_COLD, RF_STEADY, RF_NREGIMES };

/* The time of a rep a comparison uses (docs/methodology.md, "Which time"): its wall time, or its
 * CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread of the process, user and system). */
enum rf_time { RF_TIME_WALL, RF_TIME_CPU, RF_NTIMES };
/* Which time each workload uses: wall everywhere, CPU everywhere, or CPU for the workloads flagged
 * single_threaded and wall for the others (auto; a command's workload counts as single-threaded
 * when every arm's median CPU/wall ratio is at most RF_AUTO_MAX_CPU_RATIO). A phase with a run
 * that lacks CPU times uses wall whatever the policy. */
enum rf_time_policy { RF_POLICY_WALL, RF_POLICY_CPU, RF_POLICY_AUTO };
#define RF_AUTO_MAX_CPU_RATIO 1.1

/* The resource counts of a span (getrusage deltas, docs/results-format.md, "Resource counts"). */
enum rf_count { RF_USER_NS, RF_SYS_NS, RF_MINFLT, RF_MAJFLT, RF_NVCSW, RF_NIVCSW, RF_NCOUNTS };

struct rf_run {
	int present; /* 0: the round has no run for this arm and workload */
	int left;    /* no run because the cell had left the rounds (adaptive allocation) */
	int ok;      /* status "ok": times below are valid */
	/* per regime and phase, the time its workload uses (rf_workload.time): cold = the cold
	 * rep's time (commands: process.wall_ns), steady = the median of the steady reps' times (a
	 * marked phase: the mean of its steady spans); NAN when the run has no rep of that regime */
	double t_regime[RF_NREGIMES][RF_MAX_PHASES];
	/* the same from wall_ns and from cpu_ns (NAN when the reps lack it), for rf_use_time */
	double t_basis[RF_NTIMES][RF_NREGIMES][RF_MAX_PHASES];
	int settled;                /* record.regimes.settled: 1, 0, or -1 (absent or null) */
	/* per phase, whether its steady state held: a marked phase's own phase_marks "settled", the
	 * record's regimes.settled for the phases the record times; 1, 0 or -1 (unknown) */
	signed char settled_phase[RF_MAX_PHASES];
	double rss_first, rss_last; /* resident after the first and after the last rep; NAN */
	double wall_ns;             /* the process's wall time, for rates (NAN if unknown) */
	double max_rss_kib;         /* peak RSS; NAN if unknown */
	double retained_bytes;      /* resident after the last rep; NAN if unknown */
	double invol_ctx;           /* involuntary context switches of the run; NAN if unknown */
	double steal_s;             /* CPU time stolen during the run, all CPUs; NAN if unknown */
	double loadavg_1m;          /* NAN if unknown */
	double runnable; /* telemetry.runnable: tasks runnable just before the run, the bench's own
	                    included (NAN if unknown) */
	/* probed runs (the run's "probe"): processes the run started (probe.process_count) and
	 * malloc-family calls of all its images (the sum of probe.counts_total but bytes, with
	 * --count-calls); NAN when the run has none */
	double processes, calls;
	double threads; /* probe.thread_count: the threads the run started (ptrace); NAN unknown */
	/* its resource counts in the document's pool, read with rf_run_usage: 1 + the offset of
	 * its block, 0 when it has none; the block holds usage_phases phases */
	size_t usage;
	unsigned char usage_phases;
};

/* The input a workload ran on, from its first ok run's record.workload.input (a replay's trace
 * and the recorded process it replays; docs/results-format.md). Strings may be NULL; numbers NAN
 * when absent. */
struct rf_input {
	char *trace;   /* record.workload.params.trace: the trace's path as given to the bench */
	char *exe;     /* the recorded process's executable */
	char *command; /* its command line */
	char *ended;   /* how its stream ended: exit, exec, _exit, killed, running, unknown */
	double index, pid, threads, events;
	double duration_ns; /* from the start of its stream to its end block, while recorded */
};

struct rf_workload {
	char *name;
	size_t nphases;              /* 0 until an ok run has been seen */
	char *phases[RF_MAX_PHASES]; /* "total" is always among them */
	size_t nrecord; /* how many of them the runs time themselves (a driver record's "phases",
	                   a command's total); the others are phases its input marked */
	char *checksum;              /* NULL in commands mode or without an ok run */
	char *work;                  /* effective params, seed and scale as one comparable string */
	int show_phases; /* a record's workload.flags holds "show_phases": compare shows its phases
	                  */
	struct rf_input *input; /* what it ran on (a replay), NULL for a synthetic workload */
	/* 1 when the ok runs carry the phases a program marked (a command run's phase_marks, or a
	 * replay record's: its recorded process's), -1 when they carry none, 0 before the first ok
	 * run */
	int marked;
	/* per regime and phase: some ok measured run has a time of it (a marked phase that ran once
	 * has no steady time; a command's total never has one) */
	unsigned char measured[RF_NREGIMES][RF_MAX_PHASES];
	int single_threaded; /* a record's workload.flags holds "single_threaded" */
	/* per phase: some ok measured run has a wall time of it and no CPU time (marks written by a
	 * helper older than CPU marks, a command without rusage, CPU figures of 0), so it is compared
	 * on wall time; a warm-up run's decide nothing */
	unsigned char wall_only[RF_MAX_PHASES];
	int cpu_wanted; /* the time policy gives it CPU time (rf_use_time), wall_only aside */
	/* per phase a program marked: the fewest and the most spans an ok run marked of it (0: no
	 * run marked it); when they differ, the steady half is not the same spans in every run */
	unsigned spans_lo[RF_MAX_PHASES], spans_hi[RF_MAX_PHASES];
	enum rf_time time;                /* the time its total's comparisons use (rf_use_time) */
	enum rf_time ptime[RF_MAX_PHASES]; /* the time each phase's comparisons use */
};

struct rf_fail {
	size_t round; /* the round's "index" */
	int warmup;
	char *arm, *workload, *status;
	char *signal;      /* NULL unless killed by a signal */
	int exit_status;   /* -1 if unknown */
	char *stderr_tail; /* NULL if none */
	char *reason;      /* the run's one-line "reason" (unverified, invalid), NULL if none */
};

/* What the bench measured of the machine at its start or its end (the document's "facts",
 * docs/results-format.md); strings "" when null, numbers NAN. */
struct rf_facts {
	int present;
	double fault_median, fault_min, fault_max, trials; /* ns per minor fault */
	char hypervisor[64], cpu_vendor[32], cpu_model[128], kernel[128], thp[32];
};

/* What the kind of a bench's arms makes of its runs, as the file records it in config.mode: the
 * facts of the kinds' own mode (front/arms/arms.h, struct arm_mode), which results, compare,
 * gate, fleet and export read, never the mode itself; rfkind.c finds it in the kinds' table. The
 * flags under the names the reading side uses: */
enum rf_kind_flag {
	RF_KIND_WHOLE_PROCESS = ARM_MODE_WHOLE_PROCESS, /* a run is the user's command, timed whole */
	RF_KIND_DRIVER_RECORD = ARM_MODE_DRIVER_RECORD, /* a run is a driver's allocab-run/1 record */
};

/* The mode of some arm kind called mode (config.mode), or NULL. */
const struct arm_mode *rf_kind_find(const char *mode);
/* The modes the kinds know, as "\"drivers\" or \"commands\"" into buf (for messages). */
const char *rf_kind_modes(char *buf, size_t len);

struct rf_doc {
	char *path;          /* the name errors and reports use */
	char *status;        /* the bench's status: complete, running, interrupted, ... */
	const struct arm_mode *kind; /* from config.mode (never NULL in a loaded document) */
	/* machine.id recomputed from its fields (rf_machine_id_check); "" if the document has no
	 * machine fingerprint */
	char machine_id[17];
	char *machine_id_stored; /* the stored machine.id when it differs from machine_id, or NULL */
	char *machine_desc;  /* "cpu_model, N cpus, kernel K" or NULL */
	char *env;           /* machine.env as compact JSON, or NULL */
	char *tracking;      /* config.process_tracking (probed arms: a tracking mode's text,
	                        common/trackmode.h), or NULL */
	double online_cpus;  /* machine.online_cpus, NAN if unknown */
	char *label;         /* task.label: the machine's name in a fleet (docs/fleet.md), or NULL */
	char *host;          /* task.host, or NULL */
	char *boot_id;       /* task.boot_id: the running kernel the bench ran on, or NULL */
	/* what a commands bench ran: config.program, else config.commands, as compact JSON; NULL
	 * when neither is recorded (a drivers bench: its work is rf_workload.work) */
	char *ran;
	/* the machine's facts (top-level "facts", measured at the bench's start and end): the median
	 * cost of a minor fault in ns (the mean of start and end when both are there; NAN unknown)
	 * and the CPU vendor (facts' cpu_vendor, else derived from machine.cpu_model: "GenuineIntel"
	 * for an Intel model, "AuthenticAMD" for an AMD one; NULL unknown) */
	double fault_ns;
	char *cpu_vendor;
	size_t narms, nwl;
	char **arms;
	const char *baseline; /* the arm compared against by default (config.baseline), in arms */
	/* per arm: "system: mmap_threshold=32M trim_threshold=256M" for a configured arm
	 * (config.arm_configs, docs/tuning.md), NULL for a plain one; NULL when no arm is */
	char **arm_config;
	struct rf_workload *wl;
	struct nameidx arm_idx, wl_idx; /* for rf_arm and rf_workload */
	size_t nrounds;                 /* measured rounds, in file order */
	size_t *round_index;            /* their "index" fields (= their place among all rounds) */
	size_t nwarmup;
	/* per measured round: 1 when it ran its arms one after the other in a shared-CPU bench (its
	 * "placement" "solo": a solo anchor round), else 0; nsolo of them */
	unsigned char *round_solo;
	size_t nsolo;
	struct rf_run *runs;      /* [round][arm][workload]; use rf_run() */
	struct rf_run *warm_runs; /* the nwarmup warm-up rounds likewise; use rf_warm_run() */
	double *usage;            /* the runs' resource counts (rf_run_usage), nusage doubles */
	size_t nusage;
	double *cpu_wall;         /* [arm][workload] rf_cpu_wall_ratio, NULL until computed */
	size_t nfails;
	struct rf_fail *fails;       /* every run that was not ok, warm-up rounds included */
	int has_regime[RF_NREGIMES]; /* some ok measured run has a time of that regime */
	enum rf_time_policy time_given; /* config.time ("wall" when absent): the bench's design */
	enum rf_time_policy time_policy; /* what t_regime holds now (rf_use_time) */
	int legacy_reps;             /* some ok run's reps carry no "regime" (an older record) */
	size_t nleft; /* cells listed as left in measured rounds (adaptive allocation) */
	size_t nsessions; /* sessions of processes (bench --resume; "sessions"): 0 when not listed */
	double equivalence;          /* config.equivalence_pct (bench --equivalence); NAN: none */
	int duet;       /* config.duet: a workload's arms ran at once (--duet, --one-cpu) */
	int cpu_shared; /* config.duet_cpus "shared": a workload's arms ran at once on one CPU
	                   (bench --one-cpu), so each run had a share of it */
	char primary[80]; /* config.primary (bench --primary): the rows compare's primary family
	                     holds by default; "": none given */
	/* config.sequential: the plan a sequential gate (bench --gate) looked at every round by;
	 * planned 0 when the rounds were not stopped by looking at them */
	struct stats_seq_plan seq;
	struct rf_facts facts[2]; /* at the bench's start and its end (present 0: not measured) */
};

/* Reads, parses and validates the file into *out, a document the caller frees with rf_free.
 * The file is read by jl_load (common/jsonload.h): regular files only, size-capped, every limit
 * of docs/results-format.md, "Reading files". Returns ST_OK, or with *out NULL and "PATH:
 * problem" in err: ST_USAGE for bad input (missing file, not a regular file, too large, not JSON,
 * wrong schema, invalid structure, or runs of one workload that did different work: checksums or
 * effective parameters that differ), ST_FAIL when memory ran out (common/status.h). */
enum status rf_load(const char *path, struct rf_doc **out, char *err, size_t errlen);
/* The same on a document in memory, named `name` in messages (a second "rounds" member is
 * refused, as rf_load's stream refuses it); bench is not kept. Returns the document or NULL with
 * the reason in err (whatever the cause). */
struct rf_doc *rf_from_json(const cJSON *bench, const char *name, char *err, size_t errlen);
void rf_free(struct rf_doc *d);
/* A view of d's measured rounds of one placement (solo 1: its solo anchor rounds; 0: the
 * others), their order kept: a shallow copy that shares all but the round tables with d, valid
 * while d is, freed with rf_view_free (never rf_free). NULL when memory ran out (rfview.c). */
struct rf_doc *rf_view_placement(const struct rf_doc *d, int solo);
void rf_view_free(struct rf_doc *v);

/* The schemas of a bench file: /2, JSON Lines, written; /1, one document, still read
 * (docs/results-format.md, "allocab-bench/2" and "allocab-bench/1"). */
#define RF_SCHEMA1 "allocab-bench/1"
#define RF_SCHEMA2 "allocab-bench/2"

/* Whether the file at path begins as an allocab-bench/2 header line does,
 * {"schema":"allocab-bench/2": 1, or 0 (also when it cannot be read: its reader says why); -1
 * with "PATH: schema 'S' is not ..." in err when it begins {"schema":"S" with S neither
 * schema. */
int rf_path_is_lines(const char *path, char *err, size_t errlen);

/* What rf_bench_read learnt of a file beyond its document. */
struct rf_file {
	int lines;     /* the file is allocab-bench/2 */
	long keep;     /* /2: the bytes of its complete lines (a torn line starts there); -1 for /1 */
	int torn;      /* its last line is torn: 1 no newline at its end, 2 truncated JSON */
	size_t rounds; /* the rounds of its complete lines */
	cJSON *disk;   /* /2: the head its complete lines state (header and updates merged, no
	                * rounds); the caller frees it */
	char torn_msg[1024]; /* the one line that reports a torn line */
};

/* The bench file at path, of either schema, as one allocab-bench/1-shaped document: a /2 file's
 * header with its updates merged and its round lines as the array "rounds" (a torn last line
 * left out). Strict as jl_load (common/jsonload.h); no field is checked (rf_from_json does).
 * Returns 0 with *doc (the caller's), or -1 with "PATH: reason" in err and *why. */
int rf_bench_read(const char *path, cJSON **doc, struct rf_file *info, enum jl_why *why,
                  char *err, size_t errlen);

/* A document built round by round as a bench runs (the engine's, after every round), never
 * read again: the head (schema, status, config, machine, task) of the live document head once,
 * then each round as it ends; the checks are rf_from_json's. */
struct rf_builder;
/* Reads head, which must stay alive and in place: its config.sequential (the plan a sequential
 * gate fixes at its first look) is read again at every rf_builder_doc. NULL with err on bad
 * input or when memory ran out. */
struct rf_builder *rf_builder_new(const cJSON *head, const char *name, char *err, size_t errlen);
/* Adds the next round. Returns 0, or -1 with err. */
int rf_builder_round(struct rf_builder *b, const cJSON *round, char *err, size_t errlen);
/* The document of the rounds so far, valid until the next call on b; NULL with err. */
const struct rf_doc *rf_builder_doc(struct rf_builder *b, char *err, size_t errlen);
void rf_builder_free(struct rf_builder *b);
/* The id of a machine fingerprint object (common/fingerprint.h) recomputed from its fields into
 * id, checked against its stored "id": returns 1 when they match, 0 when none is stored, -1 when
 * the stored one differs (edited fields or a forged id; docs/results-format.md, "Reading
 * files"). An object with none of the fields keeps its stored id (16 characters, else "") and
 * returns 1 if it has one, else 0: there is nothing to recompute it from. */
int rf_machine_id_check(const cJSON *machine, char id[17]);
/* Whether two documents can be compared: the same mode, and for every workload both hold the same
 * checksum, effective parameters and phases. Returns 0, or -1 with the first difference in err
 * ("WORKLOAD: checksum differs between A (x) and B (y): not the same work"). */
int rf_same_work(const struct rf_doc *a, const struct rf_doc *b, char *err, size_t errlen);
/* Whether d's kind has every flag of flags (enum rf_kind_flag). */
int rf_kind_has(const struct rf_doc *d, unsigned flags);

const struct rf_run *rf_run(const struct rf_doc *d, size_t round, size_t arm, size_t wl);
/* A run's time of phase p: the steady time if measured, else the cold one (NAN if neither). */
double rf_time(const struct rf_run *run, size_t p);
/* Per regime and phase, the median over the regime's reps of each resource count (a command
 * run: its process's totals as the cold total): RF_NCOUNTS values, NAN where the reps lack
 * them, all NAN for a phase the run has no counts of. */
const double *rf_run_usage(const struct rf_doc *d, const struct rf_run *run, enum rf_regime g,
                           size_t p);
/* The run of warm-up round k (0 <= k < nwarmup, in file order): for reports only, never compared.
 */
const struct rf_run *rf_warm_run(const struct rf_doc *d, size_t k, size_t arm, size_t wl);
/* Index of a name, or -1. */
int rf_arm(const struct rf_doc *d, const char *name);
int rf_workload(const struct rf_doc *d, const char *name);
int rf_phase(const struct rf_workload *w, const char *name);
/* Whether some ok measured run of the workload called workload (NULL: of any) has a time of
 * regime g for the phase called phase. */
int rf_phase_measured(const struct rf_doc *d, const char *workload, const char *phase,
                      enum rf_regime g);
/* "user_ns", "sys_ns", "minflt", "majflt", "nvcsw", "nivcsw": the record's names of the counts. */
const char *rf_count_name(enum rf_count c);
/* "cold" or "steady". */
const char *rf_regime_name(enum rf_regime g);
/* Sets every run's t_regime (measured and warm-up) to the time p gives its workload, and each
 * workload's time. Loading applies time_given. */
void rf_use_time(struct rf_doc *d, enum rf_time_policy p);
/* "wall" or "cpu". */
const char *rf_time_name(enum rf_time t);
/* The time phase p of workload wl is compared on (rfcpu.c). */
enum rf_time rf_phase_time(const struct rf_doc *d, size_t wl, size_t p);
/* The same by names, for a report row: "wall" or "cpu"; for a geometric mean (workload NULL)
 * over every workload's phase, "mixed" when they differ. phase NULL: the total's. */
const char *rf_phase_time_name(const struct rf_doc *d, const char *workload, const char *phase);
/* The median over the ok measured runs of arm on workload wl of the run's CPU time over its wall
 * time (its total; the steady regime when measured): about 1 for a single-threaded job, above 1
 * for one that runs threads at once, well below 1 for one that waits (I/O, a GPU, sleep, or a CPU
 * under load). NAN without CPU times (rfcpu.c). */
double rf_cpu_wall_ratio(const struct rf_doc *d, size_t arm, size_t wl);
/* "wall", "cpu", "auto"; parse returns 0 and *out, or -1. */
const char *rf_time_policy_name(enum rf_time_policy p);
int rf_time_policy_parse(const char *s, enum rf_time_policy *out);
/* For reports, what the comparisons of d use, into buf: "wall time", "CPU time", or "CPU time
 * for a, b (single-threaded), wall time for the others". Returns buf. */
const char *rf_times_used(const struct rf_doc *d, char *buf, size_t len);
/* What the document measured, for reports: "cold and steady", "cold only (one repetition per
 * run)" or "steady only". */
const char *rf_regimes_measured(const struct rf_doc *d);

#endif
