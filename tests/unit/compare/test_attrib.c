/* test_attrib.c - what compare says a difference is made of (compare.h, cmp_attribs) and the
 * machine facts (results.h, rf_facts; compare.h, cmp_facts_differ), on documents the engine
 * writes (tests/unit/cmpdoc.h): the parts add up, the paired interval of the fault counts, the
 * text line, the JSON and CSV members, the facts line and the differing-facts line, and the
 * refusal of malformed facts. No timing anywhere. */
#include "check.h"
#include "cmpdoc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The facts of a machine: a fault costs med ns [lo, hi] over 10 trials, kernel 6.18.0, THP madvise;
 * hyp NULL: no hypervisor. */
static struct facts facts_of(const char *vendor, const char *model, const char *hyp, double med,
                             double lo, double hi)
{
	struct facts f = {.fault_median = med, .fault_min = lo, .fault_max = hi, .trials = 10};

	snprintf(f.hypervisor, sizeof f.hypervisor, "%s", hyp ? hyp : "");
	snprintf(f.cpu_vendor, sizeof f.cpu_vendor, "%s", vendor);
	snprintf(f.cpu_model, sizeof f.cpu_model, "%s", model);
	snprintf(f.kernel, sizeof f.kernel, "6.18.0");
	snprintf(f.thp, sizeof f.thp, "madvise");
	return f;
}

/* A driver run of workload "checkpoint_write" with one rep: CPU time user + sys + rest, its
 * getrusage deltas as a driver writes them. */
static void run_counted(struct cmpdoc *s, int i, const char *arm, double user, double sys,
                        double rest, double minflt)
{
	struct cmpdoc_opt o = {.counts = 1, .user_ns = user, .sys_ns = sys, .minflt = minflt};

	cmpdoc_set(s, (unsigned)i, arm, "checkpoint_write", user + sys + rest, &o);
}

/* 8 rounds: glibc (system) faults 8,930 + i pages and spends 70 ms + i in the kernel, mimalloc
 * 1,699 + (3i mod 7) pages and 20 ms; user time 50 ms against 48 ms; rest (residual) r_i; the
 * machine's facts f (NULL: an AMD EPYC 7B13 under KVM, a fault 14.2 us [12.1, 21.9]). */
static cJSON *fault_doc(int exact, int opposite, const struct facts *f)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "checkpoint_write", 8);
	struct facts amd = facts_of("AuthenticAMD", "AMD EPYC 7B13", "KVM", 14200, 12100, 21900);

	s->time = "cpu";
	s->facts = f ? f : &amd;
	for (int i = 0; i < 8; i++) {
		double rb = exact ? 0 : 1e5 * (i % 3), rc = exact ? 0 : 1e5 * ((i + 1) % 3);
		run_counted(s, i, "system", 50e6 + 1e5 * i, 70e6 + 2e5 * i, rb, 8930 + i);
		run_counted(s, i, "mimalloc", opposite ? 60e6 + 1e5 * i : 48e6 + 3e4 * i,
		            20e6 + 1e5 * (i % 4), rc, 1699 + (3 * i) % 7);
	}
	return cmpdoc_done(s, "faults");
}

static const struct cmp_attrib *attrib_of(const struct cmp_report *r, struct cmp_attrib *a,
                                          const char *regime)
{
	for (size_t i = 0; r && a && i < r->nrows; i++)
		if (a[i].row->workload && !strcmp(rf_regime_name(a[i].row->regime), regime))
			return &a[i];
	return NULL;
}

