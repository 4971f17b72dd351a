/* record.h - internals shared by the files of build/liballocab-record.so, the LD_PRELOAD library
 * behind `allocab record` (docs/trace-format.md):
 *   record.c         life cycle (start, fork, exit) and the interposed allocation functions;
 *   record_boot.c    the real functions found with dlsym, and the arena that serves dlsym itself;
 *   record_thread.c  per-thread event buffers: appending an event, flushing a block;
 *   record_stream.c  the process's raw stream: clock, header, process and status blocks;
 *   record_exec.c    the exec family, _exit and _Exit: the stream is flushed and ended first.
 * The library's interface is its environment (ALLOCAB_RECORD_DIR) and its raw streams, which
 * `allocab record` bundles into a trace (trace/bundle.h). */
#ifndef ALLOCAB_RECORD_H
#define ALLOCAB_RECORD_H

#include "trace/trace_format.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define REC_TLS         __attribute__((tls_model("initial-exec"))) __thread
#define REC_EXPORT      __attribute__((visibility("default")))
#define REC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The longest raw event: op byte and 5 varints (realloc: time, release time, old and new
 * address, size). */
#define REC_MAX_EVENT 51

/* ---- record_boot.c ---- */

extern void *(*rec_real_malloc)(size_t);
extern void *(*rec_real_calloc)(size_t, size_t);
extern void *(*rec_real_realloc)(void *, size_t);
extern void (*rec_real_free)(void *);
extern int (*rec_real_posix_memalign)(void **, size_t, size_t);
extern void *(*rec_real_aligned_alloc)(size_t, size_t);
extern void *(*rec_real_memalign)(size_t, size_t);
extern void *(*rec_real_valloc)(size_t);
extern void *(*rec_real_pvalloc)(size_t);
extern void *(*rec_real_reallocarray)(void *, size_t, size_t);
extern size_t (*rec_real_usable_size)(void *);

/* Whether this call must be served from the bootstrap arena: the real functions are not known
 * yet (the first call resolves them; dlsym's own allocations land in the arena). */
int rec_bootstrapping(void);

/* A block of n bytes aligned to align (at most 4096) from the static arena, or NULL when full. */
void *rec_arena_alloc(size_t n, size_t align);
int rec_in_arena(const void *p);
size_t rec_arena_size(const void *p);

/* ---- record_thread.c ---- */

/* Process-wide counters of the status block (enum trace_end_counter). */
extern atomic_uint_fast64_t rec_counter[TRACE_END_NCOUNTERS];
extern atomic_int rec_on; /* recording in this process */
extern atomic_uint rec_nthreads;
extern REC_TLS int rec_guard; /* > 0 while the recorder itself allocates on this thread */

void rec_count(int k, uint64_t n);

/* Whether the calling thread's allocation calls are recorded now. */
static inline int rec_recording(void)
{
	return !rec_guard && atomic_load_explicit(&rec_on, memory_order_relaxed);
}

void rec_spin_lock(atomic_int *l);
void rec_spin_unlock(atomic_int *l);
/* n bytes of fresh zeroed pages (mmap: never through the allocator being recorded), or NULL. */
void *rec_map_pages(size_t n);

/* Creates the thread-exit key; returns 0 or -1. */
int rec_thread_init(void);

/* Appends one raw event made at ticks now (rec_now): op, then the varints v[0..n-1]. */
void rec_emit(unsigned op, uint64_t now, const uint64_t *v, int n);

/* Flushes every thread's buffer to the stream. */
void rec_flush_all(void);

/* In the child of a fork: only the forking thread remains, with an empty buffer. */
void rec_threads_after_fork(void);

/* ---- record_stream.c ---- */

extern atomic_int rec_stream_broken; /* a block could not be written: later ones are dropped */

/* Takes the value of ALLOCAB_RECORD_FAULT_BLOCKS (NULL: unset), a test-only fault hook. */
void rec_fault_init(const char *v);

/* Time-stamp counter or CLOCK_MONOTONIC ticks, chosen once at start. */
void rec_clock_init(void);
/* Ticks since the stream started, for an allocation: read after every instruction before the
 * call has executed (record_stream.c says why that orders events across threads). */
uint64_t rec_now(void);
/* The same for a release, stamped before the call that frees: read before any later store. */
uint64_t rec_now_release(void);
/* ns per tick as a 32.32 fixed-point factor, measured over the stream so far. */
uint64_t rec_tick_factor(void);

/* Appends one whole block to the stream (one write() on the O_APPEND descriptor); a failure
 * breaks the stream and records its errno. Returns 0, or -1 when the block was not written. */
int rec_write_block(uint8_t *block, size_t n);

/* Opens this process's stream in dir and writes its header, process block and status block
 * (how: running): 0, or -1 with errno set (a stream that could be created but not written stays,
 * for the bundler to report). */
int rec_stream_open(const char *dir);
void rec_stream_close(void);
/* The pid whose stream is open (a vfork child shares the memory but not the pid). */
long rec_stream_pid(void);
/* Rewrites the status block in place with the counters now and how (enum trace_how). */
void rec_status_write(unsigned how);

/* ---- record.c ---- */

/* Stops recording, flushes every thread and marks the stream ended with how (enum trace_how),
 * when this process records (not a vfork child). Returns 1 when it did. */
int rec_end(unsigned how);
/* Records again after rec_end (an exec that failed). */
void rec_resume(void);

#endif
