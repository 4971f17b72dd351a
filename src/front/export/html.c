/* html.c - `--format html`: one self-contained page (inline SVG and CSS, no script, no network)
 * with a summary, how the runs were placed, the question (the primary comparisons) set apart and
 * the warnings under it, the charts, the secondary comparisons and per-arm tables as the table
 * format has them, the replays, the claims and the inputs; for a fleet, the forest
 * plot of every machine and the pooled estimates, the machines and the comparisons. */
#include "front/export/exportint.h"

#include "front/draw/draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char page_css[] =
    "body { margin: 2rem auto; max-width: 1600px; padding: 0 1rem; background: var(--bg);\n"
    "  color: var(--fg); font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; }\n"
    "h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }\n"
    "p.muted, li.muted { color: var(--muted); }\n"
    "p, ul, pre { max-width: 960px; }\n"
    "table { border-collapse: collapse; font-size: 0.85rem; }\n"
    "th, td { border-bottom: 1px solid var(--grid); padding: 0.25rem 0.6rem; text-align: left; }\n"
    "th, td { white-space: nowrap; }\n"
    "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
    "td.faster { color: var(--faster); } td.slower { color: var(--slower); }\n"
    "td.equivalent { color: var(--equiv); }\n"
    "figure { margin: 1rem 0; overflow-x: auto; }\n"
    "div.wide { overflow-x: auto; }\n"
    "li.sub { list-style: none; margin-left: 1rem; }\n"
    "pre { white-space: pre-wrap; font-size: 0.8rem; }\n"
    "section.question { border-left: 4px solid var(--accent); padding: 0.1rem 0 0.5rem 1rem;\n"
    "  background: color-mix(in srgb, var(--accent) 6%, transparent); }\n"
    "section.question h2 { margin-top: 0.6rem; }\n"
    "ul.warnings li { margin: 0.2rem 0; }\n";

static void esc(FILE *f, const char *s)
{
	svg_esc(f, s);
}

/* The class of a verdict cell: its colour. */
static const char *verdict_class(const char *verdict)
{
	return strncmp(verdict, "faster", 6) == 0        ? "faster"
	       : strncmp(verdict, "slower", 6) == 0      ? "slower"
	       : strncmp(verdict, "equivalent", 10) == 0 ? "equivalent"
	                                                 : "";
}

/* A grid (cells.c) as an HTML table; a column whose header holds "verdict" is coloured by its
 * verdicts. */
