/* count.c - build/liballocab-count.so, loaded first in LD_PRELOAD by `allocab bench --count-calls`:
 * wraps the malloc family, counts calls and requested bytes per thread (no lock, no atomic on the
 * fast path) and forwards to the next definition (the arm's allocator). The probe asks it for the
 * process totals at exit (allocab_count_json) and for the functions it forwards to
 * (allocab_count_next), so the proof still names the allocator behind it. Only loaded when asked:
 * without --count-calls nothing is wrapped. Cost and format: docs/programs.md. */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Built with -fvisibility=hidden (Makefile): what it interposes and offers the probe is marked. */
#define COUNT_EXPORT __attribute__((visibility("default")))

enum fn {
	F_MALLOC,
	F_FREE,
	F_CALLOC,
	F_REALLOC,
	F_POSIX_MEMALIGN,
	F_ALIGNED_ALLOC,
	F_MEMALIGN,
	F_VALLOC,
	F_PVALLOC,
	F_N
};

static const char *const fn_names[F_N] = {"malloc",   "free",           "calloc",
                                          "realloc",  "posix_memalign", "aligned_alloc",
                                          "memalign", "valloc",         "pvalloc"};

struct counters {
	uint64_t calls[F_N];
	uint64_t bytes;
};

#define MAX_THREADS 1024
#define ARENA_BYTES (64 * 1024)

static __thread struct counters tls __attribute__((tls_model("initial-exec")));
static __thread int registered __attribute__((tls_model("initial-exec")));
static struct counters *live[MAX_THREADS];
static struct counters retired;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t exit_key;
static int key_ok;

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

/* dlsym itself may allocate: those first calls come from this arena and are never freed. */
static _Alignas(16) char arena[ARENA_BYTES];
static size_t arena_used;
static int resolving;

static void *arena_alloc(size_t n)
{
	size_t need = (n + 15) & ~(size_t)15;
	void *p;

	if (arena_used + need > sizeof arena)
		return NULL;
	p = arena + arena_used;
	arena_used += need;
	return p;
}

static int in_arena(const void *p)
{
	return (const char *)p >= arena && (const char *)p < arena + sizeof arena;
}

static void add_up(struct counters *to, const struct counters *c)
{
	for (int i = 0; i < F_N; i++)
		to->calls[i] += c->calls[i];
	to->bytes += c->bytes;
}

static void thread_gone(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&reg_lock);
	add_up(&retired, &tls);
	for (int i = 0; i < MAX_THREADS; i++)
		if (live[i] == &tls)
			live[i] = NULL;
	pthread_mutex_unlock(&reg_lock);
	registered = 0;
	memset(&tls, 0, sizeof tls);
}

/* Before the constructor made the key, the thread counts unregistered and registers later. */
static void register_thread(void)
{
	if (!key_ok)
		return;
	registered = 1;
	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < MAX_THREADS; i++)
		if (!live[i]) {
			live[i] = &tls;
			break;
		}
	pthread_mutex_unlock(&reg_lock);
	pthread_setspecific(exit_key, &tls);
}

static inline void count(enum fn f, size_t bytes)
{
	if (__builtin_expect(!registered, 0))
		register_thread();
	tls.calls[f]++;
	tls.bytes += bytes;
}

static void after_fork_child(void)
{
	pthread_mutex_init(&reg_lock, NULL);
	memset(live, 0, sizeof live);
	memset(&retired, 0, sizeof retired);
	memset(&tls, 0, sizeof tls);
	registered = 0;
}

static void resolve(void)
{
	resolving = 1;
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	real_pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
	resolving = 0;
}

__attribute__((constructor)) static void count_start(void)
{
	if (!real_malloc)
		resolve();
	key_ok = pthread_key_create(&exit_key, thread_gone) == 0;
	pthread_atfork(NULL, NULL, after_fork_child);
}

COUNT_EXPORT void *malloc(size_t n)
{
	if (__builtin_expect(!real_malloc, 0)) {
		if (resolving)
			return arena_alloc(n);
		resolve();
	}
	count(F_MALLOC, n);
	return real_malloc(n);
}

COUNT_EXPORT void free(void *p)
{
	if (!p || in_arena(p))
		return;
	count(F_FREE, 0);
	real_free(p);
}

