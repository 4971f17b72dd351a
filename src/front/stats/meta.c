/* meta.c - random-effects meta-analysis of per-machine estimates (stats.h): DerSimonian-Laird
 * between-machine variance, the Hartung-Knapp-Sidik-Jonkman interval with its max(1, q) floor, I^2, the prediction
 * interval of Higgins, Thompson & Spiegelhalter, studentized deleted residuals, the standard error
 * a rank interval implies, and the Student t quantile they need. Method: docs/methodology.md, "A
 * fleet of machines". */
#include "front/stats/stats.h"

#include <math.h>

/* Student t density. */
static double t_pdf(double x, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) -
	           (df + 1) / 2 * log1p(x * x / df));
}

/* The lower-tail quantile for q < 1/2 (a negative t): Newton steps on stats_t_cdf from the
 * Cornish-Fisher start, kept inside a bracket that bisection narrows when a step leaves it. */
static double t_lower(double q, double df)
{
	double z = stats_norm_quantile(q), z3 = z * z * z;
	double x = z + (z3 + z) / (4 * df) + (5 * z3 * z * z + 16 * z3 + 3 * z) / (96 * df * df);
	double lo = x < 0 ? x : -1, hi = 0;

	while (stats_t_cdf(lo, df) > q && lo > -1e300)
		lo *= 2;
	if (!(x > lo && x < hi))
		x = (lo + hi) / 2;
	for (int i = 0; i < 200; i++) {
		double f = stats_t_cdf(x, df) - q, nx;

		if (f > 0)
			hi = x;
		else
			lo = x;
		nx = x - f / t_pdf(x, df);
		if (!(nx > lo && nx < hi))
			nx = (lo + hi) / 2;
		if (fabs(nx - x) <= 1e-15 * fabs(x) || hi - lo <= 1e-15 * fabs(x))
			return nx;
		x = nx;
	}
	return x;
}

double stats_t_quantile(double p, double df)
{
	if (isnan(p) || !(p >= 0 && p <= 1) || !(df > 0))
		return NAN;
	if (p == 0 || p == 1)
		return p == 0 ? -INFINITY : INFINITY;
	if (p == 0.5)
		return 0;
	if (df == 1)
		return tan(M_PI * (p - 0.5));
	if (df == 2)
		return (2 * p - 1) / sqrt(2 * p * (1 - p));
	return p < 0.5 ? t_lower(p, df) : -t_lower(1 - p, df);
}

double stats_interval_se(double lo, double hi, double level)
{
	double z = stats_norm_quantile((1 + level) / 2);

	if (!isfinite(lo) || !isfinite(hi) || hi < lo || !(level > 0 && level < 1))
		return NAN;
	return (hi - lo) / (2 * z);
}

static int usable(const double *y, const double *se, size_t k, size_t need)
{
	if (k < need)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (!isfinite(y[i]) || !isfinite(se[i]) || !(se[i] > 0))
			return 0;
	return 1;
}

/* DerSimonian-Laird on y[i], se[i] for i != skip (skip >= k: none): Cochran's Q, tau^2, the
 * random-effects mean and the sum of its weights. */
struct dl_fit {
	double q, tau2, mu, sw;
	size_t k;
};

static struct dl_fit dl(const double *y, const double *se, size_t k, size_t skip)
{
	struct dl_fit f = {0};
	double sw = 0, sw2 = 0, swy = 0, fe, c, swr = 0, swry = 0;

	for (size_t i = 0; i < k; i++) {
		double w = 1 / (se[i] * se[i]);
		if (i == skip)
			continue;
		sw += w;
		sw2 += w * w;
		swy += w * y[i];
		f.k++;
	}
	fe = swy / sw;
	for (size_t i = 0; i < k; i++)
		if (i != skip)
			f.q += (y[i] - fe) * (y[i] - fe) / (se[i] * se[i]);
	c = sw - sw2 / sw;
	f.tau2 = c > 0 ? fmax(0, (f.q - (double)(f.k - 1)) / c) : 0;
	for (size_t i = 0; i < k; i++) {
		double w = 1 / (se[i] * se[i] + f.tau2);
		if (i == skip)
			continue;
		swr += w;
		swry += w * y[i];
	}
	f.mu = swry / swr;
	f.sw = swr;
	return f;
}

int stats_meta_re(const double *y, const double *se, size_t k, double conf,
                  struct stats_meta *out)
{
	struct dl_fit f;
	double s = 0, t;

	if (!usable(y, se, k, 2) || !(conf > 0 && conf < 1))
		return -1;
	f = dl(y, se, k, k);
	for (size_t i = 0; i < k; i++)
		s += (y[i] - f.mu) * (y[i] - f.mu) / (se[i] * se[i] + f.tau2);
	*out = (struct stats_meta){.k = k, .mu = f.mu, .q = f.q, .tau2 = f.tau2, .level = conf};
	out->tau = sqrt(f.tau2);
	out->se_dl = 1 / sqrt(f.sw);
	out->q_hk = s / (double)(k - 1);
	out->se = sqrt(fmax(1, out->q_hk) / f.sw);
	out->i2 = f.q > 0 ? fmax(0, (f.q - (double)(k - 1)) / f.q) : 0;
	t = stats_t_quantile(1 - (1 - conf) / 2, (double)(k - 1));
	out->lo = f.mu - t * out->se;
	out->hi = f.mu + t * out->se;
	out->pi_lo = out->pi_hi = NAN;
	if (k >= 3) {
		t = stats_t_quantile(1 - (1 - conf) / 2, (double)(k - 2));
		out->pi_lo = f.mu - t * sqrt(f.tau2 + out->se_dl * out->se_dl);
		out->pi_hi = f.mu + t * sqrt(f.tau2 + out->se_dl * out->se_dl);
	}
	return 0;
}

int stats_meta_deleted(const double *y, const double *se, size_t k, double *t)
{
	if (!usable(y, se, k, 3))
		return -1;
	for (size_t i = 0; i < k; i++) {
		struct dl_fit f = dl(y, se, k, i);
		t[i] = (y[i] - f.mu) / sqrt(se[i] * se[i] + f.tau2 + 1 / f.sw);
	}
	return 0;
}

double stats_meta_odd_bound(double alpha, size_t k)
{
	if (!(alpha > 0 && alpha < 1) || k < 2)
		return NAN;
	return stats_t_quantile(1 - alpha / (2 * (double)k), (double)(k - 1));
}
