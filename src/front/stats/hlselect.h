/* hlselect.h - order statistics for the Hodges-Lehmann methods of stats.c: the k-th smallest of
 * the n(n+1)/2 Walsh averages or of the nx*ny pairwise differences, found without listing them
 * (expected O(n log n) time, O(n) memory). Each value is computed exactly as a full listing would
 * compute it, 0.5 * (x_i + x_j) and y_j - x_i, so the selected double is the very one a sort of
 * the listing puts at rank k. Also Hoare's FIND on an array. */
#ifndef ALLOCAB_HLSELECT_H
#define ALLOCAB_HLSELECT_H

#include <stddef.h>

/* The implicit list: with y == NULL the Walsh averages 0.5 * (x_i + x_j), i <= j < nx; otherwise
 * the differences y_j - x_i, i < nx, j < ny. Values must be finite. */
struct hl_source {
	const double *x, *y;
	size_t nx, ny;
};

/* Length of the list, or 0 if it is empty or its length does not fit in a size_t. */
size_t hl_count(const struct hl_source *s);
/* out[i] = the ranks[i]-th smallest (0-based, ranks[i] < hl_count(s)) value of the list, for
 * i < nranks. Deterministic. Returns 0, or -1 if scratch space cannot be had (out untouched). */
int hl_select(const struct hl_source *s, const size_t *ranks, size_t nranks, double *out);

/* Sorts v[0..n) ascending, -0 before +0 (values must not be NaN). */
void hl_sort(double *v, size_t n);

/* k-th smallest (0-based, k < n) of a[0..n-1], which is permuted so that afterwards
 * a[0..k-1] <= a[k] <= a[k+1..n-1]. Expected linear time. */
double hl_find(double *a, size_t n, size_t k);

#endif
