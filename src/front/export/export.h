/* export.h - every output format of `allocab compare --format` and `allocab merge --format`, the
 * text table included: one exporter per format, each in its own file of this folder named after
 * it (table.c, markdown.c, json.c, csv.c, html.c, svg.c, bmf.c, gab.c), behind the one interface
 * below; each renders a comparison (write) and a fleet of machines (write_fleet, fleettext.c
 * holding what the fleet formats share). The registry is export.c; what the formats share is
 * private to this folder (exportint.h); the charts of html and svg are front/draw/draw.h's.
 *
 * Convention for every exporter: it renders what the comparison (and the results documents it
 * points to) already holds, recomputes no statistic of its own beyond order statistics of the
 * measured times, writes the whole output to out, and returns 0, or -1 with a one-line reason in
 * err. Speedups follow CMP_CONVENTION everywhere: speedup = t_baseline / t_candidate. */
#ifndef ALLOCAB_EXPORT_H
#define ALLOCAB_EXPORT_H

#include "front/claims/claims.h"
#include "front/compare/compare.h"
#include "front/fleet/fleet.h"

#include <stddef.h>
#include <stdio.h>

/* What an exporter is given; every pointer is owned by the caller. */
struct export_input {
	const struct cmp_report *r;
	double margin;                      /* a gate bound on t_candidate/t_baseline, or NAN */
	const struct claims_result *claims; /* NULL without --claims */
	size_t width; /* the text formats fit this many columns (0: no limit) */
	/* the replays among r's workloads, with their predictions (cmp_replays); may be NULL */
	const struct cmp_replay *replays;
	size_t nreplays;
	/* what each row's difference is made of, one per row of r (cmp_attribs); may be NULL */
	const struct cmp_attrib *attrib;
};

/* What an exporter is given for a fleet (`allocab merge`); owned by the caller. */
struct export_fleet_input {
	const struct fleet_report *f;
	double margin; /* a gate bound on t_candidate/t_baseline, or NAN */
	size_t width;  /* the text formats fit this many columns (0: no limit) */
};

/* What a format declares; the caller decides by these, never by a format's name. */
enum export_flags {
	EXPORT_MARKUP = 1 << 0,   /* XML: SVG or XHTML-compatible HTML, checked by xmllint in tests */
	EXPORT_JSON = 1 << 1,     /* one JSON document */
	EXPORT_CHARTS = 1 << 2,   /* draws charts */
	EXPORT_WARNINGS = 1 << 3, /* carries the report's warnings (else they go to stderr) */
};

struct exporter {
	const char *name;    /* the --format value */
	const char *summary; /* one line for --help and docs */
	unsigned flags;      /* enum export_flags */
	int (*write)(FILE *out, const struct export_input *in, char *err, size_t errlen);
	/* The same for a fleet: every machine's row of every comparison and the pooled one. */
	int (*write_fleet)(FILE *out, const struct export_fleet_input *in, char *err,
	                   size_t errlen);
};

/* The exporter named name, or NULL. */
const struct exporter *export_find(const char *name);
/* The i-th exporter in the registry's order, NULL past the end. */
const struct exporter *export_at(size_t i);
/* The names of every exporter joined by sep, the last two by last (e.g. "|" and "|", or ", " and
 * " or "), into buf (truncated to len). Returns buf. */
const char *export_names(char *buf, size_t len, const char *sep, const char *last);

#endif
