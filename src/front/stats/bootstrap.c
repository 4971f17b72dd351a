/* bootstrap.c - the percentile bootstrap interval of any statistic, at one level or several from
 * one set of resamples (prng.h's generator, so a seed gives the same draws everywhere); contracts
 * in stats.h. */
#include "front/stats/stats.h"

#include "common/prng.h"
#include "front/stats/hlselect.h"
#include "front/stats/statint.h"

#include <math.h>
#include <stdlib.h>

int stats_bootstrap_levels(const double *x, size_t n, const struct stats_resampling *rs,
                           const double *conf, size_t k, struct stats_interval *out)
{
	const stats_statistic_fn stat = rs->stat;
	const uint32_t resamples = rs->resamples;
	double est, *buf = NULL, *draws = NULL;
	struct prng r;
	int rc = -1;

	if (n == 0 || !stat || resamples == 0 || k == 0 || !st_all_finite(x, n))
		return -1;
	for (size_t j = 0; j < k; j++)
		if (!st_valid_conf(conf[j]))
			return -1;
	if (stat(x, n, &est) != 0 || isnan(est))
		return -1;
	buf = malloc(n * sizeof *buf);
	draws = malloc(resamples * sizeof *draws);
	if (!buf || !draws)
		goto out;
	prng_seed(&r, rs->seed);
	for (uint32_t b = 0; b < resamples; b++) {
		for (size_t i = 0; i < n; i++)
			buf[i] = x[prng_below(&r, n)];
		if (stat(buf, n, &draws[b]) != 0 || isnan(draws[b]))
			goto out;
	}
	hl_sort(draws, resamples);
	for (size_t j = 0; j < k; j++) {
		double alpha = 1 - conf[j];
		out[j].est = est;
		out[j].lo = fmin(est, st_quantile_sorted(draws, resamples, alpha / 2));
		out[j].hi = fmax(est, st_quantile_sorted(draws, resamples, 1 - alpha / 2));
		out[j].level = conf[j];
	}
	rc = 0;
out:
	free(buf);
	free(draws);
	return rc;
}

int stats_bootstrap(const double *x, size_t n, const struct stats_resampling *rs, double conf,
                    struct stats_interval *out)
{
	return stats_bootstrap_levels(x, n, rs, &conf, 1, out);
}
