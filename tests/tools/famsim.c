/* famsim.c - the measurements behind docs/methodology.md, "Multiplicity: the question and the
 * rest" (scripts/validate_family.sh, `make validate` part (g)). Not used by allocab itself.
 *
 * Usage: famsim quantiles
 *        famsim gen SEED ROUNDS EFFECT_PCT SD FILE
 *        famsim score COMPARE_JSON CANDIDATE EFFECT_PCT [PHASE:REGIME]
 *        famsim cp K N
 *
 * quantiles: what a smaller family buys in half-width: the Bonferroni normal quantile
 * z_{1-alpha/(2m)} of each report's primary family against its one family of earlier versions,
 * and the mean width of the exact signed-rank interval of normal data (20000 draws, seed 1) at
 * both levels, for 10, 20 and 40 rounds.
 * gen: a results file of simulated runs (drivers, both regimes), written by the bench engine with
 * the fake runner of tests/unit/fakebench.h whose runs take the simulated times: arms system, a, b
 * (both exactly system's distribution: A/A) and c (EFFECT_PCT percent slower in every phase and
 * regime), workloads parquet_load, pipeline (phases total and read, show_phases) and
 * feature_extract, each run's every time a common round factor times exp(SD x Z), Z standard
 * normal, drawn independently per run, phase and regime. The true log ratio of every
 * comparison is 0 for a and b and ln(1 + EFFECT_PCT/100) for c.
 * score: reads `allocab compare --format json` of such a document and prints, per family,
 * "FAMILY null_rows null_decided any_null_decided eff_rows eff_covered all_covered
 * median_half_pct": rows of A/A candidates, those of them that say faster or slower, whether any
 * did, rows of CANDIDATE, those whose interval holds the true effect, whether every row of the
 * family holds its true value, and the median half-width in percent of the family's rows; with
 * PHASE:REGIME a third line, "selected ...", the same over the workload rows of that phase and
 * regime (no geometric mean), whatever their family (the same rows read in two reports).
 * cp: the Clopper-Pearson 95% interval of K successes in N trials, in percent. */
#include "common/prng.h"
#include "front/stats/stats.h"
#include "binomci.h"
#include "fakebench.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 0.05

static int cmd_cp(int k, int n)
{
	double lo, hi;

	if (k < 0 || n < 1 || k > n) {
		fprintf(stderr, "famsim: cp: want 0 <= K <= N, N >= 1\n");
		return 2;
	}
	binomci_interval((size_t)k, (size_t)n, 1 - ALPHA, &lo, &hi);
	printf("%.1f-%.1f%%\n", 100 * lo, 100 * hi);
	return 0;
}

static double mean_width(size_t n, double conf, uint64_t seed)
{
	struct prng r;
	double x[64], sum = 0;
	int draws = 20000;

	prng_seed(&r, seed);
	for (int t = 0; t < draws; t++) {
		struct stats_interval iv;
		for (size_t i = 0; i < n; i++)
			x[i] = prng_normal(&r);
		if (stats_hl_interval(x, n, conf, &iv) != 0)
			return NAN;
		sum += iv.hi - iv.lo;
	}
	return sum / draws;
}

static int cmd_quantiles(void)
{
	static const struct {
		const char *what;
		size_t all, primary;
	} cases[] = {
	    {"make bench: 3 candidates x 5 workloads, both regimes", 60, 15},
	    {"a program bench: 3 candidates x 5 phases x 2 regimes", 30, 3},
	    {"famsim gen: 3 candidates x 3 workloads, both regimes", 30, 9},
	};
	static const size_t ns[] = {10, 20, 40};

	printf("report | m before | m primary | z before | z primary | normal half-width ratio");
	for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
		printf(" | signed-rank ratio, %zu rounds", ns[j]);
	printf("\n");
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		double za = stats_norm_quantile(1 - ALPHA / (2.0 * (double)cases[i].all));
		double zp = stats_norm_quantile(1 - ALPHA / (2.0 * (double)cases[i].primary));
		printf("%s | %zu | %zu | %.3f | %.3f | %.3f", cases[i].what, cases[i].all,
		       cases[i].primary, za, zp, zp / za);
		for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
			double wa = mean_width(ns[j], 1 - ALPHA / (double)cases[i].all, 1);
			double wp = mean_width(ns[j], 1 - ALPHA / (double)cases[i].primary, 1);
			printf(" | %.3f", wp / wa);
		}
		printf("\n");
	}
	return 0;
}