static void grid_table(FILE *f, const struct export_grid *g)
{
	fputs("<div class=\"wide\"><table>\n<thead><tr>", f);
	for (size_t j = 0; j < g->cols; j++) {
		fputs("<th>", f);
		esc(f, g->c[j]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 1; i < g->rows; i++) {
		fputs("<tr>", f);
		for (size_t j = 0; j < g->cols; j++) {
			const char *cell = g->c[i * g->cols + j];
			const char *cls = strstr(g->c[j], "verdict") ? verdict_class(cell)
			                  : (g->right >> j & 1)      ? "num"
			                                             : "";
			fprintf(f, cls[0] ? "<td class=\"%s\">" : "<td>", cls);
			esc(f, cell);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n", f);
}

/* The comparisons of family fam (every row when the report has one family), headed by what they
 * are, as the table format shows them. Returns 0, or -1 when memory ran out. */
static int family_table(FILE *f, const struct cmp_report *r, int fam)
{
	char(*c)[CELL] = calloc((r->nrows + 1) * MAXCOL, CELL);
	struct export_grid g = {.c = c};
	char head[EXPORT_LINE];
	int two = export_two_families(r);

	if (!c)
		return -1;
	export_table_cells(r, two ? fam : -1, &g);
	if (two) {
		export_family_head(r, fam, head, sizeof head);
		fputs("<p class=\"muted\">", f);
		esc(f, head);
		fputs("</p>\n", f);
	}
	grid_table(f, &g);
	free(c);
	return 0;
}

/* The question first: the primary comparisons (every comparison of a one-family report), set
 * apart, right under the summary. Returns 0, or -1 when memory ran out. */
static int question(FILE *f, const struct cmp_report *r)
{
	int rc;

	fputs("<section class=\"question\">\n<h2>The question: primary comparisons</h2>\n", f);
	rc = family_table(f, r, CMP_FAMILY_PRIMARY);
	fputs("</section>\n", f);
	return rc;
}

/* How the runs of d were placed on the machine, from its config (bench --duet, --one-cpu). */
static void placement_text(FILE *f, const struct rf_doc *d)
{
	if (d->cpu_shared)
		fprintf(f,
		        "every arm of a workload ran at the same time, all %zu pinned to one CPU that "
		        "the scheduler time-sliced among them (<code>--one-cpu</code>), the CPU and the "
		        "order of starting drawn per round",
		        d->narms);
	else if (d->duet)
		fputs("the two arms of a workload ran at the same time, each pinned to a CPU of its "
		      "own, the CPUs drawn per round (<code>--duet</code>)",
		      f);
	else
		fputs("one run at a time: the arms of each round one after the other, in an order "
		      "shuffled per round",
		      f);
}

/* The placement sentence: how the runs were placed, per file. */
static void placement(FILE *f, const struct cmp_report *r)
{
	fputs("<p class=\"placement\">How the runs were placed: ", f);
	if (!r->paired) {
		esc(f, r->base->path);
		fputs(": ", f);
		placement_text(f, r->base);
		fputs("; ", f);
		esc(f, r->cand->path);
		fputs(": ", f);
		placement_text(f, r->cand);
	} else
		placement_text(f, r->base);
	fputs("; each run a fresh process.</p>\n", f);
}

/* The report's warnings, where the verdict is read. */
static void warnings(FILE *f, const struct cmp_report *r)
{
	if (!r->nwarn)
		return;
	fprintf(f, "<h2>Warnings (%zu)</h2>\n<ul class=\"warnings\">\n", r->nwarn);
	for (size_t i = 0; i < r->nwarn; i++) {
		fputs("<li>", f);
		esc(f, r->warn[i]);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

/* The secondary comparisons (the question's table is above the charts), the notes on the
 * intervals and the per-arm table. Returns 0, or -1 when memory ran out. */
static int tables(FILE *f, const struct cmp_report *r)
{
	char(*a)[CELL] = calloc((2 * r->nrows + 1) * ARMCOL, CELL);
	struct export_grid ga = {.c = a};
	char lv[16];
	int short_level = 0;

	if (!a)
		return -1;
	if (export_two_families(r)) {
		fputs("<h2>Secondary comparisons</h2>\n", f);
		if (family_table(f, r, CMP_FAMILY_SECONDARY) != 0) {
			free(a);
			return -1;
		}
	}
	for (size_t i = 0; i < r->nrows; i++)
		short_level |= chart_short_level(r, &r->rows[i]);
	if (short_level && export_two_families(r))
		fputs("<p class=\"muted\">A level in parentheses after an interval (marked * in the "
		      "chart): that interval reaches less than its family's requested level (too few "
		      "rounds for a verdict).</p>\n",
		      f);
	else if (short_level)
		fprintf(
		    f,
		    "<p class=\"muted\">A level in parentheses after an interval (marked * in the "
		    "chart): that interval reaches less than the requested %s%% (too few rounds "
		    "for a verdict).</p>\n",
		    cmp_level_text(r->family_conf, lv, sizeof lv));
	fputs("<p class=\"muted\">No p-values beside the intervals: each verdict is read off the "
	      "interval printed beside it, and a p-value can disagree with it at the margin. Each "
	      "comparison's p-value (and its interval at the per-comparison level) is in "
	      "<code>--format json</code> and <code>csv</code> (docs/methodology.md, \"Reading the "
	      "output\").</p>\n",
	      f);
	export_arm_cells(r, &ga);
	if (ga.rows > 1) {
		fputs("<h2>Per arm</h2>\n<p>The total phase, medians over the ok runs; RSS growth: "
		      "the resident set after the last repetition minus after the first.</p>\n",
		      f);
		grid_table(f, &ga);
	}
	free(a);
	return 0;
}

/* What the replays say (export_replay_lines), as a list. */
static void replay_section(FILE *f, const struct export_input *in)
{
	char(*line)[EXPORT_LINE] = malloc(64 * sizeof *line);
	size_t n = line ? export_replay_lines(in, line, 64) : 0;

	if (n) {
		fputs("<h2>Replay</h2>\n<ul>\n", f);
		for (size_t i = 0; i < n; i++) {
			fputs(line[i][0] == ' ' ? "<li class=\"sub\">" : "<li>", f);
			esc(f, line[i] + (line[i][0] == ' ' ? 2 : 0));
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	free(line);
}

static void claims_section(FILE *f, const struct claims_result *c)
{
	fprintf(f,
	        "<h2>Claims</h2>\n<p>%zu confirmed, %zu partly, %zu refuted, %zu not measured "
	        "(confirmed: the measured interval lies inside the claimed range; refuted: wholly "
	        "outside it, and when also equivalent within the margin no difference that "
	        "matters; partly: they overlap).</p>\n<table>\n<thead><tr><th>claim</th>"
	        "<th>target</th><th>allocator</th><th>claimed</th><th>measured</th><th>verdict</th>"
	        "<th>source</th></tr></thead>\n<tbody>\n",
	        c->count[CLAIM_CONFIRMED], c->count[CLAIM_PARTLY], c->count[CLAIM_REFUTED],
	        c->count[CLAIM_NOT_MEASURED]);
	for (size_t i = 0; i < c->n; i++) {
		const struct claims_check *k = &c->checks[i];
		fputs("<tr><td>", f);
		esc(f, k->claim->name);
		fputs("</td><td>", f);
		esc(f, k->target->workload);
		fputs("/", f);
		esc(f, k->target->phase);
		fprintf(f, " (%s)", rf_regime_name(k->regime));
		fputs("</td><td>", f);
		esc(f, k->claim->allocator);
		fprintf(f, "</td><td class=\"num\">%.3fx&#8211;%.3fx</td>", k->claim->lo,
		        k->claim->hi);
		if (isnan(k->s_est))
			fputs("<td>-</td>", f);
		else
			fprintf(f, "<td class=\"num\">%.3fx [%.3f, %.3f]</td>", k->s_est, k->s_lo,
			        k->s_hi);
		char vt[96];
		fprintf(f, "<td>%s</td><td>", claims_verdict_text(k, vt, sizeof vt));
		esc(f, k->claim->source);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static void inputs_section(FILE *f, const struct cmp_report *r)
{
	char line[12][EXPORT_LINE];
	size_t n = export_method_lines(r, 1, line);
	const struct rf_doc *docs[2] = {r->base, r->paired ? NULL : r->cand};

	fputs("<h2>Inputs and method</h2>\n<ul>\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs("<li>", f);
		esc(f, line[i]);
		fputs("</li>\n", f);
	}
	for (int i = 0; i < 2; i++) {
		if (docs[i] && docs[i]->machine_desc) {
			fputs("<li>machine of ", f);
			esc(f, docs[i]->path);
			fputs(": ", f);
			esc(f, docs[i]->machine_desc);
			fputs("</li>\n", f);
		}
		for (size_t k = 0; docs[i] && docs[i]->arm_config && k < docs[i]->narms; k++)
			if (docs[i]->arm_config[k]) {
				fputs("<li>configured arm <code>", f);
				esc(f, docs[i]->arms[k]);
				fputs("</code> = ", f);
				esc(f, docs[i]->arm_config[k]);
				fputs("</li>\n", f);
			}
	}
	fputs("</ul>\n", f);
}

static int write_html(FILE *f, const struct export_input *in, char *err, size_t errlen)
{
	const struct cmp_report *r = in->r;
	const struct chart_input chart = {.r = r, .margin = in->margin, .attrib = in->attrib};
	char summary[EXPORT_LINE];
	int rc = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
	      "<meta name=\"color-scheme\" content=\"light dark\"/>\n<title>allocab comparison: ",
	      f);
	esc(f, r->base->path);
	fprintf(f, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<h1>allocab: ", svg_css(),
	        page_css);
	esc(f, r->base->path);
	if (!r->paired) {
		fputs(" against ", f);
		esc(f, r->cand->path);
	}
	fputs("</h1>\n<p><strong>", f);
	export_summary(r, summary, sizeof summary);
	esc(f, summary);
	fputs("</strong></p>\n<p>Convention: ", f);
	esc(f, CMP_CONVENTION);
	fputs(". Each chart says what it shows; the tables have every number.</p>\n", f);
	placement(f, r);
	rc |= question(f, r);
	warnings(f, r);
	fputs("<h2>Speedups</h2>\n<figure>\n", f);
	rc |= chart_forest(f, &chart, 0);
	fputs("</figure>\n<h2>Speed against memory</h2>\n<figure>\n", f);
	rc |= chart_speed_memory(f, &chart);
	fputs("</figure>\n<h2>Measured times</h2>\n<figure>\n", f);
	rc |= chart_distributions(f, &chart);
	fputs("</figure>\n<h2>Rounds in run order</h2>\n<figure>\n", f);
	rc |= chart_rounds(f, &chart);
	fputs("</figure>\n<h2>What the differences are made of</h2>\n<figure>\n", f);
	rc |= chart_attrib(f, &chart);
	fputs("</figure>\n", f);
	rc |= tables(f, r);
	replay_section(f, in);
	if (in->claims)
		claims_section(f, in->claims);
	inputs_section(f, r);
	fprintf(f, "<p class=\"muted\">allocab %s</p>\n</body>\n</html>\n", ALLOCAB_VERSION);
	if (rc || ferror(f)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void fleet_machines(FILE *f, const struct fleet_report *fr)
{
	fputs("<h2>Machines</h2>\n<table>\n<thead><tr><th>machine</th><th>file</th><th>status</th>"
	      "<th>rounds</th><th>another task runnable before</th><th>machine fingerprint</th>"
	      "</tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < fr->nm; i++) {
		const struct fleet_machine *m = &fr->m[i];
		fputs("<tr><td>", f);
		esc(f, m->label);
		fputs("</td><td>", f);
		esc(f, m->doc->path);
		fputs("</td><td>", f);
		esc(f, m->doc->status);
		fprintf(f, "</td><td class=\"num\">%zu</td>", m->doc->nrounds);
		if (m->load_runs)
			fprintf(f, "<td class=\"num%s\">%.0f%% of runs%s</td><td>",
			        m->busy ? " slower" : "", 100 * m->busy_share, m->busy ? " (busy)" : "");
		else
			fputs("<td>unknown</td><td>", f);
		esc(f, m->doc->machine_desc ? m->doc->machine_desc : "-");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static void fleet_row_lines(FILE *f, const struct fleet_report *fr, const struct fleet_row *row)
{
	char name[256], note[512];

	for (size_t m = 0; m <= fr->nm; m++) {
		const struct cmp_row *r = m < fr->nm ? row->cells[m].row : NULL;
		int odd = m < fr->nm && row->cells[m].odd;
		fputs("<tr><td>", f);
		esc(f, fleet_row_name(row, name, sizeof name));
		fputs("</td><td>", f);
		esc(f, row->candidate);
		fprintf(f, "</td><td>%s</td><td class=\"%s\">", rf_regime_name(row->regime),
		        odd ? "slower" : "");
		esc(f, m < fr->nm ? fr->m[m].label : "pooled");
		fputs("</td>", f);
		if (m == fr->nm && row->has_meta)
			fprintf(f, "<td class=\"num\">%.3fx</td><td class=\"num\">[%.3f, %.3f] (%.3g%%)</td>",
			        cmp_speedup(row->meta.mu), cmp_speedup(row->meta.hi),
			        cmp_speedup(row->meta.lo), 100 * row->meta.level);
		else if (r && r->usable)
			fprintf(f, "<td class=\"num\">%.3fx</td><td class=\"num\">[%.3f, %.3f] (%.3g%%)</td>",
			        cmp_speedup(r->d.est), cmp_speedup(r->d.hi), cmp_speedup(r->d.lo),
			        100 * r->d.level);
		else
			fputs("<td>-</td><td>-</td>", f);
		if (m == fr->nm) {
			fprintf(f, "<td class=\"num\">%zu of %zu</td><td>", row->npooled, fr->nm);
			export_fleet_pooled_note(fr, row, note, sizeof note);
		} else {
			fprintf(f, r ? "<td class=\"num\">%zu</td><td>" : "<td>-</td><td>",
			        r ? r->n : 0);
			export_fleet_cell_note(fr, row, m, note, sizeof note);
		}
		esc(f, note);
		fputs("</td></tr>\n", f);
	}
}

static int write_html_fleet(FILE *f, const struct export_fleet_input *in, char *err,
                            size_t errlen)
{
	const struct fleet_report *fr = in->f;
	const struct chart_fleet_input chart = {fr, in->margin, export_fleet_note};
	char line[1024];
	int rc;

	fprintf(f,
	        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
	        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
	        "<meta name=\"color-scheme\" content=\"light dark\"/>\n<title>allocab merge: %zu "
	        "machines</title>\n<style>\n%s%s</style>\n</head>\n<body>\n<h1>allocab merge: %zu "
	        "machines</h1>\n<p>",
	        fr->nm, svg_css(), page_css, fr->nm);
	esc(f, CMP_CONVENTION);
	fputs(". Each machine is compared within its own file; the diamond pools them.</p>\n"
	      "<h2>Speedups per machine and pooled</h2>\n<figure>\n",
	      f);
	rc = chart_fleet_forest(f, &chart, 0);
	fputs("</figure>\n", f);
	fleet_machines(f, fr);
	fputs("<h2>Comparisons</h2>\n<table>\n<thead><tr><th>workload</th><th>candidate</th>"
	      "<th>regime</th><th>machine</th><th>speedup</th><th>interval</th><th>n</th>"
	      "<th>note</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < fr->nrows; i++)
		fleet_row_lines(f, fr, &fr->rows[i]);
	fputs("</tbody>\n</table>\n<h2>Method</h2>\n<ul>\n<li>", f);
	export_fleet_method(fr, line, sizeof line);
	esc(f, line);
	fputs("</li>\n", f);
	for (size_t i = 0; i < fr->nwarn; i++) {
		fputs("<li class=\"muted\">warning: ", f);
		esc(f, fr->warn[i]);
		fputs("</li>\n", f);
	}
	fprintf(f, "</ul>\n<p class=\"muted\">allocab %s</p>\n</body>\n</html>\n",
	        ALLOCAB_VERSION);
	if (rc || ferror(f)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

const struct exporter export_html = {
    .name = "html",
    .summary = "one self-contained HTML report: charts, table, claims (no script, no network)",
    .flags = EXPORT_MARKUP | EXPORT_CHARTS | EXPORT_WARNINGS,
    .write = write_html,
    .write_fleet = write_html_fleet,
};
