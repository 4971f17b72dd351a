/* test_stats.c - stats.c on fixed data. Reference values come from published critical-value
 * tables, hand computation, or an independent Python script (brute-force enumeration of rank
 * configurations, mpmath for distributions) run once by the author; the numbers are written here
 * so the test needs nothing at run time. */
#include "check.h"
#include "front/stats/stats.h"

#include <string.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static int failing_stat(const double *x, size_t n, double *out)
{
	(void)x;
	(void)n;
	(void)out;
	return -1;
}

static int mean_stat(const double *x, size_t n, double *out)
{
	*out = stats_mean(x, n);
	return 0;
}

/* Two-sided p for a sample of magnitudes 1..n whose negative ranks sum to w_minus (chosen
 * greedily from the top), so that W- = w_minus. */
static double signrank_p_at(size_t n, unsigned w_minus)
{
	double x[64], wp, p;

	for (size_t i = 0; i < n; i++)
		x[i] = (double)(i + 1);
	for (size_t i = n; i-- > 0 && w_minus;)
		if (i + 1 <= w_minus) {
			x[i] = -x[i];
			w_minus -= (unsigned)(i + 1);
		}
	if (stats_wilcoxon(x, n, &wp, &p) != 0)
		return -1;
	return p;
}

static void test_summaries(void)
{
	double x[] = {5, 1, 4, 2, 3}, even[] = {4, 1, 3, 2}, nan_in[] = {1, NAN, 3};

	CHECK_NEAR(stats_median(x, 5), 3, 0, "median odd");
	CHECK_NEAR(stats_median(even, 4), 2.5, 0, "median even");
	CHECK(x[0] == 5 && x[4] == 3, "median leaves x alone");
	CHECK(isnan(stats_median(x, 0)), "median n=0 is NAN");
	CHECK(isnan(stats_median(nan_in, 3)), "median with NaN is NAN");
	/* type 7: h = (5-1)*0.3 = 1.2 -> 2 + 0.2 * (3 - 2) */
	CHECK_NEAR(stats_quantile(x, 5, 0.3), 2.2, 1e-15, "quantile type 7");
	CHECK_NEAR(stats_quantile(x, 5, 1), 5, 0, "quantile q=1");
	CHECK(isnan(stats_quantile(x, 5, 1.5)), "quantile q outside [0,1] is NAN");
	CHECK_NEAR(stats_mean(x, 5), 3, 0, "mean");
	CHECK(isnan(stats_mean(x, 0)), "mean n=0 is NAN");
	CHECK_NEAR(stats_sd(x, 5), sqrt(2.5), 1e-15, "sd (n-1 denominator)");
	CHECK(stats_sd(x, 1) == 0, "sd n=1 is 0");
	/* |x - 3| = {2,2,1,1,0} -> median 1 */
	CHECK_NEAR(stats_mad(x, 5), 1.4826, 1e-15, "mad");
}

static void test_wilcoxon_tables(void)
{
	/* Published two-sided 0.05 critical values of the signed-rank T; exact tail counts
	 * (subsets of {1..n} with sum <= T, enumerated): n=6 T=0: 1/64; n=8 T=3: 5/256;
	 * n=10 T=8: 25/1024 (T=9: 33/1024); n=12 T=13: 87/4096; n=15 T=25: 785/32768;
	 * n=20 T=52: 25397/1048576. Two-sided p is twice that. */
	CHECK_NEAR(signrank_p_at(6, 0), 2.0 / 64, 1e-15, "wilcoxon n=6 T=0 p = 2/64");
	CHECK_NEAR(signrank_p_at(8, 3), 10.0 / 256, 1e-15, "wilcoxon n=8 T=3 p = 10/256");
	CHECK_NEAR(signrank_p_at(10, 8), 50.0 / 1024, 1e-15, "wilcoxon n=10 T=8 p = 0.048828125");
	CHECK_NEAR(signrank_p_at(10, 9), 66.0 / 1024, 1e-15, "wilcoxon n=10 T=9 p above 0.05");
	CHECK_NEAR(signrank_p_at(12, 13), 174.0 / 4096, 1e-15, "wilcoxon n=12 T=13");
	CHECK_NEAR(signrank_p_at(15, 25), 1570.0 / 32768, 1e-15, "wilcoxon n=15 T=25");
	CHECK_NEAR(signrank_p_at(20, 52), 50794.0 / 1048576, 1e-15, "wilcoxon n=20 T=52");
	CHECK_NEAR(signrank_p_at(5, 0), 2.0 / 32, 1e-15, "wilcoxon n=5 cannot reach 0.05");
	/* the largest exact case, n = 50, T = 434 (table); count by an independent Python DP */
	CHECK_NEAR(signrank_p_at(50, 434), 2 * 27835852405250.0 / 1125899906842624.0, 1e-15,
	           "wilcoxon n=50 T=434 exact");
}

