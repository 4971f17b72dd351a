/* replay_load.h - a recorded process made ready to replay (docs/workloads.md, "replay"): its
 * events split per thread in the order each thread made them, object ids renumbered densely,
 * every release marked with whether it must wait for another thread's allocation, and the whole
 * checked to have a schedule in which every object is allocated before it is released, so that a
 * replay that waits only for those allocations can never deadlock. */
#ifndef ALLOCAB_REPLAY_LOAD_H
#define ALLOCAB_REPLAY_LOAD_H

#include <stddef.h>
#include <stdint.h>

enum {
	RP_WAIT = 1,   /* the released object is allocated by another thread: wait for it */
	RP_PUBLISH = 2 /* the object this op allocates is released by another thread */
};

struct rp_op {
	uint64_t size;
	uint64_t old_size; /* free, realloc: the size of the object released */
	uint32_t obj;      /* allocated (or, for free, released) object; 0 is NULL */
	uint32_t old;      /* realloc: the object passed in; 0 is NULL */
	uint32_t align;
	uint32_t gap_ns; /* since this thread's previous op (capped at 1 s) */
	uint8_t op;      /* enum trace_op */
	uint8_t flags;   /* RP_WAIT, RP_PUBLISH */
};

struct rp_thread {
	struct rp_op *ops;
	size_t n;
};

struct rp_trace {
	struct rp_thread *th; /* th[0] is the process's first thread (its main thread) */
	size_t nth;
	uint32_t nobj;    /* objects are 1..nobj */
	uint32_t *leaked; /* objects never released: the replay frees them at the end */
	size_t nleaked;
	uint64_t pid, events, dropped; /* dropped: releases of objects the trace never allocated */
	uint64_t peak_bytes;           /* live bytes at the peak of the checked schedule */
	size_t index;                  /* the process's position in the trace */
};

/* Loads process pid of the trace at path (pid 0: the process with the most events). Returns 0,
 * or -1 with the reason in err (a bad or unsuitable trace), or -2 when out of memory. */
int rp_load(const char *path, uint64_t pid, struct rp_trace *t, char *err, size_t errlen);

void rp_free(struct rp_trace *t);

#endif
