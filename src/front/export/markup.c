/* markup.c - what the table (table.c: terminals) and markdown (markdown.c: pull requests,
 * $GITHUB_STEP_SUMMARY) formats share, which is all of them: the description lines, warnings,
 * both tables, configured arms, failed runs, and the claim verdicts. */
#include "front/export/exportint.h"

#include <stdlib.h>
#include <string.h>

static void describe_method(const struct cmp_report *r, char *buf, size_t len)
{
	char lv[16];

	cmp_level_text(r->family_conf, lv, sizeof lv);
	if (r->paired)
		snprintf(
		    buf, len,
		    "method: rounds paired; d = ln(t_candidate/t_baseline) per round; speedup = "
		    "exp(-HL(d)), Hodges-Lehmann; intervals: %s at %s%% each, simultaneous %g%% "
		    "over the %zu comparisons (Bonferroni); per-comparison %g%% intervals and "
		    "p-values (Wilcoxon signed-rank) in --format json and csv",
		    r->bootstrap ? "percentile bootstrap over rounds" : "Wilcoxon signed-rank", lv,
		    100 * r->conf, r->family, 100 * r->conf);
	else
		snprintf(buf, len,
		         "method: rounds of two files cannot be paired; speedup = exp(-shift), "
		         "two-sample Hodges-Lehmann shift of log times; intervals: Mann-Whitney "
		         "(Moses) at %s%% each, simultaneous %g%% over the %zu comparisons "
		         "(Bonferroni); per-comparison %g%% intervals and p-values (Mann-Whitney) "
		         "in --format json and csv",
		         lv, 100 * r->conf, r->family, 100 * r->conf);
}

static void describe_doc(const struct rf_doc *d, const char *role, char *buf, size_t len)
{
	char times[512];

	snprintf(buf, len,
	         "%s%s%s (%s, status %s): %zu measured rounds, %zu warm-up discarded; measured %s; "
	         "compared: %s",
	         role, role[0] ? " " : "", d->path, d->commands ? "commands" : "drivers", d->status,
	         d->nrounds, d->nwarmup, rf_regimes_measured(d),
	         rf_times_used(d, times, sizeof times));
}

