/* test_seq.c - the sequential decisions of src/front/stats/seqci.c (docs/methodology.md,
 * "Sequential decisions") against values computed independently with mpmath at 40 digits when this
 * test was written: the boundary from the theta series P(sup_{t<=1} |B_t| < c) =
 * (4/pi) sum_k (-1)^k / (2k+1) exp(-(2k+1)^2 pi^2 / (8 c^2)) (seqci.c uses the reflection series
 * instead), the power by integrating the first-passage density c / sqrt(2 pi t^3)
 * exp(-(c - drift t)^2 / (2t)) over (0, 1] (seqci.c uses the closed form), and the first decidable
 * look by scanning 2 / 2^n <= alpha_n; the equivalence margin (stats_equiv_margin) from its
 * formula in mpmath. Plus a seeded brute-force check of the coverage promise. */
#include "front/stats/stats.h"

#include "check.h"
#include "common/prng.h"

#include <math.h>
#include <stdlib.h>

static void test_boundary(void)
{
	static const struct {
		double alpha, c;
	} ref[] = {{0.05, 2.2414027273321416},
	           {0.0125, 2.7343687865331691},
	           {0.01, 2.8070337683438017},
	           {0.2, 1.6448497322824153}};

	for (size_t i = 0; i < sizeof ref / sizeof *ref; i++)
		CHECK(fabs(stats_seq_boundary(ref[i].alpha) - ref[i].c) < 1e-9,
		      "boundary at alpha %g is %.10f (got %.10f)", ref[i].alpha, ref[i].c,
		      stats_seq_boundary(ref[i].alpha));
	CHECK(isnan(stats_seq_boundary(0)) && isnan(stats_seq_boundary(1)) &&
	          isnan(stats_seq_boundary(NAN)),
	      "boundary: alpha outside (0, 1) is NAN");
}

static void test_levels(void)
{
	static const struct {
		double frac, a;
	} ref[] = {{1, 0.025000000017654986},
	           {0.5, 0.001525322760014069},
	           {0.15, 7.1536579317338052e-9},
	           {0.375, 0.00025202305913104386}};
	struct stats_seq_plan p = {.planned = 40, .first_look = 6};

	for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) {
		double got = stats_seq_alpha_at(ref[i].frac, 0.05);
		CHECK(fabs(got / ref[i].a - 1) < 1e-8, "nominal level at t = %g: %.10g (got %.10g)",
		      ref[i].frac, ref[i].a, got);
	}
	CHECK(fabs(stats_seq_alpha(&p, 20, 0.05) / 0.001525322760014069 - 1) < 1e-8 &&
	          fabs(stats_seq_alpha(&p, 15, 0.05) / 0.00025202305913104386 - 1) < 1e-8,
	      "plan of 40: looks 20 and 15 are t = 0.5 and 0.375");
	CHECK(stats_seq_alpha(&p, 5, 0.05) == 0 && stats_seq_alpha(&p, 41, 0.05) == 0 &&
	          stats_seq_alpha(NULL, 10, 0.05) == 0 && stats_seq_alpha_at(0, 0.05) == 0 &&
	          stats_seq_alpha_at(1.5, 0.05) == 0,
	      "no decision before the first look, past the plan, or without one");
}

