/* dsort.c - LSD radix sort of doubles, eight bits a pass, passes that would move nothing skipped.
 */
#include "front/stats/dsort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DSORT_SMALL 512

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_keyed(const void *a, const void *b)
{
	const struct dsort_keyed *x = a, *y = b;

	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return (x->i > y->i) - (x->i < y->i);
}

/* The double's bits as an unsigned integer that orders as the doubles do, and back. */
static uint64_t to_key(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof b);
	return b >> 63 ? ~b : b | (uint64_t)1 << 63;
}

static double from_key(uint64_t k)
{
	uint64_t b = k >> 63 ? k & ~((uint64_t)1 << 63) : ~k;
	double d;

	memcpy(&d, &b, sizeof d);
	return d;
}

/* Counts of every byte value at every byte position of the n keys. */
static void histograms(const uint64_t *key, size_t n, size_t stride, size_t (*count)[256])
{
	memset(count, 0, 8 * sizeof *count);
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key[i * stride];
		for (int b = 0; b < 8; b++)
			count[b][(k >> (8 * b)) & 0xff]++;
	}
}

/* Sorts n records of `stride` uint64 words by their first word, a into b and back each pass;
 * returns the array the result ends in. */
static uint64_t *radix(uint64_t *a, uint64_t *b, size_t n, size_t stride)
{
	size_t count[8][256];

	histograms(a, n, stride, count);
	for (int pass = 0; pass < 8; pass++) {
		size_t *c = count[pass], sum = 0;
		uint64_t *t;
		if (c[(a[0] >> (8 * pass)) & 0xff] == n)
			continue;
		for (int v = 0; v < 256; v++) {
			size_t k = c[v];
			c[v] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t *dst = b + stride * c[(a[i * stride] >> (8 * pass)) & 0xff]++;
			memcpy(dst, a + i * stride, stride * sizeof *a);
		}
		t = a;
		a = b;
		b = t;
	}
	return a;
}

void dsort(double *v, size_t n)
{
	uint64_t *a = n >= DSORT_SMALL ? malloc(n * sizeof *a) : NULL;
	uint64_t *b = a ? malloc(n * sizeof *b) : NULL, *out;

	if (!b) {
		free(a);
		qsort(v, n, sizeof *v, cmp_double);
		return;
	}
	for (size_t i = 0; i < n; i++)
		a[i] = to_key(v[i]);
	out = radix(a, b, n, 1);
	for (size_t i = 0; i < n; i++)
		v[i] = from_key(out[i]);
	free(a);
	free(b);
}

void dsort_keyed(struct dsort_keyed *k, size_t n)
{
	uint64_t *a = n >= DSORT_SMALL ? malloc(2 * n * sizeof *a) : NULL;
	uint64_t *b = a ? malloc(2 * n * sizeof *b) : NULL, *out;

	if (!b) {
		free(a);
		qsort(k, n, sizeof *k, cmp_keyed);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		a[2 * i] = to_key(k[i].v);
		a[2 * i + 1] = k[i].i;
	}
	out = radix(a, b, n, 2);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct dsort_keyed){from_key(out[2 * i]), (size_t)out[2 * i + 1]};
	free(a);
	free(b);
}
