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

/* Whether n rounds, the solo ones floor(share n), give Welch's test of the two sets' means the
 * power asked: both sets at least STATS_WELCH_MIN_N, and (t_{df, 1-alpha/2} + t_{df, power}) se
 * <= effect with se and df Welch-Satterthwaite's at the planned sds. */
static bool anchor_enough(size_t n, const double sd[2], double share, double effect, double alpha,
                          double power)
{
	size_t so = (size_t)floor(share * (double)n), sh = n - so;
	double vx, vy, df;

	if (so < STATS_WELCH_MIN_N || sh < STATS_WELCH_MIN_N)
		return false;
	vx = sd[0] * sd[0] / (double)sh;
	vy = sd[1] * sd[1] / (double)so;
	if (!(vx + vy > 0))
		return true;
	df = (vx + vy) * (vx + vy) / (vx * vx / (double)(sh - 1) + vy * vy / (double)(so - 1));
	return (stats_t_quantile(1 - alpha / 2, df) + fmax(0, stats_t_quantile(power, df))) *
	           sqrt(vx + vy) <=
	       effect;
}

size_t stats_anchor_rounds(double sd_shared, double sd_solo, double share, double effect,
                           double alpha, double power)
{
	const double sd[2] = {sd_shared, sd_solo};
	double z, need;
	size_t n;

	if (!valid_design(sd_shared, alpha, power) || !valid_design(sd_solo, alpha, power) ||
	    !(share > 0 && share < 1) || !(effect > 0))
		return 0;
	/* the normal approximation is a lower bound: t quantiles exceed z ones */
	z = mde_z(alpha, power);
	need = z * z * (sd_shared * sd_shared / (1 - share) + sd_solo * sd_solo / share) /
	       (effect * effect);
	if (!(need < 1e12))
		return SIZE_MAX;
	for (n = need > 2 ? (size_t)need : 2; n < (size_t)1e13; n++)
		if (anchor_enough(n, sd, share, effect, alpha, power))
			return n;
	return SIZE_MAX;
}
