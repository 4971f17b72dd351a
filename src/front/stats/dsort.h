/* dsort.h - sorting doubles in a few linear passes (an LSD radix sort over the value's bits mapped
 * to an unsigned key that orders as the doubles do), for the statistics of long benches: 10^6
 * values sort in a fraction of qsort's time. Values must not be NaN; -0 sorts before +0. The sort
 * is stable. Short arrays, and any array when the scratch memory cannot be had, go through qsort
 * with the same order. */
#ifndef ALLOCAB_DSORT_H
#define ALLOCAB_DSORT_H

#include <stddef.h>

/* A value and its place, for ranks: sorted by v, ties by i. */
struct dsort_keyed {
	double v;
	size_t i;
};

/* Sorts v[0..n) ascending. */
void dsort(double *v, size_t n);
/* Sorts k[0..n) by v ascending, ties in ascending i when k arrives in ascending i (stable). */
void dsort_keyed(struct dsort_keyed *k, size_t n);

#endif
