/* test_twosample.c - Welch's two-sample interval of twosample.c (stats.h, stats_welch_interval)
 * and the solo anchor's rounds rule built on it (stats_anchor_rounds), on fixed data. Every
 * reference value was computed once, independently of this code, by a short Python script with
 * mpmath at 40 digits from the textbook formulas (Welch 1947: the means, the variances,
 * Welch-Satterthwaite df; the t CDF from mpmath's regularized incomplete beta, its quantile by
 * findroot), and is written here so the test needs nothing at run time. */
#include "check.h"
#include "front/stats/stats.h"

#include <math.h>

static const double shared8[] = {0.012, -0.004, 0.021, 0.003, -0.011, 0.008, 0.015, -0.002};
static const double solo7[] = {0.095, 0.031, 0.142, -0.027, 0.078, 0.114, 0.052};

static void check_ref(const struct stats_twosample *w, const double want[6], const char *what)
{
	static const char *const name[] = {"est", "lo", "hi", "t", "df", "p"};
	const double got[6] = {w->diff.est, w->diff.lo, w->diff.hi, w->t, w->df, w->p};

	for (int i = 0; i < 6; i++)
		CHECK(fabs(got[i] - want[i]) <= 1e-10 * fmax(1, fabs(want[i])), "%s: %s %.17g, want %.17g",
		      what, name[i], got[i], want[i]);
}

static void test_welch(void)
{
	struct stats_twosample w;
	static const double at95[] = {0.064035714285714286, 0.011847739099110562,
	                              0.11622368947231801,  2.9595962331183532,
	                              6.3799498285853573,   0.02352363555049724};
	static const double at9975[] = {0.064035714285714286, -0.040127231622915384,
	                                0.16819866019434396,  2.9595962331183532,
	                                6.3799498285853573,   0.02352363555049724};

	CHECK(stats_welch_interval(shared8, 8, solo7, 7, 0.95, &w) == 0, "welch: 8 and 7 values");
	check_ref(&w, at95, "welch at 95%");
	CHECK(w.diff.level == 0.95, "welch: level is conf (%g)", w.diff.level);
	CHECK(stats_welch_interval(shared8, 8, solo7, 7, 1 - 0.05 / 20, &w) == 0,
	      "welch at a family of 20's level");
	check_ref(&w, at9975, "welch at 1 - 0.05/20");

	/* the same t and p as the older stats_welch, which has no interval */
	double t, df, p;
	CHECK(stats_welch(shared8, 8, solo7, 7, &t, &df, &p) == 0 && fabs(t - w.t) < 1e-12 &&
	          fabs(df - w.df) < 1e-12 && fabs(p - w.p) < 1e-12,
	      "welch: t, df and p as stats_welch's");

	static const double c1[] = {1, 1, 1}, c2[] = {2, 2}, c3[] = {1, 1};
	CHECK(stats_welch_interval(c1, 3, c2, 2, 0.95, &w) == 0 && w.diff.lo == 1 && w.diff.hi == 1 &&
	          isinf(w.t) && w.p == 0 && w.df == 3,
	      "welch: constant samples apart: the point interval, p 0");
	CHECK(stats_welch_interval(c1, 3, c3, 2, 0.95, &w) == 0 && w.diff.lo == 0 && w.diff.hi == 0 &&
	          w.t == 0 && w.p == 1,
	      "welch: equal constant samples: [0, 0], p 1");
	CHECK(stats_welch_interval(shared8, 1, solo7, 7, 0.95, &w) == -1 &&
	          stats_welch_interval(shared8, 8, solo7, 7, 1, &w) == -1 &&
	          stats_welch_interval(shared8, 8, (const double[]){NAN, 1}, 2, 0.95, &w) == -1,
	      "welch: refuses n = 1, conf 1 and a NaN");
}

/* The interval and the p-value tell one verdict: solo7 shifted by -c for c across the range
 * where the 95% interval's lower bound crosses 0. */
static void test_consistent(void)
{
	size_t flips = 0;
	int last = -1;

	for (int k = 0; k <= 400; k++) {
		double y[7], c = 0.0001 * k;
		struct stats_twosample w;
		for (size_t j = 0; j < 7; j++)
			y[j] = solo7[j] - c;
		if (stats_welch_interval(shared8, 8, y, 7, 0.95, &w) != 0) {
			CHECK(0, "consistency: the interval failed at shift %g", c);
			return;
		}
		int excl = w.diff.lo > 0 || w.diff.hi < 0;
		if (excl != (w.p < 0.05)) {
			CHECK(0, "consistency: at shift %g the interval [%g, %g] and p %g disagree", c,
			      w.diff.lo, w.diff.hi, w.p);
			return;
		}
		flips += last >= 0 && excl != last;
		last = excl;
	}
	CHECK(flips == 1, "consistency: interval and p agree at 401 shifts, the verdict turns once "
	                  "(%zu)", flips);
}

static void test_anchor_rounds(void)
{
	/* the bench's plan: sds 0.05 shared, 0.13 solo, half the rounds solo, 10% at 80% power:
	 * 38 rounds, 19 each (at 37: 18 solo, 19 shared, df 21.70, (2.0756 + 0.8585) x 0.03272 =
	 * 0.0960 > ln 1.1 = 0.0953; at 38: df 23.21, (2.0676 + 0.8574) x 0.03195 = 0.0935) */
	CHECK(stats_anchor_rounds(0.05, 0.13, 0.5, log(1.1), 0.05, 0.8) == 38,
	      "anchor: 38 rounds (%zu)", stats_anchor_rounds(0.05, 0.13, 0.5, log(1.1), 0.05, 0.8));
	CHECK(stats_anchor_rounds(0.05, 0.13, 0.5, log(1.1), 0.025, 0.8) == 46,
	      "anchor: a family of 2, 46 rounds (%zu)",
	      stats_anchor_rounds(0.05, 0.13, 0.5, log(1.1), 0.025, 0.8));
	CHECK(stats_anchor_rounds(0.03, 0.11, 0.5, log(1.1), 0.05, 0.8) == 27,
	      "anchor at the middle sds (0.03, 0.11): 27 rounds (%zu)",
	      stats_anchor_rounds(0.03, 0.11, 0.5, log(1.1), 0.05, 0.8));
	CHECK(stats_anchor_rounds(0.001, 0.001, 0.5, 1, 0.05, 0.8) == 2 * STATS_WELCH_MIN_N,
	      "anchor: each set at least STATS_WELCH_MIN_N rounds (%zu)",
	      stats_anchor_rounds(0.001, 0.001, 0.5, 1, 0.05, 0.8));
	CHECK(stats_anchor_rounds(0.05, 0.13, 0.7, log(1.1), 0.05, 0.8) <
	          stats_anchor_rounds(0.05, 0.13, 0.5, log(1.1), 0.05, 0.8),
	      "anchor: more solo rounds, where the spread is, need fewer in all");
	CHECK(stats_anchor_rounds(0.05, 0.13, 0, log(1.1), 0.05, 0.8) == 0 &&
	          stats_anchor_rounds(0.05, 0.13, 1, log(1.1), 0.05, 0.8) == 0 &&
	          stats_anchor_rounds(0.05, 0.13, 0.5, 0, 0.05, 0.8) == 0,
	      "anchor: a share of 0 or 1, or no effect: 0");
}

int main(void)
{
	test_welch();
	test_consistent();
	test_anchor_rounds();
	return CHECK_DONE();
}