static void test_wilcoxon_data(void)
{
	/* |x| ranks: 0.1->1 0.2->2 0.3->3 0.5->4 ...; negatives hold ranks 1,2,4: W- = 7, W+ = 48,
	 * P(W <= 7) = 19/1024 for n = 10. */
	double x[] = {0.3, -0.5, 1.1, -0.2, 0.9, 1.4, -0.1, 0.7, 0.8, 1.2};
	/* ties: |x| has groups 1 (x3), 2 (x2), 3 (x3) -> sum t^3-t = 54; W+ = 48.5; normal p with
	 * tie and continuity correction, from the Python reference */
	double tied[] = {1, 1, 2, -2, 3, 3, 3, 4, -1, 5};
	double zeros[] = {0, 0, 0}, with_zeros[] = {0, 0.5, 0, -0.25, 1, 2, 3, 4, 5, 6, 0};
	double same[] = {0.2, 0.2, 0.2, 0.2, 0.2}, one[] = {0.5}, bad[] = {1, INFINITY};
	double w = -1, p = -1;

	CHECK(stats_wilcoxon(x, LEN(x), &w, &p) == 0 && w == 48, "wilcoxon W+ = 48 (got %g)", w);
	CHECK_NEAR(p, 38.0 / 1024, 1e-15, "wilcoxon exact p on data");
	CHECK(stats_wilcoxon(tied, LEN(tied), &w, &p) == 0 && w == 48.5, "wilcoxon tied W+ = 48.5");
	CHECK_NEAR(p, 0.035564379058193665, 1e-12, "wilcoxon tied p (normal, tie-corrected)");
	CHECK(stats_wilcoxon(zeros, LEN(zeros), &w, &p) == 0 && w == 0 && p == 1,
	      "wilcoxon all zeros: W+ 0, p 1");
	CHECK(stats_wilcoxon(x, 0, &w, &p) == 0 && w == 0 && p == 1, "wilcoxon n=0: p 1");
	/* zeros dropped: n = 8 left, only -0.25 (rank 1) negative -> W- = 1, p = 2*2/256 */
	CHECK(stats_wilcoxon(with_zeros, LEN(with_zeros), &w, &p) == 0 && w == 35,
	      "wilcoxon drops zeros (W+ = 35, got %g)", w);
	CHECK_NEAR(p, 4.0 / 256, 1e-15, "wilcoxon p after dropping zeros");
	/* all tied, n = 5: W+ = 15, var = 13.75 - 120/48 = 11.25, z = 7/sqrt(11.25) */
	CHECK(stats_wilcoxon(same, LEN(same), &w, &p) == 0 && w == 15, "wilcoxon all ties W+ 15");
	CHECK_NEAR(p, 0.03688842570704988, 1e-12, "wilcoxon all ties p (normal)");
	CHECK(stats_wilcoxon(one, 1, &w, &p) == 0 && w == 1 && p == 1, "wilcoxon n=1: p 1");
	w = 7;
	CHECK(stats_wilcoxon(bad, 2, &w, &p) == -1 && w == 7, "wilcoxon rejects infinity");
}

