/* markup.c - what the table (table.c: terminals) and markdown (markdown.c: pull requests,
 * $GITHUB_STEP_SUMMARY) formats share, which is all of them: the description lines, warnings,
 * both tables, replays, configured arms, failed runs, and the claim verdicts. The table fits
 * its width (prose wrapped, tables split: grid.c); markdown leads with a one-line summary and the
 * tables, and folds the inputs, method and warnings into <details>. */
#include "front/export/exportint.h"

#include <stdlib.h>
#include <string.h>

/* The configured arms of d with their settings (docs/tuning.md), one line each. */
static void arm_config_lines(FILE *out, const struct rf_doc *d, int md, size_t width)
{
	unsigned how = md ? EXPORT_TEXT_MD : 0;
	char line[EXPORT_LINE];
	int head = 0;

	for (size_t i = 0; d->arm_config && i < d->narms; i++) {
		if (!d->arm_config[i])
			continue;
		if (!head++) {
			fputs(md ? "\n**Configured arms** in " : "\nconfigured arms in ", out);
			export_text(out, d->path, how);
			fputs(":\n", out);
		}
		if (md) {
			fputs("- `", out);
			export_text(out, d->arms[i], how);
			fputs("` = ", out);
			export_text(out, d->arm_config[i], how);
			fputs("\n", out);
		} else {
			snprintf(line, sizeof line, "%s = %s", d->arms[i], d->arm_config[i]);
			export_wrap(out, "  ", "    ", line, width);
		}
	}
}

static void fail_line(const struct rf_fail *f, char *buf, size_t len)
{
	const char *tail = f->stderr_tail ? f->stderr_tail : "";
	size_t tl = strlen(tail);
	const char *last;

	while (tl > 0 && (tail[tl - 1] == '\n' || tail[tl - 1] == ' '))
		tl--;
	for (last = tail + tl; last > tail && last[-1] != '\n'; last--)
		;
	char ex[32] = "";

	if (f->exit_status >= 0)
		snprintf(ex, sizeof ex, ", exit status %d", f->exit_status);
	snprintf(buf, len, "round %zu%s: %s on %s: %s%s%s%s%s%.*s", f->round,
	         f->warmup ? " (warm-up)" : "", f->arm, f->workload, f->status,
	         f->signal ? " by " : "", f->signal ? f->signal : "", ex, tl ? ": " : "",
	         (int)(tail + tl - last > 120 ? 120 : tail + tl - last), last);
}

/* "system 0/10, mimalloc 1/10": failed measured runs over measured runs, per arm. */
static void fail_counts(const struct rf_doc *d, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t a = 0; a < d->narms && used < len; a++) {
		size_t total = 0, failed = 0;
		for (size_t i = 0; i < d->nrounds; i++)
			for (size_t w = 0; w < d->nwl; w++) {
				const struct rf_run *run = rf_run(d, i, a, w);
				total += run->present;
				failed += run->present && !run->ok;
			}
		used += (size_t)snprintf(buf + used, len - used, "%s%s %zu/%zu", a ? ", " : "",
		                         d->arms[a], failed, total);
	}
}

/* One line of prose: markdown writes pre and text as is, the table wraps it at width with its
 * continuation lines indented by cont. */
static void put_line(FILE *out, const char *pre, const char *cont, const char *text, int md,
                     size_t width)
{
	if (md) {
		fputs(pre, out);
		export_text(out, text, EXPORT_TEXT_MD);
		fputs("\n", out);
	} else {
		export_wrap(out, pre, cont, text, width);
	}
}

static int is_loud(const char *w)
{
	return strncmp(w, "WARNING: ", 9) == 0;
}

void export_print_warnings(FILE *out, char *const *warn, size_t n, int md, size_t width)
{
	for (size_t i = 0; i < n; i++) {
		const char *w = warn[i];
		if (md && is_loud(w)) {
			put_line(out, "\n> [!WARNING]\n> ", "", w + 9, md, 0);
			fputs("\n", out);
		} else if (md) {
			put_line(out, i == 0 ? "\n- **warning:** " : "- **warning:** ", "", w, md,
			         0);
		} else {
			put_line(out, is_loud(w) ? "" : "warning: ", "  ", w, md, width);
		}
	}
}

/* The failed runs of every document: the counts per arm, then each failure. */
static void failed_runs(FILE *out, const struct cmp_report *r, int md, size_t width)
{
	char line[EXPORT_LINE], head[EXPORT_LINE];

	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		fail_counts(d, line, sizeof line);
		if (md) {
			fputs("\n**Failed runs** in ", out);
			export_text(out, d->path, EXPORT_TEXT_MD);
			put_line(out, " (measured rounds): ", "", line, md, 0);
		} else {
			snprintf(head, sizeof head, "failed runs in %s (measured rounds): %s",
			         d->path, line);
			fputs("\n", out);
			export_wrap(out, "", "  ", head, width);
		}
		for (size_t i = 0; i < d->nfails; i++) {
			fail_line(&d->fails[i], line, sizeof line);
			if (md) {
				fputs("- ", out);
				export_text(out, line, EXPORT_TEXT_MD | EXPORT_TEXT_CELL);
				fputs("\n", out);
			} else {
				export_wrap(out, "  ", "    ", line, width);
			}
		}
		if (r->paired)
			break;
	}
}

