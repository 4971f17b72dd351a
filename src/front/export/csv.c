/* csv.c - `--format csv`: one line per comparison, numbers that read back exactly
 * (export_fmt_double); with claims checked, their verdicts instead (one table per CSV). */
#include "front/export/exportint.h"

#include <math.h>
#include <string.h>

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

static void csv_num(FILE *out, double v, int last)
{
	char buf[64];

	export_fmt_double(v, buf, sizeof buf);
	csv_field(out, buf, last);
}

static void csv_count(FILE *out, size_t v, int last)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%zu", v);
	csv_field(out, buf, last);
}

static int write_compare_csv(FILE *out, const struct cmp_report *r)
{
	static const char *const head =
	    "workload,phase,regime,candidate,baseline,n,n_baseline,n_candidate,speedup,ci_lo,ci_hi,"
	    "ci_level,improvement_pct,p,p_bonferroni,verdict,peak_rss_ratio,"
	    "retained_bytes_baseline,"
	    "retained_bytes_candidate,median_ns_baseline,median_ns_candidate,drift_p,"
	    "telemetry_flagged_rounds,noise_floor_pct,rss_growth_bytes_baseline,"
	    "rss_growth_bytes_candidate,unsettled_baseline,unsettled_candidate,rounds_needed,mode,"
	    "conf,family_level,ci_each_lo,ci_each_hi,ci_each_level,equivalent,equivalence_pct\n";

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
		csv_num(out, row->p_adj, 0);
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
		csv_num(out, r->conf, 0);
		csv_num(out, r->family_conf, 0);
		csv_num(out, row->usable ? cmp_speedup(row->d_each.hi) : NAN, 0);
		csv_num(out, row->usable ? cmp_speedup(row->d_each.lo) : NAN, 0);
		csv_num(out, row->usable ? row->d_each.level : NAN, 0);
		csv_field(out,
		          !row->usable || row->verdict == CMP_TOO_FEW || isnan(row->equiv_pct) ? ""
		          : row->equivalent                                                    ? "true"
		                                                                 : "false",
		          0);
		csv_num(out, row->equiv_pct, 1);
	}
	return 0;
}

static int write_csv(FILE *out, const struct export_input *in, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (in->claims)
		export_claims_csv(out, in->claims);
	else
		write_compare_csv(out, in->r);
	return 0;
}

const struct exporter export_csv = {
    .name = "csv",
    .summary = "one line per comparison (with --claims: one line per claim checked)",
    .flags = 0,
    .write = write_csv,
};
