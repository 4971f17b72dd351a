/* json.c - `--format json`: the allocab-compare/1 document (docs/results-format.md), with the claim
 * verdicts as its "claims" member when claims were checked. */
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

/* The time a row compared: its workload's, for a geometric mean "mixed" when they differ. */
static const char *row_time(const struct cmp_report *r, const struct cmp_row *row)
{
	const struct rf_doc *d = r->base;
	int w = row->workload ? rf_workload(d, row->workload) : -1;
	size_t ncpu = 0;

	if (w >= 0)
		return rf_time_name(d->wl[w].time);
	for (size_t i = 0; i < d->nwl; i++)
		ncpu += d->wl[i].time == RF_TIME_CPU;
	return ncpu == 0 ? "wall" : ncpu == d->nwl ? "cpu" : "mixed";
}

static cJSON *row_json(const struct cmp_report *r, const struct cmp_row *row)
{
	cJSON *o = cJSON_CreateObject();
	double d = row->usable ? row->d.est : NAN;

	add_str(o, "workload", row->workload ? row->workload : "geomean");
	cJSON_AddBoolToObject(o, "geomean", row->workload == NULL);
	add_str(o, "phase", row->phase);
	add_str(o, "regime", rf_regime_name(row->regime));
	add_str(o, "time", row_time(r, row));
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
	add_num(o, "unsettled_baseline", (double)row->unsettled_base);
	add_num(o, "unsettled_candidate", (double)row->unsettled_cand);
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
	cJSON *reg = cJSON_AddArrayToObject(o, "regimes");
	for (int g = 0; g < RF_NREGIMES; g++)
		if (d->has_regime[g])
			cJSON_AddItemToArray(reg, cJSON_CreateString(rf_regime_name(g)));
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

cJSON *export_compare_json(const struct cmp_report *r)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	char line[1024];

	add_str(o, "schema", "allocab-compare/1");
	cJSON *tool = cJSON_AddObjectToObject(o, "tool");
	add_str(tool, "name", "allocab");
	add_str(tool, "version", ALLOCAB_VERSION);
	add_str(o, "convention", CMP_CONVENTION);
	export_rule(r, line, sizeof line);
	add_str(o, "verdict_rule", line);
	add_str(o, "mode", r->paired ? "paired" : "two-sample");
	add_str(o, "regime", cmp_regimes_name(r->regimes));
	cJSON *cmpd = cJSON_AddArrayToObject(o, "regimes_compared");
	for (int g = RF_NREGIMES - 1; g >= 0; g--)
		if (r->compared[g])
			cJSON_AddItemToArray(cmpd, cJSON_CreateString(rf_regime_name(g)));
	export_describe_regimes(r, line, sizeof line);
	add_str(o, "regimes_rule", line);
	add_str(o, "time_policy", rf_time_policy_name(r->base->time_policy));
	add_str(o, "times", rf_times_used(r->base, line, sizeof line));
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

static int write_json(FILE *out, const struct export_input *in, char *err, size_t errlen)
{
	cJSON *o = export_compare_json(in->r);

	if (o && in->claims)
		cJSON_AddItemToObject(o, "claims", export_claims_json(in->claims));
	return export_print_json(out, o, err, errlen);
}

const struct exporter export_json = {
    .name = "json",
    .summary = "the allocab-compare/1 document: every figure of every comparison",
    .flags = EXPORT_JSON | EXPORT_WARNINGS,
    .write = write_json,
};
