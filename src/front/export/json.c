/* json.c - `--format json`: the allocab-compare/1 document (docs/results-format.md), with the claim
 * verdicts as its "claims" member when claims were checked; for a fleet (`allocab merge`) the
 * allocab-fleet/1 document. */
#include "front/export/exportint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

static void add_num(cJSON *o, const char *key, double v)
{
	cJSON_AddItemToObject(o, key, export_json_num(v));
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

/* The time a row compared: its phase's, for a geometric mean "mixed" when they differ. */
static const char *row_time(const struct cmp_report *r, const struct cmp_row *row)
{
	return rf_phase_time_name(r->base, row->workload, row->phase);
}

/* true, false, or null when the row has no verdict or the report no margin. */
static cJSON *equivalent_json(const struct cmp_row *row)
{
	if (!row->usable || row->verdict == CMP_TOO_FEW || isnan(row->equiv_pct))
		return cJSON_CreateNull();
	return cJSON_CreateBool(row->equivalent);
}

/* What names a comparison: workload ("geomean" for the geometric mean), phase, regime and arms. */
static cJSON *key_json(const char *workload, const char *phase, enum rf_regime regime,
                       const char *candidate, const char *baseline)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "workload", workload ? workload : "geomean");
	cJSON_AddBoolToObject(o, "geomean", workload == NULL);
	add_str(o, "phase", phase);
	add_str(o, "regime", rf_regime_name(regime));
	add_str(o, "candidate", candidate);
	add_str(o, "baseline", baseline);
	return o;
}

/* A shared-CPU bench's check of the row against its solo rounds (compare.h, struct cmp_solo), or
 * null where there is none. */
static cJSON *solo_json(const struct cmp_report *r, const struct cmp_row *row)
{
	const struct cmp_solo *s = NULL;
	cJSON *o;

	for (size_t k = 0; !s && k < r->nsolo; k++)
		s = r->solo[k].row == row ? &r->solo[k] : NULL;
	if (!s || !(o = cJSON_CreateObject()))
		return cJSON_CreateNull();
	add_num(o, "n_shared", (double)s->n_shared);
	add_num(o, "n_solo", (double)s->n_solo);
	add_num(o, "speedup_shared", cmp_speedup(s->shared.est));
	add_num(o, "speedup_solo", cmp_speedup(s->solo.est));
	add_str(o, "verdict_shared", cmp_verdict_name(s->shared_verdict));
	add_str(o, "verdict_solo", cmp_verdict_name(s->solo_verdict));
	add_num(o, "ratio", exp(s->ratio.est));
	add_num(o, "ratio_lo", exp(s->ratio.lo));
	add_num(o, "ratio_hi", exp(s->ratio.hi));
	add_num(o, "level", s->ratio.level);
	add_num(o, "p", s->p);
	cJSON_AddBoolToObject(o, "tested", s->reached);
	cJSON_AddBoolToObject(o, "disagree", s->disagree);
	add_str(o, "mechanism", s->disagree ? s->mechanism : NULL);
	return o;
}

/* A row's members from peak_rss_ratio to unsettled_candidate: memory, processes and calls. */
static void row_usage_json(cJSON *o, const struct cmp_row *row)
{
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
	add_num(o, "processes_baseline", row->processes_base);
	add_num(o, "processes_candidate", row->processes_cand);
	add_num(o, "calls_baseline", row->calls_base);
	add_num(o, "calls_candidate", row->calls_cand);
	add_num(o, "unsettled_baseline", (double)row->unsettled_base);
	add_num(o, "unsettled_candidate", (double)row->unsettled_cand);
}

