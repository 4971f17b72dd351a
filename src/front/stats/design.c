/* design.c - planning a bench (docs/statistics.md, "Minimum detectable effect", "Sequential
 * decisions", "Equivalence"): the effects and equivalence margins a number of rounds resolves,
 * the rounds an effect needs, fixed-n and sequential, and the fewest rounds any verdict needs.
 * Contracts in stats.h. */
#include "front/stats/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* Smallest n at which a two-sided signed-rank test can reach alpha at all: its smallest p-value
 * is 2 / 2^n. */
static size_t signrank_min_rounds(double alpha)
{
	size_t n = 1;

	while (ldexp(1.0, 1 - (int)n) > alpha)
		n++;
	return n;
}

static bool valid_design(double sd, double alpha, double power)
{
	return sd >= 0 && isfinite(sd) && alpha > 0 && alpha < 1 && power > 0 && power < 1;
}

static double mde_z(double alpha, double power)
{
	return fmax(0, stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile(power));
}

double stats_mde(double sd, size_t n, double alpha, double power)
{
	if (!valid_design(sd, alpha, power))
		return NAN;
	if (n < signrank_min_rounds(alpha))
		return INFINITY;
	return mde_z(alpha, power) * sd / sqrt((double)n * 3 / M_PI);
}

size_t stats_rounds_needed(double sd, double effect, double alpha, double power)
{
	size_t n, least;
	double need;

	if (!valid_design(sd, alpha, power) || !(effect > 0))
		return 0;
	least = signrank_min_rounds(alpha);
	if (least < 2)
		least = 2;
	need = ceil(pow(mde_z(alpha, power) * sd / effect, 2) * M_PI / 3);
	if (!(need < 1e15))
		return SIZE_MAX;
	n = need > (double)least ? (size_t)need : least;
	while (stats_mde(sd, n, alpha, power) > effect)
		n++;
	return n;
}

size_t stats_signrank_min_n(double alpha, size_t m)
{
	size_t n = 1;

	if (!(alpha > 0 && alpha < 1) || m == 0)
		return 0;
	while (2 * pow(2, -(double)n) > alpha / (double)m)
		n++;
	return n;
}

size_t stats_ranksum_min_n(double alpha, size_t m)
{
	size_t k = 1;

	if (!(alpha > 0 && alpha < 1) || m == 0)
		return 0;
	while (2 * exp(2 * lgamma((double)k + 1) - lgamma(2 * (double)k + 1)) > alpha / (double)m)
		k++;
	return k;
}

double stats_equiv_margin(double sd, size_t n, double alpha, double power)
{
	if (!valid_design(sd, alpha, power))
		return NAN;
	if (n < signrank_min_rounds(alpha))
		return INFINITY;
	return (stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile((1 + power) / 2)) * sd /
	       sqrt((double)n * 3 / M_PI);
}

/* The drift (effect over the standard error of a full plan) with stats_seq_power = power. */
static double drift_for(double alpha, double power)
{
	double lo = 0, hi = 64;

	for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
		double mid = 0.5 * (lo + hi);
		if (stats_seq_power(mid, alpha) < power)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* Whether the exact signed-rank interval of N observations can reach the last look's level at
 * all: its widest one has 1 - 2 / 2^N. */
static bool decidable(size_t N, double alpha)
{
	return N < 1024 ? ldexp(2.0, -(int)N) <= stats_seq_alpha_at(1, alpha) : 1;
}

double stats_seq_mde(double sd, size_t planned, double alpha, double power)
{
	if (!valid_design(sd, alpha, power))
		return NAN;
	if (planned == 0 || !decidable(planned, alpha))
		return INFINITY;
	return drift_for(alpha, power) * sd * sqrt(M_PI / 3) / sqrt((double)planned);
}

size_t stats_seq_rounds_needed(double sd, double effect, double alpha, double power)
{
	double need;
	size_t n = 2;

	if (!valid_design(sd, alpha, power) || !(effect > 0))
		return 0;
	need = ceil(pow(drift_for(alpha, power) * sd / effect, 2) * M_PI / 3);
	if (!(need < 1e15))
		return SIZE_MAX;
	if (need > (double)n)
		n = (size_t)need;
	while (stats_seq_mde(sd, n, alpha, power) > effect)
		n++;
	return n;
}

size_t stats_seq_min_planned(double alpha)
{
	size_t n = 1;

	if (!(alpha > 0 && alpha < 1))
		return 0;
	while (n < 1024 && !decidable(n, alpha))
		n++;
	return n;
}

size_t stats_anchor_rounds(double sd_shared, double sd_solo, double share, double effect,
                           double alpha, double power)
{
	double z, v;
	size_t n;

	if (!valid_design(sd_shared, alpha, power) || !valid_design(sd_solo, alpha, power) ||
	    !(share > 0 && share < 1) || !(effect > 0))
		return 0;
	z = mde_z(alpha, power);
	v = M_PI / 3 * (sd_shared * sd_shared / (1 - share) + sd_solo * sd_solo / share);
	if (!(z * z * v / (effect * effect) < 1e15))
		return SIZE_MAX;
	n = (size_t)ceil(z * z * v / (effect * effect));
	/* each set at least the fewest rounds whose exact Mann-Whitney can reach alpha */
	while ((double)n * share < (double)stats_ranksum_min_n(alpha, 1) ||
	       (double)n * (1 - share) < (double)stats_ranksum_min_n(alpha, 1))
		n++;
	return n;
}
