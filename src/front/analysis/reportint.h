/* reportint.h - private to report.c and its parts (repcells.c, reptext.c, repjson.c, repcsv.c):
 * what the renderings share. report.h is the public API. */
#ifndef ALLOCAB_REPORTINT_H
#define ALLOCAB_REPORTINT_H

#include "front/analysis/report.h"

#include <stddef.h>
#include <stdio.h>

#define MAXCOL 12 /* the last, noise floor, only with a calibration */
#define ARMCOL 9
#define CELL   160

/* report.c */

/* The regimes compared in one sentence ("regimes: steady and cold side by side; ..."). */
void report_describe_regimes(const struct cmp_report *r, char *buf, size_t len);

/* repcells.c */

/* The comparisons table's header and lines into c (MAXCOL cells per line, room for r->nrows + 1
 * lines); returns the lines, header included, and sets *ncol and the right-aligned columns
 * *right (bit j for column j). */
size_t report_table_cells(const struct cmp_report *r, char (*c)[CELL], size_t *ncol,
                          unsigned *right);
/* The per-arm lines behind the total-phase comparisons into c (room for 2 x r->nrows lines):
 * each baseline once, then each candidate. Returns the lines. */
size_t report_arm_cells(const struct cmp_report *r, char (*c)[ARMCOL][CELL]);

/* reptext.c, repjson.c, repcsv.c: each writes the whole report in its format to out. Return 0,
 * or -1 when memory ran out (out's errors are left to report_write). */
int report_write_text(FILE *out, const struct cmp_report *r, int md); /* md: markdown */
int report_write_json(FILE *out, const struct cmp_report *r);
int report_write_csv(FILE *out, const struct cmp_report *r);

#endif
