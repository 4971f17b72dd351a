/* steady.c - the steady-state rule of steady.h. */
#include "common/steady.h"

#include <math.h>
#include <string.h>

struct steady_rule steady_default_rule(void)
{
	return (struct steady_rule){STEADY_WINDOW, STEADY_MIN_AFTER, STEADY_TOL};
}

/* Median of t[0..n), n <= 64, without touching t. */
static double median_small(const double *t, size_t n)
{
	double v[64];

	if (n > 64)
		n = 64;
	memcpy(v, t, n * sizeof *v);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int steady_is_settled(const double *t, size_t n, const struct steady_rule *r)
{
	size_t w = r->window;
	double lo = INFINITY, hi = 0;

	if (w < 1 || w > 64 || n < w || n < r->min_after)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(t[i] > 0 && isfinite(t[i])))
			return 0;
	for (size_t i = n - w; i < n; i++) {
		lo = t[i] < lo ? t[i] : lo;
		hi = t[i] > hi ? t[i] : hi;
	}
	if (hi / lo - 1 <= r->tol)
		return 1;
	if (n < 2 * w)
		return 0;
	lo = median_small(t + n - 2 * w, w);
	hi = median_small(t + n - w, w);
	return (hi > lo ? hi / lo : lo / hi) - 1 <= r->tol;
}

size_t steady_settled_at(const double *t, size_t n, const struct steady_rule *r)
{
	for (size_t j = 1; j <= n; j++)
		if (steady_is_settled(t, j, r))
			return j;
	return 0;
}

/* Whether the first k times of t (all positive) have settled by r, from their last 2 windows. */
static int settled_prefix(const int64_t *t, size_t k, const struct steady_rule *r)
{
	struct steady_rule q = *r;
	double v[128];
	size_t c = k < 2 * r->window ? k : 2 * r->window;

	if (k < r->min_after || r->window < 1 || r->window > 64)
		return 0;
	for (size_t i = 0; i < c; i++)
		v[i] = (double)t[k - c + i];
	q.min_after = 0;
	return steady_is_settled(v, c, &q);
}

int steady_spans(const int64_t *ns, size_t n, const struct steady_rule *r,
                 enum steady_regime *g)
{
	size_t m = n - 1, first = m / 2, j = 0;

	g[0] = STEADY_COLD;
	if (n < 2)
		return -1;
	for (size_t i = 0; i < m; i++)
		g[i + 1] = i >= first ? STEADY_STEADY : STEADY_WARMUP;
	for (size_t k = 1; k <= m && k <= first + r->window && !j && ns[k] > 0; k++)
		if (settled_prefix(ns + 1, k, r))
			j = k;
	return j && j - r->window <= first;
}

double steady_spans_mean(const int64_t *ns, const enum steady_regime *g, size_t n)
{
	double sum = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (g[i] == STEADY_STEADY)
			sum += (double)ns[i], k++;
	return k ? sum / (double)k : NAN;
}

void steady_assign(size_t nreps, const struct steady_rule *r, enum steady_regime *out)
{
	size_t steady = nreps > 1 ? nreps - 1 : 0;

	if (steady > r->window)
		steady = r->window;
	for (size_t i = 0; i < nreps; i++)
		out[i] = i == 0 ? STEADY_COLD : i >= nreps - steady ? STEADY_STEADY : STEADY_WARMUP;
}

static const char *const names[STEADY_NREGIMES] = {"cold", "warmup", "steady"};

const char *steady_regime_name(enum steady_regime g)
{
	return (unsigned)g < STEADY_NREGIMES ? names[g] : NULL;
}

int steady_regime_parse(const char *s)
{
	for (int i = 0; i < STEADY_NREGIMES; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}
