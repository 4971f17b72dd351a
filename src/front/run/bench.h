/* bench.h - `allocab bench`: interleaved rounds of allocator drivers (or of the user's own
 * commands), each run a fresh padded process, written as an allocab-bench/1 document after every
 * round. bench.c is the command line (driver and workload discovery, output paths, signals, the
 * final report), benchopt.c parses the options, benchrun.c is the engine (schedule, runs,
 * progress, sequential gate) and benchdoc.c builds the document. `allocab calibrate` can drive
 * the engine with a configuration of its own, built with the same helpers (end of this file). */
#ifndef ALLOCAB_BENCH_H
#define ALLOCAB_BENCH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* 2^53 - 1: exact in every JSON reader. */
#define BENCH_SEED_MAX 9007199254740991ULL
/* One environment string must stay far below MAX_ARG_STRLEN (128 KiB). */
#define BENCH_PAD_MAX_LIMIT 65536
/* How long a process has between SIGTERM and SIGKILL (runner_spec.grace_s). */
#define BENCH_KILL_GRACE_S 2.0

/* Run statuses: ok, failed, unverified, crashed, timeout, invalid (bench_run_status_name). */
#define BENCH_NSTATUS 6

enum bench_mode { BENCH_DRIVERS, BENCH_COMMANDS };

/* One arm. Program arms (--program) are command arms whose environment preloads an allocator;
 * fields that do not apply are NULL. */
struct bench_arm {
	char *name;
	char *path;    /* drivers mode: the driver executable */
	char *command; /* commands mode: run as /bin/sh -c command */
	char *preload; /* program arms: the allocator library (realpath) put first in LD_PRELOAD */
	char *version; /* program arms: the preloaded allocator's version ("" unknown) */
	/* The proof the probe must give for every run (probelog.h); expect.allocator and
	 * expect.object NULL: the arm is not probed. */
	char *expect_allocator;
	char *expect_object;
	int expect_exe_counts; /* --expect: the executable's own copy of the allocator is proof */
	char **env; /* further "NAME=VALUE" for the arm's runs, NULL-terminated or NULL */
};

struct bench_workload {
	char *name;
	char **params; /* the "KEY=VALUE" that apply to this workload */
	size_t nparams;
};

/* What bench_run runs. Every pointer is owned by the caller and only read during bench_run. */
struct bench_config {
	enum bench_mode mode;
	struct bench_arm *arms;
	size_t narms;
	struct bench_workload *wl; /* commands mode: one, named "command" */
	size_t nwl;
	const char *scale; /* drivers mode */
	uint64_t seed;
	unsigned reps;
	char **params; /* every --param as given, for the record */
	size_t nparams;
	unsigned rounds; /* most measured rounds; 0 = no limit (budget decides) */
	double budget_s; /* 0 = none; counts from the start, warm-up included */
	unsigned warmup;
	unsigned min_rounds; /* measured rounds run whatever the budget; first gate check */
	double timeout_s, grace_s;
	uint64_t shuffle_seed;
	size_t pad_max;
	int progress;     /* print progress on stderr */
	char **out_paths; /* every path gets the whole document after every round */
	size_t nout;
	char **argv; /* the command line, for the record */
	int argc;
	int duet; /* two arms run at once, pinned to two CPUs that swap every round (duet.h) */
	const char *program;    /* --program as given (commands mode), or NULL */
	const char *probe_lib;  /* build/liballocab-probe.so when an arm is probed, else NULL */
	const char *count_lib;  /* --count-calls: build/liballocab-count.so, else NULL */
	const char *probe_dir;  /* private directory for the per-run probe record files */
	struct gate_spec *gate; /* NULL without --gate */
	char **gate_argv;       /* the --gate options, for the record */
	int gate_argc;
};

struct bench_result {
	const char *status;   /* complete, budget, decided or interrupted (a static string) */
	unsigned rounds_done; /* finished rounds, warm-up included */
	unsigned measured;
	size_t runs, failed;             /* runs in finished rounds; those not ok */
	size_t by_status[BENCH_NSTATUS]; /* runs by status index, see bench_run_status_name */
	int gate;                        /* final gate outcome (enum gate_outcome) or -1 */
	double elapsed_s;
};

