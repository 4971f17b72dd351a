/* test_compare_files.c - what compare reads (documents the engine writes, tests/unit/cmpdoc.h):
 * refusal of different work within a file and across two, malformed documents, the cells that left
 * under adaptive allocation, and two-file mode (unpaired, on the arms both files hold). No timing
 * anywhere. */
#include "check.h"
#include "cmpdoc.h"

#include "common/status.h"

#include <cjson/cJSON.h>
#include <string.h>

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
	struct cmpdoc_opt other_sum = {.checksum = "00000000000000bb"}, other_rows = {.rows = 7};
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load", 1);

	cmpdoc_set(s, 0, "mimalloc", "parquet_load", CMPDOC_BASE_NS, &other_sum);
	expect_refusal(cmpdoc_done(s, "checksums"), "checksums", "parquet_load",
	               "00000000000000bb");

	s = cmpdoc_new("system,mimalloc", "parquet_load", 1);
	cmpdoc_set(s, 0, "mimalloc", "parquet_load", CMPDOC_BASE_NS, &other_rows);
	expect_refusal(cmpdoc_done(s, "params"), "params", "mimalloc", "\"rows\":7");

	/* across files */
	cJSON *a = cmpdoc_done(cmpdoc_new("system", "parquet_load", 1), "old");
	s = cmpdoc_new("system", "parquet_load", 1);
	cmpdoc_set(s, 0, "system", "parquet_load", CMPDOC_BASE_NS, &other_sum);
	cJSON *b = cmpdoc_done(s, "new");
	struct rf_doc *da = cmpdoc_load(a, "old"), *db = cmpdoc_load(b, "new");
	struct cmp_report *r = NULL;
	char err[512] = "";
	int rc = da && db ? cmp_build(da, db, &cmpdoc_defaults, &r, err, sizeof err) : 0;
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
	    {"{\"schema\":\"allocab-run/1\"}", "is not allocab-bench/2 or allocab-bench/1"},
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

/* The mode a file records maps to its kind's facts (results.h, struct rf_kind): what results,
 * compare, gate, fleet and export ask instead of the mode. */
static void test_kinds(void)
{
	const struct arm_mode *dk = rf_kind_find("drivers"), *ck = rf_kind_find("commands");
	char buf[128], err[512] = "";

	CHECK(dk && (dk->flags & RF_KIND_DRIVER_RECORD) && !(dk->flags & RF_KIND_WHOLE_PROCESS) &&
	          dk->fallback_baseline && strcmp(dk->fallback_baseline, "system") == 0 &&
	          strcmp(dk->runs, "driver") == 0,
	      "kinds: drivers: driver records, compared against system by default");
	CHECK(ck && (ck->flags & RF_KIND_WHOLE_PROCESS) && !(ck->flags & RF_KIND_DRIVER_RECORD) &&
	          !ck->fallback_baseline && strcmp(ck->runs, "command") == 0,
	      "kinds: commands: whole processes, compared against the first arm by default");
	CHECK(!rf_kind_find("system") && !rf_kind_find(NULL), "kinds: an unknown mode has none");
	CHECK(strcmp(rf_kind_modes(buf, sizeof buf), "\"drivers\" or \"commands\"") == 0,
	      "kinds: the modes named in messages: %s", buf);

	/* a drivers file that names no baseline (the engine names it: config.baseline is removed,
	 * as in a file written before it): its platform allocator's arm, wherever it is */
	cJSON *doc = cmpdoc_done(cmpdoc_new("mimalloc,system", "parquet_load", 1), "kinds");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(doc, "config"), "baseline");
	struct rf_doc *d = rf_from_json(doc, "kinds", err, sizeof err);
	CHECK(d && d->kind == dk && rf_kind_has(d, RF_KIND_DRIVER_RECORD) &&
	          !rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && strcmp(d->baseline, "system") == 0,
	      "kinds: a drivers file's kind and fallback baseline (%s)", d ? d->baseline : err);
	rf_free(d);
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(doc, "config"), "mode",
	                          cJSON_CreateString("system"));
	d = rf_from_json(doc, "kinds", err, sizeof err);
	CHECK(!d && strstr(err, "config.mode: want \"drivers\" or \"commands\""),
	      "kinds: a mode no kind has is refused: %s", err);
	rf_free(d);
	cJSON_Delete(doc);
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
	struct cmpdoc *s = cmpdoc_new("system,mimalloc,jemalloc", "wa,wb", 10);
	const char *wls[] = {"wa", "wb"};
	struct cmpdoc_opt left = {.end = CMPDOC_LEFT};

	for (int i = 0; i < 10; i++) {
		for (int w = 0; w < 2; w++) {
			cmpdoc_set(s, i, "system", wls[w], CMPDOC_BASE_NS * (1 + 0.01 * i), NULL);
			cmpdoc_set(s, i, "mimalloc", wls[w], 0.9 * CMPDOC_BASE_NS * (1 + 0.01 * i),
			           NULL);
			cmpdoc_set(s, i, "jemalloc", wls[w], 1.1 * CMPDOC_BASE_NS,
			           i < 5 ? NULL : &left);
		}
	}
	cJSON *doc = cmpdoc_done(s, "left");
	struct rf_doc *d = cmpdoc_load(doc, "left");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	const struct cmp_row *je = cmpdoc_row(r, "wa", "total", "jemalloc");
	const struct cmp_row *mi = cmpdoc_row(r, "wb", "total", "mimalloc");
	const struct cmp_row *gm = cmpdoc_row(r, NULL, "total", "jemalloc");

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

