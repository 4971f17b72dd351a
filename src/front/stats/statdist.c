/* statdist.c - the distribution functions behind the tests in stats.c: normal CDF and quantile,
 * Student's t CDF and the F upper tail through the regularized incomplete beta function. Contracts in stats.h. */
#include "front/stats/stats.h"

#include <math.h>

/* Regularized incomplete beta I_x(a, b), y = 1 - x passed separately to keep its precision.
 * Continued fraction (Abramowitz & Stegun 26.5.8) evaluated by the modified Lentz method, on the
 * side of the symmetry I_x(a, b) = 1 - I_y(b, a) where it converges fast. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double num[2] = {m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
		                 -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))};
		double step = 1;

		for (int s = 0; s < 2; s++) {
			d = 1 + num[s] * d;
			c = 1 + num[s] / c;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = fabs(c) < tiny ? tiny : c;
			step = d * c;
			h *= step;
		}
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

static double beta_inc(double a, double b, double x, double y)
{
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, y) / b;
}

double stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

/* Acklam's rational approximation (relative error 1.15e-9), polished by one Halley step on
 * erfc, which brings it to about machine precision. */
double stats_norm_quantile(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
	                           -2.759285104469687e+02, 1.383577518672690e+02,
	                           -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
	                           -1.556989798598866e+02, 6.680131188771972e+01,
	                           -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
	                           -2.400758277161838e+00, -2.549732539343734e+00,
	                           4.374664141464968e+00,  2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
	                           2.445134137142996e+00, 3.754408661907416e+00};
	const double p_low = 0.02425;
	double x, q, r, e, u;

	if (!(p >= 0 && p <= 1))
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p < p_low || p > 1 - p_low) {
		q = sqrt(-2 * log(p < p_low ? p : 1 - p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
		if (p > p_low)
			x = -x;
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	e = (p < 0.5 ? stats_norm_cdf(x) - p : (1 - p) - stats_norm_cdf(-x));
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	tail = isinf(t) ? 0 : 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t), t * t / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats_f_sf(double f, double d1, double d2)
{
	if (isnan(f) || !(d1 > 0) || !(d2 > 0))
		return NAN;
	if (f <= 0)
		return 1;
	if (isinf(f))
		return 0;
	return beta_inc(d2 / 2, d1 / 2, d2 / (d2 + d1 * f), d1 * f / (d2 + d1 * f));
}
