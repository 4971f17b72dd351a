/* report.c - the four renderings of a comparison: table (terminal), markdown (pull requests and
 * $GITHUB_STEP_SUMMARY), json (allocab-compare/1, docs/results-format.md) and csv. They share the
 * cell texts so that every format shows the same numbers. */
#include "front/analysis/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXCOL 12 /* the last, noise floor, only with a calibration */
#define ARMCOL 9
#define CELL   160

int report_format_parse(const char *name, enum report_format *f)
{
	static const char *const names[] = {"table", "markdown", "json", "csv"};

	for (int i = 0; i < 4; i++)
		if (strcmp(name, names[i]) == 0) {
			*f = (enum report_format)i;
			return 0;
		}
	return -1;
}

void report_rule(const struct cmp_report *r, char *buf, size_t len)
{
	snprintf(
	    buf, len,
	    "verdict: faster or slower when the Holm-adjusted p < %.2g and the %g%% interval of "
	    "the speedup excludes 1; otherwise no detectable difference",
	    1.0 - r->conf, 100 * r->conf);
}

static void describe_method(const struct cmp_report *r, char *buf, size_t len)
{
	size_t m = 0;

	for (size_t i = 0; i < r->nrows; i++)
		m += r->rows[i].usable;
	if (r->paired)
		snprintf(
		    buf, len,
		    "method: rounds paired; d = ln(t_candidate/t_baseline) per round; speedup = "
		    "exp(-HL(d)), Hodges-Lehmann; interval at the %g%% level asked: %s; p: "
		    "Wilcoxon signed-rank, "
		    "Holm-adjusted over %zu comparisons",
		    100 * r->conf,
		    r->bootstrap ? "percentile bootstrap over rounds" : "Wilcoxon signed-rank", m);
	else
		snprintf(buf, len,
		         "method: rounds of two files cannot be paired; speedup = exp(-shift), "
		         "two-sample Hodges-Lehmann shift of log times; interval at the %g%% level "
		         "asked: Mann-Whitney "
		         "(Moses); p: Mann-Whitney, Holm-adjusted over %zu comparisons",
		         100 * r->conf, m);
}

static void describe_regimes(const struct cmp_report *r, char *buf, size_t len)
{
	static const char *const what[RF_NREGIMES] = {
	    "cold = the first repetition of each run (a fresh process: CLI tools, serverless)",
	    "steady = the median of each run's steady repetitions (training loops, services)"};
	int both = r->compared[RF_COLD] && r->compared[RF_STEADY];

	if (both)
		snprintf(buf, len, "regimes: steady and cold side by side; %s; %s", what[RF_STEADY],
		         what[RF_COLD]);
	else
		snprintf(buf, len, "regime: %s only%s; %s",
		         rf_regime_name(r->compared[RF_STEADY] ? RF_STEADY : RF_COLD),
		         r->regimes == CMP_REGIMES_BOTH ? " (the only one measured)" : "",
		         what[r->compared[RF_STEADY] ? RF_STEADY : RF_COLD]);
}

static void describe_doc(const struct rf_doc *d, const char *role, char *buf, size_t len)
{
	snprintf(buf, len,
	         "%s%s%s (%s, status %s): %zu measured rounds, %zu warm-up discarded; measured %s",
	         role, role[0] ? " " : "", d->path, d->commands ? "commands" : "drivers", d->status,
	         d->nrounds, d->nwarmup, rf_regimes_measured(d));
}

static void fmt_p(double p, char *buf)
{
	if (isnan(p))
		strcpy(buf, "-");
	else if (p < 0.001)
		strcpy(buf, "<0.001");
	else
		snprintf(buf, CELL, "%.2g", p);
}

/* The level the CI column's header names: the one the first comparison that reached the level
 * asked reached (exact intervals reach a little more), else the level asked; a row at another
 * level prints its own in the cell. */
