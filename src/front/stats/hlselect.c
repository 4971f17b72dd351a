/* hlselect.c - selection in the implicit sorted matrix of Walsh averages or differences; contracts
 * in hlselect.h. With the samples sorted, value(r, c) is nondecreasing along every row and column
 * (rounding is monotone), so the count of values below a threshold takes one staircase walk of
 * O(rows + cols) (Johnson & Mizoguchi, "Selecting the Kth element in X + Y and
 * X1 + X2 + ... + Xm", SIAM J. Comput. 7(2), 1978). As in Monahan, "Algorithm 616: fast
 * computation of the Hodges-Lehmann location estimator", ACM TOMS 10(3), 1984, each row keeps the
 * column range still in play and pivots are drawn from those ranges at random; here two pivots
 * bracket rank k in a sorted sample (Floyd & Rivest, "Expected time bounds for selection", CACM
 * 18(3), 1975), so a few sweeps leave O(rows + cols) candidates, which are listed and searched by
 * Hoare's FIND ("Algorithm 65: Find", CACM 4(7), 1961). The sample is stratified by rank (one
 * candidate from each of equal slices), so it comes in the order the rows are walked in. */
#include "front/stats/hlselect.h"

#include "common/prng.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LIST_MIN    65536 /* candidate sets this small are listed and searched directly */
#define SAMPLE_MIN  1024
#define SAMPLE_MAX  65536
#define SAMPLE_SEED 0x484c73656c656374ull

/* Row r, column c: 0.5 * (a[r] + b[c]) for Walsh averages (a = b = sorted x, c >= r), or
 * b[c] - a[rows - 1 - r] for differences (a = sorted x, b = sorted y). */
struct matrix {
	const double *a, *b;
	size_t rows, cols;
	bool walsh;
};

/* Candidates of row r: columns lo[r] <= c < hi[r]; cut receives the boundaries of a split. */
struct search {
	struct matrix m;
	size_t *lo, *hi, *cut;
	double *list, *sample;
	size_t cap;
	struct prng rng;
};

/* k[0..n) sorted ascending by LSD radix, a byte a pass; tmp holds n keys. Passes in which every
 * key has the same byte are skipped. */
static void radix_u64(uint64_t *k, uint64_t *tmp, size_t n)
{
	size_t count[8][256] = {{0}};
	uint64_t *from = k, *to = tmp;

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			count[b][(k[i] >> (8 * b)) & 0xff]++;
	for (int b = 0; b < 8; b++) {
		size_t at = 0, *c = count[b];
		if (c[(k[0] >> (8 * b)) & 0xff] == n)
			continue;
		for (int d = 0; d < 256; d++) {
			size_t m = c[d];
			c[d] = at;
			at += m;
		}
		for (size_t i = 0; i < n; i++)
			to[c[(from[i] >> (8 * b)) & 0xff]++] = from[i];
		uint64_t *t = from;
		from = to;
		to = t;
	}
	if (from != k)
		memcpy(k, from, n * sizeof *k);
}

