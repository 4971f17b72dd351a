/* test_compare.c - compare and gate on crafted allocab-bench/1 documents built in memory: exact
 * ratios with hand-checked speedups, Bonferroni across comparisons, the geometric mean, failures and
 * insufficient data, refusal of different work, two-file mode, telemetry and drift flags, the
 * renderers, and the gate's three outcomes. No timing anywhere. */
#include "check.h"

#include "common/status.h"
#include "front/compare/compare.h"
#include "front/cmd/gateopt.h"
#include "front/export/exportint.h"
#include "front/results/results.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BASE_NS 100000000.0

static cJSON *doc_new(const char *arms, const char *workloads, const char *machine_id)
{
	cJSON *d = cJSON_CreateObject(), *cfg, *m;
	char buf[256], *tok, *save;

	cJSON_AddStringToObject(d, "schema", "allocab-bench/1");
	cJSON_AddStringToObject(d, "status", "complete");
	cfg = cJSON_AddObjectToObject(d, "config");
	cJSON_AddStringToObject(cfg, "mode", "drivers");
	cJSON *a = cJSON_AddArrayToObject(cfg, "arms"),
	      *w = cJSON_AddArrayToObject(cfg, "workloads");
	snprintf(buf, sizeof buf, "%s", arms);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		cJSON_AddItemToArray(a, cJSON_CreateString(tok));
	snprintf(buf, sizeof buf, "%s", workloads);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		cJSON_AddItemToArray(w, cJSON_CreateString(tok));
	m = cJSON_AddObjectToObject(d, "machine");
	cJSON_AddStringToObject(m, "cpu_model", "Test CPU");
	cJSON_AddNumberToObject(m, "online_cpus", 2);
	cJSON_AddStringToObject(m, "kernel", "6.1.0");
	cJSON_AddStringToObject(m, "id", machine_id);
	cJSON_AddObjectToObject(m, "env");
	cJSON_AddArrayToObject(d, "rounds");
	return d;
}

static cJSON *round_new(cJSON *doc, int warmup)
{
	cJSON *rounds = cJSON_GetObjectItem(doc, "rounds"), *r = cJSON_CreateObject();

	cJSON_AddNumberToObject(r, "index", cJSON_GetArraySize(rounds));
	cJSON_AddBoolToObject(r, "warmup", warmup);
	cJSON_AddItemToArray(rounds, r);
	return cJSON_AddArrayToObject(r, "runs");
}

struct run_opt {
	const char *status;   /* NULL: ok */
	const char *checksum; /* NULL: the common one */
	int rows;             /* params.rows; 0: 100 */
	double steal_ticks;
	double rss_kib; /* 0: 1000 */
};

/* A run whose total (and, for workload "pipeline", phase "read" = total/2, with the flag
 * show_phases as its driver writes it) takes t_ns. */
static void run_add(cJSON *runs, const char *arm, const char *wl, double t_ns,
                    const struct run_opt *o)
{
	static const struct run_opt none;
	cJSON *r = cJSON_CreateObject(), *rec, *reps, *rep, *ph, *x;
	int pipeline = strcmp(wl, "pipeline") == 0;

	o = o ? o : &none;
	cJSON_AddStringToObject(r, "arm", arm);
	cJSON_AddStringToObject(r, "workload", wl);
	cJSON_AddStringToObject(r, "status", o->status ? o->status : "ok");
	x = cJSON_AddObjectToObject(r, "process");
	cJSON_AddNumberToObject(x, "wall_ns", round(t_ns));
	x = cJSON_AddObjectToObject(r, "telemetry");
	cJSON_AddNumberToObject(x, "steal_ticks", o->steal_ticks);
	cJSON_AddNumberToObject(x, "loadavg_1m", 0.5);
	cJSON_AddItemToArray(runs, r);
	if (o->status) {
		cJSON_AddStringToObject(r, "signal", "SIGSEGV");
		cJSON_AddStringToObject(r, "stderr_tail", "boom\n");
		return;
	}
	rec = cJSON_AddObjectToObject(r, "record");
	cJSON_AddStringToObject(rec, "schema", "allocab-run/1");
	x = cJSON_AddObjectToObject(rec, "workload");
	cJSON_AddStringToObject(x, "name", wl);
	if (pipeline)
		cJSON_AddItemToArray(cJSON_AddArrayToObject(x, "flags"),
		                     cJSON_CreateString("show_phases"));
	cJSON_AddStringToObject(x, "scale", "small");
	cJSON_AddNumberToObject(x, "seed", 42);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(x, "params"), "rows",
	                        o->rows ? o->rows : 100);
	x = cJSON_AddArrayToObject(rec, "phases");
	cJSON_AddItemToArray(x, cJSON_CreateString("total"));
	if (pipeline)
		cJSON_AddItemToArray(x, cJSON_CreateString("read"));
	reps = cJSON_AddArrayToObject(rec, "reps");
	rep = cJSON_CreateObject();
	cJSON_AddItemToArray(reps, rep);
	ph = cJSON_AddObjectToObject(rep, "phases");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(ph, "total"), "wall_ns", round(t_ns));
	if (pipeline)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(ph, "read"), "wall_ns",
		                        round(t_ns / 2));
	cJSON_AddStringToObject(rec, "checksum", o->checksum ? o->checksum : "00000000000000aa");
	x = cJSON_AddObjectToObject(rec, "rusage");
	cJSON_AddNumberToObject(x, "max_rss_kib", o->rss_kib ? o->rss_kib : 1000);
	cJSON_AddNumberToObject(x, "involuntary_ctx_switches", 3);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(rec, "rss"), "retained_bytes", 1 << 20);
}

