/* report.c - renders a comparison in the format asked (report.h): table and markdown in
 * reptext.c (cells in repcells.c), json in repjson.c, csv in repcsv.c; here the texts they share
 * (verdict rule, regimes) and the number format of csv and the exports. */
#include "front/analysis/reportint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void report_describe_regimes(const struct cmp_report *r, char *buf, size_t len)
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

int report_write(FILE *out, const struct cmp_report *r, enum report_format f)
{
	int rc;

	switch (f) {
	case REPORT_JSON:
		rc = report_write_json(out, r);
		break;
	case REPORT_CSV:
		rc = report_write_csv(out, r);
		break;
	default:
		rc = report_write_text(out, r, f == REPORT_MARKDOWN);
	}
	return rc == 0 && !ferror(out) ? 0 : -1;
}
