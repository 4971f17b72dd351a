/* test_compare_family.c - the two families of a report (docs/methodology.md, "Multiplicity: the
 * question and the rest") on a results file the engine writes with a fake runner
 * (tests/unit/fakebench.h), loaded by the reader: which rows are primary by default, with
 * --primary, --phase, --regime and config.primary; the level of each family and that every
 * interval, verdict, p and sequential interval of a row uses its own family's level, never the
 * other's; the formats' labels; the gate's family (its own gated comparisons); adaptive
 * allocation (only primary rows hold a cell) and bench_comparisons (the primary family). No
 * timing anywhere. */
#include "check.h"
#include "cmpdoc.h"
#include "fakebench.h"

#include "common/status.h"
#include "front/gate/gate.h"
#include "front/engine/engine.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* system, a (10% faster, within +-0.5%) and b (the same, within +-0.5%) on parquet_load and
 * pipeline, 14 rounds, both regimes (a cold rep twice as long as the three steady ones), written by
 * the engine with the fake runner (fakebench.h, formula=cycle) and loaded: 4 totals per regime, 2
 * pipeline/read per regime, 2 geometric means per regime. primary: config.primary, or NULL. */
static struct rf_doc *two_regimes_doc(const char *primary, const char *name)
{
	char dir[] = "/tmp/allocab-family-XXXXXX", path[64], prim[64], err[512] = "";
	char *kv[] = {"mode=drivers", "formula=cycle", "arms=system=1,a=0.9/0.011,b=1/0.01",
	              "wls=parquet_load,pipeline", "rounds=14", "warmup=0", "reps=4", "spread=0.03",
	              "colds=system=2,a=2,b=2", prim};
	struct rf_doc *d = NULL;
	int n = primary ? 10 : 9;

	snprintf(prim, sizeof prim, "primary=%s", primary ? primary : "");
	if (!mkdtemp(dir)) {
		CHECK(0, "%s: a temporary directory", name);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/bench.json", dir);
	if (fakebench_write(path, n, kv, err, sizeof err) == 0 &&
	    rf_load(path, &d, err, sizeof err) != ST_OK)
		d = NULL;
	CHECK(d && d->nrounds == 14, "%s: written by the engine with the fake runner, loaded, 14 "
	                             "rounds%s%s", name, d ? "" : ": ", d ? "" : err);
	unlink(path);
	rmdir(dir);
	return d;
}

static size_t count_family(const struct cmp_report *r, enum cmp_family f)
{
	size_t n = 0;

	for (size_t i = 0; r && i < r->nrows; i++)
		n += r->rows[i].family == f;
	return n;
}

/* The log ratios of a row of the document (candidate against system, regime, workload, phase),
 * as compare pairs them. */
static size_t ratios(const struct rf_doc *d, const struct cmp_row *row, double *out)
{
	int c = rf_arm(d, row->candidate), b = rf_arm(d, "system");
	int w = rf_workload(d, row->workload);
	int p = rf_phase(&d->wl[w], row->phase);
	size_t n = 0;

	for (size_t i = 0; i < d->nrounds; i++) {
		const struct rf_run *rb = rf_run(d, i, (size_t)b, (size_t)w);
		const struct rf_run *rc = rf_run(d, i, (size_t)c, (size_t)w);
		out[n++] = stats_log_ratio(rc->t_regime[row->regime][p], rb->t_regime[row->regime][p]);
	}
	return n;
}

static void test_default_families(void)
{
	struct rf_doc *d = two_regimes_doc(NULL, "families");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	int ok_primary = 1, ok_levels = 1, ok_p = 1;
	double v[64];

	CHECK(r && r->nrows == 16, "families: 16 comparisons (%zu)", r ? r->nrows : 0);
	if (!r)
		goto out;
	CHECK(count_family(r, CMP_FAMILY_PRIMARY) == 4 && count_family(r, CMP_FAMILY_SECONDARY) == 12,
	      "families: 4 primary (the steady totals), 12 secondary");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		int want = row->workload && strcmp(row->phase, "total") == 0 &&
		           row->regime == RF_STEADY;
		ok_primary &= (row->family == CMP_FAMILY_PRIMARY) == want;
	}
	CHECK(ok_primary, "families: a row is primary exactly when it is a workload's steady total");
	CHECK(r->fam[CMP_FAMILY_PRIMARY].m == 4 && r->family == 4 &&
	          fabs(r->fam[CMP_FAMILY_PRIMARY].conf - (1 - 0.05 / 4)) < 1e-12 &&
	          fabs(r->family_conf - 0.9875) < 1e-12,
	      "families: the primary family of 4 at 1 - 0.05/4 = 98.75%%");
	CHECK(r->fam[CMP_FAMILY_SECONDARY].m == 12 &&
	          fabs(r->fam[CMP_FAMILY_SECONDARY].conf - (1 - 0.05 / 12)) < 1e-12,
	      "families: the secondary family of 12 at 1 - 0.05/12");
	CHECK(r->fam[CMP_FAMILY_PRIMARY].need == 8 && r->fam[CMP_FAMILY_SECONDARY].need == 9 &&
	          r->need == 8,
	      "families: a primary verdict needs 8 rounds (2/2^8 <= 0.0125), a secondary 9 (%zu, %zu)",
	      r->fam[CMP_FAMILY_PRIMARY].need, r->fam[CMP_FAMILY_SECONDARY].need);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		struct stats_interval own, other;
		double lv = cmp_row_family_conf(r, row), m = (double)r->fam[row->family].m;
		double lo = r->fam[!row->family].conf;
		if (!row->workload)
			continue;
		size_t n = ratios(d, row, v);
		if (stats_hl_interval(v, n, lv, &own) != 0 || stats_hl_interval(v, n, lo, &other))
			ok_levels = 0;
		/* the printed interval is the one at its own family's level, not the other's */
		ok_levels &= own.lo == row->d.lo && own.hi == row->d.hi && own.level == row->d.level;
		ok_levels &= !(other.lo == row->d.lo && other.hi == row->d.hi);
		ok_p &= fabs(row->p_adj - fmin(1, m * row->p)) < 1e-12;
	}
	CHECK(ok_levels, "families: every workload row's interval is the signed-rank interval at "
	                 "its own family's level, and differs from the other family's");
	CHECK(ok_p, "families: p_bonferroni is min(1, m p) with m its own family's size");
	const struct cmp_row *geo = cmpdoc_row(r, NULL, "total", "a");
	CHECK(geo && geo->family == CMP_FAMILY_SECONDARY && geo->verdict == CMP_FASTER &&
	          geo->d.level >= r->fam[CMP_FAMILY_SECONDARY].conf - 1e-9,
	      "families: the geometric mean is secondary, decided at the secondary level");