static double head_level(const struct cmp_report *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].usable && r->rows[i].d.level + 1e-9 >= r->conf)
			return r->rows[i].d.level;
	return r->conf;
}

/* speedup, interval, improvement, p (Holm) and verdict of one row ("-" where unusable). */
static void estimate_cells(const struct cmp_report *r, const struct cmp_row *row, char *speedup,
                           char *ci, char *impr, char *p, char *verdict)
{
	if (row)
		cmp_verdict_text(row, verdict, CELL);
	else
		strcpy(verdict, "-");
	if (!row || !row->usable) {
		strcpy(speedup, "-");
		strcpy(ci, "-");
		strcpy(impr, "-");
		strcpy(p, "-");
		return;
	}
	snprintf(speedup, CELL, "%.3fx", cmp_speedup(row->d.est));
	snprintf(ci, CELL, "[%.3f, %.3f]", cmp_speedup(row->d.hi), cmp_speedup(row->d.lo));
	if (fabs(row->d.level - head_level(r)) > 1e-9)
		snprintf(ci + strlen(ci), CELL - strlen(ci), " (%.3g%%)", 100 * row->d.level);
	snprintf(impr, CELL, "%+.1f%%", cmp_improvement(row->d.est));
	fmt_p(row->p_holm, p);
}

static void n_cell(const struct cmp_report *r, const struct cmp_row *row, char *buf)
{
	if (!row)
		strcpy(buf, "-");
	else if (r->paired)
		snprintf(buf, CELL, "%zu", row->n);
	else
		snprintf(buf, CELL, "%zu+%zu", row->n_base, row->n_cand);
}

/* Whether both regimes are in the table, side by side. */
static int side_by_side(const struct cmp_report *r)
{
	return r->compared[RF_COLD] && r->compared[RF_STEADY];
}

/* One line of the comparisons table: a row, or side by side the steady row s and the cold row c
 * of one comparison (either may be NULL). Fills MAXCOL cells. */
static void line_cells(const struct cmp_report *r, const struct cmp_row *s, const struct cmp_row *c,
                       char cell[MAXCOL][CELL])
{
	const struct cmp_row *any = s ? s : c;
	char unused[2][CELL];
	size_t k = 3;

	snprintf(cell[0], CELL, "%s", any->workload ? any->workload : "geomean");
	snprintf(cell[1], CELL, "%s", any->phase);
	snprintf(cell[2], CELL, "%s", any->candidate);
	if (side_by_side(r)) {
		estimate_cells(r, s, cell[3], cell[4], unused[0], unused[1], cell[5]);
		estimate_cells(r, c, cell[6], cell[7], unused[0], unused[1], cell[8]);
		char ns[CELL], nc[CELL];
		n_cell(r, s, ns);
		n_cell(r, c, nc);
		snprintf(cell[9], CELL, "%.60s/%.60s", ns, nc);
		k = 10;
	} else {
		estimate_cells(r, any, cell[3], cell[4], cell[5], cell[6], cell[7]);
		n_cell(r, any, cell[8]);
		k = 9;
	}
	if (isnan(any->rss_ratio))
		strcpy(cell[k], "-");
	else
		snprintf(cell[k], CELL, "%.2f", any->rss_ratio);
	if (isnan(any->floor_pct))
		strcpy(cell[k + 1], "-");
	else if (isinf(any->floor_pct))
		strcpy(cell[k + 1], "none yet");
	else
		snprintf(cell[k + 1], CELL, "%.1f%%", any->floor_pct);
}

/* Whether rows x and y are the two regimes of one comparison. */
static int same_comparison(const struct cmp_row *x, const struct cmp_row *y)
{
	return x->regime != y->regime && (x->workload == NULL) == (y->workload == NULL) &&
	       (!x->workload || strcmp(x->workload, y->workload) == 0) &&
	       strcmp(x->phase, y->phase) == 0 && strcmp(x->candidate, y->candidate) == 0;
}

