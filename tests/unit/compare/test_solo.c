/* test_solo.c - the solo anchor's check on fixed log ratios (compare.h, cmp_solo_agree;
 * docs/methodology.md, "Solo anchor rounds"): the difference of the solo rounds' mean log ratio
 * over the shared ones', its Welch interval at the family's level, agreement and disagreement,
 * the verdict the interval's, no test below CMP_SOLO_MIN_ROUNDS rounds of a placement, and sets
 * of unequal spread that the rank test this replaced called a disagreement. The rounds the anchor
 * plans for are tested with the interval (tests/unit/stats/test_twosample.c). Reference values
 * were computed once with mpmath at 40 digits (as test_twosample.c's). */
#include "check.h"

#include "front/compare/compare.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const double shared[10] = {-0.02, -0.01, 0, 0.01, 0.02, -0.015, -0.005, 0.005, 0.015, 0};

static void shifted(double *out, size_t n, double by)
{
	for (size_t i = 0; i < n; i++)
		out[i] = shared[i] + by;
}

/* Shared rounds tight (sd 0.02), solo rounds three times as spread, both centred on 0: a draw
 * of the simulation's null (docs/validation.md, "One CPU against its solo rounds") on which the
 * Hodges-Lehmann shift's Mann-Whitney interval, compare's test before, excluded 0 ([0.008, 0.088]
 * at 95%): five of the six solo rounds lie above most shared ones. Welch's interval holds 0. */
static void test_spreads(void)
{
	static const double sh[18] = {0.001,  0.011,  0.029,  -0.01, -0.004, 0.004,
	                              -0.026, -0.007, -0.011, -0.018, -0.024, -0.008,
	                              -0.019, 0.008,  0.019,  -0.003, 0.02,   0.032};
	static const double so[6] = {0.012, 0.176, 0.077, -0.09, 0.067, 0.06};
	struct stats_interval old;
	struct cmp_solo s;

	CHECK(stats_hl_shift_interval(sh, 18, so, 6, 0.95, &old) == 0 && old.level >= 0.95 &&
	          old.lo > 0,
	      "unequal spreads: the rank interval excluded 0 ([%g, %g])", old.lo, old.hi);
	memset(&s, 0, sizeof s);
	CHECK(cmp_solo_agree(sh, 18, so, 6, 0.95, &s) == 0 && s.reached && !s.disagree,
	      "unequal spreads: Welch's check agrees ([%g, %g], p %g)", s.ratio.lo, s.ratio.hi, s.p);
	CHECK_NEAR(s.ratio.est, 0.050666666666666667, 1e-12, "unequal spreads: the mean difference");
	CHECK_NEAR(s.ratio.lo, -0.040756667470444464, 1e-10, "unequal spreads: lower bound");
	CHECK_NEAR(s.ratio.hi, 0.1420900008037778, 1e-10, "unequal spreads: upper bound");
	CHECK_NEAR(s.df, 5.1326251653307496, 1e-10, "unequal spreads: Welch-Satterthwaite df");
	CHECK_NEAR(s.p, 0.21515803888084504, 1e-10, "unequal spreads: p");
}

/* The verdict is the interval's at every shift and level: disagree exactly when the interval
 * excludes 0, and exactly when p < 1 - conf. */
static void test_verdict_is_interval(void)
{
	static const double conf[] = {0.95, 0.99, 1 - 0.05 / 8};
	double solo[10];
	size_t bad = 0, seen[2] = {0, 0};

	for (size_t c = 0; c < 3; c++)
		for (int k = -300; k <= 300; k++) {
			struct cmp_solo s;
			shifted(solo, 10, 0.0001 * k);
			solo[k & 7] += 0.003 * (k % 5);
			if (cmp_solo_agree(shared, 10, solo, 10, conf[c], &s) != 0) {
				bad++;
				continue;
			}
			int excl = s.ratio.lo > 0 || s.ratio.hi < 0;
			bad += s.disagree != excl || excl != (s.p < 1 - conf[c]) ||
			       s.ratio.level != conf[c];
			seen[s.disagree]++;
		}
	CHECK(bad == 0 && seen[0] > 0 && seen[1] > 0,
	      "the verdict is the interval's and the p-value's at 1803 shifts and levels (%zu "
	      "inconsistent; %zu agree, %zu disagree)",
	      bad, seen[0], seen[1]);
}

