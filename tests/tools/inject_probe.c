/* inject_probe.c - linked with allocators/system_slow.c alone (no driver, no workload), to prove
 * the injection without timing anything:
 *   inject_probe count K   makes known allocator calls and checks that the backend's counter of
 *                          injected calls moved by exactly that many (check.h protocol);
 *   inject_probe cost [N]  prints the measured extra cost per call of the wrapper with the
 *                          ALLOCAB_INJECT_NS of the environment, against glibc called directly
 *                          (docs/calibration.md; not a test, nothing is asserted). */
#include "driver/backend.h"
#include "check.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *p);

#define PROBE_MAX_K 100000

static void *probe_ptr[PROBE_MAX_K];

struct probe_count {
	int64_t calls, frees, inject_ns, spin_ns;
};

static struct probe_count probe_read(void)
{
	struct backend_counter c[BACKEND_MAX_COUNTERS];
	struct probe_count r = {-1, -1, -1, -1};
	size_t n = backend.counters(c, BACKEND_MAX_COUNTERS);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(c[i].name, "injected_calls") == 0)
			r.calls = c[i].value;
		else if (strcmp(c[i].name, "injected_free_calls") == 0)
			r.frees = c[i].value;
		else if (strcmp(c[i].name, "inject_ns") == 0)
			r.inject_ns = c[i].value;
		else if (strcmp(c[i].name, "injected_spin_ns") == 0)
			r.spin_ns = c[i].value;
	}
	return r;
}

/* Calls made between two counter reads: a delta of exactly `want` proves every one was injected
 * and nothing else was counted. */
#define EXPECT_DELTA(before, want, name)                                                           \
	do {                                                                                       \
		struct probe_count a_ = probe_read();                                              \
		CHECK(a_.calls - (before).calls == (want),                                         \
		      "%s counts %d injected call(s) (got %lld)", name, (int)(want),               \
		      (long long)(a_.calls - (before).calls));                                     \
	} while (0)

#define PROBE_THREADS 4

static pthread_barrier_t probe_barrier;

/* Allocates and frees only between the first two barriers; the main thread reads the counters
 * before the first and after the second, and the threads exit (which frees) only after the third:
 * the delta is exactly these threads' calls, made concurrently. */
static void *probe_thread(void *arg)
{
	long k = *(const long *)arg;

	pthread_barrier_wait(&probe_barrier);
	for (long i = 0; i < k; i++)
		free(malloc((size_t)(32 + i % 512)));
	pthread_barrier_wait(&probe_barrier);
	pthread_barrier_wait(&probe_barrier);
	return NULL;
}