static cJSON *row_json(const struct cmp_report *r, const struct cmp_row *row)
{
	cJSON *o = key_json(row->workload, row->phase, row->regime, row->candidate, row->baseline);
	double d = row->usable ? row->d.est : NAN;
	char vt[128];

	add_str(o, "time", row_time(r, row));
	add_str(o, "family", cmp_family_name(row->family));
	add_num(o, "family_size", (double)(row->family == CMP_FAMILY_PRIMARY
	                                       ? r->family
	                                       : r->fam[row->family].m));
	add_num(o, "family_level", cmp_row_family_conf(r, row));
	add_num(o, "n", (double)row->n);
	add_num(o, "n_baseline", (double)row->n_base);
	add_num(o, "n_candidate", (double)row->n_cand);
	add_str(o, "verdict", cmp_verdict_name(row->verdict));
	add_str(o, "verdict_text", cmp_verdict_text(row, vt, sizeof vt));
	cJSON_AddItemToObject(o, "equivalent", equivalent_json(row));
	cJSON_AddItemToObject(o, "solo_check", solo_json(r, row));
	add_num(o, "rounds_needed", row->need ? (double)row->need : NAN);
	add_num(o, "speedup", cmp_speedup(d));
	add_num(o, "improvement_pct", cmp_improvement(d));
	cJSON_AddItemToObject(o, "ci", interval_json(&row->d, row->usable));
	cJSON_AddItemToObject(o, "ci_rank", interval_json(&row->d_rank, row->usable));
	cJSON_AddItemToObject(o, "ci_per_comparison", interval_json(&row->d_each, row->usable));
	cJSON_AddItemToObject(o, "ci_bootstrap",
	                      row->has_boot ? interval_json(&row->d_boot, 1) : cJSON_CreateNull());
	add_num(o, "p", row->p);
	add_num(o, "p_bonferroni", row->p_adj);
	add_num(o, "sd_log_ratio", r->paired ? row->sd : NAN);
	add_num(o, "median_ns_baseline", row->med_base_ns);
	add_num(o, "median_ns_candidate", row->med_cand_ns);
	row_usage_json(o, row);
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
	add_str(o, "mode", d->kind->mode);
	add_str(o, "status", d->status);
	add_num(o, "rounds", (double)d->nrounds);
	add_num(o, "warmup_rounds", (double)d->nwarmup);
	cJSON *reg = cJSON_AddArrayToObject(o, "regimes");
	for (int g = 0; g < RF_NREGIMES; g++)
		if (d->has_regime[g])
			cJSON_AddItemToArray(reg, cJSON_CreateString(rf_regime_name(g)));
	add_str(o, "machine_id", d->machine_id[0] ? d->machine_id : NULL);
	add_str(o, "machine", d->machine_desc);
	cJSON *cw = cJSON_AddObjectToObject(o, "cpu_wall_ratio");
	for (size_t w = 0; rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && w < d->nwl; w++) {
		cJSON *per = cJSON_AddObjectToObject(cw, d->wl[w].name);
		for (size_t a = 0; a < d->narms; a++)
			add_num(per, d->arms[a], rf_cpu_wall_ratio(d, a, w));
	}
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

/* A document's schema, tool and convention. */
static cJSON *doc_head(const char *schema)
{
	cJSON *o = cJSON_CreateObject(), *tool;

	add_str(o, "schema", schema);
	tool = cJSON_AddObjectToObject(o, "tool");
	add_str(tool, "name", "allocab");
	add_str(tool, "version", ALLOCAB_VERSION);
	add_str(o, "convention", CMP_CONVENTION);
	return o;
}

/* The regimes asked for and those compared (steady first), as "regime" and "regimes_compared". */
static void regimes_json(cJSON *o, enum cmp_regimes asked, const int compared[RF_NREGIMES])
{
	cJSON *cmpd;

	add_str(o, "regime", cmp_regimes_name(asked));
	cmpd = cJSON_AddArrayToObject(o, "regimes_compared");
	for (int g = RF_NREGIMES - 1; g >= 0; g--)
		if (compared[g])
			cJSON_AddItemToArray(cmpd, cJSON_CreateString(rf_regime_name(g)));
}

/* Each family's size, level and rounds needed, into fams. */
static void families_json(cJSON *fams, const struct cmp_report *r)
{
	for (int f = 0; fams && f < CMP_NFAMILIES; f++) {
		cJSON *fo = cJSON_AddObjectToObject(fams, cmp_family_name(f));
		size_t m = f == CMP_FAMILY_PRIMARY ? r->family : r->fam[f].m;
		add_num(fo, "size", (double)m);
		add_num(fo, "level", m ? r->fam[f].conf : NAN);
		add_num(fo, "rounds_needed", m ? (double)r->fam[f].need : NAN);
	}
}

/* The telemetry flags of r's rounds ("telemetry_flags"). */
static cJSON *flags_json(const struct cmp_report *r)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < r->nflags; i++) {
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
	return arr;
}

