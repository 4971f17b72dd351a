/* solo_mech.c - programs of known mechanism for the solo anchor's part of `make validate`
 * (scripts/validate_solo.sh; docs/methodology.md, "Runs on one CPU"), each a way in which
 * runs that share one CPU differ from runs alone. Prints a checksum; exits 0, or 2 on bad usage.
 *   solo_mech walk KIB STEPS        a pointer walk of STEPS steps over a random cycle of 64-byte
 *                                   nodes filling KIB KiB: its working set is KIB (caches shared)
 *   solo_mech timer LOOPS US MS     LOOPS times: touch every page of a 16 MiB pool, malloc, touch
 *                                   and free 64 blocks of 256 KiB, then US microseconds of CPU
 *                                   work; MS > 0: before each loop, when MS ms of wall time have
 *                                   passed since the pool was last touched, release the pool
 *                                   (madvise MADV_DONTNEED), as an allocator's decommit timer
 *                                   does, so that the next loop faults it back (timers on the
 *                                   wall clock); 0: never (the allocator's own timers still run)
 *   solo_mech threads N ITERS       N threads (0: one per CPU of its affinity, as OpenMP sizes
 *                                   its pool) each ITERS mallocs and frees of 16 B to 4 KiB
 *                                   (threads serialised, or fewer when pinned) */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define POOL (16u << 20)
#define PAGE 4096u

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int walk(long kib, long steps)
{
	size_t n = (size_t)kib * 1024 / 64, *perm;
	struct node {
		struct node *next;
		char pad[56];
	} *nodes = malloc(n * sizeof *nodes), *p;
	uint64_t s = 42, sum = 0;

	if (!nodes || n < 2 || !(perm = malloc(n * sizeof *perm)))
		return 2;
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = mix(&s) % (i + 1), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		nodes[perm[i]].next = &nodes[perm[(i + 1) % n]];
	p = &nodes[perm[0]];
	for (long i = 0; i < steps; i++) {
		p = p->next;
		sum += (uintptr_t)p & 0xfff;
	}
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}

static int timer(long loops, long us, long ms)
{
	char *pool = mmap(NULL, POOL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double touched = now_s(CLOCK_MONOTONIC);
	volatile uint64_t acc = 0;
	void *blk[64];

	if (pool == MAP_FAILED)
		return 2;
	for (long l = 0; l < loops; l++) {
		if (ms > 0 && now_s(CLOCK_MONOTONIC) - touched >= (double)ms / 1000)
			madvise(pool, POOL, MADV_DONTNEED);
		for (size_t i = 0; i < POOL; i += PAGE)
			pool[i] = (char)(l + 1);
		touched = now_s(CLOCK_MONOTONIC);
		for (int b = 0; b < 64; b++)
			if ((blk[b] = malloc(256 << 10)))
				for (size_t i = 0; i < (256u << 10); i += PAGE)
					((char *)blk[b])[i] = (char)b;
		for (int b = 0; b < 64; b++)
			free(blk[b]);
		for (double t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
		     now_s(CLOCK_THREAD_CPUTIME_ID) - t0 < (double)us / 1e6;)
			for (int k = 0; k < 1000; k++)
				acc += (uint64_t)k * 2654435761u;
	}
	printf("checksum %llu\n", (unsigned long long)(pool[0] + (loops > 0)));
	return 0;
}

static long iters;

static void *churn(void *arg)
{
	uint64_t s = (uintptr_t)arg, sum = 0;
	void *keep[64] = {0};

	for (long i = 0; i < iters; i++) {
		size_t k = mix(&s) % 64, sz = 16 + mix(&s) % 4080;
		free(keep[k]);
		if ((keep[k] = malloc(sz)))
			((char *)keep[k])[0] = (char)i, sum += sz;
	}
	for (int k = 0; k < 64; k++)
		free(keep[k]);
	return (void *)(uintptr_t)sum;
}

static int threads(long n, long it)
{
	pthread_t t[64];
	cpu_set_t set;
	uint64_t sum = 0;
	void *r;

	if (n == 0)
		n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
	if (n < 1 || n > 64)
		return 2;
	iters = it;
	for (long i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1)) != 0)
			return 1;
	for (long i = 0; i < n; i++)
		if (pthread_join(t[i], &r) == 0)
			sum += (uintptr_t)r;
	printf("checksum %llu\n", (unsigned long long)(sum / (uint64_t)n));
	return 0;
}

int main(int argc, char **argv)
{
	long a = argc > 2 ? strtol(argv[2], NULL, 10) : -1, b = argc > 3 ? strtol(argv[3], NULL, 10) : -1;
	long c = argc > 4 ? strtol(argv[4], NULL, 10) : -1;
	int rc = 2;

	if (argc == 4 && strcmp(argv[1], "walk") == 0 && a > 0 && b >= 0)
		rc = walk(a, b);
	else if (argc == 5 && strcmp(argv[1], "timer") == 0 && a >= 0 && b >= 0 && c >= 0)
		rc = timer(a, b, c);
	else if (argc == 4 && strcmp(argv[1], "threads") == 0 && a >= 0 && b >= 0)
		rc = threads(a, b);
	if (rc == 2)
		fprintf(stderr, "usage: solo_mech walk KIB STEPS | timer LOOPS US MS | threads N ITERS\n");
	return rc;
}
