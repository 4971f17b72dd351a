/* test_compare_report.c - what compare and gate make of a report built from documents the
 * engine writes (tests/unit/cmpdoc.h): the renderers (table, markdown, JSON, CSV with exact
 * numbers) and the gate's three outcomes and its refusals. No timing anywhere. */
#include "check.h"
#include "cmpdoc.h"

#include "common/status.h"
#include "front/cmd/gateopt.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "parquet_load,pipeline", 6);
	struct cmp_opts boot = cmpdoc_defaults;

	for (int r = 0; r < 6; r++) {
		cmpdoc_set(s, r, "system", "parquet_load", CMPDOC_BASE_NS * (1 + 0.01 * r), NULL);
		cmpdoc_set(s, r, "mimalloc", "parquet_load", CMPDOC_BASE_NS * 0.9, NULL);
		cmpdoc_set(s, r, "mimalloc", "pipeline", CMPDOC_BASE_NS * 0.95, NULL);
	}
	cJSON *doc = cmpdoc_done(s, "render");
	boot.bootstrap = CMP_MIN_BOOTSTRAP;
	struct rf_doc *d = cmpdoc_load(doc, "render");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &boot) : NULL;
	char *table = r ? cmpdoc_render(r, "table") : NULL,
	     *md = r ? cmpdoc_render(r, "markdown") : NULL;
	char *js = r ? cmpdoc_render(r, "json") : NULL, *csv = r ? cmpdoc_render(r, "csv") : NULL;
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
	          strstr(csv, ",rounds_needed,mode,conf,family_level,family,family_size,ci_each_lo,ci_each_hi,"
	                      "ci_each_level,equivalent,equivalence_pct,processes_baseline,"
	                      "processes_candidate,calls_baseline,calls_candidate,diff_ns,") &&
	          strstr(csv, ",diff_minflt_hi,note\n"),
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
	struct cmp_report *r2 = d ? cmpdoc_build(d, NULL, &boot) : NULL;
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
	struct cmpdoc *s = cmpdoc_new("system,mimalloc,jemalloc", "parquet_load,pipeline", 8);
	const double je[8] = {0.90, 1.00, 0.92, 0.98, 0.94, 0.96, 0.91, 0.99};
	char err[512];

	for (int r = 0; r < 8; r++) {
		double b = CMPDOC_BASE_NS * (1 + 0.05 * r);
		for (int w = 0; w < 2; w++) {
			const char *wl = w ? "pipeline" : "parquet_load";
			cmpdoc_set(s, r, "system", wl, b, NULL);
			cmpdoc_set(s, r, "mimalloc", wl, b * 0.9, NULL);
			cmpdoc_set(s, r, "jemalloc", wl, b * je[r], NULL);
		}
	}
	cJSON *doc = cmpdoc_done(s, "gate");
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
	test_renderers();
	test_gate();
	return CHECK_DONE();
}
