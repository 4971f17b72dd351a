/* report.c - the four renderings of a comparison: table (terminal), markdown (pull requests and
 * $GITHUB_STEP_SUMMARY), json (allocab-compare/1, docs/results-format.md) and csv. They share the
 * cell texts so that every format shows the same numbers. */
#include "front/analysis/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NCOL 11 /* the last, noise floor, only with a calibration */
#define CELL 160

static const char *const col_names[NCOL] = {"workload", "phase",          "candidate",  "speedup",
                                            "CI",       "improvement",    "p (Holm)",   "verdict",
                                            "n",        "peak RSS ratio", "noise floor"};

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

static void describe_doc(const struct rf_doc *d, const char *role, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s (%s, status %s): %zu measured rounds, %zu warm-up discarded",
	         role, role[0] ? " " : "", d->path, d->commands ? "commands" : "drivers", d->status,
	         d->nrounds, d->nwarmup);
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

static void row_cells(const struct cmp_report *r, const struct cmp_row *row, char c[NCOL][CELL])
{
	snprintf(c[0], CELL, "%s", row->workload ? row->workload : "geomean");
	snprintf(c[1], CELL, "%s", row->phase);
	snprintf(c[2], CELL, "%s", row->candidate);
	if (r->paired)
		snprintf(c[8], CELL, "%zu", row->n);
	else
		snprintf(c[8], CELL, "%zu+%zu", row->n_base, row->n_cand);
	cmp_verdict_text(row, c[7], CELL);
	if (isnan(row->rss_ratio))
		strcpy(c[9], "-");
	else
		snprintf(c[9], CELL, "%.2f", row->rss_ratio);
	if (isnan(row->floor_pct))
		strcpy(c[10], "-");
	else if (isinf(row->floor_pct))
		strcpy(c[10], "none yet");
	else
		snprintf(c[10], CELL, "%.1f%%", row->floor_pct);
	if (!row->usable) {
		for (int i = 3; i < 7; i++)
			strcpy(c[i], "-");
		return;
	}
	snprintf(c[3], CELL, "%.3fx", cmp_speedup(row->d.est));
	snprintf(c[4], CELL, "[%.3f, %.3f]", cmp_speedup(row->d.hi), cmp_speedup(row->d.lo));
	if (fabs(row->d.level - head_level(r)) > 1e-9)
		snprintf(c[4] + strlen(c[4]), CELL - strlen(c[4]), " (%.3g%%)", 100 * row->d.level);
	snprintf(c[5], CELL, "%+.1f%%", cmp_improvement(row->d.est));
	fmt_p(row->p_holm, c[6]);
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
static size_t arm_cells(const struct cmp_report *r, char (*c)[6][CELL])
{
	size_t n = 0;
	const char *last = NULL;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!row->workload || strcmp(row->phase, "total") != 0)
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
			fmt_ns(side ? row->med_cand_ns : row->med_base_ns, c[n][3]);
			fmt_mib((side ? row->peak_cand_kib : row->peak_base_kib) * 1024, c[n][4]);
			fmt_mib(side ? row->retained_cand : row->retained_base, c[n][5]);
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
	size_t w[NCOL] = {0};

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
	char(*c)[CELL] = calloc((r->nrows + 1) * NCOL, CELL);
	char(*a)[6][CELL] = calloc(2 * r->nrows + 1, sizeof *a);
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
	size_t ncol = r->calibration ? NCOL : NCOL - 1;
	for (size_t j = 0; j < ncol; j++)
		if (j == 4)
			snprintf(c[j], CELL, "%.3g%% CI", 100 * head_level(r));
		else
			snprintf(c[j], CELL, "%s", col_names[j]);
	for (size_t i = 0; i < r->nrows; i++) {
		char cells[NCOL][CELL];
		row_cells(r, &r->rows[i], cells);
		memcpy(&c[(i + 1) * ncol], cells, ncol * CELL);
	}
	(md ? print_md : print_grid)(out, c, r->nrows + 1, ncol, 0x778);

	static const char *const arm_head[6] = {"workload",    "arm",      "ok rounds",
	                                        "median time", "peak RSS", "retained RSS"};
	for (int j = 0; j < 6; j++)
		snprintf(a[0][j], CELL, "%s", arm_head[j]);
	narm = arm_cells(r, a + 1);
	if (narm) {
		fprintf(out, md ? "\n#### Per arm (phase total, ok runs)\n\n"
		                : "\nper arm (phase total, medians over ok runs):\n");
		(md ? print_md : print_grid)(out, &a[0][0], narm + 1, 6, 0x3c);
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
	    "workload,phase,candidate,baseline,n,n_baseline,n_candidate,speedup,ci_lo,ci_hi,"
	    "ci_level,improvement_pct,p,p_holm,verdict,peak_rss_ratio,retained_bytes_baseline,"
	    "retained_bytes_candidate,median_ns_baseline,median_ns_candidate,drift_p,"
	    "telemetry_flagged_rounds,noise_floor_pct,rounds_needed,mode,conf\n";

	fputs(head, out);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		double d = row->usable ? row->d.est : NAN;
		csv_field(out, row->workload ? row->workload : "geomean", 0);
		csv_field(out, row->phase, 0);
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