static void test_hl(void)
{
	/* Walsh averages of {1,2,4}: 1, 1.5, 2, 2.5, 3, 4 -> median 2.25 */
	double small[] = {1, 2, 4}, est = 0;
	double x[] = {0.3, -0.5, 1.1, -0.2, 0.9, 1.4, -0.1, 0.7, 0.8, 1.2};
	double x8[] = {2.1, -0.4, 1.3, 0.2, 3.3, 0.8, -1.5, 1.9};
	double same[] = {0.2, 0.2, 0.2, 0.2}, one[] = {0.7}, nan_in[] = {1, NAN};
	struct stats_interval ci = {0};

	CHECK(stats_hl_estimate(small, 3, &est) == 0, "hl estimate returns 0");
	CHECK_NEAR(est, 2.25, 0, "hl estimate {1,2,4}");
	CHECK(stats_hl_estimate(small, 0, &est) == -1, "hl estimate n=0 fails");
	CHECK(stats_hl_estimate(nan_in, 2, &est) == -1, "hl estimate rejects NaN");

	/* n = 10, 95%: k = 9 (P(W <= 8) = 25/1024 <= 0.025 < P(W <= 9) = 33/1024), so the bounds
	 * are the 9th smallest and 9th largest of the 55 Walsh averages (enumerated): 0.1 and 1.05;
	 * achieved level 1 - 50/1024. */
	CHECK(stats_hl_interval(x, LEN(x), 0.95, &ci) == 0, "hl interval n=10");
	CHECK_NEAR(ci.est, 0.55, 1e-12, "hl interval est n=10");
	CHECK_NEAR(ci.lo, 0.1, 1e-12, "hl interval lo n=10");
	CHECK_NEAR(ci.hi, 1.05, 1e-12, "hl interval hi n=10");
	CHECK_NEAR(ci.level, 1 - 50.0 / 1024, 1e-15, "hl interval achieved level n=10");
	/* n = 8, 90%: k = 6 (P(W <= 5) = 10/256 <= 0.05); enumerated bounds -0.1 and 2.05 */
	CHECK(stats_hl_interval(x8, LEN(x8), 0.90, &ci) == 0, "hl interval n=8");
	CHECK_NEAR(ci.est, 0.975, 1e-12, "hl interval est n=8");
	CHECK_NEAR(ci.lo, -0.1, 1e-12, "hl interval lo n=8");
	CHECK_NEAR(ci.hi, 2.05, 1e-12, "hl interval hi n=8");
	CHECK_NEAR(ci.level, 1 - 20.0 / 256, 1e-15, "hl interval level n=8");
	/* n = 3 cannot reach 95%: extremes, level 1 - 2/8 */
	CHECK(stats_hl_interval(small, 3, 0.95, &ci) == 0 && ci.lo == 1 && ci.hi == 4,
	      "hl interval too few points: extreme Walsh averages");
	CHECK_NEAR(ci.level, 0.75, 1e-15, "hl interval too few points: achieved level");
	CHECK(stats_hl_interval(one, 1, 0.95, &ci) == 0 && ci.est == 0.7 && ci.lo == 0.7 &&
	          ci.hi == 0.7 && ci.level == 0,
	      "hl interval n=1: a point, level 0");
	CHECK(stats_hl_interval(same, 4, 0.95, &ci) == 0 && ci.lo == 0.2 && ci.hi == 0.2 &&
	          ci.est == 0.2,
	      "hl interval all ties: a point");
	CHECK(stats_hl_interval(x, LEN(x), 1.0, &ci) == -1, "hl interval rejects conf 1");
	CHECK(stats_hl_interval(x, 0, 0.95, &ci) == -1, "hl interval rejects n=0");
}

static void test_hl_normal(void)
{
	/* n = 60 > 50: normal approximation. k = floor(915.5 - 1.959964 * sqrt(60*61*121/24)) =
	 * floor(915.5 - 1.959964 * 135.84) = 649; the sample x_i = i (1..60) has Walsh averages
	 * that are the half-integers and integers s/2, s = 2..120, s counted by its number of
	 * pairs; the 649th smallest of them is found by counting below. */
	double x[60];
	struct stats_interval ci;
	size_t seen = 0;
	double lo = 0;

	for (size_t i = 0; i < 60; i++)
		x[i] = (double)(i + 1);
	for (int s = 2; s <= 120 && seen < 649; s++) {
		int pairs = 0;
		for (int i = 1; i <= 60; i++)
			if (s - i >= i && s - i <= 60)
				pairs++;
		seen += (size_t)pairs;
		lo = s / 2.0;
	}
	CHECK(stats_hl_interval(x, 60, 0.95, &ci) == 0, "hl interval n=60");
	CHECK_NEAR(ci.est, 30.5, 0, "hl interval n=60 est");
	CHECK_NEAR(ci.lo, lo, 0, "hl interval n=60 lo is the 649th Walsh average");
	CHECK_NEAR(ci.hi, 61 - lo, 0, "hl interval n=60 symmetric hi");
	CHECK(ci.level >= 0.95 && ci.level < 0.952, "hl interval n=60 level %.5f near 0.95",
	      ci.level);
}