int main(void)
{
	struct cmp_solo s;
	double solo[10];

	/* solo rounds 22% faster than the shared ones say: the shift is exactly -0.2 */
	shifted(solo, 10, -0.2);
	memset(&s, 0, sizeof s);
	CHECK(cmp_solo_agree(shared, 10, solo, 10, 0.95, &s) == 0, "a 0.2 shift: computed");
	CHECK_NEAR(s.ratio.est, -0.2, 1e-12, "the shift is the solo sets' offset");
	CHECK(s.ratio.hi < 0 && s.ratio.level >= 0.95, "its interval excludes 0 at 95%%: [%g, %g]",
	      s.ratio.lo, s.ratio.hi);
	CHECK(s.reached && s.disagree, "a 0.2 shift disagrees (reached %d, disagree %d)", s.reached,
	      s.disagree);
	CHECK(s.p < 0.001, "Welch p %g", s.p);
	CHECK_NEAR(exp(s.ratio.est), 0.8187307531, 1e-9,
	           "ratio = speedup shared / speedup solo = exp(shift)");

	/* a shift of 0.001 inside the sets' spread: they agree */
	shifted(solo, 10, 0.001);
	CHECK(cmp_solo_agree(shared, 10, solo, 10, 0.95, &s) == 0 && s.reached && !s.disagree &&
	          s.ratio.lo < 0 && s.ratio.hi > 0,
	      "a 0.001 shift agrees: [%g, %g]", s.ratio.lo, s.ratio.hi);

	/* 0.02, about one sd of the sets: found at 95% for one comparison, not at the level of a
	 * family of 100 (1 - 0.05/100) */
	shifted(solo, 10, 0.02);
	CHECK(cmp_solo_agree(shared, 10, solo, 10, 0.95, &s) == 0 && s.disagree,
	      "a 0.02 shift disagrees at 95%%: [%g, %g]", s.ratio.lo, s.ratio.hi);
	CHECK(cmp_solo_agree(shared, 10, solo, 10, 1 - 0.05 / 100, &s) == 0 && s.reached &&
	          !s.disagree,
	      "... and agrees at the level of a family of 100: [%g, %g]", s.ratio.lo, s.ratio.hi);

	/* five rounds each: below CMP_SOLO_MIN_ROUNDS no disagreement is claimed however far apart
	 * they lie; six each are tested */
	shifted(solo, 5, -1.0);
	CHECK(cmp_solo_agree(shared, 5, solo, 5, 0.95, &s) == 0 && !s.reached && !s.disagree &&
	          s.ratio.hi < 0,
	      "5 and 5 rounds: not tested (interval [%g, %g])", s.ratio.lo, s.ratio.hi);
	shifted(solo, 6, -1.0);
	CHECK(cmp_solo_agree(shared, 6, solo, 6, 0.95, &s) == 0 && s.reached && s.disagree,
	      "6 and 6 rounds: tested, they disagree");
	CHECK(cmp_solo_agree(shared, 10, solo, 1, 0.95, &s) == 0 && !s.reached && !s.disagree &&
	          isinf(s.ratio.lo) && isinf(s.ratio.hi) && s.p == 1,
	      "one solo round: an unbounded interval, no test");
	CHECK(cmp_solo_agree(shared, 0, solo, 3, 0.95, &s) != 0, "no shared round: refused");

	test_spreads();
	test_verdict_is_interval();
	return CHECK_DONE();
}