cJSON *export_compare_json(const struct cmp_report *r)
{
	cJSON *o = doc_head("allocab-compare/1"), *arr;
	char line[1024];

	export_rule(r, line, sizeof line);
	add_str(o, "verdict_rule", line);
	add_str(o, "mode", r->paired ? "paired" : "two-sample");
	regimes_json(o, r->regimes, r->compared);
	export_describe_regimes(r, line, sizeof line);
	add_str(o, "regimes_rule", line);
	add_str(o, "time_policy", rf_time_policy_name(r->base->time_policy));
	add_str(o, "times", rf_times_used(r->base, line, sizeof line));
	add_str(o, "calibration", r->calibration);
	add_str(o, "baseline", r->paired ? r->baseline : NULL);
	add_num(o, "conf", r->conf);
	add_num(o, "alpha", round((1.0 - r->conf) * 1e9) / 1e9);
	add_num(o, "family_size", (double)r->family);
	add_num(o, "family_level", r->family_conf);
	add_str(o, "primary", cmp_primary_text(&r->primary, line, sizeof line));
	families_json(cJSON_AddObjectToObject(o, "families"), r);
	add_num(o, "equivalence_pct", r->equivalence > 0 ? r->equivalence : NAN);
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
	cJSON_AddItemToObject(o, "telemetry_flags", flags_json(r));
	return o;
}

static cJSON *names_json(const struct fleet_report *f, const struct fleet_row *row, int odd)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < f->nm; i++)
		if (odd ? row->cells[i].odd : row->cells[i].excludes)
			cJSON_AddItemToArray(a, cJSON_CreateString(f->m[i].label));
	return a;
}

static cJSON *pooled_json(const struct fleet_row *row)
{
	const struct stats_meta *m = &row->meta;
	struct stats_interval iv = {m->mu, m->lo, m->hi, m->level};
	cJSON *o, *p;

	if (!row->has_meta)
		return cJSON_CreateNull();
	o = interval_json(&iv, 1);
	add_num(o, "speedup", cmp_speedup(m->mu));
	add_num(o, "se", m->se);
	add_num(o, "se_dl", m->se_dl);
	add_num(o, "q", m->q);
	add_num(o, "tau2", m->tau2);
	add_num(o, "tau", m->tau);
	add_num(o, "i2", m->i2);
	if (isnan(m->pi_lo)) {
		cJSON_AddNullToObject(o, "prediction");
		return o;
	}
	p = cJSON_AddObjectToObject(o, "prediction");
	add_num(p, "log_lo", m->pi_lo);
	add_num(p, "log_hi", m->pi_hi);
	add_num(p, "speedup_lo", cmp_speedup(m->pi_hi));
	add_num(p, "speedup_hi", cmp_speedup(m->pi_lo));
	return o;
}

static cJSON *cell_json(const struct fleet_report *f, const struct fleet_row *row, size_t m)
{
	const struct fleet_cell *c = &row->cells[m];
	const struct cmp_row *r = c->row;
	cJSON *o = cJSON_CreateObject();
	int usable = r && r->usable;

	add_str(o, "machine", f->m[m].label);
	cJSON_AddBoolToObject(o, "pooled", c->pooled);
	add_str(o, "reason", c->pooled ? NULL : c->why);
	add_num(o, "n", r ? (double)r->n : NAN);
	add_str(o, "verdict", r ? cmp_verdict_name(r->verdict) : NULL);
	add_num(o, "speedup", usable ? cmp_speedup(r->d.est) : NAN);
	cJSON_AddItemToObject(o, "ci", r ? interval_json(&r->d, usable) : cJSON_CreateNull());
	add_num(o, "se", c->pooled ? c->se : NAN);
	add_num(o, "se_fixed_n", c->pooled ? c->se_fixed : NAN);
	add_num(o, "deleted_residual", c->resid);
	cJSON_AddBoolToObject(o, "odd", c->odd);
	cJSON_AddBoolToObject(o, "excludes_pooled", c->excludes);
	return o;
}

/* What the machines' facts explain of the row (docs/results-format.md, "allocab-fleet/1"). */
static cJSON *explained_json(const struct fleet_row *row)
{
	const struct fleet_explain *ex = &row->ex;
	cJSON *o = cJSON_CreateObject(), *mods;

	cJSON_AddBoolToObject(o, "fitted", ex->fitted);
	add_num(o, "tau2", ex->tau2_plain);
	add_num(o, "tau2_residual", ex->fitted ? ex->reg.tau2 : NAN);
	add_num(o, "machines", ex->fitted ? (double)ex->reg.k : NAN);
	add_num(o, "qe", ex->fitted ? ex->reg.qe : NAN);
	add_num(o, "qm", ex->fitted ? ex->reg.qm : NAN);
	add_num(o, "qm_p", ex->fitted ? ex->reg.qm_p : NAN);
	add_num(o, "r2", ex->r2);
	add_str(o, "r2_unsupported", ex->fitted && isnan(ex->r2) ? ex->unsupported : NULL);
	add_str(o, "fault_spread", ex->spread[0] ? ex->spread : NULL);
	cJSON_AddItemToObject(o, "moderators", mods = cJSON_CreateArray());
	for (size_t j = 0; ex->fitted && j < ex->nmods; j++) {
		cJSON *m = cJSON_CreateObject();
		add_str(m, "name", ex->mod[j]);
		add_num(m, "coef", ex->reg.b[j + 1]);
		add_num(m, "se", ex->reg.se[j + 1]);
		add_num(m, "lo", ex->reg.lo[j + 1]);
		add_num(m, "hi", ex->reg.hi[j + 1]);
		add_num(m, "p", ex->reg.pval[j + 1]);
		cJSON_AddItemToArray(mods, m);
	}
	add_str(o, "note", ex->note[0] ? ex->note : NULL);
	add_str(o, "odd", ex->odd[0] ? ex->odd : NULL);
	return o;
}

