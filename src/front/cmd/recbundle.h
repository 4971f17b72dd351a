/* recbundle.h - the bundler behind `allocab record` (docs/trace-format.md, "Raw streams"): the raw
 * streams the recorder library wrote, one per process image, become one trace. A raw stream's
 * events name addresses; the bundler merges each process's threads in time order (a release is
 * stamped before the call that frees, an allocation after the call that returns, so an address
 * passed between threads is released before it is allocated again), gives every allocation a
 * fresh object id (address -> id, one map per process, here instead of in the recorded program),
 * writes the events per thread with nanosecond times, and ends each process with an end block
 * that says how its stream ended and what was lost. */
#ifndef ALLOCAB_RECBUNDLE_H
#define ALLOCAB_RECBUNDLE_H

#include "common/trace_format.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A process the trace holds only in part, for the report. */
struct rb_loss {
	uint64_t pid;
	size_t index;  /* 1-based position in the trace */
	char name[64]; /* the executable's base name */
	uint64_t end[TRACE_END_NCOUNTERS];
};

struct rb_result {
	uint64_t procs, events, blocks; /* in the trace written */
	uint64_t images_exec;           /* process images that ended in an exec (not a loss) */
	uint64_t unreadable;            /* streams without a readable process block: not in it */
	uint64_t foreign, misordered;   /* summed over the processes */
	struct rb_loss *lost;           /* processes whose trace_loss is not NULL (malloc'd) */
	size_t nlost;
};

/* Writes the trace of the raw streams s.PID.START.ats in dir to out, in order of their start
 * times; a process whose status says running is resolved to killed when its pid no longer
 * exists. Returns 0 with *res filled (rb_result_free it); -2 when dir holds no stream (nothing
 * written); or -1 when out of memory or a write to out failed (errno set); the reason in err. */
int rb_bundle(const char *dir, FILE *out, struct rb_result *res, char *err, size_t errlen);
void rb_result_free(struct rb_result *res);

/* Removes every raw stream in dir, then dir itself when it is empty. */
void rb_remove_streams(const char *dir);

#endif
