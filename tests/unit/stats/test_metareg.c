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

/* Eight machines whose fault costs are 1e14 + 1 .. 1e14 + 8 ns, with a vendor indicator: not
 * collinear (the moderators are standardised before the check). Reference: R 4.2.2, metafor 3.8-1
 * (Debian r-cran-metafor), rma(yi, sei, mods = ~ f + intel, method = "DL", test = "knha") with f
 * the fault cost in us less 1e11 (an offset moves the intercept only), and the max(1, s^2) floor
 * applied to its output (s^2 = 0.9232: se x sqrt(1 / s^2), F x s^2); computed once, written here. */
static void test_huge_moderator(void)
{
	double y[] = {-0.10, -0.05, -0.02, 0.04, -0.08, 0.12, 0.01, -0.03};
	double se[] = {0.02, 0.03, 0.025, 0.04, 0.05, 0.03, 0.02, 0.035};
	double intel[] = {0, 1, 0, 1, 0, 1, 1, 0}, x[16];
	struct stats_metareg m;

	for (int i = 0; i < 8; i++) {
		x[2 * i] = 1e14 + (i + 1); /* ns */
		x[2 * i + 1] = intel[i];
	}
	CHECK(stats_meta_reg(y, se, x, 8, 3, 0.95, &m) == 0,
	      "fault costs 1e14 + 1..8 ns and a vendor: fitted, not called collinear");
	CHECK_NEAR(m.tau2, 0.0022578153912764117, 1e-12, "huge moderator: residual tau^2 (metafor)");
	CHECK_NEAR(m.qe, 18.004693474534914, 1e-8, "huge moderator: Q_E (metafor)");
	CHECK_NEAR(m.b[1] * 1000, 11.047919962001032, 1e-7, "huge moderator: fault slope per us");
	CHECK_NEAR(m.b[2], 0.075069952801137083, 1e-10, "huge moderator: vendor coefficient");
	CHECK_NEAR(m.se[1] * 1000, 8.6253144113206002, 1e-7, "huge moderator: fault se (floored)");
	CHECK_NEAR(m.se[2], 0.040984909002767626, 1e-10, "huge moderator: vendor se (floored)");
	CHECK_NEAR(m.pval[1], 0.25643140281953736, 1e-8, "huge moderator: fault p");
	CHECK_NEAR(m.pval[2], 0.12649910636436659, 1e-8, "huge moderator: vendor p");
	CHECK_NEAR(m.qm, 6.2369136929846798, 1e-7, "huge moderator: omnibus QM");
	CHECK_NEAR(m.qm_p, 0.13207097920972508, 1e-8, "huge moderator: QM's p, F(2, 5)");
	CHECK_NEAR(stats_f_sf(3.1184568464923399, 2, 5), 0.13207097920972508, 1e-12,
	           "F upper tail (R's pf)");
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
	test_huge_moderator();
	test_exact_line();
	test_intercept_only();
	test_fleet_of_seven();
	test_refusals();
	return CHECK_DONE();
}
