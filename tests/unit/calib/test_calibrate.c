/* test_calibrate.c - the calibration's computations on fixed data with hand-checked values: the
 * minimum detectable effect and the rounds an effect needs, the A/A verdict and its blocks, drift
 * (Spearman and Theil-Sen) and the calibration file round trip. */
#include "front/calib/calib.h"
#include "front/compare/compare.h"
#include "check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_mde(void)
{
	/* z(0.975) + z(0.8) = 2.801585; 0.1 x 2.801585 / sqrt(20 x 3/pi) = 0.0641067. */
	CHECK_NEAR(calib_mde_pct(0.1, 20, 0.05, 0.8), 6.620611, 1e-4, "MDE of sd 0.1, 20 rounds");
	CHECK_NEAR(calib_mde_pct(0.2, 80, 0.05, 0.8), 6.620611, 1e-4,
	           "four times the rounds offset twice the sd");
	CHECK_NEAR(calib_mde_pct(0, 20, 0.05, 0.8), 0, 1e-12, "no noise, no MDE");
	CHECK(isinf(calib_mde_pct(0.1, 5, 0.05, 0.8)),
	      "5 rounds cannot reach alpha 0.05 with a signed-rank test: MDE infinite");
	CHECK(isfinite(calib_mde_pct(0.1, 6, 0.05, 0.8)), "6 rounds can");
	/* ln 1.05 = 0.0487902; MDE(34) = 0.0491676 > it, MDE(35) = 0.0484601 <= it. */
	CHECK(calib_rounds_for(0.1, 5, 0.05, 0.8) == 35, "5%% at sd 0.1 needs 35 rounds (got %zu)",
	      calib_rounds_for(0.1, 5, 0.05, 0.8));
	CHECK(calib_rounds_for(0.001, 50, 0.05, 0.8) == 6,
	      "a huge effect still needs the 6 rounds a signed-rank test needs (got %zu)",
	      calib_rounds_for(0.001, 50, 0.05, 0.8));
	CHECK(calib_rounds_for(0.1, 0, 0.05, 0.8) == 0, "no rounds for a zero effect");
	CHECK_NEAR(calib_log(calib_pct(0.123)), 0.123, 1e-12, "percent and log ratio round trip");
	CHECK_NEAR(calib_pct(log(1.05)), 5, 1e-9, "ln 1.05 is 5%%");
}

static void test_noise(void)
{
	const double sym[] = {0.1, -0.1, 0.2, -0.2, 0.05, -0.05, 0.3, -0.3};
	const double pos[] = {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10};
	struct calib_noise n;

	CHECK(calib_noise(sym, 8, 0.05, &n) == 0, "noise of a symmetric sample");
	CHECK_NEAR(n.sd, 0.2017778, 1e-6, "sd");
	CHECK_NEAR(n.mad, 0.15 * 1.4826, 1e-6, "MAD x 1.4826");
	CHECK_NEAR(n.est.est, 0, 1e-12, "HL estimate 0");
	CHECK(!n.false_positive && n.p > 0.9, "no false positive (p = %g)", n.p);
	CHECK(calib_noise(pos, 10, 0.05, &n) == 0, "noise of 10 positive ratios");
	CHECK_NEAR(n.p, 2.0 / 1024, 1e-9, "exact signed-rank p of W+ = 55, n = 10");
	CHECK_NEAR(n.est.est, 0.055, 1e-12, "HL estimate of 0.01..0.10");
	CHECK(n.false_positive && n.est.lo > 0, "interval excludes 0: a false positive");
	CHECK(calib_noise(pos, 1, 0.05, &n) == -1, "one round is refused");
}

static void test_blocks(void)
{
	double d[25];
	struct calib_blocks b;
	const double sym[] = {0.1, -0.1, 0.2, -0.2, 0.05, -0.05, 0.3, -0.3, 0.01, -0.01};

	for (int i = 0; i < 10; i++)
		d[i] = 0.01 * (i + 1);
	for (int i = 0; i < 10; i++)
		d[10 + i] = sym[i];
	for (int i = 20; i < 25; i++)
		d[i] = 1;
	CHECK(calib_blocks(d, 25, 10, 0.05, &b) == 0, "blocks of 10");
	CHECK(b.count == 2 && b.rejected == 1 && b.size == 10,
	      "two whole blocks, the shifted one rejected (count %zu, rejected %zu)", b.count,
	      b.rejected);
	CHECK(calib_blocks(d, 5, 10, 0.05, &b) == 0 && b.count == 0, "fewer rounds than a block");
	CHECK(calib_blocks(d, 25, 1, 0.05, &b) == -1, "block of 1 refused");
}

