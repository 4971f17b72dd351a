/* csv.c - `--format csv`: one line per comparison, numbers that read back exactly
 * (export_fmt_double); with claims checked, their verdicts instead (one table per CSV); for a
 * fleet, one line per machine and comparison and one per pooled comparison. */
#include "front/export/exportint.h"

#include <math.h>
#include <string.h>

/* A cell: quoted when it holds a comma, a quote or a line break; a text cell that a spreadsheet
 * would take for a formula is quoted with a single quote before it (export_csv_formula). Numbers
 * are written as they are, negative ones included. */
static void csv_cell(FILE *out, const char *s, int text, int last)
{
	int formula = text && export_csv_formula(s);

	if (formula || strpbrk(s, ",\"\n\r")) {
		fputs(formula ? "\"'" : "\"", out);
		for (; *s; s++)
			fprintf(out, *s == '"' ? "\"\"" : "%c", *s);
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

static void csv_field(FILE *out, const char *s, int last)
{
	csv_cell(out, s, 1, last);
}

static void csv_num(FILE *out, double v, int last)
{
	char buf[64];

	export_fmt_double(v, buf, sizeof buf);
	csv_cell(out, buf, 0, last);
}

static void csv_count(FILE *out, size_t v, int last)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%zu", v);
	csv_cell(out, buf, 0, last);
}

/* Row's fields from workload to verdict. */
static void row_csv_estimate(FILE *out, const struct cmp_row *row)
{
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
}

/* Row's fields from peak_rss_ratio to rounds_needed. */
static void row_csv_measures(FILE *out, const struct cmp_row *row)
{
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
}

/* Row's fields from mode to calls_candidate. */
static void row_csv_family(FILE *out, const struct cmp_report *r, const struct cmp_row *row)
{
	csv_field(out, r->paired ? "paired" : "two-sample", 0);
	csv_num(out, r->conf, 0);
	csv_num(out, cmp_row_family_conf(r, row), 0);
	csv_field(out, cmp_family_name(row->family), 0);
	csv_count(out, row->family == CMP_FAMILY_PRIMARY ? r->family : r->fam[row->family].m, 0);
	csv_num(out, row->usable ? cmp_speedup(row->d_each.hi) : NAN, 0);
	csv_num(out, row->usable ? cmp_speedup(row->d_each.lo) : NAN, 0);
	csv_num(out, row->usable ? row->d_each.level : NAN, 0);
	csv_field(out,
	          !row->usable || row->verdict == CMP_TOO_FEW || isnan(row->equiv_pct) ? ""
	          : row->equivalent                                                    ? "true"
	                                                                               : "false",
	          0);
	csv_num(out, row->equiv_pct, 0);
	csv_num(out, row->processes_base, 0);
	csv_num(out, row->processes_cand, 0);
	csv_num(out, row->calls_base, 0);
	csv_num(out, row->calls_cand, 0);
}

static int write_compare_csv(FILE *out, const struct export_input *in)
{
	const struct cmp_report *r = in->r;
	char note[EXPORT_LINE];
	static const char *const head =
	    "workload,phase,regime,candidate,baseline,n,n_baseline,n_candidate,speedup,ci_lo,ci_hi,"
	    "ci_level,improvement_pct,p,p_bonferroni,verdict,peak_rss_ratio,"
	    "retained_bytes_baseline,"
	    "retained_bytes_candidate,median_ns_baseline,median_ns_candidate,drift_p,"
	    "telemetry_flagged_rounds,noise_floor_pct,rss_growth_bytes_baseline,"
	    "rss_growth_bytes_candidate,unsettled_baseline,unsettled_candidate,rounds_needed,mode,"
	    "conf,family_level,family,family_size,ci_each_lo,ci_each_hi,ci_each_level,equivalent,"
	    "equivalence_pct,processes_baseline,processes_candidate,calls_baseline,calls_candidate,"
	    EXPORT_ATTRIB_CSV_HEAD ",note\n";

	fputs(head, out);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		row_csv_estimate(out, row);
		row_csv_measures(out, row);
		row_csv_family(out, r, row);
		export_attrib_csv_values(out, in, i, csv_num);
		const char *n = export_replay_note(in, row->workload, note, sizeof note);
		csv_field(out, n ? n : "", 1);
	}
	return 0;
}