static struct rf_doc *load(cJSON *doc, const char *name)
{
	char err[512] = "";
	struct rf_doc *d = rf_from_json(doc, name, err, sizeof err);

	CHECK(d != NULL, "%s loads%s%s", name, d ? "" : ": ", d ? "" : err);
	return d;
}

static struct cmp_report *build(const struct rf_doc *b, const struct rf_doc *c,
                                const struct cmp_opts *o)
{
	struct cmp_report *r = NULL;
	char err[512] = "";

	if (cmp_build(b, c, o, &r, err, sizeof err) != 0)
		printf("# cmp_build: %s\n", err);
	return r;
}

static const struct cmp_row *find_row(const struct cmp_report *r, const char *wl, const char *phase,
                                      const char *cand)
{
	for (size_t i = 0; r && i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (((!wl && !row->workload) ||
		     (wl && row->workload && !strcmp(wl, row->workload))) &&
		    !strcmp(phase, row->phase) && !strcmp(cand, row->candidate))
			return row;
	}
	return NULL;
}

static const struct cmp_opts defaults = {.conf = 0.95, .seed = 1};

/* 5 rounds, the candidate exactly 10% faster in each: speedup 1/0.9, a degenerate interval. */
static void test_exact_ratio(void)
{
	cJSON *doc = doc_new("system,mimalloc", "parquet_load", "aaaa000000000001");
	const double base[5] = {1.0e8, 1.2e8, 0.9e8, 1.1e8, 1.05e8};

	round_new(doc, 1); /* an empty warm-up round changes nothing */
	for (int r = 0; r < 5; r++) {
		cJSON *runs = round_new(doc, 0);
		run_add(runs, "mimalloc", "parquet_load", base[r] * 0.9, NULL);
		run_add(runs, "system", "parquet_load", base[r], NULL);
	}
	struct rf_doc *d = load(doc, "exact");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
	const struct cmp_row *row = find_row(r, "parquet_load", "total", "mimalloc");

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
	cJSON *doc = doc_new("system,mimalloc,jemalloc", "batch_prep", "aaaa000000000001");
	const double mi[6] = {0.90, 0.91, 0.92, 0.93, 0.94, 0.95};
	const double je[6] = {1.01, 0.98, 0.97, 0.96, 0.95, 0.94};

	for (int r = 0; r < 6; r++) {
		cJSON *runs = round_new(doc, 0);
		run_add(runs, "system", "batch_prep", BASE_NS, NULL);
		run_add(runs, "mimalloc", "batch_prep", BASE_NS * mi[r], NULL);
		run_add(runs, "jemalloc", "batch_prep", BASE_NS * je[r], NULL);
	}
	struct rf_doc *d = load(doc, "holm");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
	const struct cmp_row *m = find_row(r, "batch_prep", "total", "mimalloc");
	const struct cmp_row *j = find_row(r, "batch_prep", "total", "jemalloc");

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
	cJSON *doc = doc_new("system,mimalloc", "parquet_load,pipeline", "aaaa000000000001");
	struct run_opt crash = {.status = "crashed"};

	for (int r = 0; r < 7; r++) {
		cJSON *runs = round_new(doc, 0);
		double b = BASE_NS * (1 + 0.1 * r);
		run_add(runs, "system", "parquet_load", b, NULL);
		run_add(runs, "mimalloc", "parquet_load", b * 0.8, r == 6 ? &crash : NULL);
		run_add(runs, "system", "pipeline", 2 * b, NULL);
		run_add(runs, "mimalloc", "pipeline", 2 * b * 0.9, NULL);
	}
	struct rf_doc *d = load(doc, "geomean");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
	const struct cmp_row *g = find_row(r, NULL, "total", "mimalloc");
	const struct cmp_row *p = find_row(r, "parquet_load", "total", "mimalloc");
	const struct cmp_row *rd = find_row(r, "pipeline", "read", "mimalloc");

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
	cJSON *doc = doc_new("system,mimalloc", "parquet_load", "aaaa000000000001");
	struct run_opt fail = {.status = "failed"};

	for (int r = 0; r < 3; r++) {
		cJSON *runs = round_new(doc, 0);
		run_add(runs, "system", "parquet_load", BASE_NS, NULL);
		run_add(runs, "mimalloc", "parquet_load", BASE_NS, r ? &fail : NULL);
	}
	struct rf_doc *d = load(doc, "insufficient");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
	const struct cmp_row *row = find_row(r, "parquet_load", "total", "mimalloc");

	CHECK(row && !row->usable && row->n == 1 && row->verdict == CMP_INSUFFICIENT &&
	          isnan(row->d.est),
	      "insufficient: n = 1 gives no numbers and 'insufficient data'");
	CHECK(!strcmp(cmp_verdict_name(CMP_INSUFFICIENT), "insufficient data"),
	      "insufficient: verdict name");
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

static void expect_refusal(cJSON *doc, const char *name, const char *want1, const char *want2)
{
	char err[512] = "";
	struct rf_doc *d = rf_from_json(doc, name, err, sizeof err);

	CHECK(!d && strstr(err, want1) && strstr(err, want2) && strstr(err, "not the same work"),
	      "%s: refused: %s", name, err);
	rf_free(d);
	cJSON_Delete(doc);
}

static void test_refusals(void)
{
	cJSON *doc = doc_new("system,mimalloc", "parquet_load", "aaaa000000000001");
	struct run_opt other_sum = {.checksum = "00000000000000bb"}, other_rows = {.rows = 7};
	cJSON *runs = round_new(doc, 0);

	run_add(runs, "system", "parquet_load", BASE_NS, NULL);
	run_add(runs, "mimalloc", "parquet_load", BASE_NS, &other_sum);
	expect_refusal(doc, "checksums", "parquet_load", "00000000000000bb");

	doc = doc_new("system,mimalloc", "parquet_load", "aaaa000000000001");
	runs = round_new(doc, 0);
	run_add(runs, "system", "parquet_load", BASE_NS, NULL);
	run_add(runs, "mimalloc", "parquet_load", BASE_NS, &other_rows);
	expect_refusal(doc, "params", "mimalloc", "\"rows\":7");

	/* across files */
	cJSON *a = doc_new("system", "parquet_load", "aaaa000000000001");
	cJSON *b = doc_new("system", "parquet_load", "aaaa000000000001");
	run_add(round_new(a, 0), "system", "parquet_load", BASE_NS, NULL);
	run_add(round_new(b, 0), "system", "parquet_load", BASE_NS, &other_sum);
	struct rf_doc *da = load(a, "old"), *db = load(b, "new");
	struct cmp_report *r = NULL;
	char err[512] = "";
	int rc = da && db ? cmp_build(da, db, &defaults, &r, err, sizeof err) : 0;
	CHECK(rc == ST_USAGE && !r && strstr(err, "checksum differs between old") &&
	          strstr(err, "new"),
	      "two files: different checksums refused: %s", err);
	rf_free(da);
	rf_free(db);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void test_structure(void)
{
	const char *bad[][2] = {
	    {"{\"schema\":\"allocab-run/1\"}", "is not allocab-bench/1"},
	    {"[1,2]", "not a JSON object"},
	    {"{\"schema\":\"allocab-bench/1\",\"status\":\"complete\"}", "config"},
	    {"{\"schema\":\"allocab-bench/"
	     "1\",\"status\":\"complete\",\"config\":{\"mode\":\"drivers\","
	     "\"arms\":[\"a\"],\"workloads\":[\"w\"]},\"rounds\":[{\"index\":0,\"runs\":[{\"arm\":"
	     "\"b\",\"workload\":\"w\",\"status\":\"ok\"}]}]}",
	     "arm 'b' is not in config.arms"},
	    {"{\"schema\":\"allocab-bench/"
	     "1\",\"status\":\"complete\",\"config\":{\"mode\":\"drivers\","
	     "\"arms\":[\"a\"],\"workloads\":[\"w\"]},\"rounds\":[{\"index\":0,\"runs\":[{\"arm\":"
	     "\"a\",\"workload\":\"w\",\"status\":\"ok\"}]}]}",
	     "status ok but no record"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cJSON *j = cJSON_Parse(bad[i][0]);
		char err[512] = "";
		struct rf_doc *d = rf_from_json(j, "bad", err, sizeof err);
		CHECK(!d && strstr(err, bad[i][1]) && !strchr(err, '\n'), "structure %zu: %s", i,
		      err);
		rf_free(d);
		cJSON_Delete(j);
	}
}

static void left_add(cJSON *doc, const char *arm, const char *wl)
{
	cJSON *rounds = cJSON_GetObjectItem(doc, "rounds");
	cJSON *r = cJSON_GetArrayItem(rounds, cJSON_GetArraySize(rounds) - 1), *c;
	cJSON *left = cJSON_GetObjectItem(r, "left");

	if (!left)
		left = cJSON_AddArrayToObject(r, "left");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "arm", arm);
	cJSON_AddStringToObject(c, "workload", wl);
	cJSON_AddItemToArray(left, c);
}

/* Adaptive allocation: jemalloc's cells leave after round 5; its comparisons pair the rounds
 * where both arms ran, and the reader refuses "left" lists that contradict the runs. */
static void test_left(void)
{
	cJSON *doc = doc_new("system,mimalloc,jemalloc", "wa,wb", "aaaa000000000001");
	const char *wls[] = {"wa", "wb"};

	for (int i = 0; i < 10; i++) {
		cJSON *runs = round_new(doc, 0);
		for (int w = 0; w < 2; w++) {
			run_add(runs, "system", wls[w], BASE_NS * (1 + 0.01 * i), NULL);
			run_add(runs, "mimalloc", wls[w], 0.9 * BASE_NS * (1 + 0.01 * i), NULL);
			if (i < 5)
				run_add(runs, "jemalloc", wls[w], 1.1 * BASE_NS, NULL);
			else
				left_add(doc, "jemalloc", wls[w]);
		}
	}
	struct rf_doc *d = load(doc, "left");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
	const struct cmp_row *je = find_row(r, "wa", "total", "jemalloc");
	const struct cmp_row *mi = find_row(r, "wb", "total", "mimalloc");
	const struct cmp_row *gm = find_row(r, NULL, "total", "jemalloc");

	CHECK(d && rf_run(d, 7, 2, 1)->left && !rf_run(d, 7, 2, 1)->present &&
	          !rf_run(d, 3, 2, 1)->left,
	      "left: the reader marks the cells that had left");
	CHECK(je && je->n == 5 && mi && mi->n == 10 && gm && gm->n == 5,
	      "left: a comparison pairs only the rounds where both ran (%zu, %zu, geomean %zu)",
	      je ? je->n : 0, mi ? mi->n : 0, gm ? gm->n : 0);
	cmp_free(r);
	rf_free(d);

	left_add(doc, "mimalloc", "wa");
	CHECK(!rf_from_json(doc, "bad", (char[512]){0}, 512), "left: a cell with a run refused");
	cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cJSON_GetArrayItem(
	                              cJSON_GetObjectItem(doc, "rounds"), 9), "left"), 2);
	left_add(doc, "jemalloc", "wa");
	char err[512] = "";
	d = rf_from_json(doc, "twice", err, sizeof err);
	CHECK(!d && strstr(err, "rounds[9].left[2]: jemalloc on wa is listed twice"),
	      "left: a cell listed twice refused (%s)", err);
	rf_free(d);
	cJSON_DeleteItemFromArray(cJSON_GetObjectItem(cJSON_GetArrayItem(
	                              cJSON_GetObjectItem(doc, "rounds"), 9), "left"), 2);
	left_add(doc, "tcmalloc", "wa");
	d = rf_from_json(doc, "unknown", err, sizeof err);
	CHECK(!d && strstr(err, "rounds[9].left[2]: not an arm and a workload of config"),
	      "left: an unknown arm refused (%s)", err);
	rf_free(d);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rounds"), 9),
	                          "left", cJSON_CreateString("jemalloc"));
	d = rf_from_json(doc, "string", err, sizeof err);
	CHECK(!d && strstr(err, "rounds[9].left: not an array"), "left: not an array refused (%s)",
	      err);
	rf_free(d);
	cJSON_Delete(doc);
}

