/* twosample.c - two-sample location differences whose interval and test hold when the two
 * samples spread differently (docs/methodology.md, "Solo anchor rounds"): Welch's interval of the
 * difference of means and Yuen's of the difference of 20% trimmed means, each with the
 * Welch-Satterthwaite degrees of freedom, the p-value from the same t, so that the interval
 * excludes 0 at level conf exactly when p < 1 - conf. Contracts in stats.h. */
#include "front/stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One sample's part: its (trimmed) mean, the squared standard error of it, the values kept. */
struct part {
	double mean, d;
	size_t h;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Yuen's summary of x with g = floor(trim n) values cut from each end (g = 0: the mean and
 * s^2 / n): the mean of the n - 2g kept, and d = (n - 1) s_w^2 / (h (h - 1)) with s_w^2 the
 * variance of the sample winsorized at the same g. Returns 0, or -1 without memory. */
static int part_of(const double *x, size_t n, double trim, struct part *out)
{
	size_t g = (size_t)floor(trim * (double)n), h = n - 2 * g;
	double *v = malloc(n * sizeof *v), sum = 0, m = 0, ss = 0;

	if (!v)
		return -1;
	memcpy(v, x, n * sizeof *v);
	if (g > 0)
		qsort(v, n, sizeof *v, cmp_double);
	for (size_t i = g; i < n - g; i++)
		sum += v[i];
	for (size_t i = 0; i < n; i++)
		v[i] = v[i < g ? g : i >= n - g ? n - g - 1 : i];
	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	free(v);
	out->mean = sum / (double)h;
	out->d = ss / ((double)h * (double)(h - 1));
	out->h = h;
	return 0;
}

static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

static int trimmed_interval(const double *x, size_t nx, const double *y, size_t ny, double trim,
                            double conf, struct stats_twosample *out)
{
	struct part a, b;
	double se, diff, half;

	/* trim <= 0.2 keeps at least 2 of every n >= 2 */
	if (nx < 2 || ny < 2 || !(conf > 0 && conf < 1) || !all_finite(x, nx) || !all_finite(y, ny))
		return -1;
	if (part_of(x, nx, trim, &a) != 0 || part_of(y, ny, trim, &b) != 0)
		return -1;
	diff = b.mean - a.mean;
	se = sqrt(a.d + b.d);
	out->diff = (struct stats_interval){.est = diff, .lo = diff, .hi = diff, .level = conf};
	if (!(se > 0)) {
		out->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		out->df = (double)(a.h + b.h - 2);
		out->p = diff == 0 ? 1 : 0;
		return 0;
	}
	out->t = diff / se;
	out->df = (a.d + b.d) * (a.d + b.d) /
	          (a.d * a.d / (double)(a.h - 1) + b.d * b.d / (double)(b.h - 1));
	out->p = 2 * stats_t_cdf(-fabs(out->t), out->df);
	half = stats_t_quantile(1 - (1 - conf) / 2, out->df) * se;
	out->diff.lo = diff - half;
	out->diff.hi = diff + half;
	/* the verdict is the interval's: p is clamped so that p < 1 - conf exactly when the
	 * interval excludes 0, whatever the last bit of the two computations */
	if ((out->diff.lo > 0 || out->diff.hi < 0) != (out->p < 1 - conf))
		out->p = out->diff.lo > 0 || out->diff.hi < 0 ? nextafter(1 - conf, 0) : 1 - conf;
	return 0;
}

int stats_welch_interval(const double *x, size_t nx, const double *y, size_t ny, double conf,
                         struct stats_twosample *out)
{
	return trimmed_interval(x, nx, y, ny, 0, conf, out);
}

int stats_yuen_interval(const double *x, size_t nx, const double *y, size_t ny, double conf,
                        struct stats_twosample *out)
{
	return trimmed_interval(x, nx, y, ny, STATS_YUEN_TRIM, conf, out);
}