static int probe_count_main(long k)
{
	struct probe_count b, a;
	Dl_info di;
	void *p, *q;
	char *s;
	const char *env = getenv("ALLOCAB_INJECT_NS");

	p = dlsym(RTLD_DEFAULT, "malloc");
	q = dladdr((void *)probe_read, &di) ? di.dli_fbase : NULL;
	CHECK(p == (void *)malloc && dladdr(p, &di) && q && di.dli_fbase == q,
	      "the process-wide malloc is the executable's");
	CHECK(dlsym(RTLD_DEFAULT, "free") == (void *)free,
	      "the process-wide free is the executable's");

	b = probe_read();
	CHECK(b.inject_ns == (env && *env ? atoll(env) : 0),
	      "inject_ns reports ALLOCAB_INJECT_NS (%lld)", (long long)b.inject_ns);

	b = probe_read();
	for (long i = 0; i < k; i++)
		probe_ptr[i] = malloc((size_t)(16 + i % 4096));
	for (long i = 0; i < k; i++)
		free(probe_ptr[i]);
	a = probe_read();
	CHECK(a.calls - b.calls == 2 * k,
	      "%ld mallocs and %ld frees count %ld injected calls (got %lld)", k, k, 2 * k,
	      (long long)(a.calls - b.calls));
	CHECK(a.frees - b.frees == k, "%ld frees count %ld injected frees (got %lld)", k, k,
	      (long long)(a.frees - b.frees));
	/* Each spin lasts at least inject_ns by construction: a lower bound, not a speed test. */
	if (b.inject_ns > 0)
		CHECK(a.spin_ns - b.spin_ns >= 2 * k * b.inject_ns,
		      "every call spun: %lld ns spun >= %ld calls x %lld ns",
		      (long long)(a.spin_ns - b.spin_ns), 2 * k, (long long)b.inject_ns);
	else
		CHECK(a.spin_ns == b.spin_ns && a.spin_ns == 0, "no spin at inject_ns 0");

	{
		pthread_t t[PROBE_THREADS];
		long per = k / PROBE_THREADS;
		int started = 0;

		pthread_barrier_init(&probe_barrier, NULL, PROBE_THREADS + 1);
		for (int i = 0; i < PROBE_THREADS; i++)
			started += pthread_create(&t[i], NULL, probe_thread, &per) == 0;
		if (started == PROBE_THREADS) {
			b = probe_read();
			pthread_barrier_wait(&probe_barrier);
			pthread_barrier_wait(&probe_barrier);
			a = probe_read();
			pthread_barrier_wait(&probe_barrier);
			for (int i = 0; i < started; i++)
				pthread_join(t[i], NULL);
			CHECK(a.calls - b.calls == 2 * PROBE_THREADS * per &&
			          a.frees - b.frees == PROBE_THREADS * per,
			      "%d concurrent threads x %ld malloc+free pairs count %ld calls (got "
			      "%lld)",
			      PROBE_THREADS, per, 2 * PROBE_THREADS * per,
			      (long long)(a.calls - b.calls));
		} else {
			CHECK(0, "could not start %d threads", PROBE_THREADS);
		}
		pthread_barrier_destroy(&probe_barrier);
	}

	b = probe_read();
	p = calloc(10, 10);
	EXPECT_DELTA(b, 1, "calloc");
	b = probe_read();
	p = realloc(p, 10000);
	EXPECT_DELTA(b, 1, "realloc");
	b = probe_read();
	free(p);
	EXPECT_DELTA(b, 1, "free");
	b = probe_read();
	free(NULL);
	EXPECT_DELTA(b, 1, "free(NULL)");
	b = probe_read();
	CHECK(posix_memalign(&p, 64, 100) == 0 && ((uintptr_t)p & 63) == 0,
	      "posix_memalign(64) returns aligned memory");
	EXPECT_DELTA(b, 1, "posix_memalign");
	free(p);
	b = probe_read();
	CHECK(posix_memalign(&q, 24, 100) == EINVAL, "posix_memalign(24) is EINVAL");
	EXPECT_DELTA(b, 1, "rejected posix_memalign");
	b = probe_read();
	p = aligned_alloc(4096, 8192);
	EXPECT_DELTA(b, 1, "aligned_alloc");
	CHECK(p && ((uintptr_t)p & 4095) == 0, "aligned_alloc(4096) returns aligned memory");
	free(p);
	b = probe_read();
	p = memalign(256, 1000);
	EXPECT_DELTA(b, 1, "memalign");
	CHECK(p && malloc_usable_size(p) >= 1000, "glibc's malloc_usable_size works on its blocks");
	free(p);
	b = probe_read();
	p = valloc(100);
	EXPECT_DELTA(b, 1, "valloc");
	free(p);
	b = probe_read();
	p = pvalloc(100);
	EXPECT_DELTA(b, 1, "pvalloc");
	free(p);

	/* libc's own calls reach the executable's malloc only if it is exported dynamically. */
	b = probe_read();
	s = strdup("allocab");
	EXPECT_DELTA(b, 1, "strdup inside libc");
	b = probe_read();
	free(s);
	EXPECT_DELTA(b, 1, "free of libc's block");
	return CHECK_DONE();
}

static int64_t probe_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ns per call of n malloc+free pairs, through the wrapper or straight into glibc. */
static double probe_loop(long n, int wrapped)
{
	int64_t t0 = probe_now();

	for (long i = 0; i < n; i++) {
		void *p = wrapped ? malloc(64) : __libc_malloc(64);
		*(volatile char *)p = 1;
		if (wrapped)
			free(p);
		else
			__libc_free(p);
	}
	return (double)(probe_now() - t0) / (2.0 * (double)n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int probe_cost_main(long n)
{
	enum { REPEATS = 21 };
	double wrapped[REPEATS], direct[REPEATS], extra[REPEATS];
	struct probe_count c = probe_read(), c2;
	double spun;

	probe_loop(n / 10 + 1, 1);
	for (int r = 0; r < REPEATS; r++) {
		direct[r] = probe_loop(n, 0);
		wrapped[r] = probe_loop(n, 1);
		extra[r] = wrapped[r] - direct[r];
	}
	c2 = probe_read();
	spun = (double)(c2.spin_ns - c.spin_ns) / (double)(c2.calls - c.calls);
	qsort(direct, REPEATS, sizeof(double), cmp_double);
	qsort(wrapped, REPEATS, sizeof(double), cmp_double);
	qsort(extra, REPEATS, sizeof(double), cmp_double);
	printf("inject_ns=%lld direct_ns_per_call=%.1f wrapped_ns_per_call=%.1f "
	       "extra_ns_per_call=%.1f (quartiles %.1f..%.1f) spun_ns_per_call=%.1f "
	       "(%d repeats of %ld pairs)\n",
	       (long long)c.inject_ns, direct[REPEATS / 2], wrapped[REPEATS / 2],
	       extra[REPEATS / 2], extra[REPEATS / 4], extra[3 * REPEATS / 4], spun, REPEATS, n);
	return 0;
}

int main(int argc, char **argv)
{
	long k = argc > 2 ? atol(argv[2]) : 0;

	if (argc >= 2 && strcmp(argv[1], "count") == 0 && argc == 3 && k > 0 && k <= PROBE_MAX_K)
		return probe_count_main(k);
	if (argc >= 2 && strcmp(argv[1], "cost") == 0 && argc <= 3)
		return probe_cost_main(k > 0 ? k : 200000);
	fprintf(stderr, "usage: inject_probe count K (1..%d) | cost [PAIRS]\n", PROBE_MAX_K);
	return 2;
}