/* The table's header and lines into c (MAXCOL cells per line); returns the lines, header included,
 * and sets *ncol and the right-aligned columns *right. */
static size_t table_cells(const struct cmp_report *r, char (*c)[CELL], size_t *ncol,
                          unsigned *right)
{
	static const char *const one[] = {"workload", "phase",          "candidate",  "speedup",
	                                  "CI",       "improvement",    "p (Holm)",   "verdict",
	                                  "n",        "peak RSS ratio", "noise floor"};
	static const char *const two[] = {"workload",       "phase",          "candidate",
	                                  "steady speedup", "steady CI",      "steady verdict",
	                                  "cold speedup",   "cold CI",        "cold verdict",
	                                  "n steady/cold",  "peak RSS ratio", "noise floor"};
	int both = side_by_side(r);
	size_t n = 1, cols = both ? 12 : 11;
	const char *regime = rf_regime_name(r->compared[RF_STEADY] ? RF_STEADY : RF_COLD);

	*ncol = r->calibration ? cols : cols - 1;
	*right = both ? 0xED8 : 0x778;
	for (size_t j = 0; j < *ncol; j++) {
		const char *name = both ? two[j] : one[j];
		if (both && (j == 4 || j == 7))
			snprintf(c[j], CELL, "%s %.3g%% CI", j == 4 ? "steady" : "cold",
			         100 * head_level(r));
		else if (!both && j == 4)
			snprintf(c[j], CELL, "%.3g%% CI", 100 * head_level(r));
		else if (!both && j == 3)
			snprintf(c[j], CELL, "%s speedup", regime);
		else
			snprintf(c[j], CELL, "%s", name);
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *x = &r->rows[i], *y = NULL;
		char cells[MAXCOL][CELL];
		if (both && i + 1 < r->nrows && same_comparison(x, &r->rows[i + 1]))
			y = &r->rows[++i];
		if (both && x->regime == RF_COLD)
			line_cells(r, y, x, cells);
		else
			line_cells(r, x, y, cells);
		memcpy(&c[n++ * *ncol], cells, *ncol * CELL);
	}
	return n;
}

static void fmt_ns(double ns, char *buf)
{
	if (isnan(ns))
		strcpy(buf, "-");
	else if (ns >= 10e9)
		snprintf(buf, CELL, "%.2f s", ns * 1e-9);
	else
		snprintf(buf, CELL, "%.2f ms", ns * 1e-6);
}

static void fmt_mib(double bytes, char *buf)
{
	if (isnan(bytes))
		strcpy(buf, "-");
	else
		snprintf(buf, CELL, "%.1f MiB", bytes / 1048576.0);
}

/* The per-arm lines behind the total-phase comparisons: each baseline once, then each candidate. */
static size_t arm_cells(const struct cmp_report *r, char (*c)[ARMCOL][CELL])
{
	size_t n = 0;
	const char *last = NULL;
	enum rf_regime first = r->compared[RF_STEADY] ? RF_STEADY : RF_COLD;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!row->workload || strcmp(row->phase, "total") != 0 || row->regime != first)
			continue;
		for (int side = 0; side < 2; side++) {
			const struct rf_doc *d = side ? r->cand : r->base;
			if (side == 0 && r->paired && last && strcmp(last, row->workload) == 0)
				continue;
			snprintf(c[n][0], CELL, "%s", row->workload);
			snprintf(c[n][1], CELL, "%s%s", side ? row->candidate : row->baseline,
			         r->paired ? ""
			         : side    ? " (2nd file)"
			                   : " (1st file)");
			snprintf(c[n][2], CELL, "%zu/%zu", side ? row->n_cand : row->n_base,
			         d->nrounds);
			const double *med = side ? row->med_regime_cand : row->med_regime_base;
			double growth = side ? row->growth_cand : row->growth_base;
			fmt_ns(med[RF_COLD], c[n][3]);
			fmt_ns(med[RF_STEADY], c[n][4]);
			if (r->compared[RF_STEADY])
				snprintf(c[n][5], CELL, "%zu",
				         side ? row->unsettled_cand : row->unsettled_base);
			else
				strcpy(c[n][5], "-");
			fmt_mib((side ? row->peak_cand_kib : row->peak_base_kib) * 1024, c[n][6]);
			fmt_mib(side ? row->retained_cand : row->retained_base, c[n][7]);
			fmt_mib(growth, c[n][8]);
			if (growth >= 0)
				memmove(c[n][8] + 1, c[n][8], strlen(c[n][8]) + 1),
				    c[n][8][0] = '+';
			n++;
		}
		last = row->workload;
	}
	return n;
}

