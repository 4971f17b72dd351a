/* fmt.c - what several formats print alike: the verdict rule, the regimes compared, levels, and
 * numbers as text and as JSON. */
#include "front/export/exportint.h"

#include "common/jsonstrict.h"
#include "common/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void export_rule(const struct cmp_report *r, char *buf, size_t len)
{
	char lv[16], eq[160] = "";
	double l = cmp_equiv_log(r->equivalence);
	size_t k;

	cmp_level_text(r->family_conf, lv, sizeof lv);
	k = (size_t)snprintf(buf, len, "verdict: read off the printed interval, the %s%% ", lv);
	if (export_two_families(r)) {
		char lv2[16];
		size_t m2 = r->fam[CMP_FAMILY_SECONDARY].m;
		cmp_level_text(r->fam[CMP_FAMILY_SECONDARY].conf, lv2, sizeof lv2);
		k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0,
		                      "simultaneous interval for the %zu primary comparison%s (each "
		                      "at 1 - %.2g/%zu, Bonferroni over the primary family), the "
		                      "%s%% one for the %zu secondary comparison%s (Bonferroni over "
		                      "the secondary family)",
		                      r->family, r->family == 1 ? "" : "s", 1 - r->conf, r->family,
		                      lv2, m2, m2 == 1 ? "" : "s");
	} else if (r->family > 1)
		k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0,
		                      "simultaneous interval (each at 1 - %.2g/%zu, Bonferroni over "
		                      "the %zu comparisons of this report)",
		                      1 - r->conf, r->family, r->family);
	else
		k += (size_t)snprintf(buf + (k < len ? k : len), k < len ? len - k : 0,
		                      "interval (one comparison)");
	if (!isnan(l))
		snprintf(eq, sizeof eq,
		         "; equivalent within ±%g%% when it lies inside [%.4fx, %.4fx]",
		         r->equivalence, exp(-l), exp(l));
	snprintf(buf + (k < len ? k : len), k < len ? len - k : 0,
	         ": faster or slower when it lies wholly above or below 1x%s; otherwise no "
	         "detectable difference",
	         eq);
}

int export_two_families(const struct cmp_report *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].family == CMP_FAMILY_SECONDARY)
			return 1;
	return 0;
}

void export_family_head(const struct cmp_report *r, int fam, char *buf, size_t len)
{
	char lv[16], what[160];
	size_t m = fam == CMP_FAMILY_PRIMARY ? r->family : r->fam[fam].m;

	cmp_level_text(r->fam[fam].conf, lv, sizeof lv);
	cmp_primary_text(&r->primary, what, sizeof what);
	if (fam == CMP_FAMILY_PRIMARY)
		snprintf(buf, len,
		         "primary comparisons, the question (%s): %zu, simultaneous at %s%% (each "
		         "at 1 - %.2g/%zu, Bonferroni over the primary family only)",
		         what, m, lv, 1 - r->conf, m);
	else
		snprintf(buf, len,
		         "secondary comparisons, a family of their own: %zu, simultaneous at %s%% "
		         "among themselves (each at 1 - %.2g/%zu); they widen no primary interval "
		         "and answer no question of the primary table (--primary chooses it)",
		         m, lv, 1 - r->conf, m ? m : 1);
}

void export_describe_regimes(const struct cmp_report *r, char *buf, size_t len)
{
	static const char *const reps[RF_NREGIMES] = {
	    "cold = the first repetition of each run (a fresh process: CLI tools, serverless)",
	    "steady = the median of each run's steady repetitions (training loops, services)"};
	static const char *const spans[RF_NREGIMES] = {
	    "cold = the first span of each phase the program marked, the process itself for total",
	    "steady = the mean of the last half of a marked phase's later spans, the same spans in "
	    "every run (epochs once warm)"};
	const char *const *what = rf_kind_has(r->base, RF_KIND_WHOLE_PROCESS) ? spans : reps;
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

/* Shortest text that reads back as v: integers (below 2^53) in plain digits, other values with
 * the fewest significant digits that round-trip (at most 17). */
void export_fmt_double(double v, char *buf, size_t len)
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

cJSON *export_json_num(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

int export_print_json(FILE *f, cJSON *j, char *err, size_t errlen)
{
	char *text = j ? utf8_fix(jst_print(j, 1)) : NULL;

	cJSON_Delete(j);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(f, "%s\n", text);
	free(text);
	return 0;
}

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void export_text(FILE *out, const char *s, unsigned flags)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s, next = (unsigned char)s[1];
		if (is_control(c))
			fprintf(out, "\\x%02x", c);
		else if (c == '<' && (flags & EXPORT_TEXT_MD) &&
		         ((unsigned)((next | 0x20) - 'a') < 26 || next == '/' || next == '!' || next == '?'))
			fputs("&lt;", out);
		else if (c == '|' && (flags & EXPORT_TEXT_CELL))
			fputs("\\|", out);
		else
			fputc(c, out);
	}
}

size_t export_text_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += is_control((unsigned char)*s) ? 4 : 1;
	return n;
}

int export_csv_formula(const char *s)
{
	return s[0] && strchr("=+-@\t\r", s[0]) != NULL;
}

void export_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t k = strlen(buf);
	va_list ap;

	if (k + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + k, len - k, fmt, ap);
	va_end(ap);
}
