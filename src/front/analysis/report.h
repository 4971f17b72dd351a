/* report.h - renders a comparison (compare.h) as an aligned terminal table, a GitHub markdown
 * report, an allocab-compare/1 JSON document or CSV. Every format states the speedup convention
 * and the verdict rule. */
#ifndef ALLOCAB_REPORT_H
#define ALLOCAB_REPORT_H

#include "front/analysis/compare.h"

#include <stdio.h>
#include <cjson/cJSON.h>

enum report_format { REPORT_TABLE, REPORT_MARKDOWN, REPORT_JSON, REPORT_CSV };

/* "table", "markdown", "json" or "csv": 0 and *f, or -1. */
int report_format_parse(const char *name, enum report_format *f);
/* Writes the whole report to out. Returns 0, or -1 when memory ran out or writing failed. */
int report_write(FILE *out, const struct cmp_report *r, enum report_format f);
/* The allocab-compare/1 document that --format json prints (caller owns it); NULL when memory
 * ran out. */
cJSON *report_json(const struct cmp_report *r);
/* The verdict rule in one sentence, for this report's level (e.g. "verdict: faster or slower
 * when ..."). */
void report_rule(const struct cmp_report *r, char *buf, size_t len);

/* v as the shortest text that reads back as the same double ("" for NaN and infinities): plain
 * digits for integers below 2^53, else the fewest significant digits (at most 17) that round-trip.
 */
void report_fmt_double(double v, char *buf, size_t len);

#endif
