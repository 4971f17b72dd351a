/* bench.h - the bench engine: interleaved rounds of allocator drivers (or of the user's own
 * commands), each run a fresh padded process, written as an allocab-bench/1 document after every
 * round. benchrun.c is the engine (schedule, runs, progress, sequential gate) and benchdoc.c
 * builds the document. What a command does before it runs the engine (drivers, workload lists,
 * signals) is setup.h; the command lines are front/cmd/bench.c (options: front/cmd/benchopt.h)
 * and front/cmd/calibrate.c. */
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
	/* The proof the probe must give for every run (front/run/probelog.h); expect_allocator and
	 * expect_object NULL: the arm is not probed. */
	char *expect_allocator;
	char *expect_object;
	int expect_exe_counts; /* --expect: the executable's own copy of the allocator is proof */
	char **env; /* further "NAME=VALUE" for the arm's runs, NULL-terminated or NULL */
	/* A configured arm (--arm, docs/tuning.md): its backend and its "KEY=VALUE" settings, each
	 * passed to the driver as --config; NULL and 0 for a plain arm. */
	const char *backend;
	char **config;
	size_t nconfig;
	int owns_config; /* backend, config and env are the arm's own (program arms) */
};

struct bench_workload {
	char *name;
	char **params; /* the "KEY=VALUE" that apply to this workload */
	size_t nparams;
};

struct runner_spec;
struct runner_result;

/* How the engine starts a process and reads the clock: bench_real_runner (runner.h and
 * CLOCK_MONOTONIC) unless a test gives fakes (tests/test_benchrun.c). */
struct bench_runner {
	void *ctx; /* passed to both functions */
	/* As runner_run: 0 with *r filled (the engine frees it with runner_result_free), or -1 with
	 * a reason in err when the process could not be started. */
	int (*run)(void *ctx, const struct runner_spec *spec, struct runner_result *r, char *err,
	           size_t errlen);
	/* A monotonic clock in nanoseconds (round times, --budget, progress). */
	int64_t (*now_ns)(void *ctx);
};

extern const struct bench_runner bench_real_runner;

/* What bench_run runs. Every pointer is owned by the caller and only read during bench_run. */
struct bench_config {
	enum bench_mode mode;
	struct bench_arm *arms;
	size_t narms;
	struct bench_workload *wl; /* commands mode: one, named "command" */
	size_t nwl;
	const char *scale; /* drivers mode */
	uint64_t seed;
	unsigned reps; /* --reps N for every driver; 0: auto (cold, then until steady) */
	char **params; /* every --param as given, for the record */
	size_t nparams;
	unsigned rounds; /* most measured rounds; 0 = no limit (budget decides) */
	double budget_s; /* 0 = none; counts from the start, warm-up included */
	unsigned warmup;
	unsigned min_rounds; /* measured rounds run whatever the budget; first gate check */
	double timeout_s, grace_s;
	uint64_t shuffle_seed;
	size_t pad_max;
	int progress;     /* enum progress_mode (progress.h): how progress goes to stderr */
	char **out_paths; /* every path gets the whole document after every round */
	size_t nout;
	char **argv; /* the command line, for the record */
	int argc;
	int duet; /* two arms run at once, pinned to two CPUs that swap every round (duet.h) */
	const struct bench_runner *runner; /* NULL: bench_real_runner; duet runs are always real */
	const char *program;               /* --program as given (commands mode), or NULL */
	const char *probe_lib; /* build/liballocab-probe.so when an arm is probed, else NULL */
	const char *count_lib; /* --count-calls: build/liballocab-count.so, else NULL */
	const char *probe_dir; /* private directory for the per-run probe record files */
	/* how probed runs' processes are known: "ptrace", or "probe only (ptrace: EPERM)" when this
	 * process may not trace (front/run/ptrack.h); NULL when no arm is probed */
	const char *tracking;
	struct gate_spec *gate; /* NULL without --gate */
	char **gate_argv;       /* the --gate options, for the record */
	int gate_argc;
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
	double elapsed_s;
};

/* Runs the bench described by c, writing the document to every c->out_paths entry after every
 * round. stop is set asynchronously to interrupt (may be NULL). After the first round (warm-up or
 * not) it stops with status "aborted" when an arm's proof failed there for a reason no later
 * round can change (front/run/benchprog.h, bench_report_hopeless). Returns ST_OK
 * (common/status.h) with *res filled and, if doc is not NULL, the final document in *doc (the
 * caller cJSON_Deletes it). Otherwise returns ST_FAIL on a runtime failure or ST_USAGE on bad input
 * met while running (a driver rejected its arguments in the first round, or the gate cannot judge
 * the document), with a one-line reason in err; the file is then either not written at all (failure
 * before the first round ended) or has status "aborted". */
int bench_run(const struct bench_config *c, const volatile sig_atomic_t *stop, cJSON **doc,
              struct bench_result *res, char *err, size_t errlen);

/* Name of the i-th counted run status ("ok", "failed", "unverified", "crashed", "timeout",
 * "invalid"), NULL past the end. */
const char *bench_run_status_name(size_t i);

#endif
