/* test_meta.c - the fleet statistics of meta.c (stats.h) on fixed data: the Student t quantile,
 * the DerSimonian-Laird / Hartung-Knapp-Sidik-Jonkman pooling with I^2 and the prediction
 * interval, the studentized deleted residuals and the standard error of a rank interval. Every
 * reference value was computed once, independently of this code, by a short Python script with
 * mpmath at 40 digits (t CDF from mpmath's regularized incomplete beta, its quantile by
 * bisection; the meta-analysis from its textbook formulas: DerSimonian & Laird 1986, Hartung &
 * Knapp 2001, Sidik & Jonkman 2002, Higgins, Thompson & Spiegelhalter 2009, Viechtbauer & Cheung
 * 2010), and is written here so the test needs nothing at run time. */
#include "check.h"
#include "front/stats/stats.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static void test_t_quantile(void)
{
	static const struct {
		double p, df, want;
	} ref[] = {
	    {0.975, 1, 12.706204736174693314}, {0.975, 2, 4.3026527297494617894},
	    {0.975, 3, 3.1824463052837084359}, {0.975, 4, 2.7764451051977934898},
	    {0.975, 9, 2.2621571627982049992}, {0.995, 3, 5.8409093097333554113},
	    {0.025, 5, -2.570581835636315469}, {0.9, 2.5, 1.730250928807176833},
	    {0.999, 7, 4.7852896286383332959}, {0.975, 30, 2.0422724563012378878},
	    {1e-6, 4, -41.577854150450975198}, {0.6, 3, 0.27667066233268984701},
	};

	for (size_t i = 0; i < LEN(ref); i++) {
		char name[64];
		snprintf(name, sizeof name, "t quantile p=%g df=%g", ref[i].p, ref[i].df);
		CHECK_NEAR(stats_t_quantile(ref[i].p, ref[i].df), ref[i].want,
		           1e-12 * fabs(ref[i].want), name);
	}
	CHECK(stats_t_quantile(0.5, 7) == 0, "t quantile of 1/2 is 0");
	CHECK(isinf(stats_t_quantile(1, 3)) && stats_t_quantile(0, 3) < 0, "t quantile at 0 and 1");
	CHECK(isnan(stats_t_quantile(1.5, 3)) && isnan(stats_t_quantile(0.9, 0)),
	      "t quantile: p outside [0, 1] or df <= 0 is NAN");
	CHECK_NEAR(stats_t_cdf(stats_t_quantile(0.975, 6), 6), 0.975, 1e-14,
	           "t quantile inverts the CDF");
}

struct meta_ref {
	const char *name;
	size_t k;
	double y[5], se[5];
	double mu, se_hk, lo, hi, se_dl, q, tau2, i2, pi_lo, pi_hi;
	double deleted[5];
};

/* D1 heterogeneous, D2 closer than their standard errors (tau^2 truncated to 0), D3 two machines
 * (no prediction interval), D4 four agreeing machines and an odd one. In D1 and D2 the HKSJ scale
 * q_hk is below 1 (unfloored se 0.023999816451213254 and 0.00065245077843057046): the max(1, q)
 * floor makes their se the DL se, and the interval mu -+ t_{k-1} se_dl. */
static const struct meta_ref meta_refs[] = {
    {"D1", 5, {-0.10, -0.05, -0.02, 0.04, -0.08}, {0.02, 0.03, 0.025, 0.04, 0.05},
     -0.044598923351929933, 0.024549590085536787, -0.11275951257953084697, 0.023561665875670980969,
     0.024549590085536787, 12.940507795100223, 0.0019705315242788981, 0.69089311923952823,
     -0.20603441811774692, 0.11683657141388706,
     {-1.9518740292544338, -0.11283696262328456, 0.48992761606697881, 1.8591707178245051,
      -0.55285494379639631}},
    {"D2", 3, {0.01, 0.012, 0.009}, {0.01, 0.02, 0.015}, 0.010032786885245902,
     0.0076822127959737584, -0.023021106971866850589, 0.043086680742358654589, 0.0076822127959737584,
     0.014426229508196721, 0, 0, -0.087578981727257788, 0.10764455549774959,
     {-0.0051214751973158389, 0.10653312363426525, -0.080163766803941551}},
    {"D3", 2, {0.0, 0.1}, {0.02, 0.03}, 0.0475, 0.049937460888595447, -0.58701560205521055,
     0.68201560205521055, 0.049937460888595447, 7.6923076923076923, 0.00435, 0.87, NAN, NAN,
     {0}},
    {"D4", 5, {-0.05, -0.052, -0.048, -0.051, 0.10}, {0.01, 0.012, 0.011, 0.01, 0.012},
     -0.020368856138220071, 0.029992832861197211, -0.10364231012670663, 0.062904597850266483,
     0.027967770418857497, 130.94229955584601, 0.0037892799381525792, 0.96945219372526731,
     -0.23554261800432477, 0.19480490572788463,
     {-0.46391183667438388, -0.51061879842107107, -0.43737714577620736, -0.48082807304004809,
      11.439973882454687}},
};

