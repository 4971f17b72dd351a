/* charts.h - the four charts of a comparison, drawn as inline SVG by the project's own code
 * (svgdraw.h): a forest plot of every speedup with its interval, per-arm distributions of the
 * measured times, speed against memory, and per-round speedups in run order. Each writes one
 * complete <svg> element (standalone: an SVG document of its own with the stylesheet) whose
 * <title>, axis labels and units make it readable on its own; the convention sentence is in every
 * chart's <desc>, and drawn only in a standalone chart (a page states it once). Each returns 0, or
 * -1 when memory ran out. */
#ifndef ALLOCAB_CHARTS_H
#define ALLOCAB_CHARTS_H

#include "front/export/exportint.h"
#include "front/export/svgdraw.h"

#include <stdio.h>

int chart_forest(FILE *f, const struct export_input *in, int standalone);
int chart_distributions(FILE *f, const struct export_input *in);
int chart_speed_memory(FILE *f, const struct export_input *in);
int chart_rounds(FILE *f, const struct export_input *in);

/* The forest plot of a fleet (fleetchart.c): per comparison every machine's interval (a square
 * sized by its weight in the pooling; red when odd; the reason when not pooled), the pooled
 * estimate as a diamond over its interval and the prediction interval for a new machine. */
int chart_fleet_forest(FILE *f, const struct export_fleet_input *in, int standalone);

/* A log axis over the ratios [lo, hi], clamped to [0.05, 20], padded by pad of its log span plus
 * margin on each side, drawn from pixel p0 to p1. */
struct svg_scale chart_ratio_axis(double lo, double hi, double pad, double margin, double p0,
                                  double p1);
/* The x axis of s between y0 and y1: grid lines, ticks ("1.2x") and label under it. */
void chart_x_axis(FILE *f, const struct svg_scale *s, double y0, double y1, const char *label);

/* Whether row's interval reaches less than the report's family level (too few rounds): the
 * forest plot and the HTML table mark it with "*". */
int chart_short_level(const struct cmp_report *r, const struct cmp_row *row);

/* The speedup convention in two lines of muted text from (x, y). */
void chart_convention(FILE *f, double x, double y);

/* The distinct candidates of r's rows in order of first appearance (at most max), for colours and
 * legends. Returns the count. */
size_t chart_candidates(const struct cmp_report *r, const char **names, size_t max);

#endif
