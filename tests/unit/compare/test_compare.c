/* test_compare.c - compare's verdicts on documents the engine writes with runs of set times
 * (tests/unit/cmpdoc.h): exact
 * ratios with hand-checked speedups, Bonferroni across comparisons, the geometric mean, failures
 * and insufficient data, the time compared (CPU or wall), telemetry and drift flags. No timing
 * anywhere. */
#include "check.h"
#include "cmpdoc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 5 rounds, the candidate exactly 10% faster in each: speedup 1/0.9, a degenerate interval. */
static void test_exact_ratio(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load", 5);
	const double base[5] = {1.0e8, 1.2e8, 0.9e8, 1.1e8, 1.05e8};

	s->warmup = 1; /* a warm-up round changes nothing */
	for (int r = 0; r < 5; r++) {
		cmpdoc_set(s, r, "mimalloc", "parquet_load", base[r] * 0.9, NULL);
		cmpdoc_set(s, r, "system", "parquet_load", base[r], NULL);
	}
	cJSON *doc = cmpdoc_done(s, "exact");
	struct rf_doc *d = cmpdoc_load(doc, "exact");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const struct cmp_row *row = cmpdoc_row(r, "parquet_load", "total", "mimalloc");

	CHECK(d && d->nrounds == 5 && d->nwarmup == 1, "exact: 5 measured rounds, 1 warm-up");
	CHECK(r && r->nrows == 1 && row, "exact: one comparison (no geomean for one workload)");
	if (row) {
		CHECK(row->usable && row->n == 5, "exact: n = 5");
		CHECK_NEAR(cmp_speedup(row->d.est), 1 / 0.9, 1e-12, "exact: speedup 1/0.9");
		CHECK_NEAR(cmp_speedup(row->d.hi), 1 / 0.9, 1e-12, "exact: CI low end 1/0.9");
		CHECK_NEAR(cmp_speedup(row->d.lo), 1 / 0.9, 1e-12, "exact: CI high end 1/0.9");
		CHECK_NEAR(cmp_improvement(row->d.est), 10.0, 1e-9,
		           "exact: improvement 10 percent");
		CHECK_NEAR(row->p_adj, row->p, 0, "exact: Bonferroni of one comparison is p");
		CHECK(row->verdict == CMP_TOO_FEW && row->need == 6 && row->d.level < 0.95,
		      "exact: 5 rounds cannot reach 95%%: too few rounds, need 6");
		CHECK_NEAR(row->rss_ratio, 1.0, 0, "exact: peak RSS ratio 1");
		CHECK_NEAR(row->retained_cand, 1 << 20, 0, "exact: retained RSS median");
		CHECK(!row->drift, "exact: no drift flagged");
	}
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* Two candidates, 6 rounds: exact signed-rank p 2/64 and 4/64, Bonferroni 4/64 and 8/64; the
 * simultaneous intervals at 1 - 0.05/2 need 7 rounds (2/2^7 <= 0.025), so the first, significant
 * alone, has no verdict in this report. */
static void test_bonferroni(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc,jemalloc", "batch_prep", 6);
	const double mi[6] = {0.90, 0.91, 0.92, 0.93, 0.94, 0.95};
	const double je[6] = {1.01, 0.98, 0.97, 0.96, 0.95, 0.94};

	for (int r = 0; r < 6; r++) {
		cmpdoc_set(s, r, "mimalloc", "batch_prep", CMPDOC_BASE_NS * mi[r], NULL);
		cmpdoc_set(s, r, "jemalloc", "batch_prep", CMPDOC_BASE_NS * je[r], NULL);
	}
	cJSON *doc = cmpdoc_done(s, "holm");
	struct rf_doc *d = cmpdoc_load(doc, "holm");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const struct cmp_row *m = cmpdoc_row(r, "batch_prep", "total", "mimalloc");
	const struct cmp_row *j = cmpdoc_row(r, "batch_prep", "total", "jemalloc");

	CHECK(m && j && r->nrows == 2, "holm: two comparisons");
	if (m && j) {
		CHECK_NEAR(m->p, 2.0 / 64, 1e-12, "holm: mimalloc exact p 2/64");
		CHECK_NEAR(j->p, 4.0 / 64, 1e-12, "holm: jemalloc exact p 4/64");
		CHECK_NEAR(m->p_adj, 4.0 / 64, 1e-12, "holm: mimalloc adjusted 2 x 2/64");
		CHECK_NEAR(j->p_adj, 8.0 / 64, 1e-12, "holm: jemalloc adjusted 2 x 4/64");
		CHECK(r->family == 2 && fabs(r->family_conf - 0.975) < 1e-12 &&
		          m->d.level < r->family_conf,
		      "holm: the family level 97.5%% is out of reach of 6 rounds");
		CHECK(m->verdict == CMP_TOO_FEW && m->need == 7 && r->need == 7,
		      "holm: mimalloc too few rounds for a verdict, need 7 (2/2^7 <= 0.05/2)");
		char v[128];
		CHECK(!strcmp(cmp_verdict_text(m, v, sizeof v),
		              "too few rounds for a verdict: need 7"),
		      "holm: the verdict text says how many rounds (%s)", v);
		CHECK(r->verdict_warning >= 0 &&
		          strstr(r->warn[r->verdict_warning], "too few rounds for a verdict"),
		      "holm: the report says 6 rounds cannot give a verdict for 2 comparisons");
	}
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* Two workloads at ratios 0.8 and 0.9 every round: geomean speedup 1/sqrt(0.72); a failed run
 * drops its round from the geomean only. */
static void test_geomean(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load,pipeline", 7);
	struct cmpdoc_opt crash = {.end = CMPDOC_CRASHED};

	for (int r = 0; r < 7; r++) {
		double b = CMPDOC_BASE_NS * (1 + 0.1 * r);
		cmpdoc_set(s, r, "system", "parquet_load", b, NULL);
		cmpdoc_set(s, r, "mimalloc", "parquet_load", b * 0.8, r == 6 ? &crash : NULL);
		cmpdoc_set(s, r, "system", "pipeline", 2 * b, NULL);
		cmpdoc_set(s, r, "mimalloc", "pipeline", 2 * b * 0.9, NULL);
	}
	cJSON *doc = cmpdoc_done(s, "geomean");
	struct rf_doc *d = cmpdoc_load(doc, "geomean");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const struct cmp_row *g = cmpdoc_row(r, NULL, "total", "mimalloc");
	const struct cmp_row *p = cmpdoc_row(r, "parquet_load", "total", "mimalloc");
	const struct cmp_row *rd = cmpdoc_row(r, "pipeline", "read", "mimalloc");

	CHECK(r && r->nrows == 4, "geomean: parquet total, pipeline total and read, geomean");
	CHECK(g && g->usable && g->n == 6, "geomean: 6 rounds where every run is ok");
	if (g)
		CHECK_NEAR(cmp_speedup(g->d.est), 1 / sqrt(0.72), 1e-9,
		           "geomean: 1/sqrt(0.8 x 0.9)");
	CHECK(p && p->n == 6 && p->n_cand == 6 && p->n_base == 7, "geomean: failed run not paired");
	if (rd)
		CHECK_NEAR(cmp_speedup(rd->d.est), 1 / 0.9, 1e-9, "geomean: pipeline phase read");
	CHECK(d && d->nfails == 1 && !strcmp(d->fails[0].status, "crashed") &&
	          !strcmp(d->fails[0].signal, "SIGSEGV") && d->fails[0].round == 6,
	      "geomean: the crash is listed with round and signal");
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

static void test_insufficient(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load", 3);
	struct cmpdoc_opt fail = {.end = CMPDOC_FAILED};

	for (int r = 1; r < 3; r++)
		cmpdoc_set(s, r, "mimalloc", "parquet_load", CMPDOC_BASE_NS, &fail);
	cJSON *doc = cmpdoc_done(s, "insufficient");
	struct rf_doc *d = cmpdoc_load(doc, "insufficient");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const struct cmp_row *row = cmpdoc_row(r, "parquet_load", "total", "mimalloc");

	CHECK(row && !row->usable && row->n == 1 && row->verdict == CMP_INSUFFICIENT &&
	          isnan(row->d.est),
	      "insufficient: n = 1 gives no numbers and 'insufficient data'");
	CHECK(!strcmp(cmp_verdict_name(CMP_INSUFFICIENT), "insufficient data"),
	      "insufficient: verdict name");
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* The time compared (docs/methodology.md, "Which time"): config.time auto takes the CPU time of
 * the single-threaded workload and the wall time of the other; rf_use_time switches. */
static void test_time(void)
{
	struct cmpdoc *s[2];
	char err[512] = "", buf[256];

	/* the second document has a ninth round whose runs have no CPU times */
	for (int k = 0; k < 2; k++) {
		s[k] = cmpdoc_new("system,mimalloc", "st,mt", 8 + (unsigned)k);
		s[k]->time = "auto";
		for (int i = 0; i < 8; i++) {
			double t = CMPDOC_BASE_NS * (1 + 0.05 * (i % 3));
			struct cmpdoc_opt st = {.cpu = 0.5, .single_threaded = 1};
			cmpdoc_set(s[k], i, "system", "st", t, &st);
			st.cpu = 0.4; /* 0.8 of system's CPU time, the same wall time */
			cmpdoc_set(s[k], i, "mimalloc", "st", t, &st);
			cmpdoc_set(s[k], i, "system", "mt", t, &(struct cmpdoc_opt){.cpu = 1.5});
			/* the same CPU time, 0.9 of the wall time */
			cmpdoc_set(s[k], i, "mimalloc", "mt", 0.9 * t,
			           &(struct cmpdoc_opt){.cpu = 1.5 / 0.9});
		}
	}
	cJSON *doc = cmpdoc_done(s[0], "time");
	struct rf_doc *d = cmpdoc_load(doc, "time");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const struct cmp_row *st = cmpdoc_row(r, "st", "total", "mimalloc");
	const struct cmp_row *mt = cmpdoc_row(r, "mt", "total", "mimalloc");

	CHECK(d && d->time_given == RF_POLICY_AUTO && d->wl[0].time == RF_TIME_CPU &&
	          d->wl[1].time == RF_TIME_WALL,
	      "time: auto compares the single-threaded workload's CPU time, the other's wall");
	CHECK(st && fabs(st->d.est - log(0.8)) < 1e-9 && mt && fabs(mt->d.est - log(0.9)) < 1e-9,
	      "time: st from CPU times (%g), mt from wall times (%g)", st ? st->d.est : NAN,
	      mt ? mt->d.est : NAN);
	CHECK(d && strcmp(rf_times_used(d, buf, sizeof buf),
	                  "CPU time for st (single-threaded), wall time for the others") == 0,
	      "time: the report says which (%s)", d ? buf : "");
	cmp_free(r);
	if (d) {
		rf_use_time(d, RF_POLICY_WALL);
		r = cmpdoc_build(d, NULL, &cmpdoc_defaults);
		st = cmpdoc_row(r, "st", "total", "mimalloc");
		CHECK(st && fabs(st->d.est) < 1e-9 && d->wl[0].time == RF_TIME_WALL,
		      "time: --time wall compares wall times (%g)", st ? st->d.est : NAN);
		cmp_free(r);
		rf_use_time(d, RF_POLICY_CPU);
		r = cmpdoc_build(d, NULL, &cmpdoc_defaults);
		mt = cmpdoc_row(r, "mt", "total", "mimalloc");
		CHECK(mt && fabs(mt->d.est) < 1e-9 && strcmp(rf_times_used(d, buf, sizeof buf),
		                                             "CPU time") == 0,
		      "time: --time cpu compares CPU times everywhere (%g)", mt ? mt->d.est : NAN);
		cmp_free(r);
	}
	rf_free(d);
	cJSON_Delete(doc);

	/* a run without CPU times: its workload is compared on wall time whatever the policy */
	doc = cmpdoc_done(s[1], "time without cpu");
	d = cmpdoc_load(doc, "time without cpu");
	CHECK(d && d->wl[0].time == RF_TIME_WALL, "time: a run without CPU times keeps wall time");
	rf_free(d);
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(doc, "config"), "time",
	                          cJSON_CreateString("gpu"));
	d = rf_from_json(doc, "bad time", err, sizeof err);
	CHECK(!d && strstr(err, "config.time: want \"wall\", \"cpu\" or \"auto\""),
	      "time: an unknown config.time is refused (%s)", err);
	rf_free(d);
	cJSON_Delete(doc);
}

/* A steal spike in one run is flagged; log ratios that grow with the round index are drift. */
static void test_noise(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load", 10);
	struct cmpdoc_opt steal = {.steal_ticks = 50};

	for (int r = 0; r < 10; r++) {
		cmpdoc_set(s, r, "system", "parquet_load", CMPDOC_BASE_NS, r == 4 ? &steal : NULL);
		cmpdoc_set(s, r, "mimalloc", "parquet_load", CMPDOC_BASE_NS * (0.8 + 0.01 * r),
		           NULL);
	}
	cJSON *doc = cmpdoc_done(s, "noise");
	struct rf_doc *d = cmpdoc_load(doc, "noise");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const struct cmp_row *row = cmpdoc_row(r, "parquet_load", "total", "mimalloc");
	int drift_warned = 0;

	CHECK(r && r->nflags == 1 && r->flags[0].round == 4 && r->flags[0].arm == 0 &&
	          !strcmp(r->flags[0].metric, "steal_cpu_s_per_s"),
	      "noise: the steal spike of round 4 is flagged");
	if (r && r->nflags == 1)
		CHECK_NEAR(r->flags[0].value, 0.5 / 0.1, 1e-9, "noise: 0.5 s stolen over 0.1 s");
	CHECK(row && row->flagged == 1, "noise: the comparison counts one flagged round");
	CHECK(row && row->drift && row->drift_rho > 0.99 && row->drift_p < CMP_DRIFT_P,
	      "noise: monotone log ratios are drift");
	for (size_t i = 0; r && i < r->nwarn; i++)
		drift_warned |= strstr(r->warn[i], "not exchangeable") != NULL;
	CHECK(drift_warned, "noise: drift warning");
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* Some steal in a fifth of the runs is this machine's normal and is not flagged; one run far beyond
 * it is, and the warning counts flagged runs per arm and points to the JSON list. */
static void test_noise_normal(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load,pipeline", 10);
	struct cmpdoc_opt some = {.steal_ticks = 2}, more = {.steal_ticks = 1},
	                  far = {.steal_ticks = 60};

	for (int r = 0; r < 10; r++) {
		cmpdoc_set(s, r, "system", "parquet_load", CMPDOC_BASE_NS,
		           r % 5 == 0 ? &some : NULL);
		cmpdoc_set(s, r, "mimalloc", "parquet_load", CMPDOC_BASE_NS * 0.8,
		           r % 5 == 1 ? &more : NULL);
		cmpdoc_set(s, r, "system", "pipeline", CMPDOC_BASE_NS,
		           r == 7       ? &far
		           : r % 5 == 2 ? &some
		                        : NULL);
		cmpdoc_set(s, r, "mimalloc", "pipeline", CMPDOC_BASE_NS * 0.8,
		           r % 5 == 3 ? &more : NULL);
	}
	cJSON *doc = cmpdoc_done(s, "noise-normal");
	struct rf_doc *d = cmpdoc_load(doc, "noise-normal");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const char *w = NULL;

	CHECK(r && r->nflags == 1 && r->flags[0].round == 7 && r->flags[0].wl == 1,
	      "noise: some steal in a fifth of the runs is normal here; only the far run is "
	      "flagged (%zu)",
	      r ? r->nflags : 0);
	for (size_t i = 0; r && i < r->nwarn; i++)
		if (!strncmp(r->warn[i], "telemetry: ", 11))
			w = w ? "twice" : r->warn[i];
	CHECK(w && strstr(w, "telemetry: 1 run beyond") && strstr(w, "system 1, mimalloc 0") &&
	          strstr(w, "compare --format json (telemetry_flags)"),
	      "noise: one warning with counts per arm and a pointer to the list: %s",
	      w ? w : "none");
	char *table = r ? cmpdoc_render(r, "table") : NULL;
	CHECK(table && !strstr(table, "steal_cpu_s_per_s"), "noise: the table does not list flags");
	free(table);
	size_t nwarn = r ? r->nwarn : 0;
	if (r)
		cmp_drop_telemetry(r);
	int left = 0;
	for (size_t i = 0; r && i < r->nwarn; i++)
		left |= !strncmp(r->warn[i], "telemetry: ", 11);
	CHECK(r && r->nwarn == nwarn - 1 && !left && r->nflags == 0,
	      "noise: cmp_drop_telemetry removes the warning and the flags (--no-telemetry)");
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* A bench of fewer than 4 runs per pool (one round of two arms) has no fence of its own: the
 * floor alone judges it, as docs/methodology.md says, so the steal spike is flagged. */
static void test_noise_few_runs(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load", 1);
	struct cmpdoc_opt steal = {.steal_ticks = 50};

	cmpdoc_set(s, 0, "system", "parquet_load", CMPDOC_BASE_NS, &steal);
	cmpdoc_set(s, 0, "mimalloc", "parquet_load", CMPDOC_BASE_NS * 0.8, NULL);
	cJSON *doc = cmpdoc_done(s, "noise-few");
	struct rf_doc *d = cmpdoc_load(doc, "noise-few");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;

	const struct noise_flag *f = NULL;

	for (size_t i = 0; r && i < r->nflags; i++)
		if (!strcmp(r->flags[i].metric, "steal_cpu_s_per_s"))
			f = f ? NULL : &r->flags[i];
	CHECK(f && f->arm == 0 && f->threshold == 0.05 && f->value == 0.5 / 0.1,
	      "noise: 2 runs: the steal spike (5 s/s) is flagged against the floor 0.05, the quiet "
	      "run not");
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

int main(void)
{
	test_noise_few_runs();
	test_exact_ratio();
	test_bonferroni();
	test_geomean();
	test_insufficient();
	test_time();
	test_noise();
	test_noise_normal();
	return CHECK_DONE();
}