static void test_parts(void)
{
	cJSON *doc = fault_doc(0, 0, NULL);
	struct rf_doc *d = cmpdoc_load(doc, "faults.json");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	struct cmp_attrib *at = NULL;
	const struct cmp_attrib *a;
	double fd[8];
	struct stats_interval want;
	char line[EXPORT_LINE];

	CHECK(r && cmp_attribs(r, &at) == 0, "attrib: cmp_attribs succeeds");
	a = attrib_of(r, at, "cold");
	CHECK(a && a->usable && a->n == 8 && a->cpu, "attrib: usable on 8 rounds of CPU time");
	if (!a || !a->usable)
		goto out;
	double sum = a->part[0].est + a->part[1].est + a->part[2].est;
	CHECK_NEAR(a->parts_sum, sum, 1e-6, "attrib: parts_sum is the sum of the parts");
	CHECK(a->adds_up && a->parts_sum >= a->total.lo && a->parts_sum <= a->total.hi,
	      "attrib: the parts add up within the total's interval (%.0f in [%.0f, %.0f])",
	      a->parts_sum, a->total.lo, a->total.hi);
	CHECK(a->total.est < 0 && a->share[CMP_PART_SYS] > 0.8,
	      "attrib: most of the saving is system time (share %.3f)", a->share[CMP_PART_SYS]);
	CHECK_NEAR(a->minflt_base, 8933.5, 1e-9, "attrib: glibc's median faults per rep");
	CHECK_NEAR(a->minflt_cand, 1701.5, 1e-9, "attrib: mimalloc's median faults per rep");
	for (int i = 0; i < 8; i++)
		fd[i] = (1699 + (3 * i) % 7) - (8930 + i);
	stats_hl_interval(fd, 8, r->family_conf, &want);
	CHECK(a->minflt.est == want.est && a->minflt.lo == want.lo && a->minflt.hi == want.hi,
	      "attrib: the fault interval is the signed-rank HL of the paired differences (%.1f "
	      "[%.1f, %.1f])",
	      a->minflt.est, a->minflt.lo, a->minflt.hi);
	CHECK(a->minflt.lo <= a->minflt.est && a->minflt.est <= a->minflt.hi && a->minflt.hi < 0,
	      "attrib: the fault interval excludes 0");
	export_attrib_line(a, line, sizeof line);
	CHECK(strstr(line, "% of the difference") && strstr(line, "is system time") &&
	          strstr(line, "system 8,934 page faults per rep, mimalloc 1,702") &&
	          strstr(line, "within the interval") && !strstr(line, "NOT"),
	      "attrib: the text line (%s)", line);
	char *js = cmpdoc_render(r, "json"), *csv = cmpdoc_render(r, "csv"),
	     *tab = cmpdoc_render(r, "table");
	cJSON *j = js ? cJSON_Parse(js) : NULL;
	cJSON *row0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "comparisons"), 0);
	cJSON *att = cJSON_GetObjectItem(row0, "attribution");
	CHECK(cJSON_IsNull(att), "attrib: json without attributions given holds null");
	free(js);
	cJSON_Delete(j);
	{
		struct export_input in = {.r = r, .margin = NAN, .attrib = at};
		char *buf = NULL, err[64];
		size_t n = 0;
		FILE *m = open_memstream(&buf, &n);
		export_find("json")->write(m, &in, err, sizeof err);
		fclose(m);
		j = cJSON_Parse(buf);
		free(buf);
		att = NULL;
		cJSON *row;
		cJSON_ArrayForEach(row, cJSON_GetObjectItem(j, "comparisons"))
		{
			cJSON *x = cJSON_GetObjectItem(row, "attribution");
			if (cJSON_IsObject(x))
				att = x;
		}
		cJSON *parts = cJSON_GetObjectItem(att, "parts_ns");
		double ps = 0;
		for (int k = 0; k < CMP_NPARTS; k++)
			ps += cJSON_GetNumberValue(
			    cJSON_GetObjectItem(cJSON_GetObjectItem(parts, cmp_part_name(k)), "est"));
		CHECK(att && cJSON_IsTrue(cJSON_GetObjectItem(att, "adds_up")) &&
		          fabs(ps - cJSON_GetNumberValue(cJSON_GetObjectItem(att, "parts_sum_ns"))) <
		              1e-3,
		      "attrib: json attribution's parts sum to parts_sum_ns");
		CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(
		          cJSON_GetObjectItem(att, "minflt"), "baseline")) == 8933.5,
		      "attrib: json minflt.baseline");
		cJSON *fa = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "facts"), 0);
		CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(
		          cJSON_GetObjectItem(cJSON_GetObjectItem(fa, "start"), "fault_ns"),
		          "median")) == 14200 &&
		          cJSON_GetArraySize(cJSON_GetObjectItem(j, "facts_differ")) == 0,
		      "attrib: json facts of the file, nothing differs in one file");
		cJSON_Delete(j);
		m = open_memstream(&buf, &n);
		export_find("html")->write(m, &in, err, sizeof err);
		fclose(m);
		CHECK(buf && strstr(buf, "What each difference is made of") &&
		          strstr(buf, "class=\"s3\""),
		      "attrib: html has the stacked bars");
		free(buf);
		m = open_memstream(&buf, &n);
		export_find("table")->write(m, &in, err, sizeof err);
		fclose(m);
		CHECK(buf && strstr(buf, "what the differences are made of") &&
		          strstr(buf, "page faults per"),
		      "attrib: table has the attribution lines");
		free(buf);
	}
	CHECK(csv && strstr(csv, "diff_sys_ns") && strstr(csv, "minflt_baseline"),
	      "attrib: csv header has the attribution columns");
	CHECK(tab && strstr(tab, "machine: AMD EPYC 7B13, KVM, kernel 6.18.0, THP madvise, a "
	                         "fault costs 14.2 µs [12.1–21.9] at the start (10 trials)"),
	      "facts: the machine line");
	free(csv);
	free(tab);
out:
	cmp_attribs_free(at);
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* Parts with no residual: the rest is exactly 0 and the parts' sum is the total's HL; user time up,
 * system time down: the line says the parts go opposite ways. */