/* A simulated document: every run's times, drawn before the bench runs, in the order of the
 * rounds, then workloads, then arms. */
struct sim {
	int rounds;
	double *t; /* run (round i, workload k, arm j) at 5 (3 (4 i + j) + k): the process, the cold
	            * rep's total and read, the steady reps' total and read */
};

static double *sim_at(const struct sim *s, long m, int a, size_t w)
{
	return s->t + 5 * (12 * (size_t)m + 3 * (size_t)a + w);
}

static void sim_run(void *ctx, long m, int a, size_t w, struct runner_result *r, uint64_t *steal)
{
	(void)steal;
	r->wall_ns = (int64_t)round(sim_at(ctx, m, a, w)[0]);
}

/* The cold rep, then three steady reps with one steady time each (their median). */
static void sim_record(void *ctx, long m, int a, size_t w, cJSON *rec)
{
	const double *t = sim_at(ctx, m, a, w);
	int k = 0;
	cJSON *rep;

	cJSON_ArrayForEach(rep, cJSON_GetObjectItem(rec, "reps"))
	{
		cJSON *ph = cJSON_GetObjectItem(rep, "phases"),
		      *read = cJSON_GetObjectItem(ph, "read");
		cJSON_ReplaceItemInObject(rep, "rss_after_bytes", cJSON_CreateNumber(1048576));
		cJSON_ReplaceItemInObject(cJSON_GetObjectItem(ph, "total"), "wall_ns",
		                          cJSON_CreateNumber(round(t[k ? 3 : 1])));
		if (read)
			cJSON_ReplaceItemInObject(read, "wall_ns",
			                          cJSON_CreateNumber(round(t[k ? 4 : 2])));
		k++;
	}
}

/* The document through the bench engine and the production writer with the fake runner of
 * tests/unit/fakebench.h (drivers mode, 4 reps: cold, then steady), its runs taking the
 * simulation's times. */
