/* cmpagree.c - the agreement of a row's shared and solo rounds (compare.h, cmp_solo_agree;
 * docs/methodology.md, "Solo anchor rounds"), which cmpsolo.c applies to every workload row. */
#include "front/compare/compare.h"

#include <math.h>

int cmp_solo_agree(const double *shared, size_t n_shared, const double *solo, size_t n_solo,
                   double conf, struct cmp_solo *s)
{
	struct stats_twosample w;
	const double *a = shared, *b = solo;

	if (n_shared == 0 || n_solo == 0 || !(conf > 0 && conf < 1))
		return -1;
	/* with fewer rounds than the test holds its level at, the interval is still the Welch
	 * one of what there is (with a single round in a set: unbounded), and no test is made */
	s->reached = n_shared >= CMP_SOLO_MIN_ROUNDS && n_solo >= CMP_SOLO_MIN_ROUNDS;
	if (n_shared < 2 || n_solo < 2) {
		double ma = stats_mean(a, n_shared), mb = stats_mean(b, n_solo);
		if (!isfinite(ma) || !isfinite(mb))
			return -1;
		s->ratio = (struct stats_interval){.est = mb - ma, .lo = -INFINITY, .hi = INFINITY,
		                                   .level = conf};
		s->p = 1;
		s->df = NAN;
		s->disagree = 0;
		return 0;
	}
	if (stats_welch_interval(a, n_shared, b, n_solo, conf, &w) != 0)
		return -1;
	s->ratio = w.diff;
	s->p = w.p;
	s->df = w.df;
	s->disagree = s->reached && (s->ratio.lo > 0 || s->ratio.hi < 0);
	return 0;
}
