/* replay_load.h - a recorded process made ready to replay (docs/workloads.md, "replay"): its
 * events split per thread in the order each thread made them, object ids renumbered densely,
 * every release marked with whether it must wait for another thread's allocation, and the whole
 * checked to have a schedule in which every object is allocated before it is released, so that a
 * replay that waits only for those allocations can never deadlock. */
#ifndef ALLOCAB_REPLAY_LOAD_H
#define ALLOCAB_REPLAY_LOAD_H

#include "common/trace_format.h"

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

struct rp_thread {
	struct rp_op *ops;
	size_t n;
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
	                         thread and leaked-object lists */
};

/* The size of the object op o releases (free: its object, realloc: the one passed in), 0 for
 * none. */
static inline uint64_t rp_old_size(const struct rp_trace *t, const struct rp_op *o)
{
	return t->obj_size[o->op == TRACE_OP_FREE ? o->obj : o->old];
}

/* Counts what one replay of t does into *c. */
void rp_cost(const struct rp_trace *t, struct rp_cost *c);

/* The threads a replay starts at most: a process with more is refused (docs/workloads.md,
 * replay, "Work and memory limits"), well below any host's pid_max (32768 by default). */
#define RP_MAX_THREADS 1024u

/* Loads process pid of the trace at path (pid 0: the process with the most events). A process
 * whose stream is incomplete (trace_loss: killed, still running, events dropped) is refused
 * unless allow_incomplete. Returns 0, or -1 with the reason in err (a bad or unsuitable trace),
 * or -2 when out of memory. */
int rp_load(const char *path, uint64_t pid, int allow_incomplete, struct rp_trace *t, char *err,
            size_t errlen);

/* The same from n bytes of a bundled trace in memory (the fuzz target's entry). */
int rp_load_mem(const void *data, size_t n, uint64_t pid, int allow_incomplete, struct rp_trace *t,
                char *err, size_t errlen);

void rp_free(struct rp_trace *t);

#endif
