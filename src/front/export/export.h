/* export.h - the formats of `allocab compare --format` beyond the text renderings of
 * front/analysis/report.h: one exporter per format, each in its own file of this folder, behind
 * the one interface below (the registry is export.c).
 *
 * Convention for every exporter: it renders what the comparison (and the results documents it
 * points to) already holds, recomputes no statistic of its own beyond order statistics of the
 * measured times, writes the whole output to out, and returns 0, or -1 with a one-line reason in
 * err. Speedups follow CMP_CONVENTION everywhere: speedup = t_baseline / t_candidate. */
#ifndef ALLOCAB_EXPORT_H
#define ALLOCAB_EXPORT_H

#include "front/analysis/claims.h"
#include "front/analysis/compare.h"

#include <stddef.h>
#include <stdio.h>

/* What an exporter is given; every pointer is owned by the caller. */
struct export_input {
	const struct cmp_report *r;
	double margin;                      /* a gate bound on t_candidate/t_baseline, or NAN */
	const struct claims_result *claims; /* NULL without --claims */
};

enum export_flags {
	EXPORT_MARKUP = 1 << 0, /* XML: SVG or XHTML-compatible HTML, checked by xmllint in tests */
	EXPORT_JSON = 1 << 1,   /* one JSON document */
	EXPORT_CHARTS = 1 << 2, /* draws the charts of charts.h */
};

struct exporter {
	const char *name;    /* the --format value */
	const char *summary; /* one line for --help and docs */
	unsigned flags;      /* enum export_flags */
	int (*write)(FILE *out, const struct export_input *in, char *err, size_t errlen);
};

/* The exporter named name, or NULL. */
const struct exporter *export_find(const char *name);
/* The i-th exporter, NULL past the end (for usage texts). */
const struct exporter *export_at(size_t i);

extern const struct exporter export_svg, export_html, export_bmf, export_gab;

#endif
