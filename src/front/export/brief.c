/* brief.c - `--format brief`: the answer alone, for a terminal: the summary, what was compared,
 * the warnings, the primary comparisons (the question) up to their verdicts, the claims' verdicts,
 * and where the rest is (the table format: the method, the secondary comparisons, the per-arm
 * figures); a fleet's is its table. */
#include "front/export/exportint.h"

#include <stdlib.h>
#include <string.h>

static void rest_line(FILE *out, const struct export_input *in)
{
	const struct cmp_report *r = in->r;
	char line[EXPORT_LINE];

	snprintf(line, sizeof line,
	         "the method%s and the per-arm figures: allocab compare %s%s%s --format table",
	         export_two_families(r) ? ", the secondary comparisons" : "", r->base->path,
	         r->paired ? "" : " ", r->paired ? "" : r->cand->path);
	fputs("\n", out);
	export_wrap(out, "", "  ", line, in->width);
}

/* Keeps g's columns up to its last verdict (the figures after it are the full table's). */
static void up_to_verdict(struct export_grid *g)
{
	size_t keep = g->cols;

	while (keep > 1 && !strstr(g->c[keep - 1], "verdict"))
		keep--;
	for (size_t i = 1; keep < g->cols && i < g->rows; i++)
		memmove(g->c[i * keep], g->c[i * g->cols], keep * sizeof g->c[0]);
	g->groups &= (1u << keep) - 1;
	g->cols = keep;
}

static int write_brief(FILE *out, const struct export_input *in, char *err, size_t errlen)
{
	const struct cmp_report *r = in->r;
	char(*c)[CELL] = calloc((r->nrows + 1) * MAXCOL, CELL), line[EXPORT_LINE];
	struct export_grid g = {.c = c};
	char head[12][EXPORT_LINE];

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	export_summary(r, line, sizeof line);
	export_wrap(out, "allocab compare: ", "  ", line, in->width);
	export_method_lines(r, 0, head);
	for (size_t i = 0; i < (r->paired ? 1u : 2u); i++)
		export_wrap(out, "", "  ", head[i], in->width);
	export_print_warnings(out, r->warn, r->nwarn, 0, in->width);
	export_table_cells(r, export_two_families(r) ? 0 : -1, &g);
	up_to_verdict(&g);
	fputs("\n", out);
	if (export_two_families(r)) {
		export_family_head(r, 0, line, sizeof line);
		export_wrap(out, "", "  ", line, in->width);
	}
	export_print_grid(out, &g, in->width);
	free(c);
	if (in->claims) {
		fputs("\n", out);
		export_claims_brief(out, in->claims, r, in->width);
	}
	rest_line(out, in);
	return 0;
}

/* A fleet's table is its answer already: the pooled rows, one line per machine. */
static int write_brief_fleet(FILE *out, const struct export_fleet_input *in, char *err,
                             size_t errlen)
{
	return export_fleet_markup(out, in, 0, err, errlen);
}

const struct exporter export_brief = {
    .name = "brief",
    .summary = "the answer alone: the summary, the warnings, the primary comparisons, the "
               "claims' verdicts and where the rest is (merge: the table)",
    .flags = EXPORT_WARNINGS,
    .write = write_brief,
    .write_fleet = write_brief_fleet,
};