out:
	cmp_free(r);
	rf_free(d);
}

/* A report of the primary rows asked for: their count, or (size_t)-1 when refused. */
static size_t primary_of(const struct rf_doc *d, const char *spec, const char *phase,
                         enum cmp_regimes regimes, struct cmp_report **out)
{
	struct cmp_primary p;
	struct cmp_opts o = cmpdoc_defaults;
	char err[256];

	o.phase = phase;
	o.regimes = regimes;
	if (spec) {
		if (cmp_primary_parse(spec, &p, err, sizeof err) != 0)
			return (size_t)-2;
		o.primary = &p;
	}
	*out = NULL;
	if (cmp_build(d, NULL, &o, out, err, sizeof err) != ST_OK)
		return (size_t)-1;
	return count_family(*out, CMP_FAMILY_PRIMARY);
}

static void test_asked(void)
{
	struct rf_doc *d = two_regimes_doc(NULL, "asked"),
	              *d2 = two_regimes_doc("read", "config.primary");
	struct cmp_report *r = NULL;
	struct cmp_primary p;
	char err[256];
	size_t n;
	int ok = 1;

	if (!d || !d2)
		goto out;
	n = primary_of(d, "all", NULL, CMP_REGIMES_BOTH, &r);
	CHECK(n == 16 && r->fam[CMP_FAMILY_SECONDARY].m == 0 && r->family == 16 &&
	          fabs(r->family_conf - (1 - 0.05 / 16)) < 1e-12,
	      "--primary all: one family of 16 at 1 - 0.05/16 (%zu)", n);
	cmp_free(r);
	n = primary_of(d, "read", NULL, CMP_REGIMES_BOTH, &r);
	for (size_t i = 0; r && i < r->nrows; i++)
		ok &= (r->rows[i].family == CMP_FAMILY_PRIMARY) ==
		      (strcmp(r->rows[i].phase, "read") == 0 && r->rows[i].regime == RF_STEADY);
	CHECK(n == 2 && ok && r->fam[CMP_FAMILY_SECONDARY].m == 14,
	      "--primary read: pipeline's steady read phase, 2 rows; 14 secondary (%zu)", n);
	cmp_free(r);
	n = primary_of(d, "total:cold", NULL, CMP_REGIMES_BOTH, &r);
	ok = 1;
	for (size_t i = 0; r && i < r->nrows; i++)
		ok &= (r->rows[i].family == CMP_FAMILY_PRIMARY) ==
		      (r->rows[i].workload && strcmp(r->rows[i].phase, "total") == 0 &&
		       r->rows[i].regime == RF_COLD);
	CHECK(n == 4 && ok, "--primary total:cold: the cold totals (%zu)", n);
	cmp_free(r);
	n = primary_of(d, NULL, NULL, CMP_REGIMES_COLD, &r);
	CHECK(n == 4 && r->rows[0].regime == RF_COLD && r->rows[0].family == CMP_FAMILY_PRIMARY,
	      "--regime cold: the cold totals are the question (%zu)", n);
	cmp_free(r);
	n = primary_of(d, NULL, "read", CMP_REGIMES_BOTH, &r);
	CHECK(n == 2 && r->nrows == 4, "--phase read: its steady rows primary, its cold ones not (%zu)",
	      n);
	cmp_free(r);
	n = primary_of(d, "epoch", NULL, CMP_REGIMES_BOTH, &r);
	CHECK(n == (size_t)-1 && !r, "--primary epoch: no such rows: refused");
	n = primary_of(d, "read", NULL, CMP_REGIMES_COLD, &r);
	CHECK(n == 2 && r->rows[0].regime == RF_COLD,
	      "--primary read with --regime cold: its cold rows (%zu)", n);
	cmp_free(r);
	n = primary_of(d, "read:steady", NULL, CMP_REGIMES_COLD, &r);
	CHECK(n == (size_t)-1, "--primary read:steady with --regime cold: refused");
	CHECK(cmp_primary_parse("total:warm", &p, err, sizeof err) != 0 && strstr(err, "cold or steady") &&
	          cmp_primary_parse("", &p, err, sizeof err) != 0 &&
	          cmp_primary_parse(":cold", &p, err, sizeof err) != 0,
	      "--primary: a regime that is not cold or steady, or no phase, is refused");
	n = primary_of(d2, NULL, NULL, CMP_REGIMES_BOTH, &r);
	CHECK(n == 2 && r && strcmp(r->primary.phase, "read") == 0,
	      "config.primary read (bench --primary): compare's default primary rows (%zu)", n);
	cmp_free(r);
	n = primary_of(d2, NULL, "total", CMP_REGIMES_BOTH, &r);
	CHECK(n == 4 && r && strcmp(r->primary.phase, "total") == 0,
	      "config.primary read with --phase total: the compared phase's rows instead (%zu)", n);
	cmp_free(r);
	n = primary_of(d2, "all", NULL, CMP_REGIMES_BOTH, &r);
	CHECK(n == 16, "--primary overrides config.primary (%zu)", n);
	cmp_free(r);
	n = primary_of(d2, NULL, NULL, CMP_REGIMES_COLD, &r);
	CHECK(n == 2 && r->rows[0].regime == RF_COLD,
	      "config.primary read with --regime cold: its cold rows (%zu)", n);
	cmp_free(r);
	{
		/* the bench refuses a --primary that no run times (e2e_phase_named.sh): a file that
		 * records one anyway (an older bench's, an edited one) is this document edited */
		struct rf_doc *d3 = two_regimes_doc(NULL, "config.primary epoch");
		int said = 0;
		r = NULL;
		if (d3)
			snprintf(d3->primary, sizeof d3->primary, "epoch:steady");
		n = d3 ? primary_of(d3, NULL, NULL, CMP_REGIMES_BOTH, &r) : 0;
		CHECK(n == 4 && r && strcmp(r->primary.phase, "total") == 0 && r->primary.regime < 0,
		      "config.primary naming rows the report lacks: the default's primary rows, not "
		      "a refusal (%zu)",
		      n);
		for (size_t i = 0; r && i < r->nwarn; i++)
			said |= strstr(r->warn[i], "its primary (bench --primary epoch:steady) is "
			                           "missing: no run times a phase 'epoch'") != NULL;
		CHECK(said, "config.primary naming a phase no run times: the report says the primary is "
		            "missing");
		cmp_free(r);
		rf_free(d3);
	}
out:
	rf_free(d);
	rf_free(d2);
}

