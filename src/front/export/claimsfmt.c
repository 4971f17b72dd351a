/* claimsfmt.c - the claim verdicts (front/claims/claims.h) as table, markdown, JSON and CSV, for
 * the formats that carry them. */
#include "front/export/exportint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CLAIM_NCOL 6

static const char *const heads[CLAIM_NCOL] = {"claim",   "target",   "allocator",
                                        "claimed", "measured", "verdict"};

static void target_text(const struct claims_check *k, char *buf, size_t len)
{
	if (strcmp(k->target->workload, "geomean") == 0 && strcmp(k->target->phase, "total") == 0)
		snprintf(buf, len, "geomean (%s)", rf_regime_name(k->regime));
	else
		snprintf(buf, len, "%s/%s (%s)", k->target->workload, k->target->phase,
		         rf_regime_name(k->regime));
}

/* Whether the compared documents hold workload wl. */
static int holds_workload(const struct cmp_report *r, const char *wl)
{
	return rf_workload(r->base, wl) >= 0 && rf_workload(r->cand, wl) >= 0;
}

/* Why k was not measured, briefly: what of its target the comparison lacks. */
static void not_measured(const struct claims_check *k, const struct cmp_report *r, char *buf,
                         size_t len)
{
	const char *wl = k->target->workload;
	int geo = strcmp(wl, "geomean") == 0, w = geo ? -1 : rf_workload(r->cand, wl);

	if (k->row)
		snprintf(buf, len, "too few rounds");
	else if (!geo && !holds_workload(r, wl))
		snprintf(buf, len, "no workload %s in the file", wl);
	else if (rf_arm(r->cand, k->claim->allocator) < 0)
		snprintf(buf, len, "no arm %s in the file", k->claim->allocator);
	else if (w >= 0 && rf_phase(&r->cand->wl[w], k->target->phase) < 0)
		snprintf(buf, len, "%s has no phase %s", wl, k->target->phase);
	else if (!r->compared[k->regime])
		snprintf(buf, len, "the %s regime is not compared", rf_regime_name(k->regime));
	else if (geo)
		snprintf(buf, len, "no geometric mean in the comparison");
	else
		snprintf(buf, len, "not in the comparison");
}

static void cells(const struct claims_check *k, const struct cmp_report *r, char (*c)[CELL])
{
	char lv[16];

	snprintf(c[0], CELL, "%s", k->claim->name);
	target_text(k, c[1], CELL);
	snprintf(c[2], CELL, "%s", k->claim->allocator);
	snprintf(c[3], CELL, "%.3fx-%.3fx", k->claim->lo, k->claim->hi);
	if (isnan(k->s_est))
		not_measured(k, r, c[4], CELL);
	else
		snprintf(c[4], CELL, "%.3fx [%.3f, %.3f] (%s%%)", k->s_est, k->s_lo, k->s_hi,
		         cmp_level_text(k->level, lv, sizeof lv));
	claims_verdict_text(k, c[5], CELL);
}

/* "not measured: 8 targets name workloads this file does not hold (parquet_load, batch_prep;
 * it holds command)", when that is why some were not measured; "" otherwise. */
static void missing_workloads(const struct claims_result *res, const struct cmp_report *r,
                              char *buf, size_t len)
{
	size_t n = 0, k = 0, used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < res->n; i++) {
		const char *wl = res->checks[i].target->workload;
		size_t j = 0;
		if (res->checks[i].row || strcmp(wl, "geomean") == 0 || holds_workload(r, wl))
			continue;
		n++;
		while (j < i && strcmp(res->checks[j].target->workload, wl) != 0)
			j++;
		if (j == i && used < len)
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%s", k++ ? ", " : "", wl);
	}
	if (!n) {
		buf[0] = '\0';
		return;
	}
	char names[512];
	snprintf(names, sizeof names, "%s", buf);
	used = (size_t)snprintf(buf, len,
	                        "not measured: %zu target%s of these claims name%s workloads this "
	                        "file does not hold (%s; it holds ",
	                        n, n == 1 ? "" : "s", n == 1 ? "s" : "", names);
	for (size_t w = 0; w < r->cand->nwl && used < len; w++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", w ? ", " : "",
		                         r->cand->wl[w].name);
	if (used < len)
		snprintf(buf + used, len - used,
		         "): a claim is judged on the workloads it names (docs/claims.md)%s",
		         rf_kind_has(r->cand, RF_KIND_WHOLE_PROCESS)
		             ? "; a --program or --cmd bench names its workload with -w"
		             : "");
}

