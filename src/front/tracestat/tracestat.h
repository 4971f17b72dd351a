/* tracestat.h - what `allocab trace info` reports about a trace (docs/trace-format.md): per
 * process its threads, operations by kind, a size histogram, peak live bytes, the share of
 * cross-thread frees and its duration, computed from the events in time order. */
#ifndef ALLOCAB_TRACESTAT_H
#define ALLOCAB_TRACESTAT_H

#include "common/trace.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

#define TS_BUCKETS 42 /* 0 bytes, then [2^(k-1), 2^k) for k = 1..40, then >= 2^40 */

struct ts_proc {
	struct trace_process info;
	size_t index;
	int complete, has_end; /* as trace_proc_events */
	uint64_t end[TRACE_END_NCOUNTERS];
	uint64_t events, threads;
	uint64_t ops[TRACE_OP_COUNT];
	uint64_t free_null;        /* free(NULL) */
	uint64_t releases;         /* frees and reallocs of an object allocated in the trace */
	uint64_t cross_releases;   /* ... by a thread other than the one that allocated it */
	uint64_t unmatched;        /* frees/reallocs of an object the trace never allocated */
	uint64_t hist[TS_BUCKETS]; /* requested sizes of allocations and reallocations */
	uint64_t peak_live_bytes, peak_live_objects, bytes_allocated;
	uint64_t duration_ns; /* end block's duration, else the last event's time */
};

struct ts_result {
	struct ts_proc *procs; /* in file order */
	size_t n;
	unsigned version; /* the trace format version of the file */
};

#define TS_SHOW 5 /* processes the text report shows in full unless told to show all */

/* Reads the trace at path. Returns 0 with *out filled (release with tracestat_free), or -1 with
 * the reason in err. */
int tracestat_file(const char *path, struct ts_result *out, char *err, size_t errlen);
void tracestat_free(struct ts_result *r);

/* The allocab-trace-info/1 document (docs/results-format.md); NULL when out of memory. */
cJSON *tracestat_json(const struct ts_result *r, const char *path);

/* The same as text for people: the TS_SHOW processes with the most events, then one line on
 * the others, or every process when all. */
void tracestat_print(const struct ts_result *r, const char *path, int all, FILE *f);

#endif