static cJSON *fleet_row_json(const struct fleet_report *f, const struct fleet_row *row)
{
	cJSON *o = key_json(row->workload, row->phase, row->regime, row->candidate, row->baseline);
	cJSON *arr;

	add_num(o, "machines_pooled", (double)row->npooled);
	add_num(o, "units_pooled", (double)row->nunits);
	add_str(o, "sessions_of", row->sessions_of);
	cJSON_AddItemToObject(o, "pooled", pooled_json(row));
	cJSON_AddItemToObject(o, "explained", explained_json(row));
	add_num(o, "odd_bound", row->odd_bound);
	cJSON_AddItemToObject(o, "odd", names_json(f, row, 1));
	cJSON_AddItemToObject(o, "excludes_pooled", names_json(f, row, 0));
	cJSON_AddItemToObject(o, "machines", arr = cJSON_CreateArray());
	for (size_t m = 0; m < f->nm; m++)
		cJSON_AddItemToArray(arr, cell_json(f, row, m));
	return o;
}

static cJSON *machine_json(const struct fleet_machine *m)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "label", m->label);
	add_str(o, "host", m->doc->host);
	cJSON_AddItemToObject(o, "input", doc_json(m->doc));
	add_str(o, "problem", m->problem);
	add_str(o, "compared", m->times);
	add_num(o, "fault_ns", m->doc->fault_ns);
	add_str(o, "cpu_vendor", m->doc->cpu_vendor);
	cJSON_AddBoolToObject(o, "copy", m->copy_of >= 0);
	add_num(o, "sessions", (double)m->nsessions);
	cJSON_AddBoolToObject(o, "busy", m->busy);
	add_num(o, "busy_share", m->busy_share);
	add_num(o, "others_median", m->others);
	add_num(o, "loadavg_1m_median", m->load);
	add_num(o, "load_runs", (double)m->load_runs);
	return o;
}

static int write_json_fleet(FILE *out, const struct export_fleet_input *in, char *err,
                            size_t errlen)
{
	const struct fleet_report *f = in->f;
	cJSON *o = doc_head("allocab-fleet/1"), *arr;
	char line[1024];

	export_fleet_method(f, line, sizeof line);
	add_str(o, "method", line);
	regimes_json(o, f->regimes, f->compared);
	add_num(o, "conf", f->conf);
	add_num(o, "alpha", round((1.0 - f->conf) * 1e9) / 1e9);
	cJSON_AddItemToObject(o, "machines", arr = cJSON_CreateArray());
	for (size_t i = 0; i < f->nm; i++)
		cJSON_AddItemToArray(arr, machine_json(&f->m[i]));
	cJSON_AddItemToObject(o, "warnings", arr = cJSON_CreateArray());
	for (size_t i = 0; i < f->nwarn; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(f->warn[i]));
	cJSON_AddItemToObject(o, "comparisons", arr = cJSON_CreateArray());
	for (size_t i = 0; i < f->nrows; i++)
		cJSON_AddItemToArray(arr, fleet_row_json(f, &f->rows[i]));
	return export_print_json(out, o, err, errlen);
}

static int write_json(FILE *out, const struct export_input *in, char *err, size_t errlen)
{
	cJSON *o = export_compare_json(in->r);

	if (o)
		cJSON_AddItemToObject(o, "replays", export_replay_json(in));
	if (o)
		export_attrib_json(o, in);
	if (o && in->claims)
		cJSON_AddItemToObject(o, "claims", export_claims_json(in->claims));
	return export_print_json(out, o, err, errlen);
}

const struct exporter export_json = {
    .name = "json",
    .summary = "the allocab-compare/1 document (merge: allocab-fleet/1): every figure",
    .flags = EXPORT_JSON | EXPORT_WARNINGS,
    .write = write_json,
    .write_fleet = write_json_fleet,
};
