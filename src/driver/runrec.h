/* runrec.h - the allocab-run/1 document (docs/results-format.md) built from plain structs that the
 * driver fills while measuring. Building happens after the last rep, never inside a timed region.
 */
#ifndef ALLOCAB_RUNREC_H
#define ALLOCAB_RUNREC_H

#include "common/steady.h"
#include "driver/backend.h"
#include "driver/workload.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#define RUNREC_SCHEMA   "allocab-run/1"
#define RUNREC_MAX_REPS 1000 /* the most reps one run makes: PARAMS_REPS_MAX */

struct runrec_time {
	int64_t wall_ns;
	int64_t cpu_ns;
	struct wl_usage usage; /* getrusage deltas over the same span (workload.h) */
};

/* One rep: phase[0] is "total" (the whole run() call), phase[1 + i] the workload's phase i. */
struct runrec_rep {
	uint64_t checksum;
	struct runrec_time phase[1 + WL_MAX_PHASES];
	int64_t rss_after_bytes; /* resident after the rep; negative: unreadable */
};

/* How the reps were made; the regimes themselves follow from the reps (runrec_regimes). */
struct runrec_reps_how {
	int automatic;           /* 1: repeated until the rule held or a cap; 0: --reps N */
	struct steady_rule rule; /* the rule that assigns regimes and decides settled */
	int max_reps;            /* automatic: the cap on reps, the cold one included */
	double max_steady_s;     /* automatic: the cap on seconds after the cold rep */
	int cpu;                 /* the rule judges the reps' CPU times (--steady-time cpu) */
};

/* What the reps say about the two regimes (docs/results-format.md, "regimes"). */
struct runrec_regimes {
	enum steady_regime regime[RUNREC_MAX_REPS];
	int settled; /* -1: one rep, no steady regime; else 0/1 */
	int nwarmup, nsteady;
	int64_t cold_ns, steady_ns; /* total wall of rep 0; median of the steady reps (-1: none) */
};

struct runrec_usage {
	int64_t user_ns, sys_ns;
	int64_t max_rss_kib;
	int64_t minor_faults, major_faults;
	int64_t voluntary_ctx_switches, involuntary_ctx_switches;
};

/* Everything a run record says; the builder only reads it. Strings may be NULL (JSON null) except
 * tool_version, allocator and wl. Negative rss values mean "could not be read" (null). */
struct runrec {
	const char *tool_version;
	time_t started;
	const char *allocator, *allocator_version, *library;
	int verified;
	const struct workload *wl;
	enum wl_scale scale;
	uint64_t seed;
	const int64_t *params;  /* wl->nparams effective values */
	const char *const *str; /* string parameters' values by index (may be NULL: none) */
	const struct wl_input_desc *input; /* what the workload ran on, or NULL */
	const struct runrec_rep *reps;
	int nreps; /* 1..RUNREC_MAX_REPS */
	struct runrec_reps_how how;
	struct runrec_usage rusage;
	int64_t rss_start_bytes, rss_retained_bytes;
	const struct backend_counter *counters;
	size_t ncounters;
};

/* Builds the document. Takes ownership of machine (a fingerprint_json object, may be NULL for
 * null) whether it succeeds or not. Returns a cJSON tree the caller deletes, or NULL when out of
 * memory. */
cJSON *runrec_json(const struct runrec *r, cJSON *machine);

/* The regime of every rep of r, cold and steady times of the total phase and whether the rule
 * held over the reps after the cold one (steady.h). */
void runrec_regimes(const struct runrec *r, struct runrec_regimes *out);

/* Index of the first rep whose checksum differs from rep 0's, or -1 when all agree. */
int runrec_first_mismatch(const struct runrec_rep *reps, int nreps);

/* Converts getrusage() output to the record's units (ns, KiB, counts). */
void runrec_usage_from(const struct rusage *ru, struct runrec_usage *out);

/* v as a JSON number written as exact decimal text (cJSON would print a double with 15
 * significant digits); NULL when out of memory. */
cJSON *runrec_int(int64_t v);

/* "0123456789abcdef": the 16 lower-case hex digits a checksum is written as (out >= 17 bytes). */
void runrec_hex64(uint64_t v, char out[17]);

/* Whether the run can write its record to path (--out; "-" is stdout), checked before a long run:
 * a writable file that is not regular, or a creatable one in a writable directory; atomic_write
 * still decides. Returns 0, or -1 with "PATH: reason" in err. */
int runrec_out_usable(const char *path, char *err, size_t errlen);

/* Writes the run's document, the machine's fingerprint, the marked phases (runmarks_json) and the
 * configuration (config_json) added, to out ("-": stdout) with atomic_write. Returns 0, or -1 with
 * the one line in err ("--out PATH: reason", or out of memory). */
struct runmarks;
struct config;
int runrec_write(const struct runrec *rec, const struct runmarks *marks, const struct config *cfg,
                 const char *out, char *err, size_t errlen);

/* A workload's flags (enum wl_flags) as the JSON array of their names, as `list --json` and the
 * run record's workload.flags show them. NULL when memory ran out. */
cJSON *runrec_wl_flags(unsigned flags);

#endif
