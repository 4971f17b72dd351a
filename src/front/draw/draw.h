/* draw.h - the drawing module: SVG written by the project's own code (no library), the charts
 * that the html and svg formats of front/export/export.h draw, and the raw samples behind them.
 *
 * Contract of every function here that takes a FILE: coordinates are user units of the enclosing
 * <svg>; it writes to f and ignores write errors (the caller checks ferror once). Each chart
 * writes one complete <svg> element (standalone: an SVG document of its own with the stylesheet)
 * whose <title>, axis labels and units make it readable on its own; the convention sentence is
 * in every chart's <desc>, and drawn only in a standalone chart (a page states it once). A chart
 * renders what the comparison (and the results documents it points to) already holds, and
 * returns 0, or -1 when memory ran out or writing failed. Speedups follow CMP_CONVENTION. */
#ifndef ALLOCAB_DRAW_H
#define ALLOCAB_DRAW_H

#include "front/compare/compare.h"
#include "front/fleet/fleet.h"

#include <stddef.h>
#include <stdio.h>

/* The primitives (svgdraw.c). */

#define SVG_MAX_TICKS 12
#define SVG_TICK_GAP  36.0 /* least pixels between two tick labels */

/* A map from data values [d0, d1] to pixels [p0, p1], linear or on a log axis (d0, d1 > 0). */
struct svg_scale {
	double d0, d1, p0, p1;
	int log;
};

double svg_map(const struct svg_scale *s, double v);
/* Up to SVG_MAX_TICKS round values within [s->d0, s->d1] into t; returns the count. */
size_t svg_ticks(const struct svg_scale *s, double *t);

/* The CSS of every chart (the class names the charts use), for a <style> element. */
const char *svg_css(void);

/* Opens an <svg> of w x h with a <title> and <desc>; standalone adds the XML prolog, the
 * namespace and the stylesheet. */
void svg_open(FILE *f, double w, double h, const char *title, const char *desc, int standalone);
void svg_close(FILE *f);

/* Writes s with &, <, >, " and ' escaped (for text and attribute values), control characters
 * but tab and LF left out, and every byte that is not UTF-8 as U+FFFD: a path from the command
 * line, or a name cut to a buffer's length, leaves the document well-formed. */
void svg_esc(FILE *f, const char *s);
/* <text> at (x, y) with CSS class cls, its text printf'd from fmt: starting at x (svg_text),
 * centred on it (svg_text_middle) or ending at it (svg_text_end). */
void svg_text(FILE *f, double x, double y, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void svg_text_middle(FILE *f, double x, double y, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void svg_text_end(FILE *f, double x, double y, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *cls);
void svg_rect(FILE *f, double x, double y, double w, double h, const char *cls);
void svg_circle(FILE *f, double x, double y, double r, const char *cls, const char *tip);
/* What a marker looks like: its size r, its shape (0 circle, 1 square, 2 triangle, 3 diamond,
 * 4 inverted triangle, 5 and beyond a cross, modulo 6) and its CSS class. */
struct svg_glyph {
	double r;
	unsigned shape;
	const char *cls;
};
/* The marker g centred on (x, y); tip is its tooltip or NULL. */
void svg_mark(FILE *f, double x, double y, const struct svg_glyph *g, const char *tip);

/* The charts. */

/* What a chart of a comparison is given; every pointer is owned by the caller. */
struct chart_input {
	const struct cmp_report *r;
	double margin; /* a gate bound on t_candidate/t_baseline, or NAN */
	/* what each row's difference is made of, one per row of r (cmp_attribs); may be NULL */
	const struct cmp_attrib *attrib;
	/* lines a standalone forest plot writes under its plot (e.g. the replays' caveats) */
	const char *const *notes;
	size_t nnotes;
};

/* A forest plot of every speedup with its interval (charts.c); speed against memory; per-arm
 * distributions of the measured times and per-round speedups in run order (chartsamples.c);
 * what each faster or slower comparison's difference is made of, user, system and the rest, as
 * stacked bars (attribchart.c). */
int chart_forest(FILE *f, const struct chart_input *in, int standalone);
int chart_speed_memory(FILE *f, const struct chart_input *in);
int chart_distributions(FILE *f, const struct chart_input *in);
int chart_rounds(FILE *f, const struct chart_input *in);
int chart_attrib(FILE *f, const struct chart_input *in);

/* What the forest plot of a fleet is given; owned by the caller. note writes the tooltip note of
 * machine m's line of row (m == f->nm: of the pooled diamond) into buf. */
struct chart_fleet_input {
	const struct fleet_report *f;
	double margin; /* a gate bound on t_candidate/t_baseline, or NAN */
	void (*note)(const struct fleet_report *f, const struct fleet_row *row, size_t m, char *buf,
	             size_t len);
};
/* The forest plot of a fleet (fleetchart.c): per comparison every machine's interval (a square
 * sized by its weight in the pooling; red when odd; the reason when not pooled), the pooled
 * estimate as a diamond over its interval and the prediction interval for a new machine. */
int chart_fleet_forest(FILE *f, const struct chart_fleet_input *in, int standalone);

/* Whether row's interval reaches less than the report's family level (too few rounds): the
 * forest plot and the HTML table mark it with "*". */
int chart_short_level(const struct cmp_report *r, const struct cmp_row *row);

/* The samples behind a comparison (series.c), as the charts and the history formats need them.
 * Arrays are malloc'd and owned by the caller. */

/* Which times of a document: arm `arm` in workload wl, phase `phase`, regime g. */
struct series_key {
	const char *arm, *wl, *phase;
	enum rf_regime g;
};
/* The ok times (ns) of key in d, in round order, into *t (*n of them; *t NULL when none).
 * Returns 0, or -1 when memory ran out or a name is unknown. */
int series_arm_times(const struct rf_doc *d, const struct series_key *key, double **t, size_t *n);
/* The peak RSS (bytes) of the ok runs of arm `arm` in workload `wl` of d, as series_arm_times. */
int series_arm_peak_rss(const struct rf_doc *d, const char *arm, const char *wl, double **v,
                        size_t *n);
/* Median of x[0..n) after sorting it in place; NAN for n == 0. */
double series_sorted_median(double *x, size_t n);
/* Order-statistic interval for the median of the sorted x[0..n): the widest-inside pair
 * x[j], x[n-1-j] whose binomial coverage is at least conf (the whole range when n is too small).
 * Sets *lo and *hi; NAN for n == 0. */
void series_median_interval(const double *sorted, size_t n, double conf, double *lo, double *hi);

#endif
