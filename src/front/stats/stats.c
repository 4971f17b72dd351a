/* stats.c - the statistics of allocab; contracts in stats.h. Rank methods follow Hollander &
 * Wolfe, "Nonparametric Statistical Methods": exact null distributions are counted by dynamic
 * programming, so small-sample p-values and interval levels are exact, not read from tables. */
#include "front/stats/stats.h"

#include "front/stats/hlselect.h"
#include "front/stats/statint.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SIGNRANK_EXACT_MAX 50 /* 2^50 subsets: counts stay exact in a double */
#define RANKSUM_EXACT_MAX  20 /* C(40, 20) arrangements: likewise */

static bool any_nan(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isnan(x[i]))
			return true;
	return false;
}

bool st_all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

bool st_valid_conf(double conf)
{
	return conf > 0 && conf < 1;
}

static double *copy_of(const double *x, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof *c);

	if (c && n)
		memcpy(c, x, n * sizeof *c);
	return c;
}

static double median_inplace(double *a, size_t n)
{
	size_t h = n / 2;
	double upper = hl_find(a, n, h), lower;

	if (n % 2)
		return upper;
	lower = a[0];
	for (size_t i = 1; i < h; i++)
		if (a[i] > lower)
			lower = a[i];
	return 0.5 * (lower + upper);
}

double st_quantile_sorted(const double *s, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t i = (size_t)floor(h);

	if (i + 1 >= n || h == (double)i)
		return s[i < n ? i : n - 1];
	return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

double stats_median(const double *x, size_t n)
{
	double *c, m;

	if (n == 0 || any_nan(x, n) || !(c = copy_of(x, n)))
		return NAN;
	m = median_inplace(c, n);
	free(c);
	return m;
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *c, v;

	if (n == 0 || !(q >= 0 && q <= 1) || any_nan(x, n) || !(c = copy_of(x, n)))
		return NAN;
	hl_sort(c, n);
	v = st_quantile_sorted(c, n, q);
	free(c);
	return v;
}

double stats_mean(const double *x, size_t n)
{
	double sum = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double stats_sd(const double *x, size_t n)
{
	double mean, ss = 0;

	if (any_nan(x, n))
		return NAN;
	if (n < 2)
		return 0;
	mean = stats_mean(x, n);
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

double stats_mad(const double *x, size_t n)
{
	double *c, med, mad;

	if (n == 0 || any_nan(x, n) || !(c = copy_of(x, n)))
		return NAN;
	med = median_inplace(c, n);
	for (size_t i = 0; i < n; i++)
		c[i] = fabs(x[i] - med);
	mad = median_inplace(c, n);
	free(c);
	return 1.4826 * mad;
}

/* A value and its place, for ranks: sorted by v, ties by i. */
struct keyed {
	double v;
	size_t i;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	if (signbit(x->v) != signbit(y->v))
		return signbit(x->v) ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void sort_keyed(struct keyed *k, size_t n)
{
	qsort(k, n, sizeof *k, by_key);
}

/* Mid-ranks (1-based) of v[0..n-1] into rank; *ties = sum over tie groups of t^3 - t. */
int st_midranks(const double *v, size_t n, double *rank, double *ties)
{
	struct keyed *k = malloc((n ? n : 1) * sizeof *k);

	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){v[i], i};
	sort_keyed(k, n);
	*ties = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && k[j].v == k[i].v; j++)
			;
		double t = (double)(j - i), mid = 0.5 * (double)(i + 1 + j);
		*ties += t * t * t - t;
		for (size_t g = i; g < j; g++)
			rank[k[g].i] = mid;
	}
	free(k);
	return 0;
}

/* Exact null CDF of the signed-rank statistic W+ for n untied nonzero values: cdf[w] = P(W+ <= w),
 * w = 0..n(n+1)/2. Counts subsets of {1..n} by sum, one rank at a time. */
static double *signrank_cdf(size_t n)
{
	size_t top = n * (n + 1) / 2;
	double *c = calloc(top + 1, sizeof *c), scale = ldexp(1.0, -(int)n), acc = 0;

	if (!c)
		return NULL;
	c[0] = 1;
	for (size_t i = 1; i <= n; i++)
		for (size_t s = i * (i + 1) / 2; s >= i; s--)
			c[s] += c[s - i];
	for (size_t s = 0; s <= top; s++) {
		acc += c[s];
		c[s] = acc * scale;
	}
	return c;
}

/* Exact null CDF of the Mann-Whitney U for untied samples of sizes m and n: cdf[u] = P(U <= u),
 * u = 0..mn. The counts are the coefficients of the Gaussian binomial [m+n choose m]_q, built as
 * the product over i = 1..m of (1 - q^(n+i)) / (1 - q^i). */
static double *ranksum_cdf(size_t m, size_t n)
{
	size_t top = m * n, len = top + m + 1;
	double *c = calloc(len, sizeof *c), acc = 0, total = 0;

	if (!c)
		return NULL;
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t s = len - 1; s >= n + i; s--)
			c[s] -= c[s - n - i];
		for (size_t s = i; s < len; s++)
			c[s] += c[s - i];
	}
	for (size_t s = 0; s <= top; s++)
		total += c[s];
	for (size_t s = 0; s <= top; s++) {
		acc += c[s];
		c[s] = acc / total;
	}
	return c;
}