static void test_drift(void)
{
	const double x[] = {1, 3, 2, 5, 4};
	double line[10];
	struct calib_drift dr;

	/* ranks differ by 0,1,1,1,1: rho = 1 - 6 x 4 / (5 x 24) = 0.8; t = 2.3094 with 3 df. */
	CHECK(calib_drift(x, 5, &dr) == 0, "drift of 1 3 2 5 4");
	CHECK_NEAR(dr.rho, 0.8, 1e-12, "Spearman rho");
	CHECK_NEAR(dr.p, 0.10409, 1e-4, "Spearman p (t approximation, 3 df)");
	CHECK_NEAR(dr.slope, 0.875, 1e-12, "Theil-Sen slope: median of the 10 pairwise slopes");
	for (int i = 0; i < 10; i++)
		line[i] = 2.5 - 0.25 * i;
	CHECK(calib_drift(line, 10, &dr) == 0, "drift of a falling line");
	CHECK_NEAR(dr.rho, -1, 1e-12, "rho -1");
	CHECK_NEAR(dr.slope, -0.25, 1e-12, "slope -0.25 per round");
	CHECK(calib_drift(line, 1, &dr) == -1, "one point refused");
}

static void test_file(void)
{
	char path[] = "/tmp/allocab-test-calib.XXXXXX", err[512];
	int absent;
	double d[12] = {0.01, -0.02, 0.03, 0.0, -0.01, 0.02, -0.03, 0.01, 0.02, -0.02, 0.0, 0.01};
	struct calib_result r = {.workload = "feature_extract",
	                         .phase = "total",
	                         .time = RF_TIME_CPU,
	                         .n = 12,
	                         .d = d,
	                         .median_a_ns = 1e8,
	                         .round_s = 0.3};
	struct calib_plan plan = {.alpha = 0.05,
	                          .power = 0.8,
	                          .block = 6,
	                          .for_rounds = {10},
	                          .effects = {5},
	                          .neffects = 1};
	cJSON *meta = cJSON_CreateObject(), *cfg = cJSON_AddObjectToObject(meta, "config"), *doc;
	struct calib_file *c;
	const struct calib_entry *e;
	char *text;
	int fd = mkstemp(path);
	FILE *f;

	calib_noise(d, 12, 0.05, &r.noise);
	calib_blocks(d, 12, 6, 0.05, &r.blocks);
	calib_drift(d, 12, &r.drift_ratio);
	calib_drift(d, 12, &r.drift_time);
	cJSON_AddStringToObject(meta, "backend", "system");
	cJSON_AddStringToObject(cfg, "scale", "small");
	cJSON_AddNumberToObject(cfg, "alpha", 0.05);
	cJSON_AddNumberToObject(cfg, "power", 0.8);
	doc = calib_json(&r, 1, &plan, 0.6, meta);
	CHECK(doc != NULL, "calibration document built");
	text = cJSON_Print(doc);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	c = calib_load(path, &absent, err, sizeof err);
	CHECK(c != NULL, "calibration file read back (%s)", c ? "ok" : err);
	e = c ? calib_find(c, "feature_extract", "total") : NULL;
	CHECK(e && e->rounds == 12 && fabs(e->sd - stats_sd(d, 12)) < 1e-12,
	      "its entry keeps rounds and sd");
	CHECK(e && e->time == RF_TIME_CPU, "its entry keeps the time it compared");
	CHECK(c && !calib_find(c, "feature_extract", "decode") && !calib_find(c, "x", "total"),
	      "unknown workload or phase: no entry");
	CHECK(c && strcmp(c->backend, "system") == 0 && strcmp(c->scale, "small") == 0 &&
	          c->alpha == 0.05,
	      "backend, scale and alpha");
	calib_file_free(c);
	calib_file_free(NULL);

	f = fopen(path, "w");
	fputs("{\"schema\": \"allocab-calibration/1\", \"backend\": \"system\", \"config\": "
	      "{\"scale\": \"small\", \"alpha\": 0.05, \"power\": 0.8}, \"workloads\": "
	      "[{\"workload\": \"w\", \"phase\": \"total\", \"time\": \"gpu\", \"rounds\": 10, "
	      "\"sd\": 0.1}]}",
	      f);
	fclose(f);
	CHECK(!calib_load(path, &absent, err, sizeof err) &&
	          strstr(err, "workloads[0]: time must be wall or cpu"),
	      "a time other than wall or cpu is refused: %s", err);
	f = fopen(path, "w");
	fputs("{\"schema\": \"allocab-bench/1\"}", f);
	fclose(f);
	CHECK(!calib_load(path, &absent, err, sizeof err) &&
	          strstr(err, "schema is not allocab-calibration/1"),
	      "another schema is refused: %s", err);
	f = fopen(path, "w");
	fputs("{\"schema\": \"allocab-calibration/1\", \"backend\": \"system\", \"config\": "
	      "{\"scale\": \"small\", \"alpha\": 0.05, \"power\": 0.8}, \"workloads\": "
	      "[{\"workload\": \"w\", \"phase\": \"total\", \"rounds\": 10, \"sd\": -1}]}",
	      f);
	fclose(f);
	CHECK(!calib_load(path, &absent, err, sizeof err) &&
	          strstr(err, "workloads[0]: sd must be"),
	      "a negative sd is refused: %s", err);
	f = fopen(path, "w");
	fputs("{\"schema\": \"allocab-calibration/1\", \"backend\": \"system\", \"config\": "
	      "{\"scale\": \"small\", \"alpha\": 0.05, \"power\": 0.8}, \"workloads\": "
	      "[{\"workload\": \"w\", \"phase\": \"total\", \"rounds\": 1}, "
	      "{\"workload\": \"v\", \"phase\": \"total\", \"rounds\": 8, \"sd\": 0.5}]}",
	      f);
	fclose(f);
	c = calib_load(path, &absent, err, sizeof err);
	CHECK(c && c->n == 1 && !calib_find(c, "w", "total") && calib_find(c, "v", "total"),
	      "a workload with too few rounds (no sd) is skipped, the others kept");
	calib_file_free(c);
	f = fopen(path, "w");
	fputs("{\"schema\": \"allocab-calibration/1\"", f);
	fclose(f);
	CHECK(!calib_load(path, &absent, err, sizeof err) && strstr(err, "truncated JSON"),
	      "truncated: %s", err);
	unlink(path);
	CHECK(!calib_load(path, &absent, err, sizeof err) && absent, "missing file: absent (%s)",
	      err);
	free(text);
	cJSON_Delete(doc);
	cJSON_Delete(meta);
}