/* The replays' lines (export_replay_lines): markdown as a section of bullets. */
static void replays(FILE *out, const struct export_input *in, int md)
{
	char(*line)[EXPORT_LINE] = malloc(64 * sizeof *line);
	size_t n;

	if (!line || !(n = export_replay_lines(in, line, 64))) {
		free(line);
		return;
	}
	fputs(md ? "\n#### Replay\n\n" : "\n", out);
	for (size_t i = 0; i < n; i++) {
		int sub = line[i][0] == ' ';
		put_line(out, sub ? (md ? "  - " : "  ") : (md ? "- " : ""), sub ? "      " : "  ",
		         line[i] + (sub ? 2 : 0), md, in->width);
	}
	free(line);
}

/* The inputs and method: the table's header lines; markdown's <details> (with the warnings
 * but the loud ones, which lead the report, and the configured arms). */
static void method(FILE *out, const struct export_input *in, int md)
{
	const struct cmp_report *r = in->r;
	char line[12][EXPORT_LINE];
	size_t n = export_method_lines(r, 0, line), nwarn = 0;

	if (md) {
		for (size_t i = 0; i < r->nwarn; i++)
			nwarn += !is_loud(r->warn[i]);
		fprintf(out, "\n<details><summary>Inputs, method%s</summary>\n\n",
		        nwarn ? " and warnings" : "");
	}
	for (size_t i = 0; i < n; i++)
		put_line(out, md ? "- " : "", "  ", line[i], md, in->width);
	for (size_t i = 0; md && i < r->nwarn; i++)
		if (!is_loud(r->warn[i]))
			put_line(out, "- **warning:** ", "", r->warn[i], md, 0);
	if (!md) {
		export_print_warnings(out, r->warn, r->nwarn, md, in->width);
		return;
	}
	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		arm_config_lines(out, d, md, in->width);
		if (r->paired)
			break;
	}
	fputs("\n</details>\n", out);
}

/* The comparisons table and the per-arm table. Returns 0, or -1 when memory ran out. */
static int tables(FILE *out, const struct export_input *in, int md)
{
	const struct cmp_report *r = in->r;
	char(*c)[CELL] = calloc((r->nrows + 1) * MAXCOL, CELL);
	char(*a)[CELL] = calloc((2 * r->nrows + 1) * ARMCOL, CELL);
	struct export_grid g = {.c = c}, ga = {.c = a};

	if (!c || !a) {
		free(c);
		free(a);
		return -1;
	}
	for (int f = 0; f < CMP_NFAMILIES; f++) {
		char head[EXPORT_LINE];
		if (!export_two_families(r) && f > 0)
			break;
		export_table_cells(r, export_two_families(r) ? f : -1, &g);
		fputs("\n", out);
		if (export_two_families(r)) {
			export_family_head(r, f, head, sizeof head);
			if (md)
				fprintf(out, "#### %s\n\n", f ? "Secondary comparisons" : "Primary comparisons");
			put_line(out, md ? "- " : "", "  ", head, md, in->width);
			if (md)
				fputs("\n", out);
		}
		md ? export_print_md(out, &g) : export_print_grid(out, &g, in->width);
	}
	export_arm_cells(r, &ga);
	if (ga.rows > 1) {
		if (md)
			fputs("\n#### Per arm (phase total, medians over ok runs)\n\n", out);
		else
			export_wrap(
			    out, "\nper arm ", "  ",
			    "(phase total, medians over ok runs; RSS growth: resident after the "
			    "last rep minus after the first):",
			    in->width);
		md ? export_print_md(out, &ga) : export_print_grid(out, &ga, in->width);
	}
	free(c);
	free(a);
	return 0;
}

static int write_table(FILE *out, const struct export_input *in)
{
	const struct cmp_report *r = in->r;

	fputs("allocab compare\n", out);
	method(out, in, 0);
	if (tables(out, in, 0) != 0)
		return -1;
	export_attrib_text(out, in, 0);
	replays(out, in, 0);
	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		arm_config_lines(out, d, 0, in->width);
		if (r->paired)
			break;
	}
	failed_runs(out, r, 0, in->width);
	return 0;
}

static int write_markdown(FILE *out, const struct export_input *in)
{
	const struct cmp_report *r = in->r;
	char line[EXPORT_LINE];

	fputs("### allocab compare\n\n", out);
	export_summary(r, line, sizeof line);
	put_line(out, "**Summary:** ", "", line, 1, 0);
	for (size_t i = 0; i < r->nwarn; i++)
		if (is_loud(r->warn[i]))
			export_print_warnings(out, &r->warn[i], 1, 1, 0);
	if (tables(out, in, 1) != 0)
		return -1;
	export_attrib_text(out, in, 1);
	replays(out, in, 1);
	failed_runs(out, r, 1, 0);
	method(out, in, 1);
	return 0;
}

int export_write_markup(FILE *out, const struct export_input *in, int md, char *err,
                        size_t errlen)
{
	if ((md ? write_markdown : write_table)(out, in) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (in->claims) {
		fputs("\n", out);
		export_claims_text(out, in->claims, in->r, md, in->width);
	}
	return 0;
}
