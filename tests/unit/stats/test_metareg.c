/* test_metareg.c - the meta-regression of metareg.c (stats.h) on fixed data: an exact line (its
 * weighted least squares solution known by hand), the intercept-only model, which must be the
 * random-effects pooling of meta.c, and a heterogeneous fleet of 7 machines on the fault cost and
 * a vendor indicator whose reference values were computed once, independently of this code, by a
 * short Python script with mpmath at 40 digits from the textbook formulas (method of moments
 * tau^2 with tr(P), Raudenbush 2009; Knapp & Hartung 2003), and are written here so the test needs
 * nothing at run time. */
#include "check.h"
#include "front/stats/stats.h"

static void test_exact_line(void)
{
	/* y = 1 + 2x at x = 0..3, se 1: Q_E = 0, tau^2 = 0, s^2 = 0 (floored to 1), and
	 * (X'X)^-1 = [[14, -6], [-6, 4]] / 20 */
	double y[] = {1, 3, 5, 7}, se[] = {1, 1, 1, 1}, x[] = {0, 1, 2, 3};
	struct stats_metareg m;

	CHECK(stats_meta_reg(y, se, x, 4, 2, 0.95, &m) == 0 && m.k == 4 && m.p == 2,
	      "exact line: fitted");
	CHECK_NEAR(m.b[0], 1, 1e-12, "exact line: intercept 1");
	CHECK_NEAR(m.b[1], 2, 1e-12, "exact line: slope 2");
	CHECK(fabs(m.qe) < 1e-20 && m.tau2 == 0 && fabs(m.s2) < 1e-20,
	      "exact line: Q_E, tau^2 and s^2 are 0");
	CHECK_NEAR(m.se[0], sqrt(14.0 / 20), 1e-12, "exact line: se of the intercept sqrt(0.7)");
	CHECK_NEAR(m.se[1], sqrt(4.0 / 20), 1e-12, "exact line: se of the slope sqrt(0.2) (floor 1)");
	CHECK_NEAR(m.hi[1] - m.b[1], stats_t_quantile(0.975, 2) * sqrt(0.2), 1e-12,
	           "exact line: interval from t with k - p = 2 df");
}

static void test_intercept_only(void)
{
	double y[] = {-0.10, -0.05, -0.02, 0.04, -0.08}, se[] = {0.02, 0.03, 0.025, 0.04, 0.05};
	struct stats_metareg m;
	struct stats_meta re;

	CHECK(stats_meta_reg(y, se, NULL, 5, 1, 0.95, &m) == 0 &&
	          stats_meta_re(y, se, 5, 0.95, &re) == 0,
	      "intercept only: fitted");
	CHECK_NEAR(m.tau2, re.tau2, 1e-15, "intercept only: tau^2 is DerSimonian-Laird's");
	CHECK_NEAR(m.b[0], re.mu, 1e-15, "intercept only: the intercept is the pooled mean");
	CHECK_NEAR(m.se[0], re.se, 1e-15, "intercept only: its se is the floored HKSJ se");
	CHECK_NEAR(m.qe, re.q, 1e-12, "intercept only: Q_E is Cochran's Q");
}

static void test_fleet_of_seven(void)
{
	double y[] = {-0.10, -0.05, -0.02, 0.04, -0.08, 0.12, 0.01};
	double se[] = {0.02, 0.03, 0.025, 0.04, 0.05, 0.03, 0.02};
	double x[] = {14, 0, 18, 0, 2, 1, 3, 1, 20, 0, 1.5, 1, 2.5, 1}; /* fault us, intel */
	static const double b[] = {-0.12167267708526220697, 0.0026115732116513373714,
	                           0.15076618268928478367};
	static const double s[] = {0.22504156255971319439, 0.013229432229560267438,
	                           0.1980479560913764337};
	struct stats_metareg m;

	CHECK(stats_meta_reg(y, se, x, 7, 3, 0.95, &m) == 0, "seven machines: fitted");
	CHECK_NEAR(m.qe, 15.451042980253264825, 1e-10, "seven machines: Q_E");
	CHECK_NEAR(m.tau2, 0.0023792858629927744979, 1e-14, "seven machines: residual tau^2");
	CHECK_NEAR(m.s2, 0.95407166155663969133, 1e-11, "seven machines: Knapp-Hartung s^2 (< 1)");
	for (int j = 0; j < 3; j++) {
		char name[48];
		snprintf(name, sizeof name, "seven machines: b[%d]", j);
		CHECK_NEAR(m.b[j], b[j], 1e-11 * fmax(fabs(b[j]), 1e-3), name);
		snprintf(name, sizeof name, "seven machines: se[%d] (Knapp-Hartung, floored)", j);
		CHECK_NEAR(m.se[j], s[j], 1e-11 * s[j], name);
		CHECK(m.pval[j] > 0 && m.pval[j] <= 1, "seven machines: p-value %d in (0, 1]", j);
	}
}

static void test_refusals(void)
{
	double y[] = {0.1, 0.2, 0.3, 0.4}, se[] = {0.1, 0.1, 0.1, 0.1}, same[] = {5, 5, 5, 5};
	double two[] = {1, 1, 2, 2, 3, 3, 4, 4};
	struct stats_metareg m = {.k = 99};

	CHECK(stats_meta_reg(y, se, same, 4, 2, 0.95, &m) == -1, "a constant moderator is refused");
	CHECK(stats_meta_reg(y, se, two, 4, 3, 0.95, &m) == -1, "collinear moderators are refused");
	CHECK(stats_meta_reg(y, se, same, 2, 2, 0.95, &m) == -1 && m.k == 99,
	      "k < p + 1 is refused, out untouched");
	CHECK(stats_meta_reg(y, se, NULL, 4, 5, 0.95, &m) == -1, "more than 4 coefficients refused");
}

int main(void)
{
	test_exact_line();
	test_intercept_only();
	test_fleet_of_seven();
	test_refusals();
	return CHECK_DONE();
}
