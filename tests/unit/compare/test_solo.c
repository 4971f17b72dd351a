/* test_solo.c - the solo anchor's check on fixed log ratios (compare.h, cmp_solo_agree;
 * docs/methodology.md, "Solo anchor rounds"): the shift of the solo rounds over the shared ones,
 * its interval at the family's level, agreement and disagreement, and no test where the rounds
 * cannot reach that level. The rounds the anchor plans for are tested in
 * tests/unit/stats/test_twosample.c. */
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
	CHECK(s.p < 0.001, "Mann-Whitney p %g", s.p);
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

	/* three rounds each: no interval reaches 95% (the exact one's widest is 1 - 2/20), so no
	 * disagreement is claimed however far apart they lie */
	shifted(solo, 3, -1.0);
	CHECK(cmp_solo_agree(shared, 3, solo, 3, 0.95, &s) == 0 && !s.reached && !s.disagree,
	      "3 and 3 rounds: not tested at 95%% (level %g)", s.ratio.level);
	CHECK(cmp_solo_agree(shared, 0, solo, 3, 0.95, &s) != 0, "no shared round: refused");

	return CHECK_DONE();
}