static void test_two_sample(void)
{
	/* 25 differences y - x enumerated; exact Mann-Whitney for 5 vs 5: k = 3 since
	 * P(U <= 2) = 1/63 <= 0.025 < P(U <= 3) = 1/36; level 1 - 2/63. U = 22 (pairs y > x),
	 * p = 2 P(U >= 22) = 2 P(U <= 3) = 1/18. */
	double x[] = {1.1, 2.3, 0.7, 3.0, 1.9}, y[] = {2.8, 3.9, 2.2, 4.4, 3.1};
	/* ties: sum t^3 - t = 54 over the pooled 11 values; normal p from the Python reference */
	double tx[] = {1, 2, 2, 3, 4}, ty[] = {2, 3, 3, 5, 6, 6};
	double same[] = {1, 1, 1};
	struct stats_interval ci;
	double u = -1, p = -1;

	CHECK(stats_hl_shift_interval(x, 5, y, 5, 0.95, &ci) == 0, "hl shift 5 vs 5");
	CHECK_NEAR(ci.est, 1.5, 1e-12, "hl shift est");
	CHECK_NEAR(ci.lo, -0.1, 1e-12, "hl shift lo (3rd smallest difference)");
	CHECK_NEAR(ci.hi, 3.2, 1e-12, "hl shift hi (3rd largest difference)");
	CHECK_NEAR(ci.level, 1 - 2.0 / 63, 1e-15, "hl shift achieved level");
	CHECK(stats_mann_whitney(x, 5, y, 5, &u, &p) == 0 && u == 22, "mann-whitney U = 22");
	CHECK_NEAR(p, 1.0 / 18, 1e-15, "mann-whitney exact p");
	CHECK(stats_mann_whitney(y, 5, x, 5, &u, &p) == 0 && u == 3, "mann-whitney U swapped = 3");
	CHECK_NEAR(p, 1.0 / 18, 1e-15, "mann-whitney exact p symmetric");
	CHECK(stats_mann_whitney(tx, 5, ty, 6, &u, &p) == 0 && u == 24, "mann-whitney tied U = 24");
	CHECK_NEAR(p, 0.11304997885632297, 1e-12, "mann-whitney tied p (normal)");
	CHECK(stats_mann_whitney(same, 3, same, 3, &u, &p) == 0 && u == 4.5 && p == 1,
	      "mann-whitney all tied: U = 4.5, p 1");
	CHECK(stats_mann_whitney(x, 0, y, 5, &u, &p) == -1, "mann-whitney rejects empty x");
	CHECK(stats_hl_shift_interval(x, 5, y, 0, 0.95, &ci) == -1, "hl shift rejects empty y");
}

static void test_two_sample_normal(void)
{
	/* 25 vs 25 (normal approximation): x = 1..25, y = x + 10.25. k = floor(313 - 1.959964 *
	 * sqrt(625 * 51 / 12)) = 211; the differences are 10.25 + t, t = j - i counted 25 - |t|
	 * times, so the 211th smallest is 6.25 and the 211th largest 14.25; level
	 * 1 - 2 Phi((210.5 - 312.5) / 51.54) from the Python reference. */
	double x[30], y[25], one[] = {100};
	struct stats_interval ci;

	for (int i = 0; i < 25; i++) {
		x[i] = i + 1;
		y[i] = i + 11.25;
	}
	CHECK(stats_hl_shift_interval(x, 25, y, 25, 0.95, &ci) == 0, "hl shift 25 vs 25");
	CHECK(ci.est == 10.25 && ci.lo == 6.25 && ci.hi == 14.25,
	      "hl shift normal bounds (got %g [%g, %g])", ci.est, ci.lo, ci.hi);
	CHECK_NEAR(ci.level, 0.9521942046690194, 1e-12, "hl shift normal achieved level");
	/* 30 vs 1: too few differences for 95%: the extremes, level 1 - 2 Phi(-14.5 / sqrt(80)) */
	for (int i = 0; i < 30; i++)
		x[i] = i + 1;
	CHECK(stats_hl_shift_interval(x, 30, one, 1, 0.95, &ci) == 0 && ci.lo == 70 && ci.hi == 99,
	      "hl shift normal, too few points: extremes");
	CHECK_NEAR(ci.level, 0.8950143734543191, 1e-12, "hl shift normal, too few points: level");
}

