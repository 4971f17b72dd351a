/* test_steady.c - the steady-state rule (common/steady.h) on fixed series: agreement of the last
 * window, agreement of the last two windows' medians, the minimum, series that never settle, the
 * regimes assigned to the reps of a run, and those of a marked phase's spans (the same as the rule
 * applied prefix by prefix). */
#include "check.h"
#include "common/steady.h"

#include "common/prng.h"

#include <math.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof *(a))

/* Whether the k log times y trend (steady.h, steady_spans): the slope's t and the first against
 * the others' t, from sums, each beyond the 1% critical value crit and its change beyond lim. */
static int trend_reference(const double *y, size_t k, double crit, double lim)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, b, se, o = 0, oo = 0, d;

	for (size_t i = 0; i < k; i++) {
		sx += (double)i, sy += y[i], sxx += (double)i * (double)i;
		sxy += (double)i * y[i], syy += y[i] * y[i];
	}
	b = (k * sxy - sx * sy) / (k * sxx - sx * sx);
	se = sqrt(fmax(0, (syy - sy * sy / k) - b * (sxy - sx * sy / k)) / (k - 2) /
	          (sxx - sx * sx / k));
	if (fabs(b) * (k - 1) > lim && (se == 0 || fabs(b) / se > crit))
		return 1;
	for (size_t i = 1; i < k; i++)
		o += y[i], oo += y[i] * y[i];
	d = y[0] - o / (k - 1);
	se = sqrt(fmax(0, oo - o * o / (k - 1)) / (k - 2) * (1 + 1.0 / (k - 1)));
	return fabs(d) > lim && (se == 0 || fabs(d) / se > crit);
}

/* steady_spans written out: the last half of the spans after the cold one steady, settled when
 * the first prefix steady_settled_at finds ends its window no later than that half begins, or
 * when 3 to 20 steady spans show no trend (1% critical values of t for 1 to 18 df). */
static int spans_reference(const int64_t *ns, size_t n, const struct steady_rule *r,
                           enum steady_regime *g)
{
	static const double crit[] = {63.657, 9.925, 5.841, 4.604, 4.032, 3.707,
	                              3.499,  3.355, 3.250, 3.169, 3.106, 3.055,
	                              3.012,  2.977, 2.947, 2.921, 2.898, 2.878};
	double t[64], y[64];
	size_t m = n - 1, j, k = (m + 1) / 2;

	g[0] = STEADY_COLD;
	if (n < 2)
		return -1;
	for (size_t i = 0; i < m; i++) {
		t[i] = (double)ns[i + 1];
		g[i + 1] = i >= m - k ? STEADY_STEADY : STEADY_WARMUP;
	}
	j = steady_settled_at(t, m, r);
	if (j && j - r->window <= m - k)
		return 1;
	if (k < 3 || k > 20)
		return k > 20 ? -2 : 0;
	for (size_t i = 0; i < k; i++) {
		if (t[m - k + i] <= 0)
			return 0;
		y[i] = log(t[m - k + i]);
	}
	return !trend_reference(y, k, crit[k - 3], log1p(r->tol));
}

/* Fixed series of 8 spans: a short warm-up settles before the steady half, a long one does not;
 * the labels are the same; the steady time is the mean of the last 4. */