/* Unpaired: the arm in the second file takes 0.9 of its time in the first; the machines differ. */
static void test_two_files(void)
{
	struct cmpdoc *sa = cmpdoc_new("system,mimalloc", "parquet_load", 6);
	struct cmpdoc *sb = cmpdoc_new("mimalloc,jemalloc", "parquet_load", 6);

	sb->machine = "bbbb";
	for (int r = 0; r < 6; r++) {
		double jitter = 1 + 0.001 * r;
		cmpdoc_set(sa, r, "mimalloc", "parquet_load", CMPDOC_BASE_NS * jitter, NULL);
		cmpdoc_set(sb, r, "mimalloc", "parquet_load", CMPDOC_BASE_NS * jitter * 0.9, NULL);
	}
	cJSON *a = cmpdoc_done(sa, "old.json"), *b = cmpdoc_done(sb, "new.json");
	struct rf_doc *da = cmpdoc_load(a, "old.json"), *db = cmpdoc_load(b, "new.json");
	struct cmp_report *r = da && db ? cmpdoc_build(da, db, &cmpdoc_defaults) : NULL;
	const struct cmp_row *m = cmpdoc_row(r, "parquet_load", "total", "mimalloc");
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

	struct cmp_opts o = cmpdoc_defaults;
	char err[512] = "";
	o.baseline = "system";
	CHECK(cmp_build(da, db, &o, &r, err, sizeof err) == ST_USAGE && strstr(err, "--baseline"),
	      "two files: --baseline refused: %s", err);
	o = cmpdoc_defaults;
	o.candidate = "system";
	CHECK(cmp_build(da, db, &o, &r, err, sizeof err) == ST_USAGE && strstr(err, "new.json") &&
	          strstr(err, "unknown candidate 'system'"),
	      "two files: candidate must be in both: %s", err);
	rf_free(da);
	rf_free(db);
	cJSON_Delete(a);
	cJSON_Delete(b);

	a = cmpdoc_done(cmpdoc_new("system", "parquet_load", 1), "old.json");
	b = cmpdoc_done(cmpdoc_new("jemalloc", "parquet_load", 1), "new.json");
	da = cmpdoc_load(a, "old.json");
	db = cmpdoc_load(b, "new.json");
	CHECK(da && db && cmp_build(da, db, &cmpdoc_defaults, &r, err, sizeof err) == ST_USAGE &&
	          strstr(err, "no arm"),
	      "two files: no common arm refused: %s", err);
	rf_free(da);
	rf_free(db);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

int main(void)
{
	test_refusals();
	test_structure();
	test_kinds();
	test_two_files();
	test_left();
	return CHECK_DONE();
}
