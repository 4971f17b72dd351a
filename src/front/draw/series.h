/* series.h - the raw samples behind a comparison, as the charts and the history exports need
 * them: one arm's measured times, the per-round log ratios of a paired row in run order, and a
 * distribution-free interval for a median. Arrays are malloc'd and owned by the caller. */
#ifndef ALLOCAB_SERIES_H
#define ALLOCAB_SERIES_H

#include "front/compare/compare.h"


#include <stddef.h>

/* The ok times (ns) of regime g of arm `arm` in workload `wl`, phase `phase` of d, in round
 * order, into *t (*n of them; *t NULL when none). Returns 0, or -1 when memory ran out or a name
 * is unknown. */
int series_arm_times(const struct rf_doc *d, const char *arm, const char *wl, const char *phase,
                     enum rf_regime g, double **t, size_t *n);

/* The same for the warm-up rounds of d, which no comparison uses. */
int series_warm_times(const struct rf_doc *d, const char *arm, const char *wl, const char *phase,
                      enum rf_regime g, double **t, size_t *n);

/* The phase the charts show of workload wl: that of its first primary row (the question: an
 * epoch with --primary epoch), else its total when r compared it, else the first phase r compared
 * of it (a --phase report); NULL when r has no row of wl. */
const char *series_chart_phase(const struct cmp_report *r, const char *wl);
/* The regime the charts show of phase `phase` of workload wl: that of its first primary row of
 * that phase, else steady when r compared a steady row of it, else cold (a program's total, a
 * phase marked once, a --cmd bench). */
enum rf_regime series_row_regime(const struct cmp_report *r, const char *wl, const char *phase);

/* The peak RSS (bytes) of the ok runs of arm `arm` in workload `wl` of d, as series_arm_times. */
int series_arm_peak_rss(const struct rf_doc *d, const char *arm, const char *wl, double **v,
                        size_t *n);

/* Median of x[0..n) after sorting it in place; NAN for n == 0. */
double series_sorted_median(double *x, size_t n);

/* For a paired, non-geomean row of r: d = ln(t_candidate / t_baseline) of the row's regime in
 * every round where both runs are ok, in round order, with the rounds' "index" in *round. Returns 0
 * (*n may be 0), or -1 when memory ran out or the row is not of that kind. */
int series_round_ratios(const struct cmp_report *r, const struct cmp_row *row, double **d,
                        size_t **round, size_t *n);

/* Order-statistic interval for the median of the sorted x[0..n): the widest-inside pair
 * x[j], x[n-1-j] whose binomial coverage is at least conf (the whole range when n is too small).
 * Sets *lo and *hi; NAN for n == 0. */
void series_median_interval(const double *sorted, size_t n, double conf, double *lo, double *hi);

#endif