/* A sequential plan: each row's sequential interval is at its own family's level. */
static void test_sequential(void)
{
	struct rf_doc *d = two_regimes_doc(NULL, "sequential");
	struct stats_seq_plan plan = {.planned = 40, .first_look = 6};
	struct cmp_opts o = cmpdoc_defaults;
	struct cmp_report *r = NULL;
	int ok = 1;
	double v[64];

	o.seq = &plan;
	o.equivalence = 2;
	r = d ? cmpdoc_build(d, NULL, &o) : NULL;
	for (size_t i = 0; r && i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		struct stats_interval iv;
		double asked;
		if (!row->workload)
			continue;
		size_t n = ratios(d, row, v);
		ok &= stats_seq_interval(v, n, &plan, 1 - cmp_row_family_conf(r, row), &iv, &asked) ==
		          0 &&
		      row->has_seq && iv.lo == row->d_seq.lo && iv.hi == row->d_seq.hi &&
		      asked == row->seq_asked;
	}
	CHECK(r && ok, "sequential: each row's sequential interval at its own family's level");
	const struct cmp_row *p = cmpdoc_row(r, "parquet_load", "total", "a");
	const struct cmp_row *s = NULL;
	for (size_t i = 0; r && i < r->nrows; i++)
		if (r->rows[i].workload && !strcmp(r->rows[i].workload, "parquet_load") &&
		    !strcmp(r->rows[i].candidate, "a") && r->rows[i].regime == RF_COLD)
			s = &r->rows[i];
	CHECK(p && s && p->family == CMP_FAMILY_PRIMARY && s->family == CMP_FAMILY_SECONDARY &&
	          p->seq_asked < s->seq_asked,
	      "sequential: the primary row's look asks less than its secondary twin (%g < %g)",
	      p ? p->seq_asked : NAN, s ? s->seq_asked : NAN);
	cmp_free(r);
	rf_free(d);
}