static void near_rel(double got, double want, const char *set, const char *what)
{
	char name[96];

	snprintf(name, sizeof name, "meta %s: %s", set, what);
	if (isnan(want))
		CHECK(isnan(got), "%s is NAN", name);
	else
		CHECK_NEAR(got, want, 1e-11 * fmax(fabs(want), 1e-3), name);
}

static void test_meta_known(void)
{
	for (size_t s = 0; s < LEN(meta_refs); s++) {
		const struct meta_ref *r = &meta_refs[s];
		struct stats_meta m;
		double t[5];

		CHECK(stats_meta_re(r->y, r->se, r->k, 0.95, &m) == 0 && m.k == r->k,
		      "meta %s: pools %zu machines", r->name, r->k);
		near_rel(m.mu, r->mu, r->name, "mu");
		near_rel(m.se, r->se_hk, r->name, "HKSJ se");
		near_rel(m.lo, r->lo, r->name, "HKSJ lower bound (t, k-1 df)");
		near_rel(m.hi, r->hi, r->name, "HKSJ upper bound");
		near_rel(m.se_dl, r->se_dl, r->name, "DL se");
		near_rel(m.q, r->q, r->name, "Cochran's Q");
		near_rel(m.tau2, r->tau2, r->name, "tau^2 (DerSimonian-Laird)");
		near_rel(m.tau, sqrt(r->tau2), r->name, "tau");
		near_rel(m.i2, r->i2, r->name, "I^2");
		near_rel(m.pi_lo, r->pi_lo, r->name, "prediction interval, low (t, k-2 df, DL se)");
		near_rel(m.pi_hi, r->pi_hi, r->name, "prediction interval, high");
		if (r->k < 3) {
			CHECK(stats_meta_deleted(r->y, r->se, r->k, t) == -1,
			      "meta %s: no deleted residuals with 2 machines", r->name);
			continue;
		}
		CHECK(stats_meta_deleted(r->y, r->se, r->k, t) == 0, "meta %s: deleted residuals",
		      r->name);
		for (size_t i = 0; i < r->k; i++) {
			char what[48];
			snprintf(what, sizeof what, "deleted residual %zu", i);
			near_rel(t[i], r->deleted[i], r->name, what);
		}
	}
}

static void test_meta_edges(void)
{
	double y[] = {0.1, 0.2, 0.3}, se[] = {0.01, 0.02, 0.03}, bad_se[] = {0.01, 0, 0.03};
	double nan_y[] = {0.1, NAN, 0.3}, same[] = {0.05, 0.05, 0.05}, t[3];
	struct stats_meta m = {.k = 99};

	CHECK(stats_meta_re(y, se, 1, 0.95, &m) == -1 && m.k == 99, "meta: one machine is refused");
	CHECK(stats_meta_re(y, bad_se, 3, 0.95, &m) == -1, "meta: a zero standard error is refused");
	CHECK(stats_meta_re(nan_y, se, 3, 0.95, &m) == -1, "meta: a NaN estimate is refused");
	CHECK(stats_meta_re(y, se, 3, 1, &m) == -1, "meta: conf 1 is refused");
	CHECK(stats_meta_deleted(y, bad_se, 3, t) == -1, "deleted residuals: bad input refused");
	CHECK(stats_meta_re(same, se, 3, 0.95, &m) == 0 && fabs(m.mu - 0.05) < 1e-16 &&
	          m.tau2 == 0 && m.i2 == 0 && m.q < 1e-25 && m.q_hk < 1e-25 && m.se == m.se_dl &&
	          m.se > 0.008 && m.hi - m.lo > 0.05,
	      "meta: equal estimates pool to themselves with Q, tau^2, I^2 and q_hk 0, and the "
	      "max(1, q) floor keeps the interval as wide as the DL one (not zero width)");
	CHECK(stats_meta_re(y, se, 3, 0.9, &m) == 0 && m.level == 0.9, "meta: level is conf");
	CHECK_NEAR(stats_meta_odd_bound(0.05, 5), 4.6040948713499932254, 1e-11,
	           "odd bound: t_{4, 1 - 0.05/10} for 5 machines");
	CHECK_NEAR(stats_meta_odd_bound(0.05, 3), 7.6488039379155398055, 1e-11,
	           "odd bound: t_{2, 1 - 0.05/6} for 3 machines");
	CHECK(isnan(stats_meta_odd_bound(0.05, 1)), "odd bound: one machine is NAN");
}

static void test_interval_se(void)
{
	/* an interval of width 0.04 at achieved level 0.9512 (10 rounds) */
	CHECK_NEAR(stats_interval_se(-0.01, 0.03, 0.9512), 0.010150558617622312133, 1e-15,
	           "se from an interval: width / (2 z_{(1+level)/2})");
	CHECK(stats_interval_se(0.02, 0.02, 0.95) == 0, "se of a zero-width interval is 0");
	CHECK(isnan(stats_interval_se(0.03, -0.01, 0.95)), "se of a reversed interval is NAN");
	CHECK(isnan(stats_interval_se(-0.01, 0.03, 0)), "se at level 0 is NAN");
	CHECK(isnan(stats_interval_se(-INFINITY, 0.03, 0.95)), "se of an open interval is NAN");
}

int main(void)
{
	test_t_quantile();
	test_meta_known();
	test_meta_edges();
	test_interval_se();
	return CHECK_DONE();
}
