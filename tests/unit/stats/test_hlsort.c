/* test_hlsort.c - hl_sort (src/front/stats/hlselect.h) against qsort with a comparator that puts
 * -0 before +0, bit for bit: seeded lists of normal draws, of few distinct values (ties), and of
 * both with zeros of either sign, infinities, subnormals and the largest doubles mixed in, at
 * lengths on both sides of the length where hl_sort changes from qsort to a radix sort. */
#include "check.h"
#include "common/prng.h"
#include "front/stats/hlselect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static int by_bits(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y ? 1 : !!signbit(y) - !!signbit(x);
}

static void fill(struct prng *r, double *v, size_t n, unsigned kind)
{
	static const double odd[] = {0.0,      -0.0,     INFINITY, -INFINITY, 4.9e-324,
	                             -4.9e-324, 1.7e308, -1.7e308, 1.0,       -1.0};

	for (size_t i = 0; i < n; i++) {
		v[i] = kind % 2 ? (double)prng_range(r, -3, 3) / 4 : prng_normal(r) * 1e3;
		if (kind % 3 && prng_below(r, 5) == 0)
			v[i] = odd[prng_below(r, LEN(odd))];
	}
}

int main(void)
{
	static double v[5000], w[5000];
	struct prng r;
	int bad = 0, sorted = 1;

	prng_seed(&r, 20261202);
	for (unsigned t = 0; t < 90; t++) {
		size_t n = t < 30 ? t * 4 : 50 + (size_t)prng_below(&r, 4951);
		fill(&r, v, n, t);
		memcpy(w, v, n * sizeof *v);
		hl_sort(v, n);
		qsort(w, n, sizeof *w, by_bits);
		bad += memcmp(v, w, n * sizeof *v) != 0;
		for (size_t i = 1; i < n; i++)
			sorted &= by_bits(&v[i - 1], &v[i]) <= 0;
	}
	CHECK(bad == 0, "hl_sort equals qsort bit for bit, n 0..5000 (%d of 90 lists differ)", bad);
	CHECK(sorted, "hl_sort: every list ascending, -0 before +0");
	return CHECK_DONE();
}
