/* ttest.c - the tests read off Student's t: Spearman's rank correlation (the drift check) and
 * Welch's two-sample t; contracts in stats.h. */
#include "front/stats/stats.h"

#include "front/stats/statint.h"

#include <math.h>
#include <stdlib.h>

/* P(|T| >= |t|) for Student's T with df degrees of freedom. */
static double t_two_sided(double t, double df)
{
	return 2 * stats_t_cdf(-fabs(t), df);
}

int stats_spearman(const double *x, const double *y, size_t n, double *rho, double *p)
{
	double *rx, tx, ty, sxy = 0, sxx = 0, syy = 0, mid = (double)(n + 1) / 2, r;

	if (n < 2 || !st_all_finite(x, n) || !st_all_finite(y, n) ||
	    !(rx = malloc(2 * n * sizeof *rx)))
		return -1;
	if (st_midranks(x, n, rx, &tx) < 0 || st_midranks(y, n, rx + n, &ty) < 0) {
		free(rx);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		double dx = rx[i] - mid, dy = rx[n + i] - mid;
		sxy += dx * dy;
		sxx += dx * dx;
		syy += dy * dy;
	}
	free(rx);
	if (sxx == 0 || syy == 0) {
		*rho = 0;
		*p = 1;
		return 0;
	}
	r = fmax(-1, fmin(1, sxy / sqrt(sxx * syy)));
	*rho = r;
	if (n < 4)
		*p = 1;
	else if (1 - r * r <= 0)
		*p = 0;
	else
		*p = t_two_sided(r * sqrt((double)(n - 2) / (1 - r * r)), (double)(n - 2));
	return 0;
}

int stats_welch(const double *x, size_t nx, const double *y, size_t ny, double *t, double *df,
                double *p)
{
	double vx, vy, se2, diff;

	if (nx < 2 || ny < 2 || !st_all_finite(x, nx) || !st_all_finite(y, ny))
		return -1;
	vx = pow(stats_sd(x, nx), 2) / (double)nx;
	vy = pow(stats_sd(y, ny), 2) / (double)ny;
	se2 = vx + vy;
	diff = stats_mean(y, ny) - stats_mean(x, nx);
	if (se2 == 0) {
		*t = diff == 0 ? 0 : copysign(INFINITY, diff);
		*df = (double)(nx + ny - 2);
		*p = diff == 0 ? 1 : 0;
		return 0;
	}
	*t = diff / sqrt(se2);
	*df = se2 * se2 / (vx * vx / (double)(nx - 1) + vy * vy / (double)(ny - 1));
	*p = t_two_sided(*t, *df);
	return 0;
}