static void spans_fixed(void)
{
	struct steady_rule r = steady_default_rule();
	const int64_t quick[] = {300, 200, 100, 101, 102, 100, 99, 101};
	const int64_t slow[] = {300, 200, 180, 160, 140, 100, 101, 102};
	const enum steady_regime want[] = {STEADY_COLD,   STEADY_WARMUP, STEADY_WARMUP,
	                                   STEADY_WARMUP, STEADY_STEADY, STEADY_STEADY,
	                                   STEADY_STEADY, STEADY_STEADY};
	enum steady_regime a[8], b[8], c[5];
	const int64_t five[] = {9, 8, 7, 6, 5}, two[] = {9, 8};
	const int64_t flat[] = {300, 110, 90, 105, 95, 112, 91, 104};
	const int64_t falls[] = {300, 200, 180, 160, 140, 125, 112, 100};
	const int64_t rises[] = {300, 100, 112, 95, 100, 111, 119, 131};

	CHECK(steady_spans(quick, 8, &r, a) == 1 && memcmp(a, want, sizeof a) == 0,
	      "8 spans, warm-up of one: settled, the last 4 steady");
	CHECK(steady_spans(slow, 8, &r, b) == 0 && memcmp(b, want, sizeof b) == 0,
	      "8 spans, warm-up into the last half: not settled, the same last 4 steady");
	CHECK(steady_spans_mean(quick, a, 8) == 100.5 && steady_spans_mean(slow, b, 8) == 110.75,
	      "the steady time is the mean of the steady spans");
	CHECK(
	    steady_spans(flat, 8, &r, a) == 1,
	    "8 spans, flat but noisy (the rule never met): settled, the steady half has no trend");
	CHECK(steady_spans(falls, 8, &r, a) == 0,
	      "8 spans, still falling 10%% a span through the steady half: not settled");
	CHECK(steady_spans(rises, 8, &r, a) == 0,
	      "8 spans, rising through a noisy steady half (fragmentation): not settled");
	CHECK(steady_spans(five, 5, &r, c) == 0 && c[2] == STEADY_WARMUP && c[3] == STEADY_STEADY &&
	          c[4] == STEADY_STEADY,
	      "5 spans: the last 2 of the 4 after the cold one steady");
	CHECK(steady_spans(two, 2, &r, c) == 0 && c[1] == STEADY_STEADY,
	      "2 spans: the second steady, never settled");
	c[0] = STEADY_COLD;
	CHECK(isnan(steady_spans_mean(two, c, 1)), "no steady span: no steady time");
}

/* Random series of 1 to 40 spans, some with a trend, some with a zero: the same regimes. */
static void spans(void)
{
	struct steady_rule r = steady_default_rule();
	struct prng p;
	enum steady_regime a[41], b[41];
	int64_t ns[41];
	int same = 1;

	prng_seed(&p, 7);
	for (int trial = 0; trial < 3000; trial++) {
		size_t n = 1 + prng_next(&p) % 40;
		for (size_t i = 0; i < n; i++)
			ns[i] = 1000 + (int64_t)(prng_next(&p) % 120) - (trial % 3 ? 0 : 20 * (int64_t)i);
		if (trial % 17 == 0)
			ns[n / 2] = 0;
		same &= steady_spans(ns, n, &r, a) == spans_reference(ns, n, &r, b) &&
		        memcmp(a, b, n * sizeof *a) == 0;
	}
	CHECK(same, "steady_spans agrees with its reference (3000 series)");
	ns[0] = 5;
	CHECK(steady_spans(ns, 1, &r, a) == -1 && a[0] == STEADY_COLD,
	      "one span: cold, no steady regime");
}

/* 2000 runs of 8 spans each, log-normal noise of sd 10% around a flat level (no warm-up): the
 * settled rule holds on nearly all (each of its two tests is at 1%); with a fall of 8% a span and
 * 3% noise, 4 steady spans (2 degrees of freedom) find it in about a third of the runs, and a fall
 * of 8% a span with 1% noise in nearly every one. */