/* The formats say which family a row is in. */
static void test_formats(void)
{
	struct rf_doc *d = two_regimes_doc(NULL, "formats");
	struct cmp_report *r = d ? cmpdoc_build(d, NULL, &cmpdoc_defaults) : NULL;
	char *table = r ? cmpdoc_render(r, "table") : NULL,
	     *md = r ? cmpdoc_render(r, "markdown") : NULL;
	char *json = r ? cmpdoc_render(r, "json") : NULL, *csv = r ? cmpdoc_render(r, "csv") : NULL;
	cJSON *j = json ? cJSON_Parse(json) : NULL, *c;
	const char *prim = table ? strstr(table, "\nprimary comparisons, the question") : NULL;
	const char *sec = table ? strstr(table, "\nsecondary comparisons, a family of their own: 12") : NULL;
	size_t np = 0, ns = 0;
	int ok = 1;
	char *head = prim && sec ? strndup(prim, (size_t)(sec - prim)) : NULL;

	CHECK(prim && sec && prim < sec && strstr(prim, "98.75% (each at 1 - 0.05/4"),
	      "table: a primary table (4 at 98.75%%) before the secondary one (12)");
	CHECK(head && strstr(head, "parquet_load  total") && strstr(head, "pipeline      total") &&
	          !strstr(head, "read ") && !strstr(head, "geomean") && strstr(sec, "geomean") &&
	          strstr(sec, "pipeline      read") &&
	          strstr(sec, "(primary: see there)"),
	      "table: the steady totals in the primary table, pipeline's phase and the geometric "
	      "means in the secondary one, the totals' steady cells pointing to the primary table");
	CHECK(md && strstr(md, "#### Primary comparisons") && strstr(md, "#### Secondary comparisons"),
	      "markdown: a heading per family");
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "comparisons"))
	{
		const char *f = cJSON_GetStringValue(cJSON_GetObjectItem(c, "family"));
		double lv = cJSON_GetNumberValue(cJSON_GetObjectItem(c, "family_level"));
		int primary = f && !strcmp(f, "primary");
		np += primary;
		ns += f && !strcmp(f, "secondary");
		ok &= fabs(lv - (primary ? 1 - 0.05 / 4 : 1 - 0.05 / 12)) < 1e-12;
		ok &= cJSON_GetNumberValue(cJSON_GetObjectItem(
		          cJSON_GetObjectItem(c, "ci"), "level")) >= lv - 1e-9 ||
		      strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict")),
		             "too few rounds for a verdict") == 0;
	}
	CHECK(j && np == 4 && ns == 12 && ok,
	      "json: each comparison's family and family_level, its ci at that level (%zu, %zu)", np,
	      ns);
	CHECK(j && cJSON_GetNumberValue(cJSON_GetObjectItem(
	               cJSON_GetObjectItem(cJSON_GetObjectItem(j, "families"), "secondary"),
	               "size")) == 12 &&
	          cJSON_GetNumberValue(cJSON_GetObjectItem(j, "family_size")) == 4,
	      "json: families.secondary.size 12, family_size the primary 4");
	CHECK(csv && strstr(csv, ",family_level,family,family_size,") &&
	          strstr(csv, "\nparquet_load,total,steady,a,system,") &&
	          strstr(csv, ",0.9875,primary,4,") && strstr(csv, ",secondary,12,"),
	      "csv: the family and its size beside each row's family level");
	free(head);
	free(table);
	free(md);
	free(json);
	free(csv);
	cJSON_Delete(j);
	cmp_free(r);
	rf_free(d);
}

