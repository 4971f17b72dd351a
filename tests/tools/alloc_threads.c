/* alloc_threads.c - a program with a known allocation stream for the record/replay tests
 * (tests/e2e/e2e_record.sh): T worker threads each make N mallocs, N/2 callocs, N/4 reallocs and
 * N/4 posix_memaligns; every object a worker makes is freed by the next worker (a cross-thread
 * free), after a barrier. The main thread makes M mallocs and frees them, and one free(NULL).
 * Usage: alloc_threads T N M. Prints nothing; exits 0. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int nthreads, n;
static void **objs; /* nthreads x (n + n/2 + n/4) objects */
static pthread_barrier_t barrier;

static size_t per_thread(void)
{
	return (size_t)n + (size_t)n / 2 + (size_t)n / 4;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	void **mine = objs + (size_t)id * per_thread(), **next;
	size_t k = 0;

	for (int i = 0; i < n; i++)
		mine[k++] = malloc(16 + (size_t)i * 8);
	for (int i = 0; i < n / 2; i++)
		mine[k++] = calloc(4, 100 + (size_t)i);
	for (int i = 0; i < n / 4; i++)
		mine[i] = realloc(mine[i], 4096 + (size_t)i);
	for (int i = 0; i < n / 4; i++)
		if (posix_memalign(&mine[k++], 64, 1000))
			abort();
	for (size_t j = 0; j < k; j++)
		memset(mine[j], 1, 1);
	pthread_barrier_wait(&barrier);
	next = objs + (size_t)((id + 1) % nthreads) * per_thread();
	for (size_t j = 0; j < k; j++)
		free(next[j]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t *t;
	int m;

	if (argc != 4)
		return 2;
	nthreads = atoi(argv[1]);
	n = atoi(argv[2]);
	m = atoi(argv[3]);
	if (nthreads < 1 || n < 4 || m < 0)
		return 2;
	objs = malloc((size_t)nthreads * per_thread() * sizeof *objs);
	t = malloc((size_t)nthreads * sizeof *t);
	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < m; i++)
		free(malloc((size_t)i + 1));
	free(NULL);
	free(t);
	free(objs);
	return 0;
}