/* Published two-sided 0.05 critical U (Mann-Whitney tables): (5,5) 2, (4,6) 2, (6,7) 6,
 * (8,8) 13, (20,20) 127; (3,4) has none. Exact tails enumerated: 1/63, 2/105, 5/286, 107/4290,
 * 1/35. */
static double mw_p_at(size_t m, size_t n, unsigned u_target)
{
	/* x = 1..m; y_j sits just above `beat` of them, distinct, so U = u_target without ties */
	double x[32], y[32], u, p;
	unsigned left = u_target;

	for (size_t i = 0; i < m; i++)
		x[i] = (double)(i + 1);
	for (size_t j = 0; j < n; j++) {
		unsigned beat = left < m ? left : (unsigned)m;
		y[j] = beat + 0.5 + 0.001 * (double)j;
		left -= beat;
	}
	if (stats_mann_whitney(x, m, y, n, &u, &p) != 0 || u != u_target)
		return -1;
	return p;
}

static void test_mw_tables(void)
{
	CHECK_NEAR(mw_p_at(5, 5, 2), 2.0 / 63, 1e-15, "mann-whitney (5,5) U=2");
	CHECK_NEAR(mw_p_at(5, 5, 3), 2.0 / 36, 1e-15, "mann-whitney (5,5) U=3 above 0.05");
	CHECK_NEAR(mw_p_at(4, 6, 2), 4.0 / 105, 1e-15, "mann-whitney (4,6) U=2");
	CHECK_NEAR(mw_p_at(6, 7, 6), 10.0 / 286, 1e-15, "mann-whitney (6,7) U=6");
	CHECK_NEAR(mw_p_at(8, 8, 13), 214.0 / 4290, 1e-15, "mann-whitney (8,8) U=13");
	CHECK_NEAR(mw_p_at(3, 4, 0), 2.0 / 35, 1e-15, "mann-whitney (3,4) U=0 above 0.05");
	/* the largest exact case, (20,20) U = 127 (table); Python recursion on the last element */
	CHECK_NEAR(mw_p_at(20, 20, 127), 2 * 3383465463.0 / 137846528820.0, 1e-15,
	           "mann-whitney (20,20) U=127 exact");
}

static void test_holm(void)
{
	double p[] = {0.01, 0.04, 0.03, 0.005}, adj[4], want[] = {0.03, 0.06, 0.06, 0.02};
	double big[] = {0.2, 0.5, 0.9}, bad[] = {0.1, NAN};
	int ok = 1;

	CHECK(stats_holm(p, 4, adj) == 0, "holm returns 0");
	for (int i = 0; i < 4; i++)
		ok &= fabs(adj[i] - want[i]) < 1e-15;
	CHECK(ok, "holm {0.01,0.04,0.03,0.005} -> {0.03,0.06,0.06,0.02} (got %g %g %g %g)", adj[0],
	      adj[1], adj[2], adj[3]);
	CHECK(stats_holm(big, 3, big) == 0 && fabs(big[0] - 0.6) < 1e-15 && big[1] == 1 &&
	          big[2] == 1,
	      "holm in place, capped at 1");
	CHECK(stats_holm(bad, 2, adj) == -1, "holm rejects NaN");
	CHECK(stats_holm(p, 0, adj) == 0, "holm m=0");
}

