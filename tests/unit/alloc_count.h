/* alloc_count.h - a counting malloc for the workload unit tests. Included by one test program, it
 * replaces malloc & co (glibc allows it: "Replacing malloc" in its manual) with wrappers around
 * __libc_malloc & co, so the test sees every allocation a workload makes, including zstd's and
 * libc's, and can make the N-th one fail. Under AddressSanitizer ASan owns malloc: AC_ENABLED is 0
 * there and nothing is replaced. */
#ifndef ALLOCAB_ALLOC_COUNT_H
#define ALLOCAB_ALLOC_COUNT_H

#if defined(__SANITIZE_ADDRESS__)
#define AC_ENABLED 0
#else
#define AC_ENABLED 1

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

enum ac_op { AC_MALLOC, AC_CALLOC, AC_REALLOC, AC_ALIGNED, AC_FREE };

/* Called from any thread after every successful allocation (p: the block, old: what realloc
 * moved from, or NULL) and before every free of a non-NULL block (p: the block). It must not
 * allocate. */
static void (*volatile ac_hook)(enum ac_op op, size_t size, void *old, void *p);
static atomic_long ac_calls;   /* allocation requests so far, failed ones included */
static atomic_long ac_live;    /* blocks allocated and not yet freed */
static atomic_long ac_bytes;   /* usable bytes of those blocks */
static atomic_long ac_peak;    /* highest ac_bytes seen; a test may reset it */
static atomic_long ac_fail_at; /* the request number (ac_calls after it) to fail; 0: none */

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);

static int ac_fails_now(void)
{
	long n = atomic_fetch_add(&ac_calls, 1) + 1;

	return n == atomic_load(&ac_fail_at);
}

static void ac_add_bytes(long n)
{
	long now = atomic_fetch_add(&ac_bytes, n) + n, peak = atomic_load(&ac_peak);

	while (now > peak && !atomic_compare_exchange_weak(&ac_peak, &peak, now))
		;
}

static void *ac_done(enum ac_op op, size_t size, void *old, void *p)
{
	void (*hook)(enum ac_op, size_t, void *, void *) = ac_hook;

	if (p && (op != AC_REALLOC || !old))
		atomic_fetch_add(&ac_live, 1);
	if (p)
		ac_add_bytes((long)malloc_usable_size(p));
	if (p && hook)
		hook(op, size, old, p);
	return p;
}

void *malloc(size_t size)
{
	return ac_fails_now() ? NULL : ac_done(AC_MALLOC, size, NULL, __libc_malloc(size));
}

void *calloc(size_t n, size_t size)
{
	return ac_fails_now() ? NULL : ac_done(AC_CALLOC, n * size, NULL, __libc_calloc(n, size));
}

void free(void *p)
{
	void (*hook)(enum ac_op, size_t, void *, void *) = ac_hook;

	if (!p)
		return;
	if (hook)
		hook(AC_FREE, malloc_usable_size(p), NULL, p);
	atomic_fetch_sub(&ac_live, 1);
	ac_add_bytes(-(long)malloc_usable_size(p));
	__libc_free(p);
}

void *realloc(void *old, size_t size)
{
	long old_bytes = old ? (long)malloc_usable_size(old) : 0;
	void *p;

	if (old && size == 0) {
		free(old);
		return NULL;
	}
	if (ac_fails_now())
		return NULL;
	p = __libc_realloc(old, size);
	if (p)
		atomic_fetch_sub(&ac_bytes, old_bytes);
	return ac_done(AC_REALLOC, size, old, p);
}

void *memalign(size_t align, size_t size)
{
	return ac_fails_now() ? NULL
	                      : ac_done(AC_ALIGNED, size, NULL, __libc_memalign(align, size));
}

void *aligned_alloc(size_t align, size_t size)
{
	return memalign(align, size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p = memalign(align, size);

	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

/* Makes allocation request number `after` from now fail (1: the next one); 0 disarms. */
static inline void ac_fail_after(long after)
{
	atomic_store(&ac_fail_at, after ? atomic_load(&ac_calls) + after : 0);
}

#endif
#endif
