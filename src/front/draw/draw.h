/* svgdraw.h - the drawing primitives the charts share: escaped text, lines, marks, scales and ticks,
 * and one stylesheet whose colours follow the reader's light or dark scheme. Coordinates are
 * user units of the enclosing <svg>; every function writes to f and ignores write errors (the
 * caller checks ferror once). */
#ifndef ALLOCAB_SVG_H
#define ALLOCAB_SVG_H

#include <stddef.h>
#include <stdio.h>

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

/* The CSS of every chart (class names used by charts.c), for a <style> element. */
const char *svg_css(void);

/* Opens an <svg> of w x h with a <title> and <desc>; standalone adds the XML prolog, the
 * namespace and the stylesheet. */
void svg_open(FILE *f, double w, double h, const char *title, const char *desc, int standalone);
void svg_close(FILE *f);

/* Writes s with &, <, >, " and ' escaped (for text and attribute values), control characters
 * but tab and LF left out, and every byte that is not UTF-8 as U+FFFD: a path from the command
 * line, or a name cut to a buffer's length, leaves the document well-formed. */
void svg_esc(FILE *f, const char *s);
/* <text> at (x, y) with CSS class cls and text-anchor anchor ("start", "middle", "end"). */
void svg_text(FILE *f, double x, double y, const char *cls, const char *anchor, const char *fmt,
              ...) __attribute__((format(printf, 6, 7)));
void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *cls);
void svg_rect(FILE *f, double x, double y, double w, double h, const char *cls);
void svg_circle(FILE *f, double x, double y, double r, const char *cls, const char *tip);
/* A marker of size r centred on (x, y): shape 0 circle, 1 square, 2 triangle, 3 diamond,
 * 4 inverted triangle, 5 and beyond a cross (modulo 6); tip is its tooltip or NULL. */
void svg_mark(FILE *f, double x, double y, double r, unsigned shape, const char *cls,
              const char *tip);

#endif
