/* exportint.h - private to this folder: what the exporters share. Other folders include
 * export.h only (scripts/check_layers.sh). */
#ifndef ALLOCAB_EXPORTINT_H
#define ALLOCAB_EXPORTINT_H

#include "front/export/export.h"

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#define MAXCOL 12 /* the last, noise floor, only with a calibration */
#define ARMCOL 9
#define CELL   160

/* The exporters of the registry (export.c), one file each. */
extern const struct exporter export_table, export_markdown, export_json, export_csv, export_html,
    export_svg, export_bmf, export_gab;

/* fmt.c */

/* The verdict rule in one sentence, for this report's level and equivalence margin (e.g.
 * "verdict: read off the printed interval, ..."). */
void export_rule(const struct cmp_report *r, char *buf, size_t len);

/* The regimes compared in one sentence ("regimes: steady and cold side by side; ..."). */
void export_describe_regimes(const struct cmp_report *r, char *buf, size_t len);
/* v as the shortest text that reads back as the same double ("" for NaN and infinities): plain
 * digits for integers below 2^53, else the fewest significant digits (at most 17) that round-trip.
 */
void export_fmt_double(double v, char *buf, size_t len);
/* A JSON number, or null for NaN and infinities; NULL when memory ran out. */
cJSON *export_json_num(double v);
/* Prints j (NULL: memory ran out) with a newline and deletes it, its strings made well-formed
 * UTF-8 (common/utf8.h: a path given on the command line may not be). Returns 0, or -1 with "out
 * of memory" in err. */
int export_print_json(FILE *f, cJSON *j, char *err, size_t errlen);

/* How export_text writes a text that may hold names, paths or lines from a file. */
enum export_text_flags {
	EXPORT_TEXT_MD = 1 << 0,   /* markdown: "<" that could open an HTML tag or comment as &lt; */
	EXPORT_TEXT_CELL = 1 << 1, /* a markdown table cell: "|" as \| */
};
/* Writes s with every control character and DEL as \xNN (a name can break no line or table,
 * nor steer a terminal), and what flags ask. */
void export_text(FILE *out, const char *s, unsigned flags);
/* The bytes export_text(out, s, 0) writes. */
size_t export_text_len(const char *s);

/* cells.c */

/* The comparisons table's header and lines into c (MAXCOL cells per line, room for r->nrows + 1
 * lines); returns the lines, header included, and sets *ncol and the right-aligned columns
 * *right (bit j for column j). */
size_t export_table_cells(const struct cmp_report *r, char (*c)[CELL], size_t *ncol,
                          unsigned *right);
/* The per-arm lines behind the total-phase comparisons into c (room for 2 x r->nrows lines):
 * each baseline once, then each candidate. Returns the lines. */
size_t export_arm_cells(const struct cmp_report *r, char (*c)[ARMCOL][CELL]);

/* markup.c: the table (md 0) and markdown (md 1) renderings, claims appended. Returns 0, or -1
 * with "out of memory" in err. */
int export_write_markup(FILE *out, const struct export_input *in, int md, char *err,
                        size_t errlen);
/* A grid of rows x cols cells as aligned columns (bit j of right: column j right-aligned), or
 * as a markdown table (its first row the header), cells written by export_text. */
void export_print_grid(FILE *out, char (*c)[CELL], size_t rows, size_t cols, unsigned right);
void export_print_md(FILE *out, char (*c)[CELL], size_t rows, size_t cols, unsigned right);
/* The warnings w[0..n) as the table (md 0) or markdown (md 1) prints them; a "WARNING: " line
 * loud (a markdown alert). */
void export_print_warnings(FILE *out, char *const *warn, size_t n, int md);

/* fleettext.c: a fleet (`allocab merge`) as the table (md 0) or markdown (md 1) formats render
 * it: the method, the warnings, the machines, and per comparison every machine's row and the
 * pooled one. Returns 0, or -1 with "out of memory" in err. */
int export_fleet_markup(FILE *out, const struct export_fleet_input *in, int md, char *err,
                        size_t errlen);
/* The note of a machine's row (odd, excludes the pooled estimate, busy, or why it is not
 * pooled) and of the pooled row (machines, tau, I^2, the prediction interval, odd machines), one
 * line each into buf. */
void export_fleet_cell_note(const struct fleet_report *f, const struct fleet_row *row, size_t m,
                            char *buf, size_t len);
void export_fleet_pooled_note(const struct fleet_report *f, const struct fleet_row *row,
                              char *buf, size_t len);
/* The method of a fleet report in one sentence. */
void export_fleet_method(const struct fleet_report *f, char *buf, size_t len);


/* json.c: the allocab-compare/1 document that --format json prints, without claims (caller owns
 * it); NULL when memory ran out. */
cJSON *export_compare_json(const struct cmp_report *r);

/* claimsfmt.c: the claim verdicts as a table (md 0) or markdown (md 1), as the "claims" member
 * of the JSON (NULL when memory ran out), and as CSV. */
void export_claims_text(FILE *out, const struct claims_result *res, int md);
cJSON *export_claims_json(const struct claims_result *res);
void export_claims_csv(FILE *out, const struct claims_result *res);

/* history.c: what the benchmark-history formats (bmf.c, gab.c) share. One arm of a row: its ok
 * runs, their median time and the interval of the median at the comparison's level (ns), the
 * median peak RSS (bytes; NAN if unknown). */
struct export_arm_summary {
	size_t n;
	double med, lo, hi;
	double rss;
};
/* Called once per row and arm (the baseline once per row, is_base set); returns 0 or -1. */
typedef int (*export_arm_fn)(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                             const struct export_arm_summary *s);
/* Calls fn for every non-geomean row of r: its baseline (unless an earlier row of the same
 * workload, phase and regime had it), then its candidate. Returns 0, or -1 when fn or memory
 * failed. */
int export_each_arm(const struct cmp_report *r, export_arm_fn fn, void *ctx);
/* "WORKLOAD/PHASE/REGIME/ARM", the benchmark name of both formats. */
void export_bench_name(const struct cmp_row *row, const char *arm, char *buf, size_t len);
/* For a fleet: export_each_arm over every machine's own comparison, fn called with the
 * machine's label; and the benchmark name "WORKLOAD/PHASE/REGIME/ARM@MACHINE" (machine "pooled"
 * for the pooled speedup). */
typedef int (*export_fleet_arm_fn)(void *ctx, const char *machine, const struct cmp_row *row,
                                   const char *arm, int is_base,
                                   const struct export_arm_summary *s);
int export_fleet_each_arm(const struct fleet_report *f, export_fleet_arm_fn fn, void *ctx);
void export_fleet_bench_name(const struct fleet_row *row, const char *arm, const char *machine,
                             char *buf, size_t len);

#endif