/* Rank k of the lower bound among the top sorted Walsh averages or differences, where the null
 * statistic S is symmetric on 0..top: the largest k with P(S <= k - 1) <= alpha / 2, kept within
 * 1..(top + 1) / 2. cdf is S's exact CDF, or NULL for the normal approximation with standard
 * deviation sd and continuity correction. *level = 1 - 2 P(S <= k - 1). */
static size_t bound_rank(const double *cdf, size_t top, double sd, double alpha, double *level)
{
	size_t kmax = (top + 1) / 2, k = 1;
	double tail, mu = (double)top / 2;

	if (cdf) {
		while (k < kmax && cdf[k] <= alpha / 2)
			k++;
		tail = cdf[k - 1];
	} else {
		double kf = floor(mu + 0.5 - stats_norm_quantile(1 - alpha / 2) * sd);
		k = kf < 1 ? 1 : kf > (double)kmax ? kmax : (size_t)kf;
		tail = stats_norm_cdf(((double)k - 0.5 - mu) / sd);
	}
	*level = fmax(0, 1 - 2 * tail);
	return k;
}

/* Two-sided p of a statistic symmetric about mu with the given variance, continuity-corrected. */
static double normal_p(double stat, double mu, double var)
{
	if (!(var > 0))
		return 1;
	return fmin(1, erfc(fmax(0, fabs(stat - mu) - 0.5) / sqrt(2 * var)));
}

/* Median of the m Walsh averages or differences: the middle one, or the mean of the middle two. */
static int hl_median(const struct hl_source *src, size_t m, double *out)
{
	size_t ranks[2] = {(m - 1) / 2, m / 2};
	double v[2];

	if (hl_select(src, ranks, 2, v) != 0)
		return -1;
	*out = m % 2 ? v[0] : 0.5 * (v[0] + v[1]);
	return 0;
}

int stats_hl_estimate(const double *x, size_t n, double *out)
{
	struct hl_source src = {x, NULL, n, 0};
	size_t m = hl_count(&src);

	if (m == 0 || !st_all_finite(x, n))
		return -1;
	return hl_median(&src, m, out);
}

/* The median of the m Walsh averages or differences and its bounds by bound_rank. */
static int order_interval(const struct hl_source *src, size_t m, const double *cdf, double sd,
                          double conf, struct stats_interval *out)
{
	double level, v[4];
	size_t k = bound_rank(cdf, m, sd, 1 - conf, &level);
	size_t ranks[4] = {(m - 1) / 2, m / 2, k - 1, m - k};

	if (hl_select(src, ranks, 4, v) != 0)
		return -1;
	out->est = m % 2 ? v[0] : 0.5 * (v[0] + v[1]);
	out->lo = v[2];
	out->hi = v[3];
	out->level = level;
	return 0;
}

int stats_hl_interval(const double *x, size_t n, double conf, struct stats_interval *out)
{
	struct hl_source src = {x, NULL, n, 0};
	size_t m = hl_count(&src);
	double *cdf = NULL;
	int rc;

	if (m == 0 || !st_valid_conf(conf) || !st_all_finite(x, n))
		return -1;
	if (n <= SIGNRANK_EXACT_MAX && !(cdf = signrank_cdf(n)))
		return -1;
	rc = order_interval(
	    &src, m, cdf, sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24), conf, out);
	free(cdf);
	return rc;
}