/* The configured arms of d with their settings (docs/tuning.md), one line each. */
static void arm_config_lines(FILE *out, const struct rf_doc *d, int md)
{
	unsigned how = md ? EXPORT_TEXT_MD : 0;
	int head = 0;

	for (size_t i = 0; d->arm_config && i < d->narms; i++) {
		if (!d->arm_config[i])
			continue;
		if (!head++) {
			fputs(md ? "\n**Configured arms** in " : "\nconfigured arms in ", out);
			export_text(out, d->path, how);
			fputs(":\n", out);
		}
		fputs(md ? "- `" : "  ", out);
		export_text(out, d->arms[i], how);
		fputs(md ? "` = " : " = ", out);
		export_text(out, d->arm_config[i], how);
		fputs("\n", out);
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

/* One line: pre (the format's markup), then text as export_text writes it. */
static void put_line(FILE *out, const char *pre, const char *text, int md)
{
	fputs(pre, out);
	export_text(out, text, md ? EXPORT_TEXT_MD : 0);
	fputs("\n", out);
}

/* Text blocks shared by table and markdown: prefix each line as the format wants. */
static void put_lines(FILE *out, const struct cmp_report *r, int md)
{
	const char *pre = md ? "- " : "";
	char line[2048];

	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		describe_doc(d,
		             r->paired      ? ""
		             : d == r->base ? "baseline:"
		                            : "candidate:",
		             line, sizeof line);
		put_line(out, pre, line, md);
		if (r->paired) {
			snprintf(line, sizeof line, "baseline arm: %s", r->baseline);
			put_line(out, pre, line, md);
			break;
		}
	}
	describe_method(r, line, sizeof line);
	put_line(out, pre, line, md);
	export_describe_regimes(r, line, sizeof line);
	put_line(out, pre, line, md);
	if (r->bootstrap)
		fprintf(out, "%sbootstrap: %u resamples, seed %llu\n", pre, r->bootstrap,
		        (unsigned long long)r->seed);
	fprintf(out, "%sconvention: %s\n", pre, CMP_CONVENTION);
	export_rule(r, line, sizeof line);
	put_line(out, pre, line, md);
	if (r->calibration)
		put_line(out, pre, r->calibration, md);
}

/* Columns a cell takes on a terminal as export_text writes it: its bytes but the continuation
 * bytes of UTF-8 characters (the ± of a verdict is one column, two bytes). */
static size_t cell_width(const char *s)
{
	size_t n = export_text_len(s);

	for (; *s; s++)
		n -= ((unsigned char)*s & 0xC0) == 0x80;
	return n;
}

void export_print_grid(FILE *out, char (*c)[CELL], size_t rows, size_t cols, unsigned right)
{
	size_t w[MAXCOL] = {0};

	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			if (cell_width(c[i * cols + j]) > w[j])
				w[j] = cell_width(c[i * cols + j]);
	for (size_t i = 0; i < rows; i++) {
		for (size_t j = 0; j < cols; j++) {
			const char *cell = c[i * cols + j];
			size_t pad = w[j] - cell_width(cell);
			fprintf(out, "%s%*s", j ? "  " : "", (right >> j & 1) ? (int)pad : 0, "");
			export_text(out, cell, 0);
			fprintf(out, "%*s", (right >> j & 1) || j + 1 == cols ? 0 : (int)pad, "");
		}
		fprintf(out, "\n");
	}
}

void export_print_warnings(FILE *out, char *const *warn, size_t n, int md)
{
	for (size_t i = 0; i < n; i++) {
		const char *w = warn[i];
		int loud = strncmp(w, "WARNING: ", 9) == 0;
		if (md && loud) {
			put_line(out, "\n> [!WARNING]\n> ", w + 9, md);
			fputs("\n", out);
		} else if (md) {
			put_line(out, i == 0 ? "\n- **warning:** " : "- **warning:** ", w, md);
		} else {
			put_line(out, loud ? "" : "warning: ", w, md);
		}
	}
}

void export_print_md(FILE *out, char (*c)[CELL], size_t rows, size_t cols, unsigned right)
{
	for (size_t i = 0; i < rows; i++) {
		for (size_t j = 0; j < cols; j++) {
			fprintf(out, "| ");
			export_text(out, c[i * cols + j], EXPORT_TEXT_MD | EXPORT_TEXT_CELL);
			fprintf(out, " ");
		}
		fprintf(out, "|\n");
		for (size_t j = 0; i == 0 && j < cols; j++)
			fprintf(out, "|%s%s", (right >> j & 1) ? "---:" : "---",
			        j + 1 == cols ? "|\n" : "");
	}
}

static int write_report(FILE *out, const struct cmp_report *r, int md)
{
	size_t narm = 0;
	char(*c)[CELL] = calloc((r->nrows + 1) * MAXCOL, CELL);
	char(*a)[ARMCOL][CELL] = calloc(2 * r->nrows + 1, sizeof *a);
	size_t ncol, nline;
	unsigned right;
	char line[2048];

	if (!c || !a) {
		free(c);
		free(a);
		return -1;
	}
	fprintf(out, md ? "### allocab compare\n\n" : "allocab compare\n");
	put_lines(out, r, md);
	export_print_warnings(out, r->warn, r->nwarn, md);
	fprintf(out, "\n");
	nline = export_table_cells(r, c, &ncol, &right);
	(md ? export_print_md : export_print_grid)(out, c, nline, ncol, right);

	static const char *const arm_head[ARMCOL] = {"workload",  "arm",          "ok rounds",
	                                             "cold time", "steady time",  "unsettled",
	                                             "peak RSS",  "retained RSS", "RSS growth"};
	for (int j = 0; j < ARMCOL; j++)
		snprintf(a[0][j], CELL, "%s", arm_head[j]);
	narm = export_arm_cells(r, a + 1);
	if (narm) {
		fprintf(out,
		        md ? "\n#### Per arm (phase total, ok runs)\n\n"
		           : "\nper arm (phase total, medians over ok runs; RSS growth: resident "
		             "after the last rep minus after the first):\n");
		(md ? export_print_md : export_print_grid)(out, &a[0][0], narm + 1, ARMCOL, 0x1FC);
	}
	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		arm_config_lines(out, d, md);
		if (r->paired)
			break;
	}
	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		fail_counts(d, line, sizeof line);
		fputs(md ? "\n**Failed runs** in " : "\nfailed runs in ", out);
		export_text(out, d->path, md ? EXPORT_TEXT_MD : 0);
		put_line(out, " (measured rounds): ", line, md);
		for (size_t i = 0; i < d->nfails; i++) {
			fail_line(&d->fails[i], line, sizeof line);
			fputs(md ? "- " : "  ", out);
			export_text(out, line, md ? EXPORT_TEXT_MD | EXPORT_TEXT_CELL : 0);
			fputs("\n", out);
		}
		if (r->paired)
			break;
	}
	free(c);
	free(a);
	return 0;
}

int export_write_markup(FILE *out, const struct export_input *in, int md, char *err,
                        size_t errlen)
{
	if (write_report(out, in->r, md) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (in->claims) {
		fputs("\n", out);
		export_claims_text(out, in->claims, md);
	}
	return 0;
}
