/* twosample.c - a two-sample difference of location whose interval and test hold when the two
 * samples spread differently (docs/methodology.md, "Solo anchor rounds"): Welch's interval of the
 * difference of means with the Welch-Satterthwaite degrees of freedom, the p-value from the same
 * t, so that the interval excludes 0 at level conf exactly when p < 1 - conf. Contracts in
 * stats.h. */
#include "front/stats/stats.h"

#include <math.h>

/* One sample's part: its mean and the squared standard error of it, s^2 / n. */
struct part {
	double mean, d;
	size_t n;
};

static void part_of(const double *x, size_t n, struct part *out)
{
	double sd = stats_sd(x, n);

	out->mean = stats_mean(x, n);
	out->d = sd * sd / (double)n;
	out->n = n;
}

static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

int stats_welch_interval(const double *x, size_t nx, const double *y, size_t ny, double conf,
                         struct stats_twosample *out)
{
	struct part a, b;
	double se, diff, half;

	if (nx < 2 || ny < 2 || !(conf > 0 && conf < 1) || !all_finite(x, nx) || !all_finite(y, ny))
		return -1;
	part_of(x, nx, &a);
	part_of(y, ny, &b);
	diff = b.mean - a.mean;
	se = sqrt(a.d + b.d);
	out->diff = (struct stats_interval){.est = diff, .lo = diff, .hi = diff, .level = conf};
	if (!(se > 0)) {
		out->t = diff == 0 ? 0 : copysign(INFINITY, diff);
		out->df = (double)(a.n + b.n - 2);
		out->p = diff == 0 ? 1 : 0;
		return 0;
	}
	out->t = diff / se;
	out->df = (a.d + b.d) * (a.d + b.d) /
	          (a.d * a.d / (double)(a.n - 1) + b.d * b.d / (double)(b.n - 1));
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
