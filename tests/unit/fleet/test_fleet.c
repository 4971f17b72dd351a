/* test_fleet.c - fleet_build (front/fleet/fleet.h) on machines the engine writes with the fake
 * runner, their runs at set times: labels,
 * the per-machine estimates and standard errors taken from each file's own paired comparison,
 * the pooled figures against stats_meta_re on them, an odd machine named, machines that lack an
 * arm, a workload or rounds, or did other work, kept with their reason and never pooled, a busy
 * machine flagged from its telemetry, and the refusals. No timing anywhere. */
#include "check.h"
#include "fakebench.h"

#include "common/status.h"
#include "front/fleet/fleet.h"
#include "front/results/results.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NROUNDS 12

/* The per-round noise of the log ratios, the same shape on every machine (scaled). */
static const double wiggle[NROUNDS] = {0.010,  -0.020, 0.015, -0.005, 0.000, 0.020,
                                       -0.010, 0.005,  -0.015, 0.012, -0.008, 0.004};

struct machine_spec {
	const char *label;    /* NULL: none in the file */
	const char *arms;     /* "system,mimalloc" */
	const char *wls;      /* "parquet_load,pipeline" */
	double effect;        /* ln(t_mimalloc / t_system) */
	double noise;         /* scale of wiggle */
	int rows;             /* params.rows of every workload (100 unless set) */
	int runnable;         /* telemetry.runnable of every run (0: 1) */
	int rounds;           /* measured rounds (0: NROUNDS) */
	const char *boot;     /* task.boot_id, or NULL */
};

/* Round m: workload w's base time 1e8 (w + 1) (1 + 0.05 (m mod 3)), system's; every other arm
 * exp(effect + noise x wiggle) times it. */
static void machine_run(void *ctx, long m, int a, size_t w, struct runner_result *r,
                        uint64_t *steal)
{
	const struct machine_spec *s = ctx;
	double base = 1e8 * (double)(w + 1) * (1 + 0.05 * (double)(m % 3));

	(void)steal;
	r->wall_ns =
	    (int64_t)round(a == 0 ? base : base * exp(s->effect + s->noise * wiggle[m % NROUNDS]));
}

/* Every workload has the one phase total; rows: params.rows and another checksum. */
static void machine_record(void *ctx, long m, int a, size_t w, cJSON *rec)
{
	const struct machine_spec *s = ctx;
	cJSON *wl = cJSON_GetObjectItem(rec, "workload"), *rep;

	(void)m;
	(void)a;
	(void)w;
	cJSON_DeleteItemFromObject(wl, "flags");
	cJSON_ReplaceItemInObject(rec, "phases",
	                          cJSON_CreateStringArray((const char *[]){"total"}, 1));
	cJSON_ArrayForEach(rep, cJSON_GetObjectItem(rec, "reps"))
	    cJSON_DeleteItemFromObject(cJSON_GetObjectItem(rep, "phases"), "read");
	if (s->rows) {
		cJSON_ReplaceItemInObject(cJSON_GetObjectItem(wl, "params"), "rows",
		                          cJSON_CreateNumber(s->rows));
		cJSON_ReplaceItemInObject(rec, "checksum", cJSON_CreateString("00000000000000bb"));
	}
}

/* A machine's results, written by the engine with the fake runner (tests/unit/fakebench.h, drivers
 * mode, the arms' order the spec's: system first), loaded as path. */
static struct rf_doc *machine(const struct machine_spec *s, const char *path)
{
	char dir[] = "/tmp/allocab-fleet-XXXXXX", file[64], err[512] = "";
	char kv[7][300], *kvp[7];
	struct fakebench_hooks h = {.ctx = (void *)s, .run = machine_run, .record = machine_record};
	struct rf_doc *doc = NULL;
	cJSON *d = NULL;
	struct rf_file info;
	enum jl_why why;
	char arms[256];
	int n = 0;

