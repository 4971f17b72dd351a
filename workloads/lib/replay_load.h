/* replay_load.h - a recorded process made ready to replay (docs/workloads.md, "replay"): its
 * events split per thread in the order each thread made them, object ids renumbered densely,
 * every release marked with whether it must wait for another thread's allocation, and the whole
 * checked to have a schedule in which every object is allocated before it is released, so that a
 * replay that waits only for those allocations can never deadlock. */
#ifndef ALLOCAB_REPLAY_LOAD_H
#define ALLOCAB_REPLAY_LOAD_H

#include "trace/trace.h"
#include "driver/workload.h"

#include <stddef.h>
#include <stdint.h>

enum {
	RP_WAIT = 1,     /* the released object is allocated by another thread: wait for it */
	RP_PUBLISH = 2,  /* the object this op allocates is released by another thread */
	RP_OLD_SIZED = 4 /* the object this op releases was allocated with a size above 0 */
};

/* One op of a replay thread, 24 bytes: the replay keeps one per event for the run. */
struct rp_op {
	uint64_t size;
	uint32_t obj;       /* allocated (or, for free, released) object; 0 is NULL */
	uint32_t old;       /* realloc: the object passed in; 0 is NULL */
	uint32_t gap_ns;    /* since this thread's previous op (capped at 1 s) */
	uint8_t op;         /* enum trace_op */
	uint8_t flags;      /* RP_WAIT, RP_PUBLISH, RP_OLD_SIZED */
	uint8_t align_log2; /* the aligned calls: log2 of their alignment (a power of two) */
};

/* A stretch of a thread's ops whose recorded times lie in one segment between phase boundaries:
 * segment s holds the times after s boundaries (from boundary s - 1 on, before boundary s). */
struct rp_chunk {
	uint32_t from; /* the stretch's first op; it lasts until the next chunk's */
	uint32_t seg;  /* its segment, 0..nbounds, never lower than the chunk before's */
};

struct rp_thread {
	struct rp_op *ops;
	size_t n;
	struct rp_chunk *chunk; /* with timed phases: the thread's ops by segment; NULL: one */
	size_t nchunk;
};

/* The phases the replayed process marked (docs/workloads.md, replay, "Marked phases"). Every
 * begin and end of a span is a boundary; the replay passes each boundary in all threads at once
 * (no op of a later segment starts before every op of the earlier ones has ended) and times a
 * span from the boundary it begins at to the one it ends at. A phase is timed when its first span
 * holds a call; its later spans without one are skipped (untimed); a phase whose first span holds
 * none is not timed at all. */
struct rp_marks {
	size_t nbounds; /* boundaries, in time order; 0: no phase is timed, no boundary passed */
	size_t nphases; /* phases timed */
	char name[TRACE_MARKS_MAX_PHASES][TRACE_MARKS_MAX_NAME + 1];
	size_t nspans[TRACE_MARKS_MAX_PHASES];  /* timed spans */
	size_t skipped[TRACE_MARKS_MAX_PHASES]; /* later spans without a call */
	uint32_t *bound;                        /* per timed span: its begin and end boundary */
	uint64_t *calls;                        /* per timed span: the calls replayed in it */
	size_t nuntimed;                        /* marked phases not timed */
	char untimed[TRACE_MARKS_MAX_PHASES][TRACE_MARKS_MAX_NAME + 1];
	const char *why[TRACE_MARKS_MAX_PHASES]; /* why, one phrase each */
};

struct rp_trace {
	struct rp_thread *th; /* th[0] is the process's first thread (its main thread) */
	size_t nth;
	uint32_t nobj;      /* objects are 1..nobj */
	uint64_t *obj_size; /* by object (0..nobj): the size it was allocated with; 0 for NULL */
	uint32_t *leaked;   /* objects never released: the replay frees them at the end */
	size_t nleaked;
	uint64_t pid, events, dropped; /* dropped: releases of objects the trace never allocated */
	uint64_t peak_bytes;           /* live bytes at the peak of the checked schedule */
	size_t index;                  /* the process's position in the trace */
	struct trace_process info;     /* its pid, executable and command line */
	int64_t duration_ns;           /* its stream's duration while recorded; -1: no end block */
	uint64_t how;                  /* how its stream ended (enum trace_how) */
	struct rp_marks marks;         /* the phases it marked */
};

/* Blocks larger than this get fresh pages from the system on every allocation under at least one
 * of the project's allocators (jemalloc from its 8 MiB size class on, glibc and mimalloc from
 * 32 MiB): each page the replay touches there is a page fault (docs/workloads.md, replay). */
#define RP_FRESH_MIN (7u << 20)

/* What one replay of a trace does, whatever its touch and gaps parameters: the counts the work
 * limit is estimated from (docs/workloads.md, replay, "Work and memory limits"). */
