/* claimsfmt.c - the claim verdicts (front/claims/claims.h) as table, markdown, JSON and CSV, for
 * the formats that carry them. */
#include "front/export/exportint.h"

#include <math.h>
#include <string.h>

#define CLAIM_CELL 96
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

static void cells(const struct claims_check *k, char c[CLAIM_NCOL][CLAIM_CELL])
{
	snprintf(c[0], CLAIM_CELL, "%s", k->claim->name);
	target_text(k, c[1], CLAIM_CELL);
	snprintf(c[2], CLAIM_CELL, "%s", k->claim->allocator);
	snprintf(c[3], CLAIM_CELL, "%.3fx-%.3fx", k->claim->lo, k->claim->hi);
	char lv[16];

	if (isnan(k->s_est))
		snprintf(c[4], CLAIM_CELL, "%s", k->row ? "too few rounds" : "not in the comparison");
	else
		snprintf(c[4], CLAIM_CELL, "%.3fx [%.3f, %.3f] (%s%%)", k->s_est, k->s_lo, k->s_hi,
		         cmp_level_text(k->level, lv, sizeof lv));
	claims_verdict_text(k, c[5], CLAIM_CELL);
}

static void summary(FILE *out, const struct claims_result *res, int md)
{
	const struct claims_file *f = res->file;
	unsigned how = md ? EXPORT_TEXT_MD : 0;

	fputs("claims from ", out);
	export_text(out, f->path, how);
	if (f->title) {
		fputs(" (", out);
		export_text(out, f->title, how);
		fputs(")", out);
	}
	fprintf(out, ": %zu confirmed, %zu partly, %zu refuted, %zu not measured\n",
	        res->count[CLAIM_CONFIRMED], res->count[CLAIM_PARTLY], res->count[CLAIM_REFUTED],
	        res->count[CLAIM_NOT_MEASURED]);
	fputs("confirmed: the measured interval lies inside the claimed range; refuted: wholly "
	      "outside it (\"equivalent within ±M%\": and inside the equivalence margin, no "
	      "difference that matters); partly: they overlap\n",
	      out);
}

static void write_table(FILE *out, const struct claims_result *res)
{
	char c[CLAIM_NCOL][CLAIM_CELL];
	size_t w[CLAIM_NCOL];

	for (int j = 0; j < CLAIM_NCOL; j++)
		w[j] = strlen(heads[j]);
	for (size_t i = 0; i < res->n; i++) {
		cells(&res->checks[i], c);
		for (int j = 0; j < CLAIM_NCOL; j++)
			if (strlen(c[j]) > w[j])
				w[j] = strlen(c[j]);
	}
	summary(out, res, 0);
	for (int j = 0; j < CLAIM_NCOL; j++)
		fprintf(out, "%-*s%s", (int)(j + 1 < CLAIM_NCOL ? w[j] : 0), heads[j],
		        j + 1 < CLAIM_NCOL ? "  " : "\n");
	for (size_t i = 0; i < res->n; i++) {
		cells(&res->checks[i], c);
		for (int j = 0; j < CLAIM_NCOL; j++)
			fprintf(out, "%-*s%s", (int)(j + 1 < CLAIM_NCOL ? w[j] : 0), c[j],
			        j + 1 < CLAIM_NCOL ? "  " : "\n");
	}
	for (size_t i = 0; i < res->file->n; i++) {
		size_t j = 0;
		while (j < i && strcmp(res->file->c[j].source, res->file->c[i].source) != 0)
			j++;
		if (j == i) {
			fputs("source: ", out);
			export_text(out, res->file->c[i].source, 0);
			fputs("\n", out);
		}
	}
}

static void md_cell(FILE *out, const char *s)
{
	fputs(" ", out);
	export_text(out, s, EXPORT_TEXT_MD | EXPORT_TEXT_CELL);
	fputs(" |", out);
}

static void write_md(FILE *out, const struct claims_result *res)
{
	char c[CLAIM_NCOL][CLAIM_CELL];

	fputs("\n## Claims\n\n", out);
	summary(out, res, 1);
	fputs("\n|", out);
	for (int j = 0; j < CLAIM_NCOL; j++)
		md_cell(out, heads[j]);
	fputs(" source |\n|", out);
	for (int j = 0; j <= CLAIM_NCOL; j++)
		fputs(j == 4 ? "---:|" : "---|", out);
	fputs("\n", out);
	for (size_t i = 0; i < res->n; i++) {
		cells(&res->checks[i], c);
		fputs("|", out);
		for (int j = 0; j < CLAIM_NCOL; j++)
			md_cell(out, c[j]);
		md_cell(out, res->checks[i].claim->source);
		fputs("\n", out);
	}
}

void export_claims_text(FILE *out, const struct claims_result *res, int md)
{
	if (md)
		write_md(out, res);
	else
		write_table(out, res);
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
	fputc('"', out);
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