/* The gate's family is its own gated comparisons, whatever compare's primary rows are. */
static void test_gate_family(void)
{
	struct rf_doc *d = two_regimes_doc("all", "gate");
	struct gate_spec g;
	enum gate_outcome v = GATE_INCONCLUSIVE;
	char *buf = NULL, err[256] = "";
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	gate_spec_init(&g);
	g.candidate = "a";
	g.pct = 5;
	if (d && m)
		CHECK(gate_spec_judge(&g, d, m, &v, err, sizeof err) == 0, "gate: judged (%s)", err);
	if (m)
		fclose(m);
	CHECK(buf && v == GATE_PASS && strstr(buf, "(97.5%, Bonferroni over 2)") &&
	          strstr(buf, "2 pass, 0 fail"),
	      "gate: its FAIL side at 1 - 0.05/2 over its 2 gated comparisons, not compare's 16 "
	      "(config.primary all) nor its 4 primary rows");
	free(buf);
	rf_free(d);
}

/* Adaptive allocation: a secondary row never holds a cell; an undecided primary row holds its
 * candidate's and its baseline's cell of its workload. */
struct only {
	const char *undecided_wl, *undecided_cand; /* NULL: every primary row decided */
	int secondary_undecided;                   /* every secondary row undecided */
};

static int only_decided(void *ctx, const struct cmp_row *row)
{
	const struct only *o = ctx;

	if (row->family == CMP_FAMILY_SECONDARY)
		return !o->secondary_undecided;
	return !(o->undecided_wl && row->workload && !strcmp(row->workload, o->undecided_wl) &&
	         !strcmp(row->candidate, o->undecided_cand));
}

static void test_allocation(void)
{
	struct rf_doc *d = two_regimes_doc(NULL, "allocation");
	struct only o = {NULL, NULL, 1};
	struct bench_rule rule = {"test", only_decided, &o};
	struct bench_alloc a;
	unsigned char need[6];
	char err[256] = "";
	int rc;

	bench_alloc_by_rule(&a, &rule);
	memset(need, 1, sizeof need);
	rc = d ? a.update(a.ctx, d, need, 6, err, sizeof err) : -1;
	CHECK(rc == 0 && memchr(need, 1, 6) == NULL,
	      "allocation: every primary row decided, every secondary undecided: no cell left (%s)",
	      err);
	o = (struct only){"pipeline", "b", 1};
	memset(need, 1, sizeof need);
	rc = d ? a.update(a.ctx, d, need, 6, err, sizeof err) : -1;
	/* cells: arm * nwl + w, arms system, a, b; workloads parquet_load, pipeline */
	CHECK(rc == 0 && need[1] && need[5] && !need[0] && !need[2] && !need[3] && !need[4],
	      "allocation: the undecided primary pipeline/b keeps b's and system's pipeline cells, "
	      "and only those");
	rf_free(d);
}

static void test_bench_comparisons(void)
{
	struct bench_arm drivers[4], programs[4];
	struct bench_config c = {.arms = drivers, .narms = 4, .nwl = 5, .reps = 0};
	const size_t shown[5] = {1, 1, 1, 5, 1}; /* pipeline: its total and 4 phases */

	for (size_t i = 0; i < 4; i++) {
		drivers[i] = (struct bench_arm){.kind = &arm_kind_driver};
		programs[i] = (struct bench_arm){.kind = &arm_kind_program};
	}

	CHECK(bench_comparisons(&c, shown) == 15,
	      "bench_comparisons: 3 candidates x 5 workloads, one regime: the primary family of 15");
	c.primary = "all";
	CHECK(bench_comparisons(&c, shown) == 60,
	      "bench_comparisons: --primary all: every default comparison, 60");
	c = (struct bench_config){.arms = programs, .narms = 4, .nwl = 1, .primary = "epoch"};
	CHECK(bench_comparisons(&c, NULL) == 3,
	      "bench_comparisons: a program bench of 3 candidates, --primary epoch: 3");
	c.narms = 1;
	CHECK(bench_comparisons(&c, NULL) == 0, "bench_comparisons: one arm compares nothing");
}

int main(void)
{
	test_default_families();
	test_asked();
	test_sequential();
	test_formats();
	test_gate_family();
	test_allocation();
	test_bench_comparisons();
	return CHECK_DONE();
}
