/* workload.h - the workload interface: each workloads/<name>.c defines one static-shaped
 * `const struct workload` table (name, parameters, phases, flags, footprint, run). The driver
 * knows workloads only through this table and the registry (driver/registry.h). Adding a
 * workload: docs/workloads.md, "Adding a workload". */
#ifndef ALLOCAB_WORKLOAD_H
#define ALLOCAB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

enum wl_scale { WL_SCALE_SMALL, WL_SCALE_DEFAULT, WL_SCALE_LARGE, WL_SCALE_COUNT };

#define WL_MAX_PARAMS 16
#define WL_MAX_PHASES 8
#define WL_ERR_LEN    256

struct wl_param {
	const char *name;            /* KEY of --param KEY=VALUE; [a-z0-9_]+ */
	const char *unit;            /* "rows", "bytes", "count", "percent", ... */
	const char *help;            /* one line; what it is and where the default comes from */
	int64_t def[WL_SCALE_COUNT]; /* default per scale preset */
	int64_t min, max;            /* inclusive range accepted from the command line */
	unsigned flags;              /* WL_PARAM_STRING: the value is text (def, min, max unused) */
};

#define WL_PARAM_STRING 1u /* wl_param flag: any non-empty text; "" when not given */

/* getrusage(RUSAGE_SELF) deltas (every thread of the process): CPU time split into user and
 * system, minor and major page faults, voluntary and involuntary context switches. */
struct wl_usage {
	int64_t user_ns, sys_ns, minflt, majflt, nvcsw, nivcsw;
};

struct wl_phase_time {
	int64_t wall_ns;             /* CLOCK_MONOTONIC, summed over every begin/end pair */
	int64_t cpu_ns;              /* CLOCK_PROCESS_CPUTIME_ID (all threads), summed likewise */
	int64_t open_wall, open_cpu; /* start stamps of the pair in progress; private to wlcore.c */
	struct wl_usage usage;       /* getrusage deltas, summed likewise (taken outside the stamps) */
	struct wl_usage open_usage;  /* getrusage at the pair's begin; private to wlcore.c */
};

/* The getrusage(RUSAGE_SELF) figures of the process now, in wl_usage units. */
void wl_usage_now(struct wl_usage *out);
/* out = b - a, field by field. */
void wl_usage_delta(const struct wl_usage *a, const struct wl_usage *b, struct wl_usage *out);

/* What a workload's loaded input costs (input_cost below), filled after setup(). */
struct wl_input_cost {
	uint64_t footprint; /* bytes live at once in a run, every buffer counted (as footprint()) */
	double run_s;       /* estimated seconds of one run (docs/workloads.md, "Limits") */
	char memory[128];   /* what footprint is made of, for a refusal ("1.2 GiB live at ...") */
	char work[256];     /* what run_s is made of, for a refusal ("3.4e+07 calls, ...") */
};

#define WL_MAX_MARKED 7 /* phases an input may mark: those of a marks file (marks/marks.h) */

/* Phases the input marks, which the workload times itself (replay: the phases the recorded
 * program marked; docs/workloads.md, replay, "Marked phases"). setup() describes them, pointing
 * into ctx->state; in every rep, run() writes into stamp the CLOCK_MONOTONIC time at which it
 * passed each boundary between them; after the rep, outside the timed region, the driver turns
 * the stamps into span times and labels their regimes (docs/results-format.md, phase_marks). */
struct wl_marks {
	size_t nphases;                  /* phases timed; 0: none */
	const char *name[WL_MAX_MARKED]; /* phase names (marks/marks.h) */
	size_t nspans[WL_MAX_MARKED];    /* spans timed per phase, in every rep */
	size_t skipped[WL_MAX_MARKED];   /* spans per phase left untimed (nothing happens in them) */
	const uint32_t *bound; /* per timed span, phase after phase: the stamps it begins and ends at
	                          (2 per span; begin < end < nstamps) */
	const uint64_t *calls; /* per timed span: the operations run() makes in it */
	const int64_t *stamp;  /* nstamps times, written by every rep */
	/* the process's CPU clock (CLOCK_PROCESS_CPUTIME_ID) at each stamp, or NULL: the phases are
	 * then timed on wall time only */
	const int64_t *cpu_stamp;
	size_t nstamps;
	size_t nuntimed;                    /* phases the input marks that cannot be timed */
	const char *untimed[WL_MAX_MARKED]; /* their names */
	const char *why[WL_MAX_MARKED];     /* and why, one phrase each */
};

/* What a workload that runs on a given input ran on (a replay: the recorded process), for the run
 * record's workload.input (docs/results-format.md), filled by describe_input after setup().
 * Unknown numbers are -1, unknown strings "". */
struct wl_input_desc {
	int64_t index; /* the process's position in its trace (1-based) */
	int64_t pid, threads, events;
	int64_t duration_ns; /* from the start of its stream to its end block, while recorded */
	char exe[512];       /* its executable */
	char command[512];   /* its command line, arguments separated by spaces */
	char ended[16];      /* how its stream ended (trace/trace.h, trace_how_name) */
};