static void spans_rates(void)
{
	struct steady_rule r = steady_default_rule();
	struct prng p;
	enum steady_regime g[8];
	int64_t ns[8];
	int flat = 0, falling = 0, clear = 0;

	prng_seed(&p, 11);
	for (int trial = 0; trial < 2000; trial++) {
		for (size_t i = 0; i < 8; i++)
			ns[i] = llround(1e6 * exp(0.1 * prng_normal(&p)) * (i ? 1 : 3));
		flat += steady_spans(ns, 8, &r, g) == 0;
		for (size_t i = 0; i < 8; i++)
			ns[i] = llround(1e6 * exp(0.03 * prng_normal(&p) - 0.08 * (double)i));
		falling += steady_spans(ns, 8, &r, g) == 0;
		for (size_t i = 0; i < 8; i++)
			ns[i] = llround(1e6 * exp(0.01 * prng_normal(&p) - 0.08 * (double)i));
		clear += steady_spans(ns, 8, &r, g) == 0;
	}
	CHECK(flat <= 60, "flat with 10%% noise: at most 3%% of 2000 runs unsettled (%d)", flat);
	CHECK(falling >= 500, "falling 8%% a span, 3%% noise: a quarter or more unsettled (%d)",
	      falling);
	CHECK(clear >= 1900, "falling 8%% a span, 1%% noise: 95%% or more unsettled (%d)", clear);
}

int main(void)
{
	struct steady_rule r = steady_default_rule();
	static const double warm[] = {18.1, 16.2, 16.6, 16.4};
	static const double quick[] = {14.7, 14.9, 14.4};
	static const double scatter[] = {20, 16, 18, 20, 16.5, 18.2};
	static const double falling[] = {100, 90, 81, 73, 66, 59, 53, 48, 43, 39, 35, 31};
	static const double rising[] = {72, 72.4, 77.5, 81, 92, 115};
	static const double bad[] = {10, 10, NAN, 10, 10, 10};
	enum steady_regime g[8];

	CHECK(r.window == 3 && r.min_after == 3 && r.tol == 0.05, "default rule: 3, 3, 5%%");
	/* 16.2, 16.6, 16.4: max/min - 1 = 2.5% */
	CHECK(steady_settled_at(warm, N(warm), &r) == 4, "warm-up then agreement: settled at 4");
	CHECK(!steady_is_settled(warm, 3, &r), "18.1, 16.2, 16.6 (12%%) is not settled");
	CHECK(steady_settled_at(quick, N(quick), &r) == 3,
	      "agreement at the minimum: settled at 3");
	CHECK(!steady_is_settled(quick, 2, &r), "below the minimum of 3 reps: never settled");
	/* every window spreads 21-25%; at 6 the medians 18 and 18.2 agree (1.1%) */
	CHECK(steady_settled_at(scatter, 5, &r) == 0, "scatter of 21-25%% in 5 reps: not settled");
	CHECK(steady_settled_at(scatter, N(scatter), &r) == 6,
	      "scatter without trend: the medians of two windows agree, settled at 6");
	CHECK(steady_settled_at(falling, N(falling), &r) == 0,
	      "a 10%% fall per rep never settles (12 reps)");
	CHECK(steady_settled_at(rising, N(rising), &r) == 0,
	      "a rise (fragmentation) is a trend, not a steady state");
	CHECK(steady_settled_at(bad, N(bad), &r) == 0, "a NaN time never settles");
	r.tol = 0;
	CHECK(!steady_is_settled(quick, 3, &r), "tolerance 0: distinct times never agree");
	r.tol = 0.05;

	steady_assign(1, &r, g);
	CHECK(g[0] == STEADY_COLD, "one rep: cold only");
	steady_assign(3, &r, g);
	CHECK(g[0] == STEADY_COLD && g[1] == STEADY_STEADY && g[2] == STEADY_STEADY,
	      "three reps: cold, then the last two steady");
	steady_assign(7, &r, g);
	CHECK(g[0] == STEADY_COLD && g[1] == STEADY_WARMUP && g[3] == STEADY_WARMUP &&
	          g[4] == STEADY_STEADY && g[6] == STEADY_STEADY,
	      "seven reps: cold, 3 warm-up, 3 steady");
	CHECK(steady_regime_parse("steady") == STEADY_STEADY && steady_regime_parse("hot") == -1 &&
	          steady_regime_name(STEADY_WARMUP)[0] == 'w',
	      "regime names");
	spans();
	spans_fixed();
	spans_rates();
	return CHECK_DONE();
}
