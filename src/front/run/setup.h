/* setup.h - what `allocab bench` and `allocab calibrate` do before they run the engine
 * (bench.h): find the drivers, ask one for its workloads and route the --param values by that
 * list, check output directories, draw the default shuffle seed, and catch the signals that stop
 * a bench. */
#ifndef ALLOCAB_SETUP_H
#define ALLOCAB_SETUP_H

#include "front/run/bench.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

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
};

/* Fills l->defaults from l->names and l->flags: the workloads not flagged needs_input (the replay
 * workload needs a trace). Returns 0, or -1 out of memory. */
int bench_wl_defaults(struct bench_wl_list *l);

/* Per workload of the `list --json` text (as bench_parse_workload_list reads it), the length of
 * its "phases" array (1 when absent) and its flags into malloc'd arrays of n. Returns 0, or -1
 * when memory ran out or the text has fewer than n workloads. */
int bench_parse_workload_info(const char *json, size_t n, size_t **nphases, unsigned **flags);

/* The flags of the workload called name in l (0 when l does not have it). */
unsigned bench_wl_flags(const struct bench_wl_list *l, const char *name);

/* --duet's rule: every workload of c is flagged single_threaded in l (two multi-threaded runs
 * on two CPUs would compete for both). Returns 0, or -1 with the first other workload and the
 * single-threaded ones of l named in err. */
int bench_duet_workloads_ok(const struct bench_config *c, const struct bench_wl_list *l, char *err,
                            size_t errlen);
/* Turns c into a duet (c->duet = 1) when the rule above holds and this machine has two CPUs to
 * pin the runs to. Returns 0, or -1 with the reason in err. */
int bench_duet_setup(struct bench_config *c, const struct bench_wl_list *l, char *err,
                     size_t errlen);

/* How many comparisons `allocab compare` makes by default on what c runs: per arm but the first,
 * shown[i] rows for workload i (its total, or every phase of a workload flagged show_phases;
 * NULL = 1 each) and the geometric mean when there are two workloads or more; twice that for
 * drivers that measure both regimes (reps auto or more than one). */
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

#endif