/* Gives the last run of runs CPU times (cpu_ns = factor x wall_ns) and, when st, the flag
 * single_threaded. */
static void run_cpu(cJSON *runs, double factor, int st)
{
	cJSON *run = cJSON_GetArrayItem(runs, cJSON_GetArraySize(runs) - 1);
	cJSON *rec = cJSON_GetObjectItem(run, "record"), *rep;
	cJSON *wl = cJSON_GetObjectItem(rec, "workload");

	if (st)
		cJSON_AddItemToArray(cJSON_AddArrayToObject(wl, "flags"),
		                     cJSON_CreateString("single_threaded"));
	cJSON_ArrayForEach(rep, cJSON_GetObjectItem(rec, "reps"))
	{
		cJSON *tot = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "phases"), "total");
		cJSON_AddNumberToObject(
		    tot, "cpu_ns", round(factor * cJSON_GetObjectItem(tot, "wall_ns")->valuedouble));
	}
}

/* The time compared (docs/methodology.md, "Which time"): config.time auto takes the CPU time of
 * the single-threaded workload and the wall time of the other; rf_use_time switches. */
static void test_time(void)
{
	cJSON *doc = doc_new("system,mimalloc", "st,mt", "aaaa000000000001");
	char err[512] = "", buf[256];

	cJSON_AddStringToObject(cJSON_GetObjectItem(doc, "config"), "time", "auto");
	for (int i = 0; i < 8; i++) {
		cJSON *runs = round_new(doc, 0);
		double t = BASE_NS * (1 + 0.05 * (i % 3));
		run_add(runs, "system", "st", t, NULL);
		run_cpu(runs, 0.5, 1);
		run_add(runs, "mimalloc", "st", t, NULL);
		run_cpu(runs, 0.4, 1); /* 0.8 of system's CPU time, the same wall time */
		run_add(runs, "system", "mt", t, NULL);
		run_cpu(runs, 1.5, 0);
		run_add(runs, "mimalloc", "mt", 0.9 * t, NULL);
		run_cpu(runs, 1.5 / 0.9, 0); /* the same CPU time, 0.9 of the wall time */
	}
	struct rf_doc *d = load(doc, "time");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
	const struct cmp_row *st = find_row(r, "st", "total", "mimalloc");
	const struct cmp_row *mt = find_row(r, "mt", "total", "mimalloc");

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
		r = build(d, NULL, &defaults);
		st = find_row(r, "st", "total", "mimalloc");
		CHECK(st && fabs(st->d.est) < 1e-9 && d->wl[0].time == RF_TIME_WALL,
		      "time: --time wall compares wall times (%g)", st ? st->d.est : NAN);
		cmp_free(r);
		rf_use_time(d, RF_POLICY_CPU);
		r = build(d, NULL, &defaults);
		mt = find_row(r, "mt", "total", "mimalloc");
		CHECK(mt && fabs(mt->d.est) < 1e-9 && strcmp(rf_times_used(d, buf, sizeof buf),
		                                             "CPU time") == 0,
		      "time: --time cpu compares CPU times everywhere (%g)", mt ? mt->d.est : NAN);
		cmp_free(r);
	}
	rf_free(d);

	/* a run without CPU times: its workload is compared on wall time whatever the policy */
	cJSON *runs = round_new(doc, 0);
	run_add(runs, "system", "st", BASE_NS, NULL);
	run_add(runs, "mimalloc", "st", BASE_NS, NULL);
	d = load(doc, "time without cpu");
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