static int cmd_gen(uint64_t seed, int rounds, double effect_pct, double sd, const char *path)
{
	struct prng r;
	struct sim s = {.rounds = rounds};
	char nr[32], err[512] = "";
	char *kv[] = {"mode=drivers",
	              "arms=system=1,a=1,b=1,c=1",
	              "wls=parquet_load,pipeline,feature_extract",
	              "reps=4",
	              "warmup=0",
	              nr};
	struct fakebench_hooks h = {.ctx = &s, .run = sim_run, .record = sim_record};
	int rc;

	if (rounds < 1 || rounds > 100000 || !(s.t = malloc(60 * (size_t)rounds * sizeof *s.t))) {
		fprintf(stderr, "famsim: gen: want 1 <= ROUNDS <= 100000\n");
		return 2;
	}
	prng_seed(&r, seed);
	for (int i = 0; i < rounds; i++) {
		double base = 1e8 * exp(0.2 * prng_normal(&r));
		for (size_t k = 0; k < 3; k++)
			for (int j = 0; j < 4; j++) {
				double b = base * (1 + (double)k),
				       f = j == 3 ? 1 + effect_pct / 100 : 1;
				double *t = sim_at(&s, i, j, k);
				t[0] = 6 * b;
				t[1] = 2 * b * f * exp(sd * prng_normal(&r));
				t[2] = b * f * exp(sd * prng_normal(&r));
				t[3] = b * f * exp(sd * prng_normal(&r));
				t[4] = b / 2 * f * exp(sd * prng_normal(&r));
			}
	}
	snprintf(nr, sizeof nr, "rounds=%d", rounds);
	rc = fakebench_write_hooks(path, 6, kv, &h, err, sizeof err);
	if (rc != 0)
		fprintf(stderr, "famsim: %s: %s\n", path, err);
	free(s.t);
	return rc;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static int cmd_score(const char *path, const char *cand, double effect_pct, const char *sel)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	cJSON *j, *c;
	static const char *const fams[] = {"primary", "secondary", "selected"};
	double truth = log1p(effect_pct / 100);

	if (f) {
		FILE *m = open_memstream(&buf, &len);
		int ch;
		while (m && (ch = fgetc(f)) != EOF)
			fputc(ch, m);
		if (m)
			fclose(m);
		fclose(f);
	}
	if (!buf || !(j = cJSON_Parse(buf))) {
		fprintf(stderr, "famsim: cannot read %s\n", path);
		free(buf);
		return 1;
	}
	free(buf);
	for (int fi = 0; fi < (sel ? 3 : 2); fi++) {
		size_t null_rows = 0, null_dec = 0, eff_rows = 0, eff_cov = 0, nh = 0;
		int all_cov = 1;
		double half[256];
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "comparisons"))
		{
			const char *fam = cJSON_GetStringValue(cJSON_GetObjectItem(c, "family"));
			const char *cd = cJSON_GetStringValue(cJSON_GetObjectItem(c, "candidate"));
			const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(c, "verdict"));
			cJSON *ci = cJSON_GetObjectItem(c, "ci");
			cJSON *lo = cJSON_GetObjectItem(ci, "log_lo"), *hi = cJSON_GetObjectItem(ci, "log_hi");
			char key[160];
			snprintf(key, sizeof key, "%s:%s",
			         cJSON_GetStringValue(cJSON_GetObjectItem(c, "phase")),
			         cJSON_GetStringValue(cJSON_GetObjectItem(c, "regime")));
			int geo = cJSON_IsTrue(cJSON_GetObjectItem(c, "geomean"));
			if (!fam || (fi < 2 ? strcmp(fam, fams[fi]) != 0 : geo || strcmp(key, sel) != 0) ||
			    !cd || !v || !cJSON_IsNumber(lo) || !cJSON_IsNumber(hi))
				continue;
			double t = strcmp(cd, cand) == 0 ? truth : 0;
			int covers = lo->valuedouble <= t && t <= hi->valuedouble;
			all_cov &= covers;
			if (nh < 256)
				half[nh++] = expm1((hi->valuedouble - lo->valuedouble) / 2) * 100;
			if (strcmp(cd, cand) == 0) {
				eff_rows++;
				eff_cov += covers;
			} else {
				null_rows++;
				null_dec += !strcmp(v, "faster") || !strcmp(v, "slower");
			}
		}
		qsort(half, nh, sizeof *half, cmp_double);
		printf("%s %zu %zu %d %zu %zu %d %.4f\n", fams[fi], null_rows, null_dec, null_dec > 0,
		       eff_rows, eff_cov, nh ? all_cov : 1,
		       nh ? (nh % 2 ? half[nh / 2] : (half[nh / 2 - 1] + half[nh / 2]) / 2) : NAN);
	}
	cJSON_Delete(j);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "quantiles") == 0)
		return cmd_quantiles();
	if (argc == 7 && strcmp(argv[1], "gen") == 0)
		return cmd_gen(strtoull(argv[2], NULL, 10), atoi(argv[3]), atof(argv[4]),
		               atof(argv[5]), argv[6]);
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "score") == 0)
		return cmd_score(argv[2], argv[3], atof(argv[4]), argc == 6 ? argv[5] : NULL);
	if (argc == 4 && strcmp(argv[1], "cp") == 0)
		return cmd_cp(atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: famsim quantiles | gen SEED ROUNDS EFFECT_PCT SD FILE | score "
	                "COMPARE_JSON CANDIDATE EFFECT_PCT [PHASE:REGIME] | cp K N\n");
	return 2;
}
