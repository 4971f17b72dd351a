/* record.c - build/liballocab-record.so, the LD_PRELOAD library behind `allocab record`: it wraps
 * every allocation call of the process, gives each returned block an object id, and writes the
 * calls per thread as zstd-compressed blocks to one stream file per process in
 * $ALLOCAB_RECORD_DIR (docs/trace-format.md). Without that variable it records nothing. This file:
 * the library's life cycle (start, fork, exit) and the interposed functions; record.h lists the
 * others.
 *
 * Hot path: a per-thread buffer guarded by a per-thread lock that only the exit and fork handlers
 * ever contend for; the address-to-id map is sharded (64 shards, one spinlock each). A thread
 * compresses and appends its own block (one write() to an O_APPEND file) when its buffer fills. */
#include "preload/record.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char record_dir[3072];

static void record_alloc(unsigned op, void *p, size_t size, size_t align)
{
	uint64_t v[3];

	if (!p) {
		rec_count(TRACE_END_FAILED, 1);
		return;
	}
	v[0] = rec_new_id();
	v[1] = size;
	v[2] = align;
	rec_map_insert(p, v[0]);
	rec_emit(op, v, align ? 3 : 2);
}

/* ---- fork, start, exit ---- */

/* The child keeps only the forking thread; its buffer holds the parent's events. */
static void atfork_child(void)
{
	if (!atomic_load(&rec_on))
		return;
	atomic_store(&rec_on, 0);
	rec_threads_after_fork();
	rec_map_reset();
	rec_stream_close();
	if (rec_stream_open(record_dir) == 0)
		atomic_store(&rec_on, 1);
}

__attribute__((constructor)) static void record_start(void)
{
	const char *dir = getenv("ALLOCAB_RECORD_DIR");

	if (rec_bootstrapping() || !dir || !*dir || strlen(dir) >= sizeof record_dir)
		return;
	strcpy(record_dir, dir);
	rec_clock_init();
	if (rec_thread_init() != 0)
		return;
	pthread_atfork(NULL, NULL, atfork_child);
	if (rec_stream_open(record_dir) != 0) {
		char msg[256];
		int n = snprintf(msg, sizeof msg, "allocab-record: %s: %s (not recording)\n", dir,
		                 strerror(errno));
		if (write(2, msg, (size_t)n) < 0)
			return;
		return;
	}
	atomic_store(&rec_on, 1);
}

__attribute__((destructor)) static void record_stop(void)
{
	if (!atomic_load(&rec_on))
		return;
	rec_flush_all();
	atomic_store(&rec_on, 0);
	rec_write_end_block();
	rec_stream_close();
}

/* ---- the interposed functions ---- */

REC_EXPORT void *malloc(size_t n)
{
	void *p;

	if (rec_bootstrapping())
		return rec_arena_alloc(n, 16);
	p = rec_real_malloc(n);
	if (rec_recording())
		record_alloc(TRACE_OP_MALLOC, p, n, 0);
	return p;
}

REC_EXPORT void *calloc(size_t nmemb, size_t size)
{
	void *p;

	if (rec_bootstrapping())
		return size && nmemb > SIZE_MAX / size ? NULL : rec_arena_alloc(nmemb * size, 16);
	p = rec_real_calloc(nmemb, size);
	if (rec_recording())
		record_alloc(TRACE_OP_CALLOC, p, nmemb * size, 0);
	return p;
}

REC_EXPORT void free(void *p)
{
	uint64_t id;

	if (!p || rec_in_arena(p)) {
		if (!p && rec_recording())
			rec_emit(TRACE_OP_FREE, &(uint64_t){0}, 1);
		return;
	}
	if (rec_bootstrapping())
		return;
	if (rec_recording()) {
		if ((id = rec_map_remove(p)))
			rec_emit(TRACE_OP_FREE, &id, 1);
		else
			rec_count(TRACE_END_FOREIGN_FREES, 1);
	}
	rec_real_free(p);
}

/* realloc and reallocarray: op says which; size is the product already checked for overflow. */
static void *resize(unsigned op, void *p, size_t nmemb, size_t size)
{
	uint64_t v[3];
	void *q;

	if (!rec_recording())
		return op == TRACE_OP_REALLOC ? rec_real_realloc(p, size)
		                              : rec_real_reallocarray(p, nmemb, size);
	v[0] = p ? rec_map_remove(p) : 0;
	if (p && !v[0])
		rec_count(TRACE_END_FOREIGN_FREES, 1);
	q = op == TRACE_OP_REALLOC ? rec_real_realloc(p, size) : rec_real_reallocarray(p, nmemb, size);
	size = op == TRACE_OP_REALLOC ? size : nmemb * size;
	if (!q && p && size == 0) {
		if (v[0])
			rec_emit(TRACE_OP_FREE, v, 1);
		return NULL;
	}
	if (!q) {
		if (v[0])
			rec_map_insert(p, v[0]);
		rec_count(TRACE_END_FAILED, 1);
		return NULL;
	}
	v[1] = rec_new_id();
	v[2] = size;
	rec_map_insert(q, v[1]);
	rec_emit(op, v, 3);
	return q;
}

REC_EXPORT void *realloc(void *p, size_t n)
{
	if (rec_bootstrapping() || (p && rec_in_arena(p))) {
		void *q = rec_bootstrapping() ? rec_arena_alloc(n, 16) : malloc(n);
		if (q && p)
			memcpy(q, p, rec_arena_size(p) < n ? rec_arena_size(p) : n);
		return q;
	}
	return resize(TRACE_OP_REALLOC, p, 1, n);
}

REC_EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if (rec_bootstrapping() || (p && rec_in_arena(p)) || !rec_real_reallocarray)
		return realloc(p, nmemb * size);
	return resize(TRACE_OP_REALLOCARRAY, p, nmemb, size);
}

REC_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	if (rec_bootstrapping()) {
		*out = rec_arena_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	rc = rec_real_posix_memalign(out, align, n);
	if (rec_recording() && rc == 0)
		record_alloc(TRACE_OP_POSIX_MEMALIGN, *out, n, align);
	return rc;
}

/* aligned_alloc, memalign, valloc, pvalloc: op names the call, align its alignment. */
static void *aligned(unsigned op, size_t align, size_t n)
{
	void *p;

	if (rec_bootstrapping())
		return rec_arena_alloc(n, align ? align : 4096);
	switch (op) {
	case TRACE_OP_ALIGNED_ALLOC:
		p = rec_real_aligned_alloc(align, n);
		break;
	case TRACE_OP_MEMALIGN:
		p = rec_real_memalign(align, n);
		break;
	case TRACE_OP_VALLOC:
		p = rec_real_valloc(n);
		break;
	default:
		p = rec_real_pvalloc(n);
	}
	if (rec_recording())
		record_alloc(op, p, n, align ? align : (size_t)sysconf(_SC_PAGESIZE));
	return p;
}

REC_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return aligned(TRACE_OP_ALIGNED_ALLOC, align, n);
}

REC_EXPORT void *memalign(size_t align, size_t n)
{
	return aligned(TRACE_OP_MEMALIGN, align, n);
}

REC_EXPORT void *valloc(size_t n)
{
	return aligned(TRACE_OP_VALLOC, 0, n);
}

REC_EXPORT void *pvalloc(size_t n)
{
	return aligned(TRACE_OP_PVALLOC, 0, n);
}

REC_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (rec_in_arena(p))
		return rec_arena_size(p);
	if (rec_bootstrapping() || !rec_real_usable_size)
		return 0;
	rec_count(TRACE_END_USABLE_SIZE, 1);
	return rec_real_usable_size(p);
}
