/* binomci.h - the Clopper-Pearson interval of a binomial proportion k/n, for the tools that
 * report the error rates of trials (famsim.c, steadysim.c). Header only. */
#ifndef ALLOCAB_BINOMCI_H
#define ALLOCAB_BINOMCI_H

#include <math.h>
#include <stddef.h>

/* P(X <= k) for X ~ Binomial(n, p). */
static inline double binomci_cdf(size_t k, size_t n, double p)
{
	double s = 0;

	if (p <= 0)
		return 1;
	if (p >= 1)
		return k >= n ? 1 : 0;
	for (size_t i = 0; i <= k; i++)
		s += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) +
		         (double)i * log(p) + (double)(n - i) * log1p(-p));
	return s;
}

/* The p at which binomci_cdf(k, n, p) = target (decreasing in p), by bisection to the double. */
static inline double binomci_solve(size_t k, size_t n, double target)
{
	double lo = 0, hi = 1;

	for (int it = 0; it < 100; it++) {
		double mid = (lo + hi) / 2;
		if (binomci_cdf(k, n, mid) > target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The two-sided Clopper-Pearson interval [*lo, *hi] of k successes in n > 0 trials at level
 * conf (0.95: each tail 2.5%). */
static inline void binomci_interval(size_t k, size_t n, double conf, double *lo, double *hi)
{
	*lo = k == 0 ? 0 : binomci_solve(k - 1, n, 1 - (1 - conf) / 2);
	*hi = k >= n ? 1 : binomci_solve(k, n, (1 - conf) / 2);
}

#endif
