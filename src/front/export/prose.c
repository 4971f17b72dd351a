/* prose.c - what the formats say besides their tables (exportint.h): the inputs and method and
 * the one-line summary; what a replay is and predicts is replayfmt.c's. */
#include "front/export/exportint.h"

#include <math.h>
#include <string.h>

/* "s" unless n is 1. */
static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static void describe_doc(const struct rf_doc *d, const char *role, char *buf, size_t len)
{
	char times[512];

	snprintf(buf, len,
	         "%s%s%s (%s, status %s): %zu measured round%s, %zu warm-up round%s discarded; "
	         "measured %s; compared: %s",
	         role, role[0] ? " " : "", d->path, d->kind->mode, d->status,
	         d->nrounds, plural(d->nrounds), d->nwarmup, plural(d->nwarmup),
	         rf_regimes_measured(d), rf_times_used(d, times, sizeof times));
	if (d->nsessions > 1)
		export_append(buf, len, "; %zu sessions (bench --resume)", d->nsessions);
	for (size_t w = 0; rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && w < d->nwl; w++)
		for (size_t a = 0; a < d->narms; a++) {
			double q = rf_cpu_wall_ratio(d, a, w);
			if (!isnan(q))
				export_append(buf, len, "%s %s %.2f",
				              a   ? ","
				              : w ? ";"
				                  : "; CPU/wall per run:",
				              d->arms[a], q);
		}
}

static void describe_method(const struct cmp_report *r, char *buf, size_t len)
{
	char lv[16], lv2[16], over[320];
	size_t m2 = r->fam[CMP_FAMILY_SECONDARY].m;

	cmp_level_text(r->family_conf, lv, sizeof lv);
	cmp_level_text(r->fam[CMP_FAMILY_SECONDARY].conf, lv2, sizeof lv2);
	if (export_two_families(r))
		snprintf(over, sizeof over,
		         "at %s%% each, simultaneous %g%% over the %zu primary comparison%s "
		         "(Bonferroni), and at %s%% each, simultaneous %g%% over the %zu secondary "
		         "one%s, a family of their own",
		         lv, 100 * r->conf, r->family, r->family == 1 ? "" : "s", lv2,
		         100 * r->conf, m2, m2 == 1 ? "" : "s");
	else if (r->family > 1)
		snprintf(over, sizeof over,
		         "at %s%% each, simultaneous %g%% over the %zu comparisons "
		         "(Bonferroni)",
		         lv, 100 * r->conf, r->family);
	else
		snprintf(over, sizeof over, "at %s%% (one comparison)", lv);
	if (r->paired)
		snprintf(
		    buf, len,
		    "method: rounds paired; d = ln(t_candidate/t_baseline) per round; speedup = "
		    "exp(-HL(d)), Hodges-Lehmann; intervals: %s %s; per-comparison %g%% "
		    "intervals and p-values (Wilcoxon signed-rank) in --format json and csv",
		    r->bootstrap ? "percentile bootstrap over rounds" : "Wilcoxon signed-rank",
		    over, 100 * r->conf);
	else
		snprintf(buf, len,
		         "method: rounds of two files cannot be paired; speedup = exp(-shift), "
		         "two-sample Hodges-Lehmann shift of log times; intervals: Mann-Whitney "
		         "(Moses) %s; per-comparison %g%% intervals and p-values (Mann-Whitney) in "
		         "--format json and csv",
		         over, 100 * r->conf);
}

size_t export_method_lines(const struct cmp_report *r, int without_convention,
                           char (*line)[EXPORT_LINE])
{
	size_t n = 0;

	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		describe_doc(d,
		             r->paired      ? ""
		             : d == r->base ? "baseline:"
		                            : "candidate:",
		             line[n++], EXPORT_LINE);
		if (r->paired) {
			snprintf(line[n++], EXPORT_LINE, "baseline arm: %s", r->baseline);
			break;
		}
	}
	describe_method(r, line[n++], EXPORT_LINE);
	export_describe_regimes(r, line[n++], EXPORT_LINE);
	if (r->bootstrap)
		snprintf(line[n++], EXPORT_LINE, "bootstrap: %u resamples, seed %llu", r->bootstrap,
		         (unsigned long long)r->seed);
	if (!without_convention)
		snprintf(line[n++], EXPORT_LINE, "convention: %s", CMP_CONVENTION);
	export_rule(r, line[n++], EXPORT_LINE);
	if (r->calibration)
		snprintf(line[n++], EXPORT_LINE, "%s", r->calibration);
	return n;
}

