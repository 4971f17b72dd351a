/* drawint.h - private to this folder: what the charts share. Other folders include draw.h only
 * (scripts/check_layers.sh). */
#ifndef ALLOCAB_DRAWINT_H
#define ALLOCAB_DRAWINT_H

#include "front/draw/draw.h"

#include <stdio.h>

/* charts.c */

/* A log axis over the ratios [lo, hi], clamped to [0.05, 20], padded by pad of its log span plus
 * margin on each side, drawn from pixel p0 to p1. */
struct svg_scale chart_ratio_axis(double lo, double hi, double pad, double margin, double p0,
                                  double p1);
/* The x axis of s between y0 and y1: grid lines, ticks ("1.2x") and label under it. */
void chart_x_axis(FILE *f, const struct svg_scale *s, double y0, double y1, const char *label);
/* The speedup convention in two lines of muted text from (x, y). */
void chart_convention(FILE *f, double x, double y);
/* The distinct candidates of r's rows in order of first appearance (at most max), for colours and
 * legends. Returns the count. */
size_t chart_candidates(const struct cmp_report *r, const char **names, size_t max);

/* series.c */

/* The ok times of key in the warm-up rounds of d, which no comparison uses, as
 * series_arm_times. */
int series_warm_times(const struct rf_doc *d, const struct series_key *key, double **t, size_t *n);
/* The phase the charts show of workload wl: that of its first primary row (the question: an
 * epoch with --primary epoch), else its total when r compared it, else the first phase r compared
 * of it (a --phase report); NULL when r has no row of wl. */
const char *series_chart_phase(const struct cmp_report *r, const char *wl);
/* The regime the charts show of phase `phase` of workload wl: that of its first primary row of
 * that phase, else steady when r compared a steady row of it, else cold (a program's total, a
 * phase marked once, a --cmd bench). */
enum rf_regime series_row_regime(const struct cmp_report *r, const char *wl, const char *phase);
/* For a paired, non-geomean row of r: d = ln(t_candidate / t_baseline) of the row's regime in
 * every round where both runs are ok, in round order, with the rounds' "index" in *round. Returns 0
 * (*n may be 0), or -1 when memory ran out or the row is not of that kind. */
int series_round_ratios(const struct cmp_report *r, const struct cmp_row *row, double **d,
                        size_t **round, size_t *n);

#endif
