/* bundle.h - private to the trace module (bundle.c, session.c): the bundler behind `allocab record`
 * (docs/trace-format.md, "Raw streams"): the raw streams the recorder library wrote, one per
 * process image, become one trace. A raw stream's events name addresses; the bundler merges each
 * process's threads in time order (a release is stamped before the call that frees, an allocation
 * after the call that returns, so an address passed between threads is released before it is
 * allocated again), gives every allocation a fresh object id (address -> id, one map per process,
 * here instead of in the recorded program), writes the events per thread with nanosecond times, and
 * ends each process with an end block that says how its stream ended and what was lost; the phases
 * the command marked go to the processes that marked them (marks/marks.h), in a marks block before
 * their end block. */
#ifndef ALLOCAB_TRACE_BUNDLE_H
#define ALLOCAB_TRACE_BUNDLE_H

#include "marks/marks.h"
#include "common/rmtree.h"
#include "trace/trace_format.h"

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
	uint64_t marked_procs, marked_spans; /* processes with a marks block, their spans */
	uint64_t marked_phases;              /* distinct phase names among them */
	uint64_t left_spans, left_pid;       /* marked spans given to no process; one pid of them */
	uint64_t left_without_pid;           /* of those, written without a pid */
	uint64_t left_overlapping;           /* of those, begun before an earlier span of their
	                                        phase in their process ended */
};

/* The marks file `allocab record` creates in its stream directory for COMMAND
 * (ALLOCAB_PHASE_FILE). */
#define RB_MARKS_FILE "marks"

/* Writes the trace of the raw streams s.PID.START.ats in dir to out, in order of their start
 * times; a process whose status says running is resolved to killed when its pid no longer
 * exists. marks (NULL: none) are the phases the command marked, read from its marks file. Returns
 * 0 with *res filled (rb_result_free it); -2 when dir holds no stream (nothing written); or -1
 * when out of memory or a write to out failed (errno set); the reason in err. */
int rb_bundle(const char *dir, const struct phasemark_set *marks, FILE *out,
              struct rb_result *res, char *err, size_t errlen);
void rb_result_free(struct rb_result *res);

/* Removes every raw stream in dir and its marks file, then dir itself with whatever else the
 * command put in it (common/rmtree.h: links are removed, never followed), which is added to
 * *foreign (zeroed by the caller; all zero when there was nothing else). Returns 0 when dir is
 * gone, -1 with errno set otherwise. */
int rb_remove_streams(const char *dir, struct rmtree_count *foreign);

/* The stream directories are TMPDIR/RB_DIR_PREFIX PID.XXXXXX. rb_remove_stale removes those in
 * tmp of this user's recorders that no longer exist (killed before their own clean-up) and that no
 * live process claims (a recorder of another PID namespace: proc.h's sweep_claim), naming
 * each on msgs ("allocab: record: removed DIR, left by allocab pid N, which died: ..."). */
#define RB_DIR_PREFIX "allocab-record."
void rb_remove_stale(const char *tmp, FILE *msgs);

#endif