static void test_power(void)
{
	static const struct {
		double drift, p;
	} ref[] = {{0, 0.025000000017654986},
	           {0.5, 0.069579851208126656},
	           {3, 0.8311512863639555},
	           {8, 0.99999999818911172}};

	for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) {
		double got = stats_seq_power(ref[i].drift, 0.05);
		CHECK(fabs(got - ref[i].p) < 1e-9, "power at drift %g: %.12f (got %.12f)",
		      ref[i].drift, ref[i].p, got);
	}
	CHECK(stats_seq_power(40, 0.05) == 1 && stats_seq_power(-3, 0.05) < 0.025,
	      "power: far drifts stay finite and within [0, 1]");
	CHECK(fabs(stats_seq_mde(0.1, 40, 0.05, 0.8) - 0.046610877608819443) < 1e-9,
	      "sequential MDE of sd 0.1 over 40 rounds at 80%% power: 0.0466109 (got %.9f)",
	      stats_seq_mde(0.1, 40, 0.05, 0.8));
	CHECK(stats_seq_mde(0.1, 40, 0.05, 0.8) > stats_mde(0.1, 40, 0.05, 0.8),
	      "sequential MDE exceeds the fixed-n one");
	CHECK(isinf(stats_seq_mde(0.1, 5, 0.05, 0.8)) && isnan(stats_seq_mde(-1, 40, 0.05, 0.8)),
	      "sequential MDE: infinite when no look can decide, NAN for a negative sd");
	size_t n = stats_seq_rounds_needed(0.1414, 0.0488, 0.05, 0.9);
	CHECK(n > 2 && stats_seq_mde(0.1414, n, 0.05, 0.9) <= 0.0488 &&
	          stats_seq_mde(0.1414, n - 1, 0.05, 0.9) > 0.0488,
	      "sequential rounds for 5%% at sd 0.1414, 90%% power: the smallest plan (%zu)", n);
	CHECK(stats_seq_rounds_needed(0.1, 0, 0.05, 0.8) == 0, "sequential rounds: effect 0 invalid");
	CHECK(fabs(stats_equiv_margin(0.1, 30, 0.05, 0.8) - 0.060562220620139299) < 1e-9 &&
	          fabs(stats_equiv_margin(0.1, 100, 0.05, 0.8) - 0.033171294366254804) < 1e-9,
	      "equivalence margin of sd 0.1 at 80%% power: 0.0605622 over 30 rounds, 0.0331713 "
	      "over 100 (got %.9f, %.9f)",
	      stats_equiv_margin(0.1, 30, 0.05, 0.8), stats_equiv_margin(0.1, 100, 0.05, 0.8));
	CHECK(isinf(stats_equiv_margin(0.1, 5, 0.05, 0.8)) &&
	          isnan(stats_equiv_margin(0.1, 30, 0.05, 1)),
	      "equivalence margin: none for 5 rounds, NAN for power 1");
}

static void test_first_decision(void)
{
	static const size_t ref[][2] = {{10, 8}, {20, 11}, {40, 14}, {80, 19}};

	for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) {
		struct stats_seq_plan p = {.planned = ref[i][0], .first_look = 6};
		CHECK(stats_seq_first_decision(&p, 0.05) == ref[i][1],
		      "plan of %zu: the first look that can decide is %zu (got %zu)", ref[i][0],
		      ref[i][1], stats_seq_first_decision(&p, 0.05));
	}
	struct stats_seq_plan tiny = {.planned = 5, .first_look = 1};
	CHECK(stats_seq_first_decision(&tiny, 0.05) == 0, "plan of 5: no look can decide");
}

/* The plan of a default bench of one comparison (10 rounds, first look at --min-rounds 3, share
 * 0.8): its first look that can decide is round 8, where the interval is the whole range of the
 * log ratios, so an A/A bench stops there only when all 8 have one sign (faster or slower: a
 * false decision, 2/2^8 of A/A streams), or all 8 lie within the 2% margin (equivalent). */
static void test_aa_round8(void)
{
	struct stats_seq_plan p = {.planned = 10, .first_look = 3, .share = SEQ_FIRST_SHARE};
	double same[8] = {0.01, 0.2, 0.05, 0.3, 0.02, 0.15, 0.4, 0.08}, asked, m = log(1.02);
	double mixed[8] = {0.01, 0.2, 0.05, 0.3, -0.02, 0.15, 0.4, 0.08};
	double tight[8] = {0.01, -0.01, 0.005, -0.015, 0, 0.012, -0.004, 0.008};
	struct stats_interval s;

	CHECK(stats_seq_first_decision(&p, 0.05) == 8,
	      "default plan of one comparison: the first look that can decide is 8 (got %zu)",
	      stats_seq_first_decision(&p, 0.05));
	CHECK(stats_seq_interval(same, 7, &p, 0.05, &s, &asked) == 0 && s.level < asked,
	      "round 7: 7 log ratios of one sign cannot decide");
	CHECK(stats_seq_interval(same, 8, &p, 0.05, &s, &asked) == 0 && s.level >= asked &&
	          s.lo == 0.01 && s.hi == 0.4,
	      "round 8: 8 of one sign decide, the interval their range [%g, %g]", s.lo, s.hi);
	CHECK(stats_seq_interval(mixed, 8, &p, 0.05, &s, &asked) == 0 && s.level >= asked &&
	          s.lo < 0 && s.hi > m,
	      "round 8: one of the other sign keeps 0 and more than 2%% inside: no decision");
	CHECK(stats_seq_interval(tight, 8, &p, 0.05, &s, &asked) == 0 && s.level >= asked &&
	          s.lo > -m && s.hi < m,
	      "round 8: 8 within +-1.5%% decide equivalent within 2%%");
}

