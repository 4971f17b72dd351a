/* cmpagree.c - the agreement of a row's shared and solo rounds (compare.h, cmp_solo_agree;
 * docs/methodology.md, "Solo anchor rounds"), which cmpsolo.c applies to every workload row. */
#include "front/compare/compare.h"

int cmp_solo_agree(const double *shared, size_t n_shared, const double *solo, size_t n_solo,
                   double conf, struct cmp_solo *s)
{
	double u;

	if (stats_hl_shift_interval(shared, n_shared, solo, n_solo, conf, &s->ratio) != 0 ||
	    stats_mann_whitney(shared, n_shared, solo, n_solo, &u, &s->p) != 0)
		return -1;
	s->reached = s->ratio.level >= conf - 1e-9;
	s->disagree = s->reached && (s->ratio.lo > 0 || s->ratio.hi < 0);
	return 0;
}
