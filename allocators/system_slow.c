/* system_slow.c - glibc malloc with a known injected cost, for calibrating the harness. The driver
 * executable itself defines malloc, free, calloc, realloc, posix_memalign, aligned_alloc, memalign,
 * valloc and pvalloc (exported dynamically, so calls from libc, cJSON and zstd come here too); each
 * call busy-waits ALLOCAB_INJECT_NS nanoseconds on CLOCK_MONOTONIC, is counted, and is then served
 * by glibc's own __libc_* entry points. Every block is a glibc chunk, so glibc's
 * malloc_usable_size, malloc_trim and mallinfo2 work unchanged and are not redefined.
 * docs/calibration.md has the measured cost of the spin per call. */
#include "driver/backend.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOW_ENV     "ALLOCAB_INJECT_NS"
#define SLOW_MAX_NS  1000000
#define SLOW_STRIPES 64
#define SLOW_UNSET   (-1)

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *p);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

/* One cache line per stripe: threads count on their own line, so the counter does not add
 * cross-core traffic to multi-threaded workloads. Threads beyond SLOW_STRIPES share lines. */
struct slow_stripe {
	_Atomic uint64_t calls;
	_Atomic uint64_t frees;
	_Atomic uint64_t spin_ns;
} __attribute__((aligned(64)));

static struct slow_stripe slow_count[SLOW_STRIPES];
static _Atomic unsigned slow_next_stripe;
static __thread unsigned slow_stripe_plus1 __attribute__((tls_model("initial-exec")));
static _Atomic int64_t slow_ns = SLOW_UNSET;

/* Parses a decimal count of nanoseconds without allocating or touching the locale. Absent or
 * empty means 0. Returns -1 for anything else than digits in 0..SLOW_MAX_NS. */
static int64_t slow_parse(const char *s)
{
	int64_t v = 0;

	if (!s || !*s)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > SLOW_MAX_NS)
			return -1;
	}
	return v;
}

static int64_t slow_inject_ns(void)
{
	int64_t v = atomic_load_explicit(&slow_ns, memory_order_relaxed);

	if (v == SLOW_UNSET) {
		v = slow_parse(getenv(SLOW_ENV));
		if (v < 0)
			v = 0; /* the constructor rejects it before main */
		atomic_store_explicit(&slow_ns, v, memory_order_relaxed);
	}
	return v;
}

/* An invalid setting cannot be reported from inside malloc, and silently running without the
 * injection would fake a calibration; so it is fatal before main, as a usage error. */
__attribute__((constructor)) static void slow_check_env(void)
{
	static const char msg[] =
	    "allocab-system_slow: " SLOW_ENV ": not a whole number of nanoseconds in 0..1000000\n";
	ssize_t w;

	if (slow_parse(getenv(SLOW_ENV)) < 0) {
		w = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)w;
		_exit(2);
	}
}

static int64_t slow_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* This thread's counter line, assigned round-robin at its first call. */
static struct slow_stripe *slow_stripe(void)
{
	unsigned s = slow_stripe_plus1;

	if (!s) {
		s = atomic_fetch_add_explicit(&slow_next_stripe, 1, memory_order_relaxed);
		s = s % SLOW_STRIPES + 1;
		slow_stripe_plus1 = s;
	}
	return &slow_count[s - 1];
}

static void slow_inject(int is_free)
{
	struct slow_stripe *st = slow_stripe();
	int64_t ns = slow_inject_ns();

	atomic_fetch_add_explicit(&st->calls, 1, memory_order_relaxed);
	if (is_free)
		atomic_fetch_add_explicit(&st->frees, 1, memory_order_relaxed);
	if (ns > 0) {
		int64_t start = slow_now(), now;
		while ((now = slow_now()) - start < ns)
			;
		atomic_fetch_add_explicit(&st->spin_ns, (uint64_t)(now - start),
		                          memory_order_relaxed);
	}
}

void *malloc(size_t size)
{
	slow_inject(0);
	return __libc_malloc(size);
}

void free(void *p)
{
	slow_inject(1);
	__libc_free(p);
}

void *calloc(size_t n, size_t size)
{
	slow_inject(0);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	slow_inject(0);
	return __libc_realloc(p, size);
}

void *memalign(size_t align, size_t size)
{
	slow_inject(0);
	return __libc_memalign(align, size);
}

static int slow_pow2(size_t x)
{
	return x && !(x & (x - 1));
}

int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	slow_inject(0);
	if (!slow_pow2(align) || align % sizeof(void *))
		return EINVAL;
	p = __libc_memalign(align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
	slow_inject(0);
	if (!slow_pow2(align)) {
		errno = EINVAL;
		return NULL;
	}
	return __libc_memalign(align, size);
}

void *valloc(size_t size)
{
	slow_inject(0);
	return __libc_valloc(size);
}

void *pvalloc(size_t size)
{
	slow_inject(0);
	return __libc_pvalloc(size);
}

static int slow_version(char *buf, size_t len)
{
	snprintf(buf, len, "%s+inject", gnu_get_libc_version());
	return 0;
}

static size_t slow_counters(struct backend_counter *out, size_t cap)
{
	struct mallinfo2 mi = mallinfo2();
	uint64_t calls = 0, frees = 0, spin = 0;
	struct backend_counter c[6];
	size_t n = 0;

	for (size_t i = 0; i < SLOW_STRIPES; i++) {
		calls += atomic_load_explicit(&slow_count[i].calls, memory_order_relaxed);
		frees += atomic_load_explicit(&slow_count[i].frees, memory_order_relaxed);
		spin += atomic_load_explicit(&slow_count[i].spin_ns, memory_order_relaxed);
	}
	c[n++] = (struct backend_counter){"injected_calls", (int64_t)calls};
	c[n++] = (struct backend_counter){"injected_free_calls", (int64_t)frees};
	c[n++] = (struct backend_counter){"inject_ns", slow_inject_ns()};
	c[n++] = (struct backend_counter){"injected_spin_ns", (int64_t)spin};
	c[n++] = (struct backend_counter){"allocated_bytes", (int64_t)(mi.uordblks + mi.hblkhd)};
	c[n++] = (struct backend_counter){"heap_bytes", (int64_t)(mi.arena + mi.hblkhd)};
	if (n > cap)
		n = cap;
	memcpy(out, c, n * sizeof *c);
	return n;
}

const struct backend_ops backend = {
    .name = "system_slow",
    .flags = BACKEND_CALIBRATION,
    .library = NULL,
    .version = slow_version,
    .counters = slow_counters,
};
