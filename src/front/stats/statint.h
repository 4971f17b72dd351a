/* statint.h - private to the files of the statistics module (stats.c, bootstrap.c, ttest.c): the
 * checks and helpers they share. stats.h is the public API. */
#ifndef ALLOCAB_STATINT_H
#define ALLOCAB_STATINT_H

#include <stdbool.h>
#include <stddef.h>

/* Every x[i] is finite. */
bool st_all_finite(const double *x, size_t n);
/* conf is a level in (0, 1). */
bool st_valid_conf(double conf);
/* The q-quantile (0 <= q <= 1, linear between order statistics) of s[0..n), sorted, n > 0. */
double st_quantile_sorted(const double *s, size_t n, double q);
/* Mid-ranks (1-based) of v[0..n) into rank; *ties = the sum over tie groups of t^3 - t. Returns
 * 0, or -1 when memory ran out. */
int st_midranks(const double *v, size_t n, double *rank, double *ties);

#endif
