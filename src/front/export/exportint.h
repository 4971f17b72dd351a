/* exportint.h - private to this folder: what the exporters share. Other folders include
 * export.h only (scripts/check_layers.sh). */
#ifndef ALLOCAB_EXPORTINT_H
#define ALLOCAB_EXPORTINT_H

#include "front/export/export.h"

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#define MAXCOL 12 /* the last, noise floor, only with a calibration */
#define ARMCOL             11 /* the last two, processes and calls, only for probed runs that have them */
#define CELL   160
#define EXPORT_GRID_MAXCOL 16
#define EXPORT_LINE        2048 /* a line of prose */

/* The exporters of the registry (export.c), one file each. */
extern const struct exporter export_table, export_brief, export_markdown, export_json, export_csv,
    export_html, export_svg, export_bmf, export_gab;

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

/* A CSV text cell starting with =, +, -, @, a tab or a carriage return: a spreadsheet would
 * evaluate it as a formula, so the CSV writers put a single quote before it inside its quotes
 * (OWASP, "CSV Injection"; docs/results-format.md, "allocab-compare/1"). Numbers are not text cells. */
int export_csv_formula(const char *s);
/* Appends to buf (of len bytes, holding a string) as snprintf does. */
void export_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
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

/* grid.c: tables and prose of the text formats. */

/* A table of rows x cols cells, its first row the header. */
struct export_grid {
	char (*c)[CELL];
	size_t rows, cols; /* cols <= EXPORT_GRID_MAXCOL */
	unsigned right;    /* bit j: column j right-aligned */
	size_t keys;       /* the first columns, which name a line: repeated in every part */
	unsigned groups;   /* bit j: column j starts a group that a split keeps together */
};
/* The columns a text takes on a terminal as export_text writes it: its bytes but the continuation
 * bytes of UTF-8 characters (the ± of a verdict is one column, two bytes). */
size_t export_text_width(const char *s);
/* g as aligned columns, cells written by export_text. Wider than width (0: no limit), it is
 * split into parts of consecutive columns, each with the key columns first and at most width
 * columns wide, whole groups where they fit (a group wider than that is split by columns, a
 * single column wider than that stands alone), one after another with a blank line between:
 * every cell is printed once, besides the keys. */
void export_print_grid(FILE *out, const struct export_grid *g, size_t width);
/* g as a markdown table, cells written by export_text for markdown cells. */
void export_print_md(FILE *out, const struct export_grid *g);
/* first, then text (written by export_text) wrapped at spaces so that no line is wider than
 * width (0: no limit; a longer word stays whole), every line after the first starting with cont;
 * ends with a newline. */
void export_wrap(FILE *out, const char *first, const char *cont, const char *text, size_t width);
/* A line of prose: markdown (md 1) as is, the table wrapped at width, continued indented. */
void export_prose(FILE *out, const char *text, int md, size_t width);

/* cells.c */

/* The comparisons table of family fam (-1: every row) into g (g->c holds MAXCOL cells per line,
 * room for r->nrows + 1 lines): its header and lines, and the shape: rows, columns, alignment,
 * keys and groups. Side by side, a regime whose row is of the other family says so in its
 * verdict cell and shows no figure. */
void export_table_cells(const struct cmp_report *r, int fam, struct export_grid *g);
/* Whether r has secondary rows (then the text formats print two tables, one per family). */
int export_two_families(const struct cmp_report *r);
/* The heading of family fam's table, one line: what it holds, its size and level. */
void export_family_head(const struct cmp_report *r, int fam, char *buf, size_t len);
/* The per-arm table behind the total-phase comparisons into g (g->c holds ARMCOL cells per line,
 * room for 2 x r->nrows + 1 lines): its header, then each baseline once, then each candidate;
 * the columns of probed runs (processes per run, calls per run) only when some arm has them.
 * g->rows is 1 when no arm has a line. */
void export_arm_cells(const struct cmp_report *r, struct export_grid *g);

/* markup.c: the table (md 0) and markdown (md 1) renderings, claims appended. Returns 0, or -1
 * with "out of memory" in err. */
int export_write_markup(FILE *out, const struct export_input *in, int md, char *err,
                        size_t errlen);
/* The warnings w[0..n) as the table (md 0: wrapped at width) or markdown (md 1) prints them; a
 * "WARNING: " line loud (a markdown alert). */
