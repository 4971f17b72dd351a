/* record_boot.c - the real allocation functions, found with dlsym(RTLD_NEXT), and the static arena
 * that serves the calls dlsym itself makes before they are known (record.h). */
#include "preload/record.h"

#include <dlfcn.h>
#include <sched.h>
#include <string.h>

#define ARENA_BYTES (256u << 10)

void *(*rec_real_malloc)(size_t);
void *(*rec_real_calloc)(size_t, size_t);
void *(*rec_real_realloc)(void *, size_t);
void (*rec_real_free)(void *);
int (*rec_real_posix_memalign)(void **, size_t, size_t);
void *(*rec_real_aligned_alloc)(size_t, size_t);
void *(*rec_real_memalign)(size_t, size_t);
void *(*rec_real_valloc)(size_t);
void *(*rec_real_pvalloc)(size_t);
void *(*rec_real_reallocarray)(void *, size_t, size_t);
size_t (*rec_real_usable_size)(void *);

static _Alignas(64) unsigned char arena[ARENA_BYTES];
static atomic_size_t arena_used;
static atomic_int resolve_state; /* 0 not yet, 1 in progress, 2 done */
static REC_TLS int t_resolving;

int rec_in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_BYTES;
}

void *rec_arena_alloc(size_t n, size_t align)
{
	size_t a = align < 16 ? 16 : align, off, start;

	if (n > ARENA_BYTES || a > 4096)
		return NULL;
	do {
		off = atomic_load(&arena_used);
		start = (off + 16 + a - 1) & ~(a - 1);
		if (start + n > ARENA_BYTES)
			return NULL;
	} while (!atomic_compare_exchange_weak(&arena_used, &off, start + n));
	memcpy(arena + start - 8, &n, sizeof n);
	rec_count(TRACE_END_BOOTSTRAP, 1);
	return arena + start;
}

size_t rec_arena_size(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - 8, sizeof n);
	return n;
}

static int resolve(void)
{
	int expect = 0;

	if (atomic_load_explicit(&resolve_state, memory_order_acquire) == 2)
		return 0;
	if (!atomic_compare_exchange_strong(&resolve_state, &expect, 1)) {
		while (atomic_load(&resolve_state) != 2)
			sched_yield();
		return 0;
	}
	t_resolving = 1;
	rec_real_calloc = dlsym(RTLD_NEXT, "calloc");
	rec_real_malloc = dlsym(RTLD_NEXT, "malloc");
	rec_real_realloc = dlsym(RTLD_NEXT, "realloc");
	rec_real_free = dlsym(RTLD_NEXT, "free");
	rec_real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	rec_real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	rec_real_memalign = dlsym(RTLD_NEXT, "memalign");
	rec_real_valloc = dlsym(RTLD_NEXT, "valloc");
	rec_real_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	rec_real_reallocarray = dlsym(RTLD_NEXT, "reallocarray");
	rec_real_usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
	t_resolving = 0;
	atomic_store_explicit(&resolve_state, 2, memory_order_release);
	return rec_real_malloc && rec_real_free && rec_real_calloc && rec_real_realloc ? 0 : -1;
}

int rec_bootstrapping(void)
{
	if (REC_UNLIKELY(atomic_load_explicit(&resolve_state, memory_order_acquire) != 2)) {
		if (t_resolving)
			return 1;
		return resolve() != 0;
	}
	return 0;
}