/* Runs the bench described by c, writing the document to every c->out_paths entry after every
 * round. stop is set asynchronously to interrupt (may be NULL). Returns 0 with *res filled and,
 * if doc is not NULL, the final document in *doc (the caller cJSON_Deletes it). Otherwise returns
 * 1 on a runtime failure or 2 on bad input met while running (a driver rejected its arguments in
 * the first round, or the gate cannot judge the document), with a one-line reason in err; the
 * file is then either not written at all (failure before the first round ended) or has status
 * "aborted". */
int bench_run(const struct bench_config *c, const volatile sig_atomic_t *stop, cJSON **doc,
              struct bench_result *res, char *err, size_t errlen);

/* Name of the i-th counted run status ("ok", "failed", "unverified", "crashed", "timeout",
 * "invalid"), NULL past the end. */
const char *bench_run_status_name(size_t i);

/* Parsed command line, before any file system lookup. Strings point into argv. */
struct bench_opts {
	const char *allocators; /* -a as given, or NULL */
	const char *workloads;  /* -w as given, or NULL */
	const char *scale;
	uint64_t seed;
	int seed_set;
	const char **params; /* --param KEY=VALUE, checked for syntax and duplicate keys */
	size_t nparams;
	unsigned reps;
	int reps_set;
	unsigned rounds;
	int rounds_set;
	double budget_s;
	unsigned warmup;
	unsigned min_rounds;
	int min_rounds_set;
	double timeout_s;
	uint64_t shuffle_seed;
	int shuffle_seed_set;
	size_t pad_max;
	const char *out;
	const char *results_dir;
	const char *driver_dir;
	int quiet;
	int duet;
	int help;
	const char **cmd_names; /* --cmd NAME=COMMAND split at the first '=' (names are copies) */
	const char **cmd_lines;
	size_t ncmds;
	const char *program;        /* --program COMMAND */
	const char **preload_names; /* --preload NAME=PATH split like --cmd */
	const char **preload_paths;
	size_t npreloads;
	const char **expect_names; /* --expect NAME=ALLOCATOR split like --cmd */
	const char **expect_allocs;
	size_t nexpects;
	int count_calls;
	char **gate_argv; /* "--gate" and what follows, or NULL */
	int gate_argc;
};

/* Parses argv[1..argc-1] (argv[0] is the subcommand name) into o, with defaults. Checks syntax,
 * ranges and combinations, not whether allocators or workloads exist. Returns 0, or -1 with a
 * one-line reason in err (no "allocab: bench: " prefix). On success the caller frees o with
 * bench_opts_free. */
int bench_parse_args(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen);
void bench_opts_free(struct bench_opts *o);

/* The rounds rule (docs/methodology.md, "How many rounds"): with m comparisons at alpha 0.05,
 * need = stats_signrank_min_n(0.05, m). Without --rounds and --budget the bench runs
 * max(10, need + 3, --min-rounds) rounds; with --budget and neither --rounds, --min-rounds nor
 * --gate, at least need rounds whatever the budget. Returns need; when --rounds was given below
 * it (and no --gate), a one-line warning in warn (printed unless --quiet), else warn is "". */
unsigned bench_rounds_rule(struct bench_opts *o, size_t m, char *warn, size_t len);

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

/* A driver's workloads as bench_parse_workload_list gives them; owns both arrays. */
struct bench_wl_list {
	char **names;
	char **params;   /* per workload: its parameter names as ",a,b," */
	size_t *nphases; /* per workload: how many phases it times (1 when the list does not say) */
	size_t n;
};

/* Per workload of the `list --json` text (as bench_parse_workload_list reads it), the length of
 * its "phases" array (1 when absent) into a malloc'd array of n. Returns it, or NULL when memory
 * ran out or the text has fewer than n workloads. */
size_t *bench_parse_phase_counts(const char *json, size_t n);

/* How many comparisons `allocab compare` makes by default on what c runs: per arm but the first,
 * the total of each workload, every phase of the pipeline workload (nphases[i] is workload i's
 * count, NULL = 1 each) and the geometric mean when there are two workloads or more. */
size_t bench_comparisons(const struct bench_config *c, const size_t *nphases);

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

/* ---- shared with `allocab calibrate` (bench.c) ---- */

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
 * NULL) into *l, which the caller frees with bench_wl_list_free. Returns 0; -1 when the driver
 * could not be run; -2 when it gave no workload list. err holds the reason on failure, for -2
 * "PATH list --json: " and the driver's last stderr line. */
int bench_list_workloads(const char *path, const volatile sig_atomic_t *stop,
                         struct bench_wl_list *l, char *err, size_t errlen);

#endif
