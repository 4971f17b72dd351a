/* seqci.c - sequential decisions (docs/methodology.md, "Sequential decisions"): the per-look level
 * that keeps the rank intervals valid when they are looked at after every round up to a planned
 * number of rounds, and what that plan can detect. Contracts in stats.h. */
#include "front/stats/stats.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* Upper normal tail 1 - Phi(x), accurate far out. */
static double upper_tail(double x)
{
	return 0.5 * erfc(x / M_SQRT2);
}

/* P(sup_{0<=t<=1} |B_t| >= c) for standard Brownian motion: 4 sum_{j>=0} (-1)^j Q((2j+1)c)
 * (reflection at both barriers). */
static double cross_prob(double c)
{
	double p = 0;

	for (int j = 0; j < 64; j++) {
		double term = upper_tail((2 * j + 1) * c);
		p += j % 2 ? -term : term;
		if (term < 1e-300)
			break;
	}
	return 4 * p;
}

double stats_seq_boundary(double alpha)
{
	double lo = 0.05, hi = 40;

	if (!(alpha > 0 && alpha < 1))
		return NAN;
	for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
		double mid = 0.5 * (lo + hi);
		if (cross_prob(mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double stats_seq_alpha_at(double frac, double alpha)
{
	double c = stats_seq_boundary(alpha);

	if (isnan(c) || !(frac > 0 && frac <= 1 + 1e-12))
		return 0;
	return 2 * upper_tail(c / sqrt(fmin(frac, 1)));
}

double stats_seq_spent(const struct stats_seq_plan *p, double alpha)
{
	return p && p->share > 0 && p->share < 1 ? alpha * p->share : alpha;
}

double stats_seq_alpha(const struct stats_seq_plan *p, size_t n, double alpha)
{
	if (!p || p->planned == 0 || n == 0 || n < p->first_look || n > p->planned)
		return 0;
	return stats_seq_alpha_at((double)n / (double)p->planned, stats_seq_spent(p, alpha));
}

int stats_seq_extend(struct stats_seq_plan *p)
{
	if (!p || !(p->share > 0 && p->share < 1) || p->planned == 0 || p->planned > SIZE_MAX / 2)
		return -1;
	p->planned *= 2;
	p->share *= 1 - SEQ_FIRST_SHARE;
	return 0;
}

/* The signed-rank interval at the nominal two-sided level alpha_n: *asked = 1 - alpha_n, or 1
 * when alpha_n is 0 (no decision at this look); the interval is then the widest one. */
static int interval_at(const double *x, size_t n, double alpha_n, struct stats_interval *out,
                       double *asked)
{
	double conf = alpha_n > 0 ? 1 - alpha_n : 1;

	if (asked)
		*asked = conf;
	return stats_hl_interval(x, n, fmin(conf, 1 - DBL_EPSILON), out);
}

int stats_seq_interval(const double *x, size_t n, const struct stats_seq_plan *p, double alpha,
                       struct stats_interval *out, double *asked)
{
	if (!p || !(alpha > 0 && alpha < 1))
		return -1;
	return interval_at(x, n, stats_seq_alpha(p, n, alpha), out, asked);
}

/* Q(x) / phi(x) (Mills' ratio) for x >= 5, by its continued fraction. */
static double mills(double x)
{
	double f = x;

	for (int k = 60; k >= 1; k--)
		f = x + k / f;
	return 1 / f;
}

double stats_seq_power(double drift, double alpha)
{
	double c = stats_seq_boundary(alpha), second;

	if (isnan(c) || !isfinite(drift))
		return NAN;
	/* P(sup_{t<=1} B_t + drift t >= c) = Q(c - drift) + e^{2 drift c} Q(c + drift); for large
	 * c + drift the second term as exp(-(c - drift)^2 / 2) mills(c + drift) / sqrt(2 pi), which
	 * cannot overflow. */
	if (c + drift < 5)
		second = exp(2 * drift * c) * upper_tail(c + drift);
	else
		second = exp(-(c - drift) * (c - drift) / 2) * mills(c + drift) / sqrt(2 * M_PI);
	return fmin(1, upper_tail(c - drift) + second);
}

size_t stats_seq_first_decision(const struct stats_seq_plan *p, double alpha)
{
	for (size_t n = p && p->first_look ? p->first_look : 1; p && n <= p->planned; n++) {
		double a = stats_seq_alpha(p, n, alpha);
		if (n >= 1024 || (a > 0 && ldexp(2.0, -(int)n) <= a))
			return n;
	}
	return 0;
}