static void test_spearman(void)
{
	double x[] = {1, 2, 3, 4, 5, 6, 7, 8}, up[] = {2, 3, 5, 7, 11, 13, 17, 19};
	double down[] = {9, 8, 7, 6, 5, 4, 3, 2}, ties[] = {2, 1, 4, 4, 5, 7, 6, 9};
	double a[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, b[] = {2, 7, 1, 8, 2, 8, 1, 8, 2, 8};
	double flat[] = {1, 1, 1, 1, 1, 1, 1, 1};
	double rho = 0, p = 0;

	CHECK(stats_spearman(x, up, 8, &rho, &p) == 0 && rho == 1 && p == 0,
	      "spearman monotone: 1");
	CHECK(stats_spearman(x, down, 8, &rho, &p) == 0 && rho == -1 && p == 0,
	      "spearman reversed: -1");
	/* ranks of ties: 2 1 3.5 3.5 5 7 6 8; Pearson of the ranks by hand: 0.946124747 */
	CHECK(stats_spearman(x, ties, 8, &rho, &p) == 0, "spearman with ties");
	CHECK_NEAR(rho, 0.9461247469114746, 1e-14, "spearman mid-rank rho");
	CHECK_NEAR(p, 0.0003753118737904386, 1e-12, "spearman p (t, 6 df; mpmath quadrature)");
	CHECK(stats_spearman(a, b, 10, &rho, &p) == 0, "spearman ties in both");
	CHECK_NEAR(rho, 0.13471506281091267, 1e-14, "spearman rho, ties in both");
	CHECK_NEAR(p, 0.7106008805223828, 1e-12, "spearman p, ties in both");
	CHECK(stats_spearman(x, flat, 8, &rho, &p) == 0 && rho == 0 && p == 1,
	      "spearman constant y: rho 0, p 1");
	CHECK(stats_spearman(x, up, 3, &rho, &p) == 0 && rho == 1 && p == 1, "spearman n=3: p 1");
	CHECK(stats_spearman(x, up, 1, &rho, &p) == -1, "spearman rejects n=1");
}

static void test_welch(void)
{
	double x[] = {20.1, 19.8, 21.3, 22.0, 20.7, 19.5};
	double y[] = {22.4, 23.1, 21.9, 24.0, 22.8, 23.5, 22.2};
	double c1[] = {1, 1}, c2[] = {2, 2};
	double t = 0, df = 0, p = 0;

	/* Python: statistics.variance for the pieces, p by mpmath quadrature of the t density */
	CHECK(stats_welch(x, 6, y, 7, &t, &df, &p) == 0, "welch returns 0");
	CHECK_NEAR(t, 4.7335085841881215, 1e-12, "welch t");
	CHECK_NEAR(df, 9.447643319940045, 1e-12, "welch df");
	CHECK_NEAR(p, 0.0009351365019861974, 1e-13, "welch p");
	CHECK(stats_welch(c1, 2, c2, 2, &t, &df, &p) == 0 && isinf(t) && t > 0 && p == 0 && df == 2,
	      "welch constant samples");
	CHECK(stats_welch(x, 1, y, 7, &t, &df, &p) == -1, "welch rejects n=1");
}

static void test_distributions(void)
{
	double ps[] = {1e-10, 0.02, 0.3, 0.5, 0.8, 0.975, 0.999999};
	int ok = 1;

	CHECK_NEAR(stats_norm_quantile(0.975), 1.959963984540054, 1e-15, "z_0.975");
	CHECK_NEAR(stats_norm_quantile(0.8), 0.8416212335729144, 1e-15, "z_0.8");
	CHECK_NEAR(stats_norm_quantile(1e-10), -6.361340902404057, 1e-13, "z_1e-10");
	CHECK_NEAR(stats_norm_quantile(0.02), -2.053748910631823, 1e-14, "z_0.02 (tail branch)");
	CHECK(stats_norm_quantile(0.5) == 0, "z_0.5 = 0");
	CHECK(isinf(stats_norm_quantile(0)) && isinf(stats_norm_quantile(1)) &&
	          isnan(stats_norm_quantile(1.5)) && isnan(stats_norm_quantile(NAN)),
	      "norm quantile edges");
	for (size_t i = 0; i < LEN(ps); i++)
		ok &= fabs(stats_norm_cdf(stats_norm_quantile(ps[i])) - ps[i]) <=
		      1e-14 * ps[i] + 1e-16;
	CHECK(ok, "norm cdf(quantile(p)) = p");
	/* mpmath.ncdf */
	CHECK_NEAR(stats_norm_cdf(-3), 0.0013498980316300946, 1e-17, "Phi(-3)");
	CHECK_NEAR(stats_norm_cdf(1.2), 0.8849303297782917, 1e-15, "Phi(1.2)");
	CHECK_NEAR(stats_norm_cdf(-9) / 1.1285884059538405e-19, 1, 1e-12, "Phi(-9) relative");
	/* t tables: t_{0.975, 10} = 2.228; mpmath.betainc for the exact values */
	CHECK_NEAR(stats_t_cdf(2.228, 10), 0.9749941140914443, 1e-13, "t cdf 2.228, 10 df");
	CHECK_NEAR(stats_t_cdf(2.2281388519649385, 10), 0.975, 1e-11, "t cdf at t_0.975,10");
	CHECK_NEAR(stats_t_cdf(-1.5, 3.5), 0.10890909350767264, 1e-13, "t cdf fractional df");
	CHECK_NEAR(stats_t_cdf(12, 4), 0.9998617857257485, 1e-13, "t cdf far tail");
	CHECK_NEAR(stats_t_cdf(0.3, 200), 0.617755634905333, 1e-13, "t cdf 200 df");
	CHECK_NEAR(stats_t_cdf(-40, 7) / 7.951089992425188e-10, 1, 1e-10, "t cdf tiny tail");
	/* closed forms: df = 1 is Cauchy, df = 2 is t / (2 sqrt(2 + t^2)) + 1/2 */
	CHECK_NEAR(stats_t_cdf(3, 1), 0.5 + atan(3) / M_PI, 1e-14, "t cdf Cauchy");
	CHECK_NEAR(stats_t_cdf(-0.7, 2), 0.5 - 0.7 / (2 * sqrt(2.49)), 1e-14, "t cdf 2 df");
	CHECK(stats_t_cdf(0, 5) == 0.5 && stats_t_cdf(INFINITY, 5) == 1 && isnan(stats_t_cdf(1, 0)),
	      "t cdf edges");
}

static void test_bootstrap(void)
{
	double x[40];
	struct stats_interval a, b, c, d = {.est = 42};
	double one[] = {3}, pin[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
	const struct stats_resampling mean7 = {mean_stat, 2000, 7}, mean8 = {mean_stat, 2000, 8};
	const struct stats_resampling pinned = {mean_stat, 1000, 12345};
	const struct stats_resampling hl = {stats_hl_estimate, 500, 7};
	const struct stats_resampling few = {mean_stat, 100, 1}, failing = {failing_stat, 100, 1};
	const struct stats_resampling none = {mean_stat, 0, 1};

	/* fixed, skewed data: x_i = exp(i / 20) */
	for (int i = 0; i < 40; i++)
		x[i] = exp(i / 20.0);
	CHECK(stats_bootstrap(x, 40, &mean7, 0.95, &a) == 0, "bootstrap runs");
	CHECK(stats_bootstrap(x, 40, &mean7, 0.95, &b) == 0 && !memcmp(&a, &b, sizeof a),
	      "bootstrap identical for the same seed");
	CHECK(stats_bootstrap(x, 40, &mean8, 0.95, &c) == 0 && (c.lo != a.lo || c.hi != a.hi),
	      "bootstrap differs for another seed");
	CHECK(a.est == stats_mean(x, 40) && a.lo < a.est && a.est < a.hi && a.level == 0.95,
	      "bootstrap interval contains est = stat(x)");
	/* pinned resampling scheme (resample-major, one prng_below(n) per element): an independent
	 * Python xoshiro256** + Lemire implementation gives these 5% / 95% percentiles */
	CHECK(stats_bootstrap(pin, LEN(pin), &pinned, 0.90, &b) == 0 && b.lo == 3.25 &&
	          fabs(b.hi - 5.666666666666667) < 1e-15,
	      "bootstrap pinned percentiles (got [%.17g, %.17g])", b.lo, b.hi);
	/* the mean's percentile interval is near mean +- 1.96 sd / sqrt(n) (within 15%) */
	double half = 1.959964 * stats_sd(x, 40) / sqrt(40);
	CHECK(fabs((a.hi - a.lo) / (2 * half) - 1) < 0.15, "bootstrap width %.4f vs normal %.4f",
	      a.hi - a.lo, 2 * half);
	CHECK(stats_bootstrap(x, 40, &hl, 0.95, &b) == 0 && b.lo < b.est && b.est < b.hi,
	      "bootstrap of the HL estimate");
	CHECK(stats_bootstrap(one, 1, &few, 0.95, &b) == 0 && b.lo == 3 && b.hi == 3,
	      "bootstrap n=1: a point");
	CHECK(stats_bootstrap(x, 40, &failing, 0.95, &d) == -1 && d.est == 42,
	      "bootstrap failing statistic: -1, untouched");
	CHECK(stats_bootstrap(x, 0, &few, 0.95, &d) == -1, "bootstrap rejects n=0");
	CHECK(stats_bootstrap(x, 40, &none, 0.95, &d) == -1, "bootstrap rejects 0 draws");
}

static void test_mde(void)
{
	/* (1.959964 + 0.841621) * 0.1 / sqrt(30 * 3 / pi) */
	CHECK_NEAR(stats_mde(0.1, 30, 0.05, 0.8), 0.052342868465044864, 1e-14, "mde sd 0.1 n 30");
	/* ceil(((z_.975 + z_.8) * 0.1 / 0.02)^2 * pi / 3) = ceil(205.49) = 206 */
	size_t n = stats_rounds_needed(0.1, 0.02, 0.05, 0.8);
	CHECK(n == 206, "rounds needed sd 0.1 effect 0.02 = 206 (got %zu)", n);
	CHECK(stats_mde(0.1, n, 0.05, 0.8) <= 0.02 && stats_mde(0.1, n - 1, 0.05, 0.8) > 0.02,
	      "rounds needed is the smallest n with mde <= effect");
	int ok = 1;
	for (double e = 0.005; e < 0.5; e *= 1.37) {
		size_t k = stats_rounds_needed(0.07, e, 0.05, 0.9);
		ok &= k >= 6 && stats_mde(0.07, k, 0.05, 0.9) <= e;
	}
	CHECK(ok, "mde(rounds_needed(e)) <= e over a range of effects");
	CHECK(isinf(stats_mde(0.1, 5, 0.05, 0.8)) && isfinite(stats_mde(0.1, 6, 0.05, 0.8)),
	      "mde infinite below 6 rounds at alpha 0.05 (2/2^5 > 0.05)");
	CHECK(stats_rounds_needed(0, 0.01, 0.05, 0.8) == 6, "rounds needed without noise: 6");
	CHECK(stats_rounds_needed(0.1, 0, 0.05, 0.8) == 0 && isnan(stats_mde(-1, 10, 0.05, 0.8)),
	      "mde/rounds reject invalid arguments");
}

/* The rounds rule: the smallest n with 2/2^n <= alpha/m (and 2/C(2k,k) for two samples). */
static void test_min_rounds(void)
{
	CHECK(stats_signrank_min_n(0.05, 1) == 6, "min rounds: 1 comparison at 0.05 needs 6");
	CHECK(stats_signrank_min_n(0.05, 2) == 7, "min rounds: 2 comparisons need 7");
	CHECK(stats_signrank_min_n(0.05, 12) == 9, "min rounds: 12 comparisons need 9");
	CHECK(stats_signrank_min_n(0.05, 20) == 10, "min rounds: 20 comparisons need 10");
	CHECK(stats_signrank_min_n(0.05, 30) == 11, "min rounds: 30 comparisons need 11");
	CHECK(stats_signrank_min_n(0.0625, 1) == 5, "min rounds: 2/2^5 == alpha counts");
	CHECK(stats_signrank_min_n(0, 1) == 0 && stats_signrank_min_n(0.05, 0) == 0,
	      "min rounds: invalid arguments give 0");
	CHECK(stats_ranksum_min_n(0.05, 1) == 4, "min rounds two samples: C(8,4) = 70 >= 40");
	CHECK(stats_ranksum_min_n(0.05, 30) == 7,
	      "min rounds two samples, 30: C(14,7) = 3432 >= 1200");
}

int main(void)
{
	test_min_rounds();
	test_summaries();
	test_wilcoxon_tables();
	test_wilcoxon_data();
	test_hl();
	test_hl_normal();
	test_two_sample();
	test_two_sample_normal();
	test_mw_tables();
	test_holm();
	test_spearman();
	test_welch();
	test_distributions();
	test_bootstrap();
	test_mde();
	return CHECK_DONE();
}