/* The configured arms of d with their settings (docs/tuning.md), one line each. */
static void arm_config_lines(FILE *out, const struct rf_doc *d, int md)
{
	int head = 0;

	for (size_t i = 0; d->arm_config && i < d->narms; i++) {
		if (!d->arm_config[i])
			continue;
		if (!head++)
			fprintf(out,
			        md ? "\n**Configured arms** in %s:\n"
			           : "\nconfigured arms in %s:\n",
			        d->path);
		fprintf(out, md ? "- `%s` = %s\n" : "  %s = %s\n", d->arms[i], d->arm_config[i]);
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

/* Text blocks shared by table and markdown: prefix each line as the format wants. */
static void put_lines(FILE *out, const struct cmp_report *r, const char *pre)
{
	char line[2048];

	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		describe_doc(d,
		             r->paired      ? ""
		             : d == r->base ? "baseline:"
		                            : "candidate:",
		             line, sizeof line);
		fprintf(out, "%s%s\n", pre, line);
		if (r->paired) {
			fprintf(out, "%sbaseline arm: %s\n", pre, r->baseline);
			break;
		}
	}
	describe_method(r, line, sizeof line);
	fprintf(out, "%s%s\n", pre, line);
	describe_regimes(r, line, sizeof line);
	fprintf(out, "%s%s\n", pre, line);
	if (r->bootstrap)
		fprintf(out, "%sbootstrap: %u resamples, seed %llu\n", pre, r->bootstrap,
		        (unsigned long long)r->seed);
	fprintf(out, "%sconvention: %s\n", pre, CMP_CONVENTION);
	report_rule(r, line, sizeof line);
	fprintf(out, "%s%s\n", pre, line);
	if (r->calibration)
		fprintf(out, "%s%s\n", pre, r->calibration);
}

static void print_grid(FILE *out, char (*c)[CELL], size_t rows, size_t cols, unsigned right)
{
	size_t w[MAXCOL] = {0};

	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			if (strlen(c[i * cols + j]) > w[j])
				w[j] = strlen(c[i * cols + j]);
	for (size_t i = 0; i < rows; i++) {
		for (size_t j = 0; j < cols; j++)
			fprintf(out, "%s%*s%-*s", j ? "  " : "",
			        (right >> j & 1) ? (int)(w[j] - strlen(c[i * cols + j])) : 0, "",
			        (right >> j & 1) || j + 1 == cols ? 0 : (int)w[j], c[i * cols + j]);
		fprintf(out, "\n");
	}
}

static void md_escape(FILE *out, const char *s)
{
	for (; *s; s++)
		fprintf(out, *s == '|' ? "\\|" : "%c", *s);
}

static void print_md(FILE *out, char (*c)[CELL], size_t rows, size_t cols, unsigned right)
{
	for (size_t i = 0; i < rows; i++) {
		for (size_t j = 0; j < cols; j++) {
			fprintf(out, "| ");
			md_escape(out, c[i * cols + j]);
			fprintf(out, " ");
		}
		fprintf(out, "|\n");
		for (size_t j = 0; i == 0 && j < cols; j++)
			fprintf(out, "|%s%s", (right >> j & 1) ? "---:" : "---",
			        j + 1 == cols ? "|\n" : "");
	}
}

static int write_text(FILE *out, const struct cmp_report *r, int md)
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
	put_lines(out, r, md ? "- " : "");
	for (size_t i = 0; i < r->nwarn; i++) {
		const char *w = r->warn[i];
		int loud = strncmp(w, "WARNING: ", 9) == 0;
		if (md && loud)
			fprintf(out, "\n> [!WARNING]\n> %s\n\n", w + 9);
		else if (md)
			fprintf(out, "%s- **warning:** %s\n", i == 0 ? "\n" : "", w);
		else
			fprintf(out, "%s%s\n", loud ? "" : "warning: ", w);
	}
	fprintf(out, "\n");
	nline = table_cells(r, c, &ncol, &right);
	(md ? print_md : print_grid)(out, c, nline, ncol, right);

	static const char *const arm_head[ARMCOL] = {"workload",  "arm",          "ok rounds",
	                                             "cold time", "steady time",  "unsettled",
	                                             "peak RSS",  "retained RSS", "RSS growth"};
	for (int j = 0; j < ARMCOL; j++)
		snprintf(a[0][j], CELL, "%s", arm_head[j]);
	narm = arm_cells(r, a + 1);
	if (narm) {
		fprintf(out,
		        md ? "\n#### Per arm (phase total, ok runs)\n\n"
		           : "\nper arm (phase total, medians over ok runs; RSS growth: resident "
		             "after the last rep minus after the first):\n");
		(md ? print_md : print_grid)(out, &a[0][0], narm + 1, ARMCOL, 0x1FC);
	}
	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		arm_config_lines(out, d, md);
		if (r->paired)
			break;
	}
	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		fail_counts(d, line, sizeof line);
		fprintf(out,
		        md ? "\n**Failed runs** in %s (measured rounds): %s\n"
		           : "\nfailed runs in %s (measured rounds): %s\n",
		        d->path, line);
		for (size_t i = 0; i < d->nfails; i++) {
			fail_line(&d->fails[i], line, sizeof line);
			fprintf(out, md ? "- " : "  ");
			if (md)
				md_escape(out, line);
			else
				fputs(line, out);
			fprintf(out, "\n");
		}
		if (r->paired)
			break;
	}
	free(c);
	free(a);
	return 0;
}