struct rp_cost {
	uint64_t events;      /* calls the replay makes (skipped releases excluded) */
	uint64_t maps;        /* allocations larger than RP_FRESH_MIN */
	uint64_t copy_bytes;  /* bytes a realloc may move: min(old, new) size of each */
	uint64_t fresh_pages; /* 4 KiB pages touch=2 writes for the first time in the rep: those of
	                         blocks larger than RP_FRESH_MIN, and of smaller ones as many as the
	                         peak of live bytes covers (the heap grows to it in every rep) */
	uint64_t pages;       /* the other 4 KiB pages touch=2 writes (reused memory) */
	uint64_t bytes;       /* bytes touch=3 writes */
	uint64_t gap_ns;      /* the recorded gaps on the longest chain of the replay: each
	                         thread's in order, and a release waits for its allocation */
	uint64_t gap_sum_ns;  /* the recorded gaps of every thread, summed: what spinning costs the
	                         CPUs (threads spin at once only as far as there are CPUs) */
	uint64_t table_bytes; /* what the loaded trace keeps for the run: op arrays, object sizes,
	                         thread and leaked-object lists, segments and boundaries */
	uint64_t crossings;   /* boundaries passed by every thread: threads x boundaries */
};

/* What the replay keeps per phase boundary: an arrival count, an open flag, a time stamp. */
#define RP_BOUND_BYTES 24

/* The size of the object op o releases (free: its object, realloc: the one passed in), 0 for
 * none. */
static inline uint64_t rp_old_size(const struct rp_trace *t, const struct rp_op *o)
{
	return t->obj_size[o->op == TRACE_OP_FREE ? o->obj : o->old];
}

/* replay_cost.c: counts what one replay of t does into *c. */
void rp_cost(const struct rp_trace *t, struct rp_cost *c);

/* What the replay's touch parameter writes into each block it allocates: nothing, its first
 * byte, a byte per page, every byte (docs/workloads.md, replay). */
enum { RP_TOUCH_NONE, RP_TOUCH_FIRST, RP_TOUCH_PAGES, RP_TOUCH_ALL };

/* replay_cost.c: one rep's estimated seconds of t (k: its rp_cost) under touch (RP_TOUCH_*) and
 * gaps (the percentage of the recorded gaps spun) into c->run_s, and what they are made of into
 * c->work: calls, fresh mappings, moves and touched memory of every thread, the gaps spun and the
 * phase boundaries crossed. */
void rp_estimate(const struct rp_trace *t, const struct rp_cost *k, int touch, int64_t gaps,
                 struct wl_input_cost *c);

/* The threads a replay starts at most: a process with more is refused (docs/workloads.md,
 * replay, "Work and memory limits"), well below any host's pid_max (32768 by default). */
#define RP_MAX_THREADS 1024u

enum {
	RP_ALLOW_INCOMPLETE = 1, /* rp_load: replay an incomplete process */
	RP_NO_MARKS = 2          /* rp_load: leave the phases it marked out (no boundaries) */
};

/* Which process of a trace to load, and how: pid 0 picks the process with the most events;
 * flags are RP_ALLOW_INCOMPLETE and RP_NO_MARKS. */
struct rp_pick {
	uint64_t pid;
	unsigned flags;
};

/* Loads process which.pid of the trace at path with the phases it marked. A process whose stream
 * is incomplete (trace_loss: killed, still running, events dropped) is refused unless which.flags
 * hold RP_ALLOW_INCOMPLETE. Returns 0, or -1 with the reason in err (a bad or unsuitable trace),
 * or -2 when out of memory. */
int rp_load(const char *path, struct rp_pick which, struct rp_trace *t, char *err, size_t errlen);

/* The same from n bytes of a bundled trace in memory (the fuzz target's entry). */
int rp_load_mem(const void *data, size_t n, struct rp_pick which, struct rp_trace *t, char *err,
                size_t errlen);

/* The index in tl[0..nth) (ascending, trace_thread_list) of the recorder's thread idx. */
size_t rp_thread_index(const uint32_t *tl, size_t nth, uint32_t idx);

/* The events a process is loaded from, ev[0..n) in file order, and tl, their threads
 * (trace_thread_list). */
struct rp_events {
	const struct trace_rec *ev;
	size_t n;
	const uint32_t *tl;
};

/* Splits the loaded threads of t into segments by the spans of m (the process's marks), from
 * the times of e's events (those t was built from, in the same order), and fills t->marks: the
 * phases timed, their spans' boundaries and calls, those not timed and why. Returns 0, or -2 when
 * out of memory. */
int rp_marks_build(struct rp_trace *t, const struct trace_marks *m, const struct rp_events *e,
                   char *err, size_t errlen);

/* Frees what rp_marks_build added to t. */
void rp_marks_free(struct rp_trace *t);

/* What the driver learns of t's timed phases (driver/workload.h, struct wl_marks), pointing into
 * t and stamp (one time per boundary, which the replay writes in every rep). */
void rp_marks_describe(const struct rp_trace *t, const int64_t *stamp, const int64_t *cpu_stamp,
                       struct wl_marks *w);

/* The recorded process t holds, for the run record (docs/results-format.md, workload.input). */
void rp_describe(const struct rp_trace *t, struct wl_input_desc *d);

/* Restarts the process's peak resident set (what getrusage and wait4 report as maxrss) from what
 * is resident now: loading peaks at about 100 bytes per event, several times the replay's own
 * tables, and would hide the allocator's peak (docs/workloads.md, replay, "Memory"). Best effort:
 * without /proc the peak includes the loading. */
void rp_reset_peak_rss(void);

void rp_free(struct rp_trace *t);

#endif
