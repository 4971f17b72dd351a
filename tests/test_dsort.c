/* test_dsort.c - the radix sort of doubles (front/stats/dsort.h) against qsort on values of
 * every kind: both signs, zeros of both signs, infinities, subnormals, repeats; and the keyed
 * sort's order of ties. */
#include "check.h"
#include "common/prng.h"
#include "front/stats/dsort.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A value of kind k: a wide spread of magnitudes and the special values. */
static double value(struct prng *r, unsigned k)
{
	double u = prng_double(r) - 0.5;

	switch (k % 8) {
	case 0:
		return u * 1e9;
	case 1:
		return ldexp(u, (int)prng_below(r, 2000) - 1000);
	case 2:
		return (double)(int64_t)(u * 20);
	case 3:
		return k & 8 ? -0.0 : 0.0;
	case 4:
		return k & 8 ? -INFINITY : INFINITY;
	case 5:
		return u * DBL_MIN * 1e-3;
	case 6:
		return k & 8 ? -DBL_MAX : DBL_MAX;
	default:
		return u;
	}
}

static void test_sort(size_t n, uint64_t seed)
{
	struct prng r;
	double *v = malloc((n + 1) * sizeof *v), *w = malloc((n + 1) * sizeof *w);
	size_t bad = 0;

	prng_seed(&r, seed);
	for (size_t i = 0; i < n; i++)
		v[i] = w[i] = value(&r, (unsigned)prng_below(&r, 16));
	dsort(v, n);
	qsort(w, n, sizeof *w, cmp_double);
	for (size_t i = 0; i < n; i++)
		bad += !(v[i] == w[i]) || (i && v[i - 1] > v[i]);
	CHECK(bad == 0, "dsort of %zu values of every kind equals qsort's order (%zu differ)", n,
	      bad);
	free(v);
	free(w);
}

static void test_keyed(size_t n)
{
	struct dsort_keyed *k = malloc((n + 1) * sizeof *k);
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		k[i] = (struct dsort_keyed){(double)((i * 7919) % 13) - 6.0, i};
	dsort_keyed(k, n);
	for (size_t i = 1; i < n; i++)
		bad += k[i - 1].v > k[i].v || (k[i - 1].v == k[i].v && k[i - 1].i >= k[i].i);
	CHECK(bad == 0,
	      "dsort_keyed of %zu values in 13 tie groups: by value, ties by place (%zu "
	      "out of order)",
	      n, bad);
	free(k);
}

int main(void)
{
	size_t sizes[] = {0, 1, 2, 511, 512, 513, 5000, 100000};

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		test_sort(sizes[i], 17 + i);
	test_keyed(100);
	test_keyed(20000);
	return CHECK_DONE();
}
