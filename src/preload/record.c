/* record.c - build/liballocab-record.so, the LD_PRELOAD library behind `allocab record`: it wraps
 * every allocation call of the process and writes the calls per thread, with the addresses they
 * returned or released, as zstd-compressed blocks to one raw stream per process in
 * $ALLOCAB_RECORD_DIR; `allocab record` numbers the objects and bundles the streams into a trace
 * (docs/trace-format.md). Without that variable it records nothing. This file: the library's life
 * cycle (start, fork, exec and exit) and the interposed functions; record.h lists the others.
 *
 * Hot path: the real call, a time-stamp read, and an append to a per-thread buffer under a
 * per-thread lock that only the exit, exec and fork handlers ever contend for. A release is
 * stamped before the real call and an allocation after it, so that wherever two threads pass an
 * address between them, the release comes first in time. */
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
	uint64_t now;

	if (!p) {
		rec_count(TRACE_END_FAILED, 1);
		return;
	}
	now = rec_now();
	v[0] = (uintptr_t)p;
	v[1] = size;
	v[2] = align;
	rec_emit(op, now, v, align ? 3 : 2);
}

/* ---- fork, start, exec, exit ---- */

/* The child keeps only the forking thread; its buffer held the parent's events. */
static void atfork_child(void)
{
	if (!atomic_load(&rec_on))
		return;
	atomic_store(&rec_on, 0);
	rec_threads_after_fork();
	rec_stream_close();
	if (rec_stream_open(record_dir) == 0)
		atomic_store(&rec_on, 1);
}

int rec_end(unsigned how)
{
	if (!atomic_load(&rec_on) || rec_stream_pid() != (long)getpid())
		return 0;
	atomic_store(&rec_on, 0);
	rec_flush_all();
	rec_status_write(how);
	return 1;
}

void rec_resume(void)
{
	rec_status_write(TRACE_HOW_RUNNING);
	atomic_store(&rec_on, 1);
}

__attribute__((constructor)) static void record_start(void)
{
	const char *dir = getenv("ALLOCAB_RECORD_DIR");

	if (rec_bootstrapping() || !dir || !*dir || strlen(dir) >= sizeof record_dir)
		return;
	strcpy(record_dir, dir);
	rec_clock_init();
	rec_fault_init(getenv("ALLOCAB_RECORD_FAULT_BLOCKS"));
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
	if (rec_end(TRACE_HOW_EXIT))
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
	if (!p || rec_in_arena(p)) {
		if (!p && rec_recording())
			rec_emit(TRACE_OP_FREE, rec_now_release(), &(uint64_t){0}, 1);
		return;
	}
	if (rec_bootstrapping())
		return;
	if (rec_recording())
		rec_emit(TRACE_OP_FREE, rec_now_release(), &(uint64_t){(uintptr_t)p}, 1);
	rec_real_free(p);
}

/* realloc and reallocarray: op says which; size is the product already checked for overflow.
 * The event carries two times: the release of p (before the call) as ticks before its own. */
static void *resize(unsigned op, void *p, size_t nmemb, size_t size)
{
	uint64_t v[4], released;
	void *q;

	if (!rec_recording())
		return op == TRACE_OP_REALLOC ? rec_real_realloc(p, size)
		                              : rec_real_reallocarray(p, nmemb, size);
	released = rec_now_release();
	q = op == TRACE_OP_REALLOC ? rec_real_realloc(p, size)
	                           : rec_real_reallocarray(p, nmemb, size);
	size = op == TRACE_OP_REALLOC ? size : nmemb * size;
	if (!q && p && size == 0) {
		rec_emit(TRACE_OP_FREE, released, &(uint64_t){(uintptr_t)p}, 1);
		return NULL;
	}
	if (!q) {
		rec_count(TRACE_END_FAILED, 1);
		return NULL;
	}
	v[0] = rec_now();
	v[0] = v[0] > released ? v[0] - released : 0;
	v[1] = (uintptr_t)p;
	v[2] = (uintptr_t)q;
	v[3] = size;
	rec_emit(op, released + v[0], v, 4);
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