static void test_rank(void)
{
	double level;

	CHECK(stats_signrank_rank(10, 0.95, &level) == 9 && fabs(level - 0.951171875) < 1e-12,
	      "rank of the 95%% interval of 10 points: k = 9, level 974/1024 (docs/methodology.md)");
	CHECK(stats_signrank_rank(5, 0.95, &level) == 1 && fabs(level - (1 - 2.0 / 32)) < 1e-12,
	      "5 points cannot reach 95%%: the extremes, at 1 - 2/32");
	CHECK(stats_signrank_rank(0, 0.95, &level) == 0 && stats_signrank_rank(10, 1, &level) == 0,
	      "rank: no points or conf 1 refused");
}

static void test_interval(void)
{
	double x[40], asked;
	struct stats_interval s, f;
	struct stats_seq_plan p = {.planned = 40, .first_look = 6};
	struct prng r;

	prng_seed(&r, 7);
	for (int i = 0; i < 40; i++)
		x[i] = 0.03 + 0.1 * prng_normal(&r);
	CHECK(stats_seq_interval(x, 40, &p, 0.05, &s, &asked) == 0 &&
	          stats_hl_interval(x, 40, 1 - 0.025000000017654986, &f) == 0 && s.lo == f.lo &&
	          s.hi == f.hi && fabs(asked - (1 - 0.025000000017654986)) < 1e-12,
	      "last look: the fixed-n interval at 97.5%%");
	CHECK(stats_seq_interval(x, 20, &p, 0.05, &s, &asked) == 0 && s.level >= asked &&
	          stats_hl_interval(x, 20, 0.95, &f) == 0 && s.lo <= f.lo && s.hi >= f.hi,
	      "look 20: reaches its level and contains the fixed-n 95%% interval");
	CHECK(stats_seq_interval(x, 10, &p, 0.05, &s, &asked) == 0 && asked < 1 &&
	          s.level < asked,
	      "look 10 of 40: the rank interval cannot reach its level (no decision)");
	CHECK(stats_seq_interval(x, 5, &p, 0.05, &s, &asked) == 0 && asked == 1,
	      "before the first look: asked 1");
	CHECK(stats_seq_interval(x, 20, &p, 0, &s, &asked) == -1 &&
	          stats_seq_interval(x, 20, NULL, 0.05, &s, &asked) == -1,
	      "invalid alpha or plan refused");
}

/* Brute force: A/A streams of normal log ratios, the sequential interval looked at after every
 * round from 6 to 30; the share of streams where some look's interval excludes 0 stays below
 * alpha (0.05), where the fixed-n 95% interval looked at the same way does not. */
static void test_coverage(void)
{
	struct stats_seq_plan p = {.planned = 30, .first_look = 6};
	struct prng r;
	double x[30], asked;
	int seq_miss = 0, fixed_miss = 0, trials = 400;

	prng_seed(&r, 20261201);
	for (int t = 0; t < trials; t++) {
		int s_hit = 0, f_hit = 0;
		for (int i = 0; i < 30; i++)
			x[i] = prng_normal(&r);
		for (size_t n = 6; n <= 30; n++) {
			struct stats_interval s, f;
			if (stats_seq_interval(x, n, &p, 0.05, &s, &asked) == 0 && asked < 1 &&
			    s.level >= asked && (s.lo > 0 || s.hi < 0))
				s_hit = 1;
			if (stats_hl_interval(x, n, 0.95, &f) == 0 && (f.lo > 0 || f.hi < 0))
				f_hit = 1;
		}
		seq_miss += s_hit;
		fixed_miss += f_hit;
	}
	CHECK(seq_miss <= trials * 5 / 100,
	      "sequential interval, 25 looks: some look misses 0 in %d of %d A/A streams (<= 5%%)",
	      seq_miss, trials);
	CHECK(fixed_miss > trials * 10 / 100,
	      "fixed-n 95%% interval, 25 looks: misses in %d of %d (well above 5%%)", fixed_miss,
	      trials);
}

int main(void)
{
	test_boundary();
	test_levels();
	test_power();
	test_first_decision();
	test_aa_round8();
	test_rank();
	test_interval();
	test_coverage();
	return CHECK_DONE();
}