static void test_exact_and_opposite(void)
{
	for (int opp = 0; opp < 2; opp++) {
		cJSON *doc = fault_doc(1, opp, NULL);
		struct rf_doc *d = cmpdoc_load(doc, "exact.json");
		struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
		struct cmp_attrib *at = NULL;
		const struct cmp_attrib *a = r && cmp_attribs(r, &at) == 0 ? attrib_of(r, at, "cold")
		                                                         : NULL;
		char line[EXPORT_LINE] = "";
		if (a && a->usable)
			export_attrib_line(a, line, sizeof line);
		if (!opp)
			CHECK(a && a->usable && a->part[CMP_PART_REST].est == 0 &&
			          a->part[CMP_PART_REST].lo == 0 && a->adds_up,
			      "attrib: user + sys = CPU time leaves a rest of exactly 0");
		else
			CHECK(a && a->usable && a->part[CMP_PART_USER].est > 0 &&
			          a->part[CMP_PART_SYS].est < 0 && strstr(line, "offset by the others"),
			      "attrib: parts of opposite signs are said so (%s)", line);
		cmp_attribs_free(at);
		cmp_free(r);
		rf_free(d);
		cJSON_Delete(doc);
	}
}

/* Runs without counts (written before them): no attribution, and the text says nothing. */
static void test_without_counts(void)
{
	struct cmpdoc *s = cmpdoc_new("system,mimalloc", "checkpoint_write", 8);
	for (int i = 0; i < 8; i++)
		cmpdoc_set(s, i, "mimalloc", "checkpoint_write", CMPDOC_BASE_NS * 0.8, NULL);
	cJSON *doc = cmpdoc_done(s, "old.json");
	struct rf_doc *d = cmpdoc_load(doc, "old.json");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	struct cmp_attrib *at = NULL;
	int any = 0;

	CHECK(r && cmp_attribs(r, &at) == 0, "attrib: old file: cmp_attribs succeeds");
	for (size_t i = 0; r && at && i < r->nrows; i++)
		any |= at[i].usable;
	CHECK(!any, "attrib: runs without counts have no attribution");
	CHECK(d && !d->facts[0].present, "facts: a file without them has none");
	cmp_attribs_free(at);
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

static void test_facts_differ(void)
{
	struct facts intel = facts_of("GenuineIntel", "Intel Xeon Platinum 8375C", NULL, 1100, 900,
	                              1500),
	             amd2 = facts_of("AuthenticAMD", "AMD EPYC 7B13", "KVM", 15000, 13000, 23000);
	cJSON *a = fault_doc(0, 0, NULL), *b = fault_doc(0, 0, &intel), *c = fault_doc(0, 0, &amd2);
	struct rf_doc *da = cmpdoc_load(a, "amd.json"), *db = cmpdoc_load(b, "intel.json"),
	              *dc = cmpdoc_load(c, "amd2.json");
	char line[EXPORT_LINE];

	CHECK(da && db &&
	          cmp_facts_differ(da, db) == (CMP_FACT_VENDOR | CMP_FACT_MODEL |
	                                       CMP_FACT_HYPERVISOR | CMP_FACT_FAULT),
	      "facts: AMD/KVM against Intel/none differ in vendor, model, hypervisor, fault cost");
	CHECK(da && dc && cmp_facts_differ(da, dc) == 0,
	      "facts: overlapping fault costs on the same machine do not differ");
	if (da && db)
		export_facts_differ_line(da, db, line, sizeof line);
	CHECK(da && db &&
	          !strcmp(line, "the two files' machines differ in: CPU vendor, CPU model, "
	                        "hypervisor, fault cost (fault cost: the ranges of the trials are "
	                        "disjoint)"),
	      "facts: the differing-facts line (%s)", line);
	if (db)
		export_facts_line(db, line, sizeof line);
	CHECK(db && strstr(line, "Intel Xeon Platinum 8375C, no hypervisor"),
	      "facts: no hypervisor is said (%s)", line);
	struct cmp_report *r = da && db ? cmpdoc_build(da, db, &cmpdoc_defaults) : NULL;
	char *tab = r ? cmpdoc_render(r, "table") : NULL;
	CHECK(tab && strstr(tab, "the two files' machines differ in: CPU vendor"),
	      "facts: compare of two files prints the differing facts");
	free(tab);
	cmp_free(r);
	rf_free(da);
	rf_free(db);
	rf_free(dc);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}

static void test_bad_facts(void)
{
	static const char *const bad[] = {
	    "{\"start\": 3}",
	    "{\"start\": {\"fault_ns\": {\"median\": 5, \"min\": 9, \"max\": 12, \"trials\": 10}}}",
	    "{\"start\": {\"fault_ns\": {\"median\": -1}}}",
	    "{\"end\": {\"fault_ns\": {}, \"cpu_model\": 7}}",
	    "[]",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cJSON *doc = fault_doc(0, 0, NULL);
		char err[512] = "";
		cJSON_DeleteItemFromObject(doc, "facts");
		cJSON_AddItemToObject(doc, "facts", cJSON_Parse(bad[i]));
		struct rf_doc *d = rf_from_json(doc, "bad.json", err, sizeof err);
		CHECK(!d && strstr(err, "facts"), "facts: malformed %s refused (%s)", bad[i], err);
		rf_free(d);
		cJSON_Delete(doc);
	}
}

int main(void)
{
	test_parts();
	test_exact_and_opposite();
	test_without_counts();
	test_facts_differ();
	test_bad_facts();
	return CHECK_DONE();
}