static cJSON *num(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static void add_num(cJSON *o, const char *key, double v)
{
	cJSON_AddItemToObject(o, key, num(v));
}

static void add_str(cJSON *o, const char *key, const char *s)
{
	cJSON_AddItemToObject(o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

static cJSON *interval_json(const struct stats_interval *iv, int usable)
{
	cJSON *o = cJSON_CreateObject();

	add_num(o, "log_ratio", usable ? iv->est : NAN);
	add_num(o, "log_lo", usable ? iv->lo : NAN);
	add_num(o, "log_hi", usable ? iv->hi : NAN);
	add_num(o, "speedup_lo", usable ? cmp_speedup(iv->hi) : NAN);
	add_num(o, "speedup_hi", usable ? cmp_speedup(iv->lo) : NAN);
	add_num(o, "level", usable ? iv->level : NAN);
	return o;
}

static cJSON *row_json(const struct cmp_report *r, const struct cmp_row *row)
{
	cJSON *o = cJSON_CreateObject();
	double d = row->usable ? row->d.est : NAN;

	add_str(o, "workload", row->workload ? row->workload : "geomean");
	cJSON_AddBoolToObject(o, "geomean", row->workload == NULL);
	add_str(o, "phase", row->phase);
	add_str(o, "regime", rf_regime_name(row->regime));
	add_str(o, "candidate", row->candidate);
	add_str(o, "baseline", row->baseline);
	add_num(o, "n", (double)row->n);
	add_num(o, "n_baseline", (double)row->n_base);
	add_num(o, "n_candidate", (double)row->n_cand);
	add_str(o, "verdict", cmp_verdict_name(row->verdict));
	add_num(o, "rounds_needed", row->need ? (double)row->need : NAN);
	add_num(o, "speedup", cmp_speedup(d));
	add_num(o, "improvement_pct", cmp_improvement(d));
	cJSON_AddItemToObject(o, "ci", interval_json(&row->d, row->usable));
	cJSON_AddItemToObject(o, "ci_rank", interval_json(&row->d_rank, row->usable));
	cJSON_AddItemToObject(o, "ci_bootstrap",
	                      row->has_boot ? interval_json(&row->d_boot, 1) : cJSON_CreateNull());
	add_num(o, "p", row->p);
	add_num(o, "p_holm", row->p_holm);
	add_num(o, "sd_log_ratio", r->paired ? row->sd : NAN);
	add_num(o, "median_ns_baseline", row->med_base_ns);
	add_num(o, "median_ns_candidate", row->med_cand_ns);
	add_num(o, "peak_rss_ratio", row->rss_ratio);
	add_num(o, "peak_rss_n", (double)row->rss_n);
	add_num(o, "peak_rss_kib_baseline", row->peak_base_kib);
	add_num(o, "peak_rss_kib_candidate", row->peak_cand_kib);
	add_num(o, "retained_bytes_baseline", row->retained_base);
	add_num(o, "retained_bytes_candidate", row->retained_cand);
	add_num(o, "median_ns_cold_baseline", row->med_regime_base[RF_COLD]);
	add_num(o, "median_ns_cold_candidate", row->med_regime_cand[RF_COLD]);
	add_num(o, "median_ns_steady_baseline", row->med_regime_base[RF_STEADY]);
	add_num(o, "median_ns_steady_candidate", row->med_regime_cand[RF_STEADY]);
	add_num(o, "rss_after_first_bytes_baseline", row->rss_first_base);
	add_num(o, "rss_after_first_bytes_candidate", row->rss_first_cand);
	add_num(o, "rss_after_last_bytes_baseline", row->rss_last_base);
	add_num(o, "rss_after_last_bytes_candidate", row->rss_last_cand);
	add_num(o, "rss_growth_bytes_baseline", row->growth_base);
	add_num(o, "rss_growth_bytes_candidate", row->growth_cand);
	add_num(o, "unsettled_baseline", (double)row->unsettled_base);
	add_num(o, "unsettled_candidate", (double)row->unsettled_cand);
	cJSON *dr = cJSON_AddObjectToObject(o, "drift");
	add_num(dr, "rho", row->drift_rho);
	add_num(dr, "p", row->drift_p);
	cJSON_AddBoolToObject(dr, "flag", row->drift);
	add_num(o, "telemetry_flagged_rounds", (double)row->flagged);
	add_num(o, "noise_floor_pct", row->floor_pct);
	return o;
}

static cJSON *doc_json(const struct rf_doc *d)
{
	cJSON *o = cJSON_CreateObject(), *fails = cJSON_CreateArray();

	add_str(o, "path", d->path);
	add_str(o, "mode", d->commands ? "commands" : "drivers");
	add_str(o, "status", d->status);
	add_num(o, "rounds", (double)d->nrounds);
	add_num(o, "warmup_rounds", (double)d->nwarmup);
	cJSON *reg = cJSON_AddArrayToObject(o, "regimes");
	for (int g = 0; g < RF_NREGIMES; g++)
		if (d->has_regime[g])
			cJSON_AddItemToArray(reg, cJSON_CreateString(rf_regime_name(g)));
	add_str(o, "machine_id", d->machine_id[0] ? d->machine_id : NULL);
	add_str(o, "machine", d->machine_desc);
	cJSON *ac = cJSON_AddObjectToObject(o, "arm_configs");
	for (size_t i = 0; d->arm_config && i < d->narms; i++)
		if (d->arm_config[i])
			add_str(ac, d->arms[i], d->arm_config[i]);
	cJSON_AddItemToObject(o, "env", d->env ? cJSON_Parse(d->env) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "failures", fails);
	for (size_t i = 0; i < d->nfails; i++) {
		const struct rf_fail *f = &d->fails[i];
		cJSON *j = cJSON_CreateObject();
		add_num(j, "round", (double)f->round);
		cJSON_AddBoolToObject(j, "warmup", f->warmup);
		add_str(j, "arm", f->arm);
		add_str(j, "workload", f->workload);
		add_str(j, "status", f->status);
		add_str(j, "signal", f->signal);
		add_num(j, "exit_status", f->exit_status < 0 ? NAN : f->exit_status);
		add_str(j, "stderr_tail", f->stderr_tail);
		cJSON_AddItemToArray(fails, j);
	}
	return o;
}

cJSON *report_json(const struct cmp_report *r)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	char line[1024];

	add_str(o, "schema", "allocab-compare/1");
	cJSON *tool = cJSON_AddObjectToObject(o, "tool");
	add_str(tool, "name", "allocab");
	add_str(tool, "version", ALLOCAB_VERSION);
	add_str(o, "convention", CMP_CONVENTION);
	report_rule(r, line, sizeof line);
	add_str(o, "verdict_rule", line);
	add_str(o, "mode", r->paired ? "paired" : "two-sample");
	add_str(o, "regime", cmp_regimes_name(r->regimes));
	cJSON *cmpd = cJSON_AddArrayToObject(o, "regimes_compared");
	for (int g = RF_NREGIMES - 1; g >= 0; g--)
		if (r->compared[g])
			cJSON_AddItemToArray(cmpd, cJSON_CreateString(rf_regime_name(g)));
	describe_regimes(r, line, sizeof line);
	add_str(o, "regimes_rule", line);
	add_str(o, "calibration", r->calibration);
	add_str(o, "baseline", r->paired ? r->baseline : NULL);
	add_num(o, "conf", r->conf);
	add_num(o, "alpha", round((1.0 - r->conf) * 1e9) / 1e9);
	add_str(o, "interval",
	        r->paired ? r->bootstrap ? "bootstrap" : "signed-rank" : "mann-whitney");
	if (r->bootstrap) {
		cJSON *b = cJSON_AddObjectToObject(o, "bootstrap");
		add_num(b, "resamples", r->bootstrap);
		add_num(b, "seed", (double)r->seed);
	} else {
		cJSON_AddNullToObject(o, "bootstrap");
	}
	cJSON_AddItemToObject(o, "inputs", arr = cJSON_CreateArray());
	cJSON_AddItemToArray(arr, doc_json(r->base));
	if (!r->paired)
		cJSON_AddItemToArray(arr, doc_json(r->cand));
	cJSON_AddItemToObject(o, "warnings", arr = cJSON_CreateArray());
	for (size_t i = 0; i < r->nwarn; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(r->warn[i]));
	cJSON_AddItemToObject(o, "comparisons", arr = cJSON_CreateArray());
	for (size_t i = 0; i < r->nrows; i++)
		cJSON_AddItemToArray(arr, row_json(r, &r->rows[i]));
	cJSON_AddItemToObject(o, "telemetry_flags", arr = cJSON_CreateArray());
	for (size_t i = 0; i < r->nflags; i++) {
		const struct noise_flag *f = &r->flags[i];
		cJSON *j = cJSON_CreateObject();
		add_str(j, "file", f->doc->path);
		add_num(j, "round", (double)f->round);
		add_str(j, "arm", f->doc->arms[f->arm]);
		add_str(j, "workload", f->doc->wl[f->wl].name);
		add_str(j, "metric", f->metric);
		add_num(j, "value", f->value);
		add_num(j, "threshold", f->threshold);
		cJSON_AddItemToArray(arr, j);
	}
	return o;
}

static int write_json(FILE *out, const struct cmp_report *r)
{
	cJSON *o = report_json(r);
	char *text = o ? cJSON_Print(o) : NULL;

	cJSON_Delete(o);
	if (!text)
		return -1;
	fprintf(out, "%s\n", text);
	free(text);
	return 0;
}

static void csv_field(FILE *out, const char *s, int last)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', out);
		for (; *s; s++)
			fprintf(out, *s == '"' ? "\"\"" : "%c", *s);
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

/* Shortest text that reads back as v: integers (below 2^53) in plain digits, other values with
 * the fewest significant digits that round-trip (at most 17). */
void report_fmt_double(double v, char *buf, size_t len)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void csv_num(FILE *out, double v, int last)
{
	char buf[64];

	report_fmt_double(v, buf, sizeof buf);
	csv_field(out, buf, last);
}

static void csv_count(FILE *out, size_t v, int last)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%zu", v);
	csv_field(out, buf, last);
}

static int write_csv(FILE *out, const struct cmp_report *r)
{
	static const char *const head =
	    "workload,phase,regime,candidate,baseline,n,n_baseline,n_candidate,speedup,ci_lo,ci_hi,"
	    "ci_level,improvement_pct,p,p_holm,verdict,peak_rss_ratio,retained_bytes_baseline,"
	    "retained_bytes_candidate,median_ns_baseline,median_ns_candidate,drift_p,"
	    "telemetry_flagged_rounds,noise_floor_pct,rss_growth_bytes_baseline,"
	    "rss_growth_bytes_candidate,unsettled_baseline,unsettled_candidate,rounds_needed,mode,"
	    "conf\n";

	fputs(head, out);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		double d = row->usable ? row->d.est : NAN;
		csv_field(out, row->workload ? row->workload : "geomean", 0);
		csv_field(out, row->phase, 0);
		csv_field(out, rf_regime_name(row->regime), 0);
		csv_field(out, row->candidate, 0);
		csv_field(out, row->baseline, 0);
		csv_count(out, row->n, 0);
		csv_count(out, row->n_base, 0);
		csv_count(out, row->n_cand, 0);
		csv_num(out, cmp_speedup(d), 0);
		csv_num(out, row->usable ? cmp_speedup(row->d.hi) : NAN, 0);
		csv_num(out, row->usable ? cmp_speedup(row->d.lo) : NAN, 0);
		csv_num(out, row->usable ? row->d.level : NAN, 0);
		csv_num(out, cmp_improvement(d), 0);
		csv_num(out, row->p, 0);
		csv_num(out, row->p_holm, 0);
		csv_field(out, cmp_verdict_name(row->verdict), 0);
		csv_num(out, row->rss_ratio, 0);
		csv_num(out, row->retained_base, 0);
		csv_num(out, row->retained_cand, 0);
		csv_num(out, row->med_base_ns, 0);
		csv_num(out, row->med_cand_ns, 0);
		csv_num(out, row->drift_p, 0);
		csv_count(out, row->flagged, 0);
		csv_num(out, row->floor_pct, 0);
		csv_num(out, row->growth_base, 0);
		csv_num(out, row->growth_cand, 0);
		csv_count(out, row->unsettled_base, 0);
		csv_count(out, row->unsettled_cand, 0);
		csv_num(out, row->need ? (double)row->need : NAN, 0);
		csv_field(out, r->paired ? "paired" : "two-sample", 0);
		csv_num(out, r->conf, 1);
	}
	return 0;
}

int report_write(FILE *out, const struct cmp_report *r, enum report_format f)
{
	int rc;

	switch (f) {
	case REPORT_JSON:
		rc = write_json(out, r);
		break;
	case REPORT_CSV:
		rc = write_csv(out, r);
		break;
	default:
		rc = write_text(out, r, f == REPORT_MARKDOWN);
	}
	return rc == 0 && !ferror(out) ? 0 : -1;
}