/* The verdict counts of the rows of regime g: "steady: 2 faster, 1 no detectable difference". */
static void counts(const struct cmp_report *r, enum rf_regime g, char *buf, size_t len)
{
	static const enum cmp_verdict order[] = {CMP_FASTER,        CMP_SLOWER,  CMP_EQUIVALENT,
	                                         CMP_NO_DIFFERENCE, CMP_TOO_FEW, CMP_INSUFFICIENT};
	size_t n[sizeof order / sizeof order[0]] = {0}, shown = 0;
	char eq[48];

	for (size_t i = 0; i < r->nrows; i++)
		for (size_t k = 0; r->rows[i].regime == g && k < sizeof order / sizeof order[0];
		     k++)
			n[k] += r->rows[i].verdict == order[k];
	snprintf(eq, sizeof eq, "equivalent within ±%g%%", r->equivalence);
	export_append(buf, len, "%s ", rf_regime_name(g));
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
		if (n[k])
			export_append(buf, len, "%s%zu %s", shown++ ? ", " : "", n[k],
			              order[k] == CMP_EQUIVALENT ? eq
			              : order[k] == CMP_TOO_FEW  ? "too few rounds for a verdict"
			                                         : cmp_verdict_name(order[k]));
}

/* "mimalloc 1.250x [1.200, 1.300] faster", with " on parquet_load" for a workload's row. */
static void headline(const struct cmp_row *row, char *buf, size_t len)
{
	char vt[96];

	export_append(buf, len, "%s", row->candidate);
	if (row->workload)
		export_append(buf, len, " on %s%s%s", row->workload,
		              strcmp(row->phase, "total") ? "/" : "",
		              strcmp(row->phase, "total") ? row->phase : "");
	if (row->usable)
		export_append(buf, len, " %.3fx [%.3f, %.3f]", cmp_speedup(row->d.est),
		              cmp_speedup(row->d.hi), cmp_speedup(row->d.lo));
	export_append(buf, len, " %s", cmp_verdict_text(row, vt, sizeof vt));
}

/* The rows the summary names, of the leading regime g: every geometric mean; without one, every
 * total when there are at most three, else the decided row of the largest effect. */
static size_t headlines(const struct cmp_report *r, enum rf_regime g, const struct cmp_row **out,
                        size_t max, int *largest)
{
	size_t n = 0, totals = 0;
	const struct cmp_row *big = NULL;

	for (size_t i = 0; i < r->nrows && n < max; i++)
		if (r->rows[i].regime == g && !r->rows[i].workload)
			out[n++] = &r->rows[i];
	if (n)
		return n;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (row->regime != g || strcmp(row->phase, "total") != 0)
			continue;
		if (totals++ < max)
			out[n++] = row;
		if ((row->verdict == CMP_FASTER || row->verdict == CMP_SLOWER) &&
		    (!big || fabs(row->d.est) > fabs(big->d.est)))
			big = row;
	}
	if (totals <= 3)
		return n;
	out[0] = big;
	*largest = 1;
	return big != NULL;
}

void export_summary(const struct cmp_report *r, char *buf, size_t len)
{
	enum rf_regime lead = r->compared[RF_STEADY] ? RF_STEADY : RF_COLD;
	const struct cmp_row *h[8];
	int largest = 0;
	size_t nh = headlines(r, lead, h, sizeof h / sizeof h[0], &largest), loud = 0, shown = 0;

	snprintf(buf, len, "%zu comparison%s: ", r->nrows, plural(r->nrows));
	for (int g = RF_STEADY; g >= RF_COLD; g--)
		if (r->compared[g]) {
			if (shown++)
				export_append(buf, len, "; ");
			counts(r, (enum rf_regime)g, buf, len);
		}
	for (size_t i = 0; i < nh; i++) {
		if (i == 0)
			export_append(buf, len,
			              ". %s%s: ", h[0]->workload ? "" : "Geometric mean, ",
			              rf_regime_name(lead));
		else
			export_append(buf, len, "; ");
		headline(h[i], buf, len);
	}
	if (nh && largest)
		export_append(buf, len, " (the largest decided effect)");
	for (size_t i = 0; i < r->nwarn; i++)
		loud += strncmp(r->warn[i], "WARNING: ", 9) == 0;
	if (r->nwarn)
		export_append(buf, len, ". %zu warning%s%s", r->nwarn, plural(r->nwarn),
		              loud ? ", read them first" : "");
}