/* Unpaired: the arm in the second file takes 0.9 of its time in the first; the machines differ. */
static void test_two_files(void)
{
	cJSON *a = doc_new("system,mimalloc", "parquet_load", "aaaa000000000001");
	cJSON *b = doc_new("mimalloc,jemalloc", "parquet_load", "bbbb000000000002");

	for (int r = 0; r < 6; r++) {
		double jitter = 1 + 0.001 * r;
		cJSON *ra = round_new(a, 0), *rb = round_new(b, 0);
		run_add(ra, "system", "parquet_load", BASE_NS, NULL);
		run_add(ra, "mimalloc", "parquet_load", BASE_NS * jitter, NULL);
		run_add(rb, "mimalloc", "parquet_load", BASE_NS * jitter * 0.9, NULL);
		run_add(rb, "jemalloc", "parquet_load", BASE_NS, NULL);
	}
	struct rf_doc *da = load(a, "old.json"), *db = load(b, "new.json");
	struct cmp_report *r = da && db ? build(da, db, &defaults) : NULL;
	const struct cmp_row *m = find_row(r, "parquet_load", "total", "mimalloc");
	int warned = 0;

	CHECK(r && !r->paired && r->nrows == 1 && m, "two files: only the common arm mimalloc");
	if (m) {
		CHECK(m->n_base == 6 && m->n_cand == 6, "two files: 6 + 6 runs");
		CHECK_NEAR(cmp_speedup(m->d.est), 1 / 0.9, 1e-9, "two files: shift speedup 1/0.9");
		CHECK(m->d.hi < 0 && m->verdict == CMP_FASTER, "two files: faster");
	}
	for (size_t i = 0; r && i < r->nwarn; i++)
		warned |= strstr(r->warn[i], "machine fingerprints differ") != NULL;
	CHECK(warned, "two files: machine fingerprints differ warning");
	cmp_free(r);

	struct cmp_opts o = defaults;
	char err[512] = "";
	o.baseline = "system";
	CHECK(cmp_build(da, db, &o, &r, err, sizeof err) == ST_USAGE && strstr(err, "--baseline"),
	      "two files: --baseline refused: %s", err);
	o = defaults;
	o.candidate = "system";
	CHECK(cmp_build(da, db, &o, &r, err, sizeof err) == ST_USAGE && strstr(err, "new.json") &&
	          strstr(err, "unknown candidate 'system'"),
	      "two files: candidate must be in both: %s", err);
	rf_free(da);
	rf_free(db);
	cJSON_Delete(a);
	cJSON_Delete(b);

	a = doc_new("system", "parquet_load", "aaaa000000000001");
	b = doc_new("jemalloc", "parquet_load", "aaaa000000000001");
	run_add(round_new(a, 0), "system", "parquet_load", BASE_NS, NULL);
	run_add(round_new(b, 0), "jemalloc", "parquet_load", BASE_NS, NULL);
	da = load(a, "old.json");
	db = load(b, "new.json");
	CHECK(da && db && cmp_build(da, db, &defaults, &r, err, sizeof err) == ST_USAGE &&
	          strstr(err, "no arm"),
	      "two files: no common arm refused: %s", err);
	rf_free(da);
	rf_free(db);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

/* A steal spike in one run is flagged; log ratios that grow with the round index are drift. */
static void test_noise(void)
{
	cJSON *doc = doc_new("system,mimalloc", "parquet_load", "aaaa000000000001");
	struct run_opt steal = {.steal_ticks = 50};

	for (int r = 0; r < 10; r++) {
		cJSON *runs = round_new(doc, 0);
		run_add(runs, "system", "parquet_load", BASE_NS, r == 4 ? &steal : NULL);
		run_add(runs, "mimalloc", "parquet_load", BASE_NS * (0.8 + 0.01 * r), NULL);
	}
	struct rf_doc *d = load(doc, "noise");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
	const struct cmp_row *row = find_row(r, "parquet_load", "total", "mimalloc");
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

static char *render(const struct cmp_report *r, const char *format);

/* Some steal in a fifth of the runs is this machine's normal and is not flagged; one run far beyond
 * it is, and the warning counts flagged runs per arm and points to the JSON list. */
static void test_noise_normal(void)
{
	cJSON *doc = doc_new("system,mimalloc", "parquet_load,pipeline", "aaaa000000000001");
	struct run_opt some = {.steal_ticks = 2}, more = {.steal_ticks = 1},
	               far = {.steal_ticks = 60};

	for (int r = 0; r < 10; r++) {
		cJSON *runs = round_new(doc, 0);
		run_add(runs, "system", "parquet_load", BASE_NS, r % 5 == 0 ? &some : NULL);
		run_add(runs, "mimalloc", "parquet_load", BASE_NS * 0.8, r % 5 == 1 ? &more : NULL);
		run_add(runs, "system", "pipeline", BASE_NS,
		        r == 7       ? &far
		        : r % 5 == 2 ? &some
		                     : NULL);
		run_add(runs, "mimalloc", "pipeline", BASE_NS * 0.8, r % 5 == 3 ? &more : NULL);
	}
	struct rf_doc *d = load(doc, "noise-normal");
	struct cmp_report *r = d ? build(d, NULL, &defaults) : NULL;
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
	char *table = r ? render(r, "table") : NULL;
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

/* The report in the format named (export.h), or NULL. */
static char *render(const struct cmp_report *r, const char *format)
{
	struct export_input in = {.r = r, .margin = NAN};
	char *buf = NULL, err[256];
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	if (m) {
		export_find(format)->write(m, &in, err, sizeof err);
		fclose(m);
	}
	return buf;
}

/* Field k (0-based) of CSV line `line` (no quoting in these rows) into buf. */
static const char *csv_field_of(const char *line, int k, char *buf, size_t len)
{
	for (int i = 0; i < k && line; i++)
		line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
	snprintf(buf, len, "%.*s", line ? (int)strcspn(line, ",\n") : 0, line ? line : "");
	return buf;
}

/* The first data row: integers in plain digits, floats that read back exactly. */
static void csv_exact(const char *csv, const struct cmp_report *r)
{
	const char *row = csv ? strchr(csv, '\n') : NULL;
	char f[64], want[64];

	if (!row || !r) {
		CHECK(0, "render: csv has a data row");
		return;
	}
	row++;
	snprintf(want, sizeof want, "%.0f", r->rows[0].med_base_ns);
	CHECK(!strcmp(csv_field_of(row, 19, f, sizeof f), want),
	      "render: csv median_ns_baseline exact integer (%s, want %s)", f, want);
	CHECK(strtod(csv_field_of(row, 8, f, sizeof f), NULL) == cmp_speedup(r->rows[0].d.est),
	      "render: csv speedup reads back exactly (%s)", f);
	CHECK(strtod(csv_field_of(row, 13, f, sizeof f), NULL) == r->rows[0].p,
	      "render: csv p reads back exactly (%s)", f);
	CHECK(!strcmp(csv_field_of(row, 29, f, sizeof f), "paired"), "render: csv mode column (%s)",
	      f);
	char buf[64];
	export_fmt_double(61636792, buf, sizeof buf);
	CHECK(!strcmp(buf, "61636792"), "export_fmt_double: 61636792 in plain digits (%s)", buf);
	export_fmt_double(0.1, buf, sizeof buf);
	CHECK(!strcmp(buf, "0.1"), "export_fmt_double: 0.1 shortest (%s)", buf);
	export_fmt_double(1.0 / 3, buf, sizeof buf);
	CHECK(strtod(buf, NULL) == 1.0 / 3, "export_fmt_double: 1/3 round-trips (%s)", buf);
	export_fmt_double(NAN, buf, sizeof buf);
	CHECK(buf[0] == '\0', "export_fmt_double: NaN is empty");
}

static void test_renderers(void)
{
	cJSON *doc = doc_new("system,mimalloc", "parquet_load,pipeline", "aaaa000000000001");
	struct cmp_opts boot = defaults;

	for (int r = 0; r < 6; r++) {
		cJSON *runs = round_new(doc, 0);
		run_add(runs, "system", "parquet_load", BASE_NS * (1 + 0.01 * r), NULL);
		run_add(runs, "mimalloc", "parquet_load", BASE_NS * 0.9, NULL);
		run_add(runs, "system", "pipeline", BASE_NS, NULL);
		run_add(runs, "mimalloc", "pipeline", BASE_NS * 0.95, NULL);
	}
	boot.bootstrap = CMP_MIN_BOOTSTRAP;
	struct rf_doc *d = load(doc, "render");
	struct cmp_report *r = d ? build(d, NULL, &boot) : NULL;
	char *table = r ? render(r, "table") : NULL,
	     *md = r ? render(r, "markdown") : NULL;
	char *js = r ? render(r, "json") : NULL, *csv = r ? render(r, "csv") : NULL;
	cJSON *j = js ? cJSON_Parse(js) : NULL;

	CHECK(table && strstr(table, CMP_CONVENTION) && strstr(table, "% CI") &&
	          strstr(table, "simultaneous") && strstr(table, "geomean"),
	      "render: table has the convention, the family level and the columns");
	CHECK(md && strstr(md, CMP_CONVENTION) && strstr(md, "| workload | phase |") &&
	          strstr(md, "|---|"),
	      "render: markdown table");
	CHECK(j && !strcmp(cJSON_GetObjectItem(j, "schema")->valuestring, "allocab-compare/1") &&
	          !strcmp(cJSON_GetObjectItem(j, "convention")->valuestring, CMP_CONVENTION),
	      "render: json schema and convention");
	cJSON *c0 = j ? cJSON_GetArrayItem(cJSON_GetObjectItem(j, "comparisons"), 0) : NULL;
	CHECK(c0 && cJSON_GetObjectItem(c0, "speedup") && cJSON_GetObjectItem(c0, "p_bonferroni") &&
	          cJSON_IsObject(cJSON_GetObjectItem(c0, "ci_per_comparison")) &&
	          cJSON_IsObject(cJSON_GetObjectItem(c0, "ci_bootstrap")) &&
	          !strcmp(cJSON_GetObjectItem(j, "interval")->valuestring, "bootstrap"),
	      "render: json comparison with bootstrap interval");
	CHECK(csv && !strncmp(csv, "workload,phase,regime,candidate,baseline,n,", 43) &&
	          strstr(csv, ",rounds_needed,mode,conf,family_level,ci_each_lo,ci_each_hi,"
	                      "ci_each_level,equivalent,equivalence_pct,processes_baseline,"
	                      "processes_candidate,calls_baseline,calls_candidate,note\n"),
	      "render: csv starts with its header");
	size_t lines = 0;
	for (const char *p = csv; p && *p; p++)
		lines += *p == '\n';
	CHECK(r && lines == 1 + r->nrows, "render: csv one row per comparison (%zu lines)", lines);
	csv_exact(csv, r);
	cJSON_Delete(j);
	free(table);
	free(md);
	free(js);
	free(csv);

	/* the same seed gives the same bootstrap interval */
	struct cmp_report *r2 = d ? build(d, NULL, &boot) : NULL;
	CHECK(r && r2 && r->rows[0].d.lo == r2->rows[0].d.lo && r->rows[0].d.hi == r2->rows[0].d.hi,
	      "render: bootstrap interval reproducible for a fixed seed");
	cmp_free(r2);
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* The exit status `allocab gate` would give: ST_OK (PASS), ST_FAIL, ST_INCONCLUSIVE or ST_USAGE. */
static int gate(const cJSON *doc, const char *args, char *err, size_t errlen)
{
	char buf[256], *argv[16], *save;
	int argc = 0;
	struct gate_spec g;
	enum gate_outcome o;
	int rc;

	snprintf(buf, sizeof buf, "--gate %s", args);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 16; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	if (gateopt_parse(argc, argv, &g, NULL, err, errlen) != 0)
		return ST_USAGE;
	rc = gate_spec_eval(&g, doc, NULL, &o, err, errlen);
	return rc ? ST_USAGE : gate_outcome_status(o);
}

static void test_gate(void)
{
	cJSON *doc =
	    doc_new("system,mimalloc,jemalloc", "parquet_load,pipeline", "aaaa000000000001");
	const double je[8] = {0.90, 1.00, 0.92, 0.98, 0.94, 0.96, 0.91, 0.99};
	char err[512];

	for (int r = 0; r < 8; r++) {
		cJSON *runs = round_new(doc, 0);
		double b = BASE_NS * (1 + 0.05 * r);
		for (int w = 0; w < 2; w++) {
			const char *wl = w ? "pipeline" : "parquet_load";
			run_add(runs, "system", wl, b, NULL);
			run_add(runs, "mimalloc", wl, b * 0.9, NULL);
			run_add(runs, "jemalloc", wl, b * je[r], NULL);
		}
	}
	CHECK(gate(doc, "--candidate mimalloc --min-speedup 5%", err, sizeof err) == ST_OK,
	      "gate: 10%% faster passes --min-speedup 5%%");
	CHECK(gate(doc, "--candidate mimalloc --min-speedup 2.5% --on geomean", err, sizeof err) ==
	          ST_OK,
	      "gate: geomean passes --min-speedup 2.5%%");
	CHECK(gate(doc, "--candidate mimalloc --min-speedup 15", err, sizeof err) == ST_FAIL,
	      "gate: 10%% faster fails --min-speedup 15");
	CHECK(gate(doc, "--candidate jemalloc --min-speedup 5%", err, sizeof err) ==
	          ST_INCONCLUSIVE,
	      "gate: 0.90..1.00 straddles 0.95: inconclusive");
	CHECK(gate(doc, "--candidate jemalloc --max-slowdown 3% --phase read", err, sizeof err) ==
	          ST_OK,
	      "gate: --max-slowdown on the pipeline's read phase");
	CHECK(gate(doc, "--candidate tcmalloc --min-speedup 5%", err, sizeof err) == ST_USAGE &&
	          strstr(err, "unknown candidate 'tcmalloc'"),
	      "gate: unknown candidate: %s", err);
	CHECK(gate(doc, "--candidate mimalloc --phase nope --min-speedup 5%", err, sizeof err) ==
	              ST_USAGE &&
	          strstr(err, "unknown phase"),
	      "gate: unknown phase: %s", err);

	static const char *const bad[] = {
	    "--candidate mimalloc --min-speedup -5%",
	    "--candidate mimalloc --min-speedup abc",
	    "--candidate mimalloc --min-speedup 100",
	    "--candidate mimalloc --max-slowdown 5%%",
	    "--candidate mimalloc",
	    "--min-speedup 5%",
	    "--candidate mimalloc --min-speedup 5 --max-slowdown 3",
	    "--candidate mimalloc --min-speedup 5 --on all",
	    "--candidate mimalloc --min-speedup 5 --frob",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = '\0';
		CHECK(gate(doc, bad[i], err, sizeof err) == ST_USAGE && err[0] &&
		          !strchr(err, '\n'),
		      "gate: '%s' refused: %s", bad[i], err);
	}
	cJSON_Delete(doc);
}

int main(void)
{
	test_exact_ratio();
	test_bonferroni();
	test_geomean();
	test_insufficient();
	test_refusals();
	test_structure();
	test_two_files();
	test_left();
	test_time();
	test_noise();
	test_noise_normal();
	test_renderers();
	test_gate();
	return CHECK_DONE();
}