size_t stats_signrank_rank(size_t n, double conf, double *level)
{
	double *cdf = NULL;
	size_t k;

	if (n == 0 || !st_valid_conf(conf) || (n <= SIGNRANK_EXACT_MAX && !(cdf = signrank_cdf(n))))
		return 0;
	k = bound_rank(cdf, n * (n + 1) / 2,
	               sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24), 1 - conf, level);
	free(cdf);
	return k;
}

int stats_wilcoxon(const double *x, size_t n, double *w_plus, double *p)
{
	double *a, *rank, ties, w = 0;
	size_t m = 0;

	if (!st_all_finite(x, n) || !(a = malloc((2 * n + 1) * sizeof *a)))
		return -1;
	rank = a + n;
	for (size_t i = 0; i < n; i++)
		if (x[i] != 0)
			a[m++] = fabs(x[i]);
	if (m == 0) {
		free(a);
		*w_plus = 0;
		*p = 1;
		return 0;
	}
	if (st_midranks(a, m, rank, &ties) < 0) {
		free(a);
		return -1;
	}
	for (size_t i = 0, j = 0; i < n; i++) {
		if (x[i] == 0)
			continue;
		if (x[i] > 0)
			w += rank[j];
		j++;
	}
	free(a);
	double top = (double)m * (double)(m + 1) / 2;
	if (ties == 0 && m <= SIGNRANK_EXACT_MAX) {
		double *cdf = signrank_cdf(m);
		size_t wi = (size_t)w;

		if (!cdf)
			return -1;
		*p = fmin(1, 2 * fmin(cdf[wi], cdf[(size_t)top - wi]));
		free(cdf);
	} else {
		*p = normal_p(w, top / 2, top * (double)(2 * m + 1) / 12 - ties / 48);
	}
	*w_plus = w;
	return 0;
}

int stats_hl_shift_interval(const double *x, size_t nx, const double *y, size_t ny, double conf,
                            struct stats_interval *out)
{
	struct hl_source src = {x, y, nx, ny};
	size_t m = hl_count(&src);
	double *cdf = NULL;
	int rc;

	if (m == 0 || !st_valid_conf(conf) || !st_all_finite(x, nx) || !st_all_finite(y, ny))
		return -1;
	if (nx <= RANKSUM_EXACT_MAX && ny <= RANKSUM_EXACT_MAX && !(cdf = ranksum_cdf(nx, ny)))
		return -1;
	rc = order_interval(&src, m, cdf, sqrt((double)m * (double)(nx + ny + 1) / 12), conf, out);
	free(cdf);
	return rc;
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, double *u, double *p)
{
	size_t n = nx + ny;
	double *v, *rank, ties, ry = 0, top = (double)nx * (double)ny;

	if (nx == 0 || ny == 0 || !st_all_finite(x, nx) || !st_all_finite(y, ny))
		return -1;
	if (!(v = malloc(2 * n * sizeof *v)))
		return -1;
	rank = v + n;
	memcpy(v, x, nx * sizeof *v);
	memcpy(v + nx, y, ny * sizeof *v);
	if (st_midranks(v, n, rank, &ties) < 0) {
		free(v);
		return -1;
	}
	for (size_t i = nx; i < n; i++)
		ry += rank[i];
	free(v);
	double stat = ry - (double)ny * (double)(ny + 1) / 2;
	if (ties == 0 && nx <= RANKSUM_EXACT_MAX && ny <= RANKSUM_EXACT_MAX) {
		double *cdf = ranksum_cdf(nx, ny);
		size_t ui = (size_t)stat;

		if (!cdf)
			return -1;
		*p = fmin(1, 2 * fmin(cdf[ui], cdf[(size_t)top - ui]));
		free(cdf);
	} else {
		double nn = (double)n;
		*p = normal_p(stat, top / 2, top / 12 * (nn + 1 - ties / (nn * (nn - 1))));
	}
	*u = stat;
	return 0;
}

int stats_holm(const double *p, size_t m, double *adj)
{
	struct keyed *k;
	double run = 0;

	for (size_t i = 0; i < m; i++)
		if (!(p[i] >= 0 && p[i] <= 1))
			return -1;
	if (!(k = malloc((m ? m : 1) * sizeof *k)))
		return -1;
	for (size_t i = 0; i < m; i++)
		k[i] = (struct keyed){p[i], i};
	sort_keyed(k, m);
	for (size_t j = 0; j < m; j++) {
		run = fmax(run, (double)(m - j) * k[j].v);
		adj[k[j].i] = fmin(1, run);
	}
	free(k);
	return 0;
}
