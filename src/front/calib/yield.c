/* yield.c - the budget's yield (docs/methodology.md, "The budget's yield"): per comparison of a
 * bench, the rounds it got and what more would buy, planned as `allocab calibrate` plans (the
 * minimum detectable effect of stats_mde, here with the sd of the comparison's own log ratios). */
#include "front/calib/calib.h"

#include "common/errmsg.h"
#include "common/status.h"
#include "front/compare/compare.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* Above this many rounds the table says so instead of a number. */
#define YIELD_MAX_ROUNDS 100000

double calib_half_pct(const struct stats_interval *d)
{
	return expm1((d->hi - d->lo) / 2) * 100;
}

double calib_interval_sd(const struct stats_interval *d, size_t n)
{
	double z = stats_norm_quantile(1 - (1 - d->level) / 2);

	if (!(d->hi >= d->lo) || n < 2 || !(z > 0))
		return NAN;
	return (d->hi - d->lo) / 2 * sqrt((double)n * 3 / M_PI) / z;
}

int calib_yield(const struct cmp_row *row, double power, struct calib_yield *out)
{
	double a = 1 - row->d.level;
	double sd = calib_interval_sd(&row->d, row->n);

	if (!row->usable || !(sd >= 0) || !(a > 0 && a < 1))
		return -1;
	out->decided = row->verdict == CMP_FASTER || row->verdict == CMP_SLOWER ||
	               row->verdict == CMP_EQUIVALENT || cmp_row_seq_decided(row);
	out->half_pct = calib_half_pct(&row->d);
	out->half2_pct = calib_mde_pct(sd, 2 * row->n, a, 0.5);
	out->for_verdict =
	    out->decided ? 0 : calib_rounds_for(sd, fabs(calib_pct(row->d.est)), a, power);
	return 0;
}

static void row_name(const struct cmp_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s %s", row->workload ? row->workload : "geomean", row->phase,
	         row->candidate);
}

static void print_row(const struct cmp_row *row, FILE *f)
{
	struct calib_yield y;
	char name[160], more[64];

	row_name(row, name, sizeof name);
	if (calib_yield(row, CALIB_POWER, &y) != 0) {
		fprintf(f, "%-40s %-6s %-9s %6zu  %s\n", name, rf_regime_name(row->regime),
		        cmp_family_name(row->family), row->n, "too few rounds to plan");
		return;
	}
	if (y.decided)
		snprintf(more, sizeof more, "has one");
	else if (y.for_verdict == 0)
		snprintf(more, sizeof more, "none: estimate 0");
	else if (y.for_verdict > YIELD_MAX_ROUNDS)
		snprintf(more, sizeof more, "> %d", YIELD_MAX_ROUNDS);
	else
		snprintf(more, sizeof more, "%zu", y.for_verdict);
	fprintf(f, "%-40s %-6s %-9s %6zu  %9.1f%%  %13.1f%%  %s\n", name,
	        rf_regime_name(row->regime), cmp_family_name(row->family), row->n, y.half_pct,
	        y.half2_pct, more);
}

enum status calib_yield_report(const cJSON *doc, FILE *f, char *err, size_t errlen)
{
	struct cmp_opts o = {.conf = 1 - CALIB_ALPHA, .regimes = CMP_REGIMES_BOTH};
	struct cmp_report *r = NULL;
	struct rf_doc *d = rf_from_json(doc, "the bench document", err, errlen);
	enum status rc;

	if (!d)
		return ST_USAGE;
	o.equivalence = cmp_pick_equivalence(NAN, d, CMP_DEFAULT_EQUIVALENCE);
	o.seq = d->seq.planned ? &d->seq : NULL;
	if ((rc = cmp_build(d, NULL, &o, &r, err, errlen)) == ST_OK) {
		fprintf(f,
		        "what the budget bought (docs/methodology.md, \"The budget's yield\"): per "
		        "primary comparison (the question) its rounds, the half-width of its "
		        "interval, the half-width expected with twice the rounds, and the rounds a "
		        "faster or slower verdict needs if the estimate holds (80%% power, at the "
		        "level of its interval, the primary family's; \"has one\": faster, slower "
		        "or equivalent, or decided by its sequential interval)\n");
		fprintf(f, "%-40s %-6s %-9s %6s  %10s  %14s  %s\n", "comparison", "regime", "family",
		        "rounds", "half-width", "with 2x rounds", "rounds for a verdict");
		size_t secondary = 0;
		for (size_t i = 0; i < r->nrows; i++)
			if (r->rows[i].family == CMP_FAMILY_PRIMARY)
				print_row(&r->rows[i], f);
			else
				secondary++;
		if (secondary)
			fprintf(f,
			        "and %zu secondary comparison%s, not shown: their intervals are in "
			        "compare's secondary table\n",
			        secondary, secondary == 1 ? "" : "s");
	}
	cmp_free(r);
	rf_free(d);
	return rc;
}