/* Everything a run sees. The driver owns it and resets the phase times before every rep;
 * a workload only reads p and seed, calls wl_phase_begin/end and wl_fail. */
struct wl_ctx {
	const int64_t *p;       /* effective values, in the table's parameter order */
	const char *const *str; /* string parameters' values by the same index ("" if unset) */
	void *state;            /* what setup() prepared for run(); NULL without setup */
	uint64_t seed;
	enum wl_scale scale; /* the preset the defaults came from (pipeline derives its stages) */
	struct wl_phase_time phase[WL_MAX_PHASES];
	struct wl_marks marks; /* what setup() says of the phases its input marks; zero: none */
	char err[WL_ERR_LEN];  /* why run() returned -1 */
};

/* What the front end needs to know about a workload, published by `list --json` and in every
 * run record as workload.flags (docs/results-format.md); the front end reads them instead of
 * workload names. */
enum wl_flags {
	WL_SINGLE_THREADED = 1u << 0, /* "single_threaded": runs on one thread (bench --duet) */
	WL_SHOW_PHASES = 1u << 1,     /* "show_phases": compare shows its phases by default */
	WL_NEEDS_INPUT = 1u << 2, /* "needs_input": runs only on a given input (a trace), so bench
	                             does not run it by default */
	WL_FLAG_COUNT = 3
};

/* The names of the flags, in bit order (WL_FLAG_COUNT of them). */
extern const char *const wl_flag_names[WL_FLAG_COUNT];

struct workload {
	const char *name;        /* [a-z_]+, unique */
	const char *description; /* one line for `list` */
	unsigned flags;          /* enum wl_flags */
	const struct wl_param *params;
	size_t nparams;            /* <= WL_MAX_PARAMS */
	const char *const *phases; /* names of the phases run() reports, NULL-terminated, or NULL */
	/* Upper estimate of the bytes live at once for these parameter values. The driver refuses
	 * parameters whose footprint exceeds physical memory. */
	uint64_t (*footprint)(const int64_t *p);
	/* A rough count of the bytes one run processes for these parameter values, comparable only
	 * between values of the same workload: the driver refuses parameters and --reps whose work
	 * exceeds PARAMS_WORK_FACTOR runs at the large preset (docs/workloads.md). May be NULL. */
	double (*work)(const int64_t *p);
	/* Parameter combinations the ranges cannot express: returns 0, or -1 with ctx->err set. May
	 * be NULL. */
	int (*check)(struct wl_ctx *ctx);
	/* Runs the workload once. Returns 0 with *checksum set, or -1 with ctx->err set (allocation
	 * failure: the message starts with "out of memory"). Frees everything it allocated, joins
	 * every thread and removes every file it made, on success and on failure. The checksum
	 * depends only on p and seed: never on addresses, timing or thread scheduling. */
	int (*run)(struct wl_ctx *ctx, uint64_t *checksum);
	/* Prepares run() outside the timed region (e.g. loads a file) into ctx->state. Returns 0,
	 * or -1 with ctx->err set for bad input (exit status 2), or -2 for a runtime failure. May
	 * be NULL. teardown() releases ctx->state after the last rep (may be NULL). */
	int (*setup)(struct wl_ctx *ctx);
	void (*teardown)(struct wl_ctx *ctx);
	/* For a workload whose input decides its size (footprint() and work() cannot know it):
	 * fills *c from what setup() loaded into ctx->state. The driver refuses the input like it
	 * refuses parameters: a footprint above 1/PARAMS_MEM_SHARE of physical memory, or run_s
	 * times --reps above PARAMS_WORK_FACTOR runs of PARAMS_WORK_RUN_S seconds
	 * (src/driver/params.h). May be NULL. */
	void (*input_cost)(const struct wl_ctx *ctx, struct wl_input_cost *c);
	/* For a workload that runs on a given input: what setup() loaded, for the record. May be
	 * NULL. */
	void (*describe_input)(const struct wl_ctx *ctx, struct wl_input_desc *d);
};

/* Starts/stops timing phase i (index into the table's phases). Pairs may repeat: times add up.
 * Call from the thread that orchestrates the phase; costs two clock reads and one getrusage each,
 * no allocation. The getrusage calls lie outside the phase's clock stamps (before them at the
 * begin, after them at the end), so they add to the enclosing rep's time, never to the phase's
 * (docs/results-format.md, "Resource counts"). */
void wl_phase_begin(struct wl_ctx *ctx, int i);
void wl_phase_end(struct wl_ctx *ctx, int i);

/* Formats the reason into ctx->err and returns -1, for `return wl_fail(ctx, "...", ...);`. */
int wl_fail(struct wl_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The workload called name in a NULL-terminated registry (wl_registry or a test's), or NULL. */
const struct workload *wl_find(const struct workload *const *registry, const char *name);

#endif