/* "claims from PATH (TITLE): N confirmed, N partly, N refuted, N not measured" into line. */
static void summary_line(const struct claims_result *res, char *line, size_t len)
{
	const struct claims_file *f = res->file;
	size_t k = (size_t)snprintf(line, len, "claims from %s", f->path);

	if (f->title && k < len)
		k += (size_t)snprintf(line + k, len - k, " (%s)", f->title);
	if (k < len)
		snprintf(line + k, len - k, ": %zu confirmed, %zu partly, %zu refuted, %zu not measured",
		         res->count[CLAIM_CONFIRMED], res->count[CLAIM_PARTLY],
		         res->count[CLAIM_REFUTED], res->count[CLAIM_NOT_MEASURED]);
}

static void summary(FILE *out, const struct claims_result *res, const struct cmp_report *r, int md,
                    size_t width)
{
	char line[EXPORT_LINE];

	summary_line(res, line, sizeof line);
	export_prose(out, line, md, width);
	export_prose(out,
	             "confirmed: the measured interval lies inside the claimed range; refuted: "
	             "wholly outside it (\"equivalent within ±M%\": and inside the equivalence "
	             "margin, no difference that matters); partly: they overlap",
	             md, width);
	missing_workloads(res, r, line, sizeof line);
	if (line[0])
		export_prose(out, line, md, width);
}

static void write_table(FILE *out, const struct claims_result *res, const struct cmp_report *r,
                        size_t width)
{
	char(*c)[CELL] = calloc((res->n + 1) * CLAIM_NCOL, CELL);
	struct export_grid g = {
	    .c = c, .rows = res->n + 1, .cols = CLAIM_NCOL, .keys = 1, .groups = 1u << 1 | 1u << 3};

	summary(out, res, r, 0, width);
	if (c) {
		for (int j = 0; j < CLAIM_NCOL; j++)
			snprintf(c[j], CELL, "%s", heads[j]);
		for (size_t i = 0; i < res->n; i++)
			cells(&res->checks[i], r, &c[(i + 1) * CLAIM_NCOL]);
		export_print_grid(out, &g, width);
		free(c);
	}
	for (size_t i = 0; i < res->file->n; i++) {
		size_t j = 0;
		while (j < i && strcmp(res->file->c[j].source, res->file->c[i].source) != 0)
			j++;
		if (j == i)
			export_wrap(out, "source: ", "  ", res->file->c[i].source, width);
	}
}

static void md_cell(FILE *out, const char *s)
{
	fputs(" ", out);
	export_text(out, s, EXPORT_TEXT_MD | EXPORT_TEXT_CELL);
	fputs(" |", out);
}

static void write_md(FILE *out, const struct claims_result *res, const struct cmp_report *r)
{
	char c[CLAIM_NCOL][CELL];

	fputs("\n## Claims\n\n", out);
	summary(out, res, r, 1, 0);
	fputs("\n|", out);
	for (int j = 0; j < CLAIM_NCOL; j++)
		md_cell(out, heads[j]);
	fputs(" source |\n|", out);
	for (int j = 0; j <= CLAIM_NCOL; j++)
		fputs(j == 4 ? "---:|" : "---|", out);
	fputs("\n", out);
	for (size_t i = 0; i < res->n; i++) {
		cells(&res->checks[i], r, c);
		fputs("|", out);
		for (int j = 0; j < CLAIM_NCOL; j++)
			md_cell(out, c[j]);
		md_cell(out, res->checks[i].claim->source);
		fputs("\n", out);
	}
}

void export_claims_text(FILE *out, const struct claims_result *res, const struct cmp_report *r,
                        int md, size_t width)
{
	if (md)
		write_md(out, res, r);
	else
		write_table(out, res, r, width);
}