double hl_find(double *a, size_t n, size_t k)
{
	ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (l < r) {
		double pivot = a[kk];
		ptrdiff_t i = l, j = r;

		do {
			while (a[i] < pivot)
				i++;
			while (pivot < a[j])
				j--;
			if (i <= j) {
				double t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return a[k];
}

static inline double value(const struct matrix *m, size_t r, size_t c)
{
	return m->walsh ? 0.5 * (m->a[r] + m->b[c]) : m->b[c] - m->a[m->rows - 1 - r];
}

static inline size_t row_start(const struct matrix *m, size_t r)
{
	return m->walsh ? r : 0;
}

size_t hl_count(const struct hl_source *s)
{
	if (!s->y)
		return s->nx < (size_t)1 << (sizeof(size_t) * 4) ? s->nx * (s->nx + 1) / 2 : 0;
	if (s->ny && s->nx > SIZE_MAX / s->ny)
		return 0;
	return s->nx * s->ny;
}

/* cut[r] = the first column of row r whose value is not below t (below: < t if strict, <= t
 * otherwise), kept within the candidates; returns the number of values left of the cuts. The
 * cut column falls as the row rises, so one walk finds them all. */
static size_t split(const struct search *s, double t, bool strict)
{
	size_t c = s->m.cols, left = 0;

	for (size_t r = 0; r < s->m.rows; r++) {
		while (c > 0 && (strict ? value(&s->m, r, c - 1) >= t : value(&s->m, r, c - 1) > t))
			c--;
		s->cut[r] = c < s->lo[r] ? s->lo[r] : c > s->hi[r] ? s->hi[r] : c;
		left += s->cut[r] - row_start(&s->m, r);
	}
	return left;
}

static void take_cut(size_t **bound, size_t **cut)
{
	size_t *t = *bound;

	*bound = *cut;
	*cut = t;
}

/* Candidates in play, and *left the values left of them. */
static size_t in_play(const struct search *s, size_t *left)
{
	size_t n = 0;

	*left = 0;
	for (size_t r = 0; r < s->m.rows; r++) {
		*left += s->lo[r] - row_start(&s->m, r);
		n += s->hi[r] - s->lo[r];
	}
	return n;
}

/* A stratified sample of the n candidates, one drawn at random from each of ns equal slices of
 * their ranks, so the picks come in ascending order; returns its size. */
static size_t draw(struct search *s, size_t n)
{
	size_t ns = n / 64, r = 0, before = 0, lo = 0, step, rem, acc = 0;

	ns = ns < SAMPLE_MIN ? SAMPLE_MIN : ns > SAMPLE_MAX ? SAMPLE_MAX : ns;
	step = n / ns;
	rem = n % ns;
	for (size_t i = 0; i < ns; i++) {
		size_t width = step + ((acc += rem) >= ns), pick;
		if (acc >= ns)
			acc -= ns;
		pick = width ? lo + (size_t)prng_below(&s->rng, width) : lo;
		lo += width;
		for (; pick - before >= s->hi[r] - s->lo[r]; r++)
			before += s->hi[r] - s->lo[r];
		s->sample[i] = value(&s->m, r, s->lo[r] + (pick - before));
	}
	return ns;
}

/* Narrows the candidates of rank k (of which n are in play, left of them `left`) between two
 * sample values bracketing it, `spread` sample ranks either side. Returns true, with *hit, if
 * the pivot turned out to be the value. */
static bool narrow(struct search *s, size_t k, size_t n, size_t left, bool spread, double *hit)
{
	size_t ns = draw(s, n), d = spread ? (size_t)(2 * sqrt((double)ns)) : 0;
	size_t at = (size_t)((double)(k - left) / (double)n * (double)(ns - 1));
	size_t il = at > d ? at - d : 0, iu = at + d < ns ? at + d : ns - 1;
	double th = hl_find(s->sample, ns, iu), tl = hl_find(s->sample, iu + 1, il);
	size_t below_tl = split(s, tl, true), upto_th;

	if (below_tl > k) {
		take_cut(&s->hi, &s->cut);
		return false;
	}
	take_cut(&s->lo, &s->cut);
	upto_th = split(s, th, false);
	if (upto_th <= k) {
		take_cut(&s->lo, &s->cut);
		return false;
	}
	*hit = th;
	if (tl == th)
		return true;
	take_cut(&s->hi, &s->cut);
	return false;
}

/* k-th smallest (0-based) value of the whole matrix. */
static double kth(struct search *s, size_t k)
{
	size_t n, left, i = 0;
	bool spread = true;
	double hit;

	for (size_t r = 0; r < s->m.rows; r++) {
		s->lo[r] = row_start(&s->m, r);
		s->hi[r] = s->m.cols;
	}
	for (n = in_play(s, &left); n > s->cap;) {
		size_t before = n;

		if (narrow(s, k, n, left, spread, &hit))
			return hit;
		n = in_play(s, &left);
		spread = n < before;
	}
	for (size_t r = 0; r < s->m.rows; r++)
		for (size_t c = s->lo[r]; c < s->hi[r]; c++)
			s->list[i++] = value(&s->m, r, c);
	return hl_find(s->list, n, k - left);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y ? 1 : !!signbit(y) - !!signbit(x);
}

/* The order of doubles (-0 before +0) as the order of unsigned keys. */
static uint64_t key_of(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof u);
	return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

static double value_of(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~((uint64_t)1 << 63) : ~k;
	double v;

	memcpy(&v, &u, sizeof v);
	return v;
}

void hl_sort(double *v, size_t n)
{
	uint64_t *k = n >= 64 ? malloc(2 * n * sizeof *k) : NULL;

	if (!k) {
		qsort(v, n, sizeof *v, by_value);
		return;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = key_of(v[i]);
	radix_u64(k, k + n, n);
	for (size_t i = 0; i < n; i++)
		v[i] = value_of(k[i]);
	free(k);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof *c);

	if (c) {
		memcpy(c, v, n * sizeof *c);
		hl_sort(c, n);
	}
	return c;
}

static void search_free(struct search *s)
{
	free((void *)s->m.a);
	if (!s->m.walsh)
		free((void *)s->m.b);
	free(s->lo);
	free(s->hi);
	free(s->cut);
	free(s->list);
	free(s->sample);
}

static int search_init(struct search *s, const struct hl_source *src, size_t total)
{
	size_t rows = src->nx, cols = src->y ? src->ny : src->nx, small = 2 * (rows + cols);

	*s = (struct search){.m = {.rows = rows, .cols = cols, .walsh = !src->y}};
	s->cap = small > LIST_MIN ? small : LIST_MIN;
	if (s->cap > total)
		s->cap = total;
	s->m.a = sorted_copy(src->x, rows);
	s->m.b = src->y ? sorted_copy(src->y, cols) : s->m.a;
	s->lo = malloc(rows * sizeof *s->lo);
	s->hi = malloc(rows * sizeof *s->hi);
	s->cut = malloc(rows * sizeof *s->cut);
	s->list = malloc(s->cap * sizeof *s->list);
	if (s->cap < total) {
		s->sample = malloc(SAMPLE_MAX * sizeof *s->sample);
	}
	prng_seed(&s->rng, SAMPLE_SEED);
	if (s->m.a && s->m.b && s->lo && s->hi && s->cut && s->list &&
	    (s->cap == total || s->sample))
		return 0;
	search_free(s);
	return -1;
}

int hl_select(const struct hl_source *s, const size_t *ranks, size_t nranks, double *out)
{
	size_t total = hl_count(s);
	struct search srch;

	if (total == 0 || search_init(&srch, s, total) != 0)
		return -1;
	for (size_t i = 0; i < nranks; i++) {
		size_t j = 0;

		while (j < i && ranks[j] != ranks[i])
			j++;
		out[i] = j < i ? out[j] : kth(&srch, ranks[i]);
	}
	search_free(&srch);
	return 0;
}