	snprintf(arms, sizeof arms, "%s", s->arms);
	snprintf(kv[n++], sizeof kv[0], "mode=drivers");
	snprintf(kv[n], sizeof kv[0], "arms=");
	for (char *save = NULL, *tok = strtok_r(arms, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		snprintf(kv[n] + strlen(kv[n]), sizeof kv[0] - strlen(kv[n]), "%s%s=1",
		         kv[n][5] ? "," : "", tok);
	n++;
	snprintf(kv[n++], sizeof kv[0], "wls=%s", s->wls);
	snprintf(kv[n++], sizeof kv[0], "rounds=%d", s->rounds ? s->rounds : NROUNDS);
	snprintf(kv[n++], sizeof kv[0], "warmup=0");
	snprintf(kv[n++], sizeof kv[0], "runnable=%d", s->runnable ? s->runnable : 1);
	snprintf(kv[n++], sizeof kv[0], "load=%g", s->runnable > 1 ? 2.1 : 0.9);
	for (int i = 0; i < n; i++)
		kvp[i] = kv[i];
	char label[160], boot[80];
	char *kvl[9];
	memcpy(kvl, kvp, sizeof kvp);
	if (s->label) {
		snprintf(label, sizeof label, "label=%s", s->label);
		kvl[n++] = label;
		if (s->boot) {
			snprintf(boot, sizeof boot, "boot=%s", s->boot);
			kvl[n++] = boot;
		}
	}
	if (!mkdtemp(dir)) {
		CHECK(0, "machine %s: a temporary directory", path);
		return NULL;
	}
	snprintf(file, sizeof file, "%s/bench.json", dir);
	if (fakebench_write_hooks(file, n, kvl, &h, err, sizeof err) == 0 &&
	    rf_bench_read(file, &d, &info, &why, err, sizeof err) == 0) {
		cJSON_Delete(info.disk);
		doc = rf_from_json(d, path, err, sizeof err);
	}
	CHECK(doc != NULL, "machine %s written by the engine with the fake runner and loaded%s%s",
	      path, doc ? "" : ": ", doc ? "" : err);
	cJSON_Delete(d);
	unlink(file);
	rmdir(dir);
	return doc;
}

static const struct cmp_opts opts = {.conf = 0.95, .regimes = CMP_REGIMES_BOTH};

static struct fleet_report *fleet_of(const struct machine_spec *s, size_t n, struct rf_doc **d,
                                     const struct cmp_opts *o, int *rc, char *err, size_t len)
{
	struct fleet_report *f = NULL;

	for (size_t i = 0; i < n; i++) {
		char path[64];
		snprintf(path, sizeof path, "results/m%zu.json", i + 1);
		d[i] = machine(&s[i], path);
	}
	*rc = fleet_build(d, n, o ? o : &opts, &f, err, len);
	return f;
}

static void free_docs(struct rf_doc **d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rf_free(d[i]);
}

static const struct fleet_row *find(const struct fleet_report *f, const char *wl)
{
	for (size_t i = 0; i < f->nrows; i++)
		if (wl ? f->rows[i].workload && strcmp(f->rows[i].workload, wl) == 0
		       : !f->rows[i].workload)
			return &f->rows[i];
	return NULL;
}

/* Four agreeing machines and one whose effect is 0.15 apart: pooled as stats_meta_re pools the
 * machines' own Hodges-Lehmann estimates and rank-interval standard errors; the odd one named. */
static void test_pooled_and_odd(void)
{
	struct machine_spec s[5] = {
	    {"a", "system,mimalloc", "parquet_load,pipeline", -0.10, 1, 0, 0, 0, NULL},
	    {"b", "system,mimalloc", "parquet_load,pipeline", -0.09, 1.2, 0, 0, 0, NULL},
	    {"c", "system,mimalloc", "parquet_load,pipeline", -0.11, 0.8, 0, 0, 0, NULL},
	    {"d", "system,mimalloc", "parquet_load,pipeline", -0.10, 1.5, 0, 0, 0, NULL},
	    {"odd", "system,mimalloc", "parquet_load,pipeline", 0.05, 1, 0, 0, 0, NULL},
	};
	struct rf_doc *d[5];
	char err[512] = "";
	int rc;
	struct fleet_report *f = fleet_of(s, 5, d, NULL, &rc, err, sizeof err);
	const struct fleet_row *row = f ? find(f, "parquet_load") : NULL;
	double y[5], se[5];
	struct stats_meta m;

	CHECK(rc == ST_OK && f && f->nm == 5, "fleet of five builds%s%s", err[0] ? ": " : "", err);
	if (!row)
		return;
	CHECK(strcmp(f->m[4].label, "odd") == 0, "labels come from task.label");
	CHECK(f->rows[f->nrows - 1].workload == NULL, "the geometric means come last");
	for (size_t i = 0; i < 5; i++) {
		const struct cmp_row *r = row->cells[i].row;
		y[i] = r->d.est;
		se[i] = stats_interval_se(r->d_each.lo, r->d_each.hi, r->d_each.level);
		CHECK(row->cells[i].pooled && row->cells[i].y == y[i] && row->cells[i].se == se[i] &&
		          se[i] == fleet_row_se(r) && r->d_each.level < r->d.level,
		      "machine %zu: its own Hodges-Lehmann estimate, and the se of its rank interval at "
		      "the fleet's level, not at compare's family level", i + 1);
	}
	CHECK(stats_meta_re(y, se, 5, 0.95, &m) == 0 && row->has_meta && row->npooled == 5 &&
	          row->meta.mu == m.mu && row->meta.lo == m.lo && row->meta.hi == m.hi &&
	          row->meta.tau2 == m.tau2 && row->meta.pi_lo == m.pi_lo,
	      "pooled figures are stats_meta_re of the machines' own");
	CHECK(row->cells[4].odd && row->nodd == 1, "the odd machine is named (deleted residual %.1f, "
	      "bound %.2f), and only it", row->cells[4].resid, row->odd_bound);
	CHECK(row->cells[4].excludes, "the odd machine's interval excludes the pooled estimate");
	CHECK(row->meta.i2 > 0.9, "I^2 shows the heterogeneity (%.2f)", row->meta.i2);
	double lo, hi;
	CHECK(fleet_pooled_at(row, 0.99, &lo, &hi) == 0 && lo < row->meta.lo && hi > row->meta.hi,
	      "pooled interval at 99%% is wider");
	fleet_free(f);
	free_docs(d, 5);
}

/* A machine without the candidate arm, one without a workload (its geometric mean lacks it), one
 * that ran other parameters, and one with too few rounds: each kept with its reason, unpooled. */
static void test_missing(void)
{
	struct machine_spec s[5] = {
	    {"a", "system,mimalloc,jemalloc", "parquet_load,pipeline", -0.10, 1, 0, 0, 0, NULL},
	    {"b", "system,mimalloc,jemalloc", "parquet_load,pipeline", -0.09, 1, 0, 0, 0, NULL},
	    {"noje", "system,mimalloc", "parquet_load,pipeline", -0.10, 1, 0, 0, 0, NULL},
	    {"nopipe", "system,mimalloc,jemalloc", "parquet_load", -0.10, 1, 0, 0, 0, NULL},
	    {"other", "system,mimalloc,jemalloc", "parquet_load,pipeline", -0.10, 1, 7, 0, 0, NULL},
	};
	struct rf_doc *d[5];
	char err[512] = "";
	int rc;
	struct fleet_report *f = fleet_of(s, 5, d, NULL, &rc, err, sizeof err);
	const struct fleet_row *pipe = NULL, *geo = NULL, *je = NULL;

	CHECK(rc == ST_OK && f, "fleet with gaps builds%s%s", err[0] ? ": " : "", err);
	if (!f)
		return;
	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *r = &f->rows[i];
		if (r->regime != RF_COLD)
			continue;
		if (r->workload && !strcmp(r->workload, "pipeline") && !strcmp(r->candidate, "mimalloc"))
			pipe = r;
		if (!r->workload && !strcmp(r->candidate, "mimalloc"))
			geo = r;
		if (r->workload && !strcmp(r->workload, "parquet_load") &&
		    !strcmp(r->candidate, "jemalloc"))
			je = r;
	}
	CHECK(je && !je->cells[2].pooled && !je->cells[2].row &&
	          strcmp(je->cells[2].why, "no arm 'jemalloc'") == 0,
	      "a machine without the arm: '%s'", je ? je->cells[2].why : "?");
	CHECK(pipe && !pipe->cells[3].pooled && strcmp(pipe->cells[3].why, "no workload 'pipeline'") == 0,
	      "a machine without the workload: '%s'", pipe ? pipe->cells[3].why : "?");
	CHECK(geo && !geo->cells[3].pooled && strstr(geo->cells[3].why, "no geometric mean"),
	      "its geometric mean is not pooled: '%s'", geo ? geo->cells[3].why : "?");
	CHECK(pipe && !pipe->cells[4].pooled && strstr(pipe->cells[4].why, "did other work than on a"),
	      "a machine that did other work: '%s'", pipe ? pipe->cells[4].why : "?");
	CHECK(geo && !geo->cells[4].pooled && strstr(geo->cells[4].why, "did other work"),
	      "its geometric mean is not pooled either: '%s'", geo ? geo->cells[4].why : "?");
	CHECK(pipe && pipe->npooled == 3 && pipe->has_meta, "the others are pooled (%zu)",
	      pipe ? pipe->npooled : 0);
	int said = 0;
	for (size_t i = 0; i < f->nwarn; i++)
		said |= strstr(f->warn[i], "not pooled") != NULL;
	CHECK(said, "a warning says comparisons were not pooled");
	fleet_free(f);
	free_docs(d, 5);
}

static void test_busy_and_refusals(void)
{
	struct machine_spec s[3] = {
	    {"a", "system,mimalloc", "parquet_load", -0.10, 1, 0, 0, 0, NULL},
	    {"hog", "system,mimalloc", "parquet_load", -0.10, 1, 0, 2, 0, NULL},
	    {"few", "system,mimalloc", "parquet_load", -0.10, 1, 0, 0, 1, NULL},
	};
	struct machine_spec twins[2] = {
	    {"same", "system,mimalloc", "parquet_load", -0.10, 1, 0, 0, 0, NULL},
	    {"same", "system,mimalloc", "parquet_load", -0.10, 1, 0, 0, 0, NULL},
	};
	struct machine_spec unlabelled[2] = {
	    {NULL, "system,mimalloc", "parquet_load", -0.10, 1, 0, 0, 0, NULL},
	    {NULL, "system,mimalloc", "parquet_load", -0.10, 1, 0, 0, 0, NULL},
	};
	struct rf_doc *d[3];
	struct cmp_opts boot = opts;
	char err[512] = "";
	int rc;
	struct fleet_report *f = fleet_of(s, 3, d, NULL, &rc, err, sizeof err);
	const struct fleet_row *row = f ? find(f, "parquet_load") : NULL;
	int warned = 0;

	CHECK(f && f->m[1].busy && !f->m[0].busy && f->m[1].busy_share == 1 && f->m[1].others == 1,
	      "a machine with another task runnable before every run is busy");
	for (size_t i = 0; f && i < f->nwarn; i++)
		warned |= strncmp(f->warn[i], "WARNING: hog was busy", 21) == 0;
	CHECK(warned, "and a WARNING line says so");
	CHECK(row && !row->cells[2].pooled && strstr(row->cells[2].why, "insufficient data"),
	      "one round is insufficient data: '%s'", row ? row->cells[2].why : "?");
	CHECK(row && row->npooled == 2 && row->has_meta && isnan(row->meta.pi_lo) &&
	          isnan(row->odd_bound) && row->nodd == 0,
	      "two machines pooled: no prediction interval, no machine named odd");
	fleet_free(f);
	free_docs(d, 3);

	f = fleet_of(twins, 2, d, NULL, &rc, err, sizeof err);
	CHECK(rc == ST_USAGE && !f && strstr(err, "both name their machine 'same'"),
	      "two files with one label are refused: %s", err);
	free_docs(d, 2);
	f = fleet_of(unlabelled, 2, d, NULL, &rc, err, sizeof err);
	CHECK(rc == ST_OK && f && !strcmp(f->m[0].label, "m1") && !strcmp(f->m[1].label, "m2"),
	      "without task.label the file name is the label");
	fleet_free(f);
	free_docs(d, 2);
	boot.bootstrap = 10000;
	f = fleet_of(unlabelled, 2, d, &boot, &rc, err, sizeof err);
	CHECK(rc == ST_USAGE && !f && strstr(err, "--bootstrap"), "a bootstrap is refused: %s", err);
	free_docs(d, 2);
	f = fleet_of(unlabelled, 1, d, NULL, &rc, err, sizeof err);
	CHECK(rc == ST_USAGE && !f, "one file is not a fleet: %s", err);
	free_docs(d, 1);
}

/* Two sessions of machine x (one boot id) and machines y and z: x enters as the random-effects
 * pool of its sessions (its mean, and the DerSimonian-Laird se that holds their spread), the
 * fleet is pooled over 3 units; a copy of y counts once; the sessions of one machine alone are
 * the units. */
static void test_sessions_and_copies(void)
{
	struct machine_spec s[5] = {
	    {"x1", "system,mimalloc", "parquet_load", -0.10, 1, 0, 0, 0, "aa"},
	    {"x2", "system,mimalloc", "parquet_load", -0.02, 1.3, 0, 0, 0, "aa"},
	    {"y", "system,mimalloc", "parquet_load", -0.08, 0.9, 0, 0, 0, "bb"},
	    {"z", "system,mimalloc", "parquet_load", -0.12, 1.1, 0, 0, 0, "cc"},
	    {"ycopy", "system,mimalloc", "parquet_load", -0.08, 0.9, 0, 0, 0, "dd"},
	};
	struct rf_doc *d[5];
	char err[512] = "";
	int rc;
	struct fleet_report *f = fleet_of(s, 5, d, NULL, &rc, err, sizeof err);
	const struct fleet_row *row = f ? find(f, "parquet_load") : NULL;
	struct stats_meta x, all;
	double y[3], se[3];

	CHECK(rc == ST_OK && row && f->nunits == 3, "sessions: 5 files are 3 machines (%zu)",
	      f ? f->nunits : 0);
	if (!row)
		return;
	CHECK(f->m[1].unit == 0 && f->m[0].nsessions == 2 && f->m[4].copy_of == 2 &&
	          row->cells[4].copy && !row->cells[4].pooled,
	      "sessions: x2 is a session of x1, ycopy a copy of y");
	CHECK(row->npooled == 4 && row->nunits == 3 && row->meta.k == 3 && !row->sessions_of,
	      "sessions: 4 files pooled as 3 units");
	CHECK(stats_meta_re((double[]){row->cells[0].y, row->cells[1].y},
	                    (double[]){row->cells[0].se, row->cells[1].se}, 2, 0.95, &x) == 0,
	      "sessions: x's sessions pool");
	y[0] = x.mu, se[0] = x.se_dl;
	y[1] = row->cells[2].y, se[1] = row->cells[2].se;
	y[2] = row->cells[3].y, se[2] = row->cells[3].se;
	CHECK(stats_meta_re(y, se, 3, 0.95, &all) == 0 && all.mu == row->meta.mu &&
	          all.lo == row->meta.lo && all.tau2 == row->meta.tau2,
	      "sessions: the fleet pools x's session pool (mean, DL se) with y and z");
	CHECK(f->rows[0].ex.tau2_plain == row->meta.tau2 || row != &f->rows[0],
	      "explain: the plain tau^2 is the pooled row's");
	fleet_free(f);
	free_docs(d, 5);
	f = fleet_of(s, 2, d, NULL, &rc, err, sizeof err);
	row = f ? find(f, "parquet_load") : NULL;
	CHECK(row && row->sessions_of && !strcmp(row->sessions_of, "x1") && row->nunits == 2 &&
	          row->has_meta,
	      "sessions: two sessions of one machine alone are the units, named");
	fleet_free(f);
	free_docs(d, 2);
}

int main(void)
{
	test_sessions_and_copies();
	test_pooled_and_odd();
	test_missing();
	test_busy_and_refusals();
	return CHECK_DONE();
}