/* 4,000 rounds hold 8 million pairs: the slope comes from a bounded sample of them. */
static void test_drift_many(void)
{
	size_t n = 4000;
	double *x = malloc(n * sizeof *x);
	struct calib_drift dr;

	for (size_t i = 0; x && i < n; i++)
		x[i] = 0.5 * (double)i + (i % 2 ? 0.25 : -0.25);
	CHECK(x && calib_drift(x, n, &dr) == 0, "drift of 4000 rounds");
	CHECK(x && fabs(dr.slope - 0.5) < 0.01, "sampled Theil-Sen slope of a noisy line: %g",
	      dr.slope);
	free(x);
}

/* Six processes of two reps each, cells 0 and 1 alternating in time; hand-checked values. */
static void test_vardecomp(void)
{
	const double mean[6] = {1, 2, 1.2, 2.2, 0.8, 1.8};
	double y[12];
	size_t start[7], cell[6], one[7];
	struct calib_var v;
	struct calib_var_input in = {y, start, cell, 6, 2};

	for (size_t p = 0; p < 6; p++) {
		y[2 * p] = mean[p] - 0.1;
		y[2 * p + 1] = mean[p] + 0.1;
		start[p] = 2 * p;
		cell[p] = p % 2;
		one[p] = p;
	}
	start[6] = 12;
	one[6] = 6;
	CHECK(calib_vardecomp(&in, &v) == 0, "decomposition of 6 processes");
	CHECK(v.nproc == 6 && v.nobs == 12, "6 processes, 12 reps");
	CHECK_NEAR(v.reps, 2, 1e-12, "two reps per process");
	/* residuals +-0.1: SS 0.12 over 6 df */
	CHECK_NEAR(v.within, 0.02, 1e-12, "within: pooled variance around process means");
	CHECK_NEAR(v.rep_rho, -0.5, 1e-12, "lag-1 autocorrelation of +-0.1 residuals");
	/* centred means 0 0 .2 .2 -.2 -.2: SS 0.16 over 6 - 2 df, less 0.02 / 2 */
	CHECK_NEAR(v.between, 0.03, 1e-12, "between: variance of centred process means");
	/* lag products 0 0 .04 -.04 .04 over 5 */
	CHECK_NEAR(v.moment, 0.008, 1e-12, "moment: lag-1 autocovariance in run order");
	CHECK_NEAR(v.process, 0.022, 1e-12, "process: the rest of between");
	CHECK_NEAR(calib_var_sample(&v, 2), 0.04, 1e-12, "a process of 2 reps: 0.03 + 0.02 / 2");
	CHECK_NEAR(calib_var_best_reps(&v, 1, 0.25), sqrt(0.02 / (0.03 * 0.25)), 1e-12,
	           "best reps: sqrt(within x process_s / (between x rep_s))");
	for (size_t p = 0; p < 6; p++)
		y[2 * p + 1] = y[2 * p] = 0.01 * (double)(p % 2);
	CHECK(calib_vardecomp(&in, &v) == 0 && v.between == 0 && v.moment == 0 &&
	          v.process == 0 && isnan(v.rep_rho),
	      "equal times: nothing between, no residual to correlate");
	y[0] = -1;
	y[1] = 1;
	CHECK(calib_vardecomp(&in, &v) == 0 && v.between == 0,
	      "between never goes below 0 when within / reps exceeds the spread of the means");
	in.start = one;
	CHECK(calib_vardecomp(&in, &v) == -1, "one rep per process: no within, refused");
	in.start = start;
	cell[5] = 2;
	CHECK(calib_vardecomp(&in, &v) == -1, "a cell out of range is refused");
	cell[5] = 1;
	y[3] = NAN;
	CHECK(calib_vardecomp(&in, &v) == -1, "a time that is not finite is refused");
	y[3] = 0;
	start[1] = 0;
	CHECK(calib_vardecomp(&in, &v) == -1, "a process without a rep is refused");
	start[1] = 2;
	in.nproc = 3;
	CHECK(calib_vardecomp(&in, &v) == -1, "3 processes of 2 cells leave no degree of freedom");
}