COUNT_EXPORT void *calloc(size_t n, size_t size)
{
	if (__builtin_expect(!real_calloc, 0)) {
		if (resolving) {
			void *p = n && size > SIZE_MAX / n ? NULL : arena_alloc(n * size);
			return p; /* the arena is zeroed static memory */
		}
		resolve();
	}
	count(F_CALLOC, n * size);
	return real_calloc(n, size);
}

COUNT_EXPORT void *realloc(void *p, size_t n)
{
	if (__builtin_expect(!real_realloc, 0))
		resolve();
	if (in_arena(p)) {
		void *q = malloc(n);
		size_t room = (size_t)(arena + sizeof arena - (char *)p);
		if (q)
			memcpy(q, p, n < room ? n : room);
		return q;
	}
	count(F_REALLOC, n);
	return real_realloc(p, n);
}

COUNT_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (__builtin_expect(!real_posix_memalign, 0))
		resolve();
	count(F_POSIX_MEMALIGN, n);
	return real_posix_memalign(out, align, n);
}

COUNT_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (__builtin_expect(!real_aligned_alloc, 0))
		resolve();
	count(F_ALIGNED_ALLOC, n);
	return real_aligned_alloc(align, n);
}

COUNT_EXPORT void *memalign(size_t align, size_t n)
{
	if (__builtin_expect(!real_memalign, 0))
		resolve();
	count(F_MEMALIGN, n);
	return real_memalign(align, n);
}

COUNT_EXPORT void *valloc(size_t n)
{
	if (__builtin_expect(!real_valloc, 0))
		resolve();
	count(F_VALLOC, n);
	return real_valloc(n);
}

COUNT_EXPORT void *pvalloc(size_t n)
{
	if (__builtin_expect(!real_pvalloc, 0))
		resolve();
	count(F_PVALLOC, n);
	return real_pvalloc ? real_pvalloc(n) : NULL;
}

/* The function this library forwards name to (the probe's proof looks behind the wrapper). */
COUNT_EXPORT void *allocab_count_next(const char *name)
{
	void *const next[F_N] = {
	    (void *)real_malloc,   (void *)real_free,           (void *)real_calloc,
	    (void *)real_realloc,  (void *)real_posix_memalign, (void *)real_aligned_alloc,
	    (void *)real_memalign, (void *)real_valloc,         (void *)real_pvalloc};

	for (int i = 0; i < F_N; i++)
		if (strcmp(fn_names[i], name) == 0)
			return next[i];
	return NULL;
}

/* The process totals as a JSON object {"malloc":N,...,"bytes":B,"live_threads":T} into buf
 * (len bytes); returns the length written (0 if it does not fit, or when try is set and another
 * thread holds the registry: an exec from a vfork child must not wait). */
static size_t count_json(char *buf, size_t len, int try)
{
	struct counters sum = retired;
	size_t k = 0, threads = 0;
	int n;

	if (try ? pthread_mutex_trylock(&reg_lock) != 0 : pthread_mutex_lock(&reg_lock) != 0)
		return 0;
	for (int i = 0; i < MAX_THREADS; i++)
		if (live[i]) {
			add_up(&sum, live[i]);
			threads++;
		}
	pthread_mutex_unlock(&reg_lock);
	for (int i = 0; i < F_N; i++) {
		n = snprintf(buf + k, len - k, "%s\"%s\":%llu", i ? "," : "{", fn_names[i],
		             (unsigned long long)sum.calls[i]);
		if (n < 0 || (size_t)n >= len - k)
			return 0;
		k += (size_t)n;
	}
	n = snprintf(buf + k, len - k, ",\"bytes\":%llu,\"live_threads\":%zu}",
	             (unsigned long long)sum.bytes, threads);
	if (n < 0 || (size_t)n >= len - k)
		return 0;
	return k + (size_t)n;
}

/* The totals at normal exit (count_json). */
COUNT_EXPORT size_t allocab_count_json(char *buf, size_t len)
{
	return count_json(buf, len, 0);
}

/* The totals so far, for the record of an exec that replaces the image: 0 rather than wait for
 * the registry's lock. */
COUNT_EXPORT size_t allocab_count_json_try(char *buf, size_t len)
{
	return count_json(buf, len, 1);
}
