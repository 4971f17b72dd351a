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

/* Student's t two-sided 1% critical value for df degrees of freedom (df >= 1). */
static double t_crit_1pct(size_t df)
{
	static const double t[] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355,
	                           3.250,  3.169, 3.106, 3.055, 3.012, 2.977, 2.947, 2.921,
	                           2.898,  2.878, 2.861, 2.845, 2.831, 2.819, 2.807, 2.797,
	                           2.787,  2.779, 2.771, 2.763, 2.756, 2.750};

	return df <= 30 ? t[df - 1] : df <= 60 ? 2.660 : 2.576;
}

/* Whether |d| / se is beyond the 1% critical value of df degrees of freedom and |d| beyond lim:
 * se 0 (no noise) leaves only the size. */
static int beyond(double d, double se, size_t df, double lim)
{
	return fabs(d) > lim && (se <= 0 || fabs(d) / se > t_crit_1pct(df));
}

/* Whether t[0..k) trends beyond its noise (steady.h, steady_spans); a non-positive or non-finite
 * time counts as a trend. */
static int steady_trend(const double *t, size_t k, double tol)
{
	double y[64], my = 0, sxy = 0, sxx = 0, ss = 0, b, rest = 0, sr = 0;
	double lim = log1p(tol), mx = (double)(k - 1) / 2;

	if (k < 3 || k > 64)
		return 0;
	for (size_t i = 0; i < k; i++) {
		if (!(t[i] > 0 && isfinite(t[i])))
			return 1;
		my += (y[i] = log(t[i])) / (double)k;
	}
	for (size_t i = 0; i < k; i++) {
		sxy += ((double)i - mx) * (y[i] - my);
		sxx += ((double)i - mx) * ((double)i - mx);
	}
	b = sxy / sxx;
	for (size_t i = 0; i < k; i++) {
		double e = y[i] - my - b * ((double)i - mx);
		ss += e * e;
	}
	if (beyond(b * (double)(k - 1), sqrt(ss / (double)(k - 2) / sxx) * (double)(k - 1), k - 2,
	           lim))
		return 1;
	for (size_t i = 1; i < k; i++)
		rest += y[i] / (double)(k - 1);
	for (size_t i = 1; i < k; i++)
		sr += (y[i] - rest) * (y[i] - rest) / (double)(k - 2);
	return beyond(y[0] - rest, sqrt(sr * (1 + 1.0 / (double)(k - 1))), k - 2, lim);
}

int steady_spans(const int64_t *ns, size_t n, const struct steady_rule *r,
                 enum steady_regime *g)
{
	size_t m = n - 1, first = m / 2, j = 0;
	double t[64];

	g[0] = STEADY_COLD;
	if (n < 2)
		return -1;
	for (size_t i = 0; i < m; i++)
		g[i + 1] = i >= first ? STEADY_STEADY : STEADY_WARMUP;
	for (size_t k = 1; k <= m && k <= first + r->window && !j && ns[k] > 0; k++)
		if (settled_prefix(ns + 1, k, r))
			j = k;
	if (j && j - r->window <= first)
		return 1;
	if (m - first < 3 || m - first > 64)
		return 0;
	for (size_t i = first; i < m; i++)
		t[i - first] = (double)ns[i + 1];
	return !steady_trend(t, m - first, r->tol);
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