/* The budget's yield of one row: a 95% interval of +-0.1 around -0.05 from 12 rounds. */
static void test_yield(void)
{
	struct cmp_row row = {.usable = 1, .n = 12, .verdict = CMP_NO_DIFFERENCE};
	struct calib_yield y;
	double sd;

	row.d = (struct stats_interval){-0.05, -0.1, 0.1, 0.95};
	sd = calib_interval_sd(&row.d, 12);
	/* 0.1 x sqrt(12 x 3/pi) / 1.959964 */
	CHECK_NEAR(sd, 0.1 * sqrt(36 / M_PI) / 1.959964, 1e-6, "the sd a rank interval implies");
	CHECK(calib_yield(&row, 0.8, &y) == 0, "yield of a usable row");
	CHECK_NEAR(y.half_pct, expm1(0.1) * 100, 1e-9, "half-width now: 100 (exp((hi-lo)/2) - 1)");
	CHECK_NEAR(y.half2_pct, expm1(0.1 / sqrt(2)) * 100, 1e-6,
	           "twice the rounds: the half-width over sqrt 2");
	CHECK(!y.decided && y.for_verdict == calib_rounds_for(sd, -calib_pct(-0.05), 0.05, 0.8) &&
	          y.for_verdict > 12,
	      "rounds for a verdict at the interval's level if the estimate holds (%zu)",
	      y.for_verdict);
	row.verdict = CMP_FASTER;
	CHECK(calib_yield(&row, 0.8, &y) == 0 && y.decided && y.for_verdict == 0,
	      "a decided row needs no more rounds");
	row.verdict = CMP_NO_DIFFERENCE;
	row.has_seq = 1;
	row.seq_asked = 0.99;
	row.d_seq = (struct stats_interval){-0.05, -0.08, -0.02, 0.995};
	CHECK(calib_yield(&row, 0.8, &y) == 0 && y.decided,
	      "a row decided by its sequential interval needs no more rounds");
	row.usable = 0;
	CHECK(calib_yield(&row, 0.8, &y) == -1, "an unusable row has no yield");
	CHECK(isnan(calib_interval_sd(&row.d, 1)), "one round implies no sd");
}

int main(void)
{
	test_yield();
	test_vardecomp();
	test_drift_many();
	test_mde();
	test_noise();
	test_blocks();
	test_drift();
	test_file();
	return CHECK_DONE();
}
