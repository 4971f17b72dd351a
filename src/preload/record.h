/* record.h - internals shared by the files of build/liballocab-record.so, the LD_PRELOAD library
 * behind `allocab record` (docs/trace-format.md):
 *   record.c         life cycle (start, fork, exit) and the interposed allocation functions;
 *   record_boot.c    the real functions found with dlsym, and the arena that serves dlsym itself;
 *   record_map.c     the address -> object id map;
 *   record_thread.c  per-thread event buffers: appending an event, flushing a block;
 *   record_stream.c  the process's stream file: clock, file header, process and end blocks.
 * The library's interface is its environment (ALLOCAB_RECORD_DIR) and its stream files. */
#ifndef ALLOCAB_RECORD_H
#define ALLOCAB_RECORD_H

#include "common/trace_format.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define REC_TLS         __attribute__((tls_model("initial-exec"))) __thread
#define REC_EXPORT      __attribute__((visibility("default")))
#define REC_UNLIKELY(x) __builtin_expect(!!(x), 0)

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

/* Process-wide counters of the end block (enum trace_end_counter). */
extern atomic_uint_fast64_t rec_counter[TRACE_END_NCOUNTERS];
extern atomic_int rec_on; /* recording in this process */
extern atomic_uint rec_nthreads;
extern REC_TLS int rec_guard; /* > 0 while the recorder itself allocates on this thread */

void rec_count(int k, uint64_t n);

void rec_spin_lock(atomic_int *l);
void rec_spin_unlock(atomic_int *l);
/* n bytes of fresh zeroed pages (mmap: never through the allocator being recorded), or NULL. */
void *rec_map_pages(size_t n);

/* Whether the calling thread's allocation calls are recorded now. */
static inline int rec_recording(void)
{
	return !rec_guard && atomic_load_explicit(&rec_on, memory_order_relaxed);
}

/* Creates the thread-exit key; returns 0 or -1. */
int rec_thread_init(void);

/* Appends one event: op, then the varints v[0..n-1] after the time delta. */
void rec_emit(unsigned op, const uint64_t *v, int n);

/* A fresh object id from the calling thread's range. */
uint64_t rec_new_id(void);

/* Flushes every thread's buffer to the stream. */
void rec_flush_all(void);

/* Events recorded by every thread so far. */
uint64_t rec_events(void);

/* In the child of a fork: only the forking thread remains, with an empty buffer. */
void rec_threads_after_fork(void);

/* ---- record_map.c ---- */

void rec_map_insert(const void *p, uint64_t id);
/* Removes p; returns its id, or 0 when the recorder never saw it allocated. */
uint64_t rec_map_remove(const void *p);
void rec_map_reset(void);

/* ---- record_stream.c ---- */

extern atomic_int rec_stream_broken; /* a block could not be written: later ones are dropped */

/* Time-stamp counter or CLOCK_MONOTONIC ticks, chosen once at start. */
void rec_clock_init(void);
/* Ticks since the stream started. */
uint64_t rec_stream_ticks(void);
/* ns per tick as a 32.32 fixed-point factor, measured over the stream so far. */
uint64_t rec_tick_factor(void);

/* Writes one whole block to the stream (one write() on the O_APPEND descriptor). */
void rec_write_block(uint8_t *block, size_t n);

/* Opens this process's stream in dir and writes its file header and process block: 0 or -1. */
int rec_stream_open(const char *dir);
void rec_stream_close(void);
/* Writes the end block with the counters. */
void rec_write_end_block(void);

#endif