void export_claims_brief(FILE *out, const struct claims_result *res, const struct cmp_report *r,
                         size_t width)
{
	char(*c)[CELL] = calloc((res->n + 1) * 3, CELL), row[CLAIM_NCOL][CELL];
	struct export_grid g = {.c = c, .rows = res->n + 1, .cols = 3, .keys = 1};

	summary_line(res, row[0], CELL);
	export_wrap(out, "", "  ", row[0], width);
	if (!c)
		return;
	snprintf(c[0], CELL, "%s", heads[0]);
	snprintf(c[1], CELL, "%s", heads[4]);
	snprintf(c[2], CELL, "%s", heads[5]);
	for (size_t i = 0; i < res->n; i++) {
		cells(&res->checks[i], r, row);
		snprintf(c[(i + 1) * 3], CELL, "%s", row[0]);
		snprintf(c[(i + 1) * 3 + 1], CELL, "%s", row[4]);
		snprintf(c[(i + 1) * 3 + 2], CELL, "%s", row[5]);
	}
	export_print_grid(out, &g, width);
	free(c);
}

cJSON *export_claims_json(const struct claims_result *res)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < res->n; i++) {
		const struct claims_check *k = &res->checks[i];
		cJSON *o = cJSON_CreateObject(), *cl = cJSON_CreateArray(),
		      *me = cJSON_CreateArray();
		cJSON_AddStringToObject(o, "claim", k->claim->name);
		cJSON_AddStringToObject(o, "source", k->claim->source);
		cJSON_AddStringToObject(o, "allocator", k->claim->allocator);
		cJSON_AddStringToObject(o, "workload", k->target->workload);
		cJSON_AddStringToObject(o, "phase", k->target->phase);
		cJSON_AddStringToObject(o, "regime", rf_regime_name(k->regime));
		cJSON_AddItemToArray(cl, export_json_num(k->claim->lo));
		cJSON_AddItemToArray(cl, export_json_num(k->claim->hi));
		cJSON_AddItemToObject(o, "claimed_speedup", cl);
		cJSON_AddItemToObject(o, "speedup", export_json_num(k->s_est));
		cJSON_AddItemToArray(me, export_json_num(k->s_lo));
		cJSON_AddItemToArray(me, export_json_num(k->s_hi));
		cJSON_AddItemToObject(o, "measured_interval", me);
		cJSON_AddItemToObject(o, "level", export_json_num(k->level));
		cJSON_AddStringToObject(o, "verdict", claims_verdict_name(k->verdict));
		if (k->verdict == CLAIM_REFUTED && k->equivalent) {
			char why[64];
			snprintf(why, sizeof why, "equivalent within ±%g%%", k->equiv_pct);
			cJSON_AddStringToObject(o, "reason", why);
		} else {
			cJSON_AddNullToObject(o, "reason");
		}
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static void csv_str(FILE *out, const char *s, const char *sep)
{
	fputs(export_csv_formula(s) ? "\"'" : "\"", out);
	for (; *s; s++)
		fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, out);
	fprintf(out, "\"%s", sep);
}

static void csv_num(FILE *out, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(out, "%.17g%s", v, sep);
	else
		fputs(sep, out);
}

void export_claims_csv(FILE *out, const struct claims_result *res)
{
	fputs("claim,source,allocator,workload,phase,regime,claimed_lo,claimed_hi,speedup,"
	      "measured_lo,measured_hi,level,verdict,reason\n",
	      out);
	for (size_t i = 0; i < res->n; i++) {
		const struct claims_check *k = &res->checks[i];
		csv_str(out, k->claim->name, ",");
		csv_str(out, k->claim->source, ",");
		csv_str(out, k->claim->allocator, ",");
		csv_str(out, k->target->workload, ",");
		csv_str(out, k->target->phase, ",");
		csv_str(out, rf_regime_name(k->regime), ",");
		csv_num(out, k->claim->lo, ",");
		csv_num(out, k->claim->hi, ",");
		csv_num(out, k->s_est, ",");
		csv_num(out, k->s_lo, ",");
		csv_num(out, k->s_hi, ",");
		csv_num(out, k->level, ",");
		csv_str(out, claims_verdict_name(k->verdict), ",");
		if (k->verdict == CLAIM_REFUTED && k->equivalent) {
			char why[64];
			snprintf(why, sizeof why, "equivalent within ±%g%%", k->equiv_pct);
			csv_str(out, why, "\n");
		} else {
			fputs("\n", out);
		}
	}
}