void export_print_warnings(FILE *out, char *const *warn, size_t n, int md, size_t width);

/* prose.c: what the formats say besides their tables, as lines (each < EXPORT_LINE bytes). */

/* The inputs and method of r: each document (path, mode, status, rounds), the baseline arm,
 * the method, the regimes, the bootstrap, the convention (unless without_convention), the verdict
 * rule and the calibration. Returns the lines (at most 10). */
size_t export_method_lines(const struct cmp_report *r, int without_convention,
                           char (*line)[EXPORT_LINE]);
/* One line that sums r up: per regime the verdict counts, then the geometric mean of each
 * candidate (or, without one, the comparisons of the leading regime when they are few, else the
 * largest decided one), and the warnings' count. */
void export_summary(const struct cmp_report *r, char *buf, size_t len);

/* replayfmt.c: what the replays say, as lines (each < EXPORT_LINE bytes) and as JSON. */

/* What the replays of in say (struct cmp_replay): per replay, what was replayed, the caveat that
 * it is the allocation stream only, how the program's speedup is predicted, then one line per
 * candidate (each starting with two spaces) or why there is none. Returns the lines (at most
 * max). */
size_t export_replay_lines(const struct export_input *in, char (*line)[EXPORT_LINE], size_t max);
/* The replay caveat of workload wl, one sentence, or NULL when wl is no replay: for formats that
 * carry one note per comparison (csv, gab, the svg's title). */
const char *export_replay_note(const struct export_input *in, const char *wl, char *buf,
                               size_t len);
/* The "replays" member of the JSON: what each replay ran and predicts (docs/results-format.md,
 * allocab-compare/1); NULL when memory ran out. */
cJSON *export_replay_json(const struct export_input *in);

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
/* The note of machine m's row, or of the pooled row when m is f->nm: the fleet forest plot's
 * tooltips (struct chart_fleet_input). */
void export_fleet_note(const struct fleet_report *f, const struct fleet_row *row, size_t m,
                       char *buf, size_t len);
/* The method of a fleet report in one sentence. */
void export_fleet_method(const struct fleet_report *f, char *buf, size_t len);


/* attribfmt.c: what each difference is made of (in->attrib) and the machines' facts. One line of
 * a usable attribution; the facts of a document in one line ("machine: ..."); the facts two
 * documents differ in ("" when none); the text section (the facts, then a line per faster or
 * slower comparison); the JSON members (each comparison's "attribution", "facts",
 * "facts_differ"); the CSV values of row i (EXPORT_ATTRIB_CSV_HEAD names them). The CSV columns
 * come before the note. (The HTML report's chart of them: front/draw/draw.h, chart_attrib.) */
void export_attrib_line(const struct cmp_attrib *a, char *buf, size_t len);
void export_facts_line(const struct rf_doc *d, char *buf, size_t len);
void export_facts_differ_line(const struct rf_doc *a, const struct rf_doc *b, char *buf,
                              size_t len);
void export_attrib_text(FILE *out, const struct export_input *in, int md);
void export_attrib_json(cJSON *doc, const struct export_input *in);
#define EXPORT_ATTRIB_CSV_HEAD                                                                     \
	"diff_ns,diff_ns_lo,diff_ns_hi,diff_user_ns,diff_sys_ns,diff_rest_ns,diff_parts_sum_ns,"   \
	"parts_add_up,sys_share,minflt_baseline,minflt_candidate,diff_minflt,diff_minflt_lo,"      \
	"diff_minflt_hi"
void export_attrib_csv_values(FILE *out, const struct export_input *in, size_t i,
                              void (*field)(FILE *, double, int last));

/* json.c: the allocab-compare/1 document that --format json prints, without claims (caller owns
 * it); NULL when memory ran out. */
cJSON *export_compare_json(const struct cmp_report *r);

/* claimsfmt.c: the claim verdicts as a table (md 0, fitting width) or markdown (md 1) with why
 * a claim was not measured (what of its target r lacks), as the "claims" member of the JSON
 * (NULL when memory ran out), and as CSV. */
void export_claims_text(FILE *out, const struct claims_result *res, const struct cmp_report *r,
                        int md, size_t width);
/* The brief one: the summary line, then each claim with what was measured and its verdict. */
void export_claims_brief(FILE *out, const struct claims_result *res, const struct cmp_report *r,
                         size_t width);
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