/* The fields a fleet line has for one side: a machine's (its own interval) or the pooled one. */
struct fleet_csv_line {
	const char *kind, *machine, *reason;
	int pooled, odd, excludes, busy;
	double n, est, lo, hi, level, se, resid, k, tau, i2, pi_lo, pi_hi;
};

static void fleet_csv_line(FILE *out, const struct fleet_report *f, const struct fleet_row *row,
                           const struct fleet_csv_line *l)
{
	csv_field(out, l->kind, 0);
	csv_field(out, row->workload ? row->workload : "geomean", 0);
	csv_field(out, row->phase, 0);
	csv_field(out, rf_regime_name(row->regime), 0);
	csv_field(out, row->candidate, 0);
	csv_field(out, row->baseline, 0);
	csv_field(out, l->machine, 0);
	csv_field(out, l->pooled < 0 ? "" : l->pooled ? "true" : "false", 0);
	csv_field(out, l->reason ? l->reason : "", 0);
	csv_num(out, l->n, 0);
	csv_num(out, cmp_speedup(l->est), 0);
	csv_num(out, cmp_speedup(l->hi), 0);
	csv_num(out, cmp_speedup(l->lo), 0);
	csv_num(out, l->level, 0);
	csv_num(out, l->est, 0);
	csv_num(out, l->se, 0);
	csv_num(out, l->resid, 0);
	csv_field(out, l->pooled < 0 ? "" : l->odd ? "true" : "false", 0);
	csv_field(out, l->pooled < 0 ? "" : l->excludes ? "true" : "false", 0);
	csv_field(out, l->pooled < 0 ? "" : l->busy ? "true" : "false", 0);
	csv_num(out, l->k, 0);
	csv_num(out, l->tau, 0);
	csv_num(out, l->i2, 0);
	csv_num(out, cmp_speedup(l->pi_hi), 0);
	csv_num(out, cmp_speedup(l->pi_lo), 0);
	csv_num(out, f->conf, 1);
}

static int write_csv_fleet(FILE *out, const struct export_fleet_input *in, char *err,
                           size_t errlen)
{
	const struct fleet_report *f = in->f;

	(void)err;
	(void)errlen;
	fputs("kind,workload,phase,regime,candidate,baseline,machine,pooled,reason,n,speedup,ci_lo,"
	      "ci_hi,ci_level,log_ratio,se,deleted_residual,odd,excludes_pooled,busy,"
	      "machines_pooled,tau,i2,prediction_lo,prediction_hi,conf\n",
	      out);
	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *row = &f->rows[i];
		const struct stats_meta *m = &row->meta;
		for (size_t j = 0; j < f->nm; j++) {
			const struct fleet_cell *c = &row->cells[j];
			int u = c->row && c->row->usable;
			struct fleet_csv_line l = {
			    .kind = "machine", .machine = f->m[j].label,
			    .reason = c->pooled ? NULL : c->why, .pooled = c->pooled, .odd = c->odd,
			    .excludes = c->excludes, .busy = f->m[j].busy,
			    .n = c->row ? (double)c->row->n : NAN, .est = u ? c->row->d.est : NAN,
			    .lo = u ? c->row->d.lo : NAN, .hi = u ? c->row->d.hi : NAN,
			    .level = u ? c->row->d.level : NAN, .se = c->pooled ? c->se : NAN,
			    .resid = c->resid, .k = NAN, .tau = NAN, .i2 = NAN, .pi_lo = NAN,
			    .pi_hi = NAN};
			fleet_csv_line(out, f, row, &l);
		}
		struct fleet_csv_line p = {.kind = "pooled", .machine = "", .pooled = -1,
		                           .n = NAN, .est = NAN, .lo = NAN, .hi = NAN, .level = NAN,
		                           .se = NAN, .resid = NAN, .k = (double)row->npooled,
		                           .tau = NAN, .i2 = NAN, .pi_lo = NAN, .pi_hi = NAN};
		if (row->has_meta) {
			p.est = m->mu, p.lo = m->lo, p.hi = m->hi, p.level = m->level, p.se = m->se;
			p.tau = m->tau, p.i2 = m->i2, p.pi_lo = m->pi_lo, p.pi_hi = m->pi_hi;
		}
		fleet_csv_line(out, f, row, &p);
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
		write_compare_csv(out, in);
	return 0;
}

const struct exporter export_csv = {
    .name = "csv",
    .summary = "one line per comparison (with --claims: one line per claim checked)",
    .flags = 0,
    .write = write_csv,
    .write_fleet = write_csv_fleet,
};
