/* agreesim.c - the test of agreement between a shared-CPU bench's shared and solo rounds
 * (docs/methodology.md, "Solo anchor rounds"; docs/validation.md, "One CPU against its solo
 * rounds"), simulated: per-round log ratios of n_shared shared rounds with sd 0.05 and n_solo
 * solo rounds with sd 0.05 r, r the spread ratio, drawn from a normal, a Student t with 3 df, or
 * a skewed log-normal (exp(0.5 Z), skewness 1.75), each scaled to its sd and centred on its mean;
 * the solo rounds shifted by 0 (false alarms: the true ratio 1) or ln 1.1 (power: a 10%
 * disagreement). Each candidate decides "disagree" when its interval at level 1 - alpha excludes
 * 0 (the Brunner-Munzel test, which has no interval of the shift of its own, by its p-value):
 *   old    the Hodges-Lehmann shift with its Mann-Whitney (Moses) interval, the test compare
 *          used before (stats_hl_shift_interval: each trial counted through its critical rank,
 *          the first trials of every cell checked against the library call)
 *   welch  stats_welch_interval, the difference of means, compare's test now
 *   yuen   Yuen's interval of the difference of 20% trimmed means (here, checked at the start
 *          against a reference computed with mpmath: tests/unit/stats/test_twosample.c's way)
 *   bm     Brunner-Munzel with its t approximation
 * Prints markdown tables: each rate in percent with its 95% Wilson interval over the trials, then
 * the default plan's power (stats_anchor_rounds at the bench's default sds and share).
 * Not used by allocab; `make agree-sim` runs it.
 *
 * Usage: agreesim TRIALS SEED [ALPHA] */
#include "common/prng.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SD_SHARED 0.05
#define MAXN      64
enum { OLD, WELCH, YUEN, BM, NMETHODS };
enum { NORMAL, T3, LOGNORMAL, NSHAPES };
static const char *const shape_name[] = {"normal", "t3", "log-normal"};
static const char *const method_name[] = {"old (HL, Mann-Whitney)", "Welch", "Yuen 20%",
                                          "Brunner-Munzel"};

/* A deviate of the shape with mean 0 and sd 1. */
static double draw(struct prng *r, int shape)
{
	if (shape == NORMAL)
		return prng_normal(r);
	if (shape == T3) {
		double z = prng_normal(r), c = 0;
		for (int i = 0; i < 3; i++) {
			double e = prng_normal(r);
			c += e * e;
		}
		return z / sqrt(c / 3) / sqrt(3);
	}
	/* exp(s Z): mean exp(s^2/2), variance (exp(s^2) - 1) exp(s^2) */
	return (exp(0.5 * prng_normal(r)) - exp(0.125)) / sqrt((exp(0.25) - 1) * exp(0.25));
}

/* The old test's critical rank: the k of its interval [D_(k), D_(M+1-k)] of the M = nx ny sorted
 * differences, read off the library's interval of differences known in advance, with *reached
 * whether its level reaches conf. 0 without memory. */
static size_t old_rank(size_t nx, size_t ny, double conf, int *reached)
{
	double x[MAXN], y[MAXN];
	struct stats_interval iv;
	size_t k = 0;

	for (size_t i = 0; i < nx; i++)
		x[i] = (double)i;
	for (size_t j = 0; j < ny; j++)
		y[j] = ((double)j + 0.5) / (double)ny;
	if (stats_hl_shift_interval(x, nx, y, ny, conf, &iv) != 0)
		return 0;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			k += y[j] - x[i] <= iv.lo;
	*reached = iv.level >= conf - 1e-9;
	return k;
}

/* The old test's verdict from the count of positive differences: the interval excludes 0 when
 * at most k - 1 differences lie on one side of it. */
static int old_disagree(const double *x, size_t nx, const double *y, size_t ny, size_t k,
                        int reached)
{
	size_t pos = 0, m = nx * ny;

	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			pos += y[j] > x[i];
	return reached && (pos + 1 <= k || m - pos + 1 <= k);
}

/* The rank of x[i] among the n of x (mid-ranks). */
static double rank_in(const double *x, size_t n, double v)
{
	double r = 1;

	for (size_t i = 0; i < n; i++)
		r += (x[i] < v) + 0.5 * (x[i] == v);
	return r - 0.5;
}

/* Brunner-Munzel's two-sided test of P(X < Y) + P(X = Y) / 2 = 1/2 at level alpha. */
static int bm_disagree(const double *x, size_t nx, const double *y, size_t ny, double alpha)
{
	double all[2 * MAXN], rx[MAXN], ry[MAXN], mx = 0, my = 0, sx = 0, sy = 0, n1 = (double)nx,
	                                                                     n2 = (double)ny;

	memcpy(all, x, nx * sizeof *x);
	memcpy(all + nx, y, ny * sizeof *y);
	for (size_t i = 0; i < nx; i++)
		mx += rx[i] = rank_in(all, nx + ny, x[i]);
	for (size_t j = 0; j < ny; j++)
		my += ry[j] = rank_in(all, nx + ny, y[j]);
	mx /= n1, my /= n2;
	for (size_t i = 0; i < nx; i++)
		sx += pow(rx[i] - rank_in(x, nx, x[i]) - mx + (n1 + 1) / 2, 2);
	for (size_t j = 0; j < ny; j++)
		sy += pow(ry[j] - rank_in(y, ny, y[j]) - my + (n2 + 1) / 2, 2);
	sx /= n1 - 1, sy /= n2 - 1;
	double v = n1 * sx + n2 * sy;
	if (!(v > 0))
		return mx != my;
	double w = n1 * n2 * (my - mx) / ((n1 + n2) * sqrt(v));
	double df = v * v / (pow(n1 * sx, 2) / (n1 - 1) + pow(n2 * sy, 2) / (n2 - 1));
	return fabs(w) > stats_t_quantile(1 - alpha / 2, df);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Yuen's part of a sample: the mean of the h = n - 2g kept (g = floor(0.2 n)) and d = (n - 1)
 * s_w^2 / (h (h - 1)), s_w^2 the variance of the sample winsorized at g. */
static void yuen_part(const double *x, size_t n, double *mean, double *d, size_t *h)
{
	double v[MAXN], sum = 0, m = 0, ss = 0;
	size_t g = (size_t)floor(0.2 * (double)n);

	memcpy(v, x, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_double);
	*h = n - 2 * g;
	for (size_t i = g; i < n - g; i++)
		sum += v[i];
	for (size_t i = 0; i < n; i++)
		v[i] = v[i < g ? g : i >= n - g ? n - g - 1 : i];
	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = sum / (double)*h;
	*d = ss / ((double)*h * (double)(*h - 1));
}

/* Yuen's interval of the difference of trimmed means (y - x) at conf, as stats_welch_interval's. */
static void yuen(const double *x, size_t nx, const double *y, size_t ny, double conf,
                 struct stats_twosample *t)
{
	double ma, da, mb, db;
	size_t ha, hb;

	yuen_part(x, nx, &ma, &da, &ha);
	yuen_part(y, ny, &mb, &db, &hb);
	double se = sqrt(da + db), diff = mb - ma;
	t->df = (da + db) * (da + db) / (da * da / (double)(ha - 1) + db * db / (double)(hb - 1));
	t->t = se > 0 ? diff / se : 0;
	t->p = se > 0 ? 2 * stats_t_cdf(-fabs(t->t), t->df) : diff != 0 ? 0 : 1;
	double half = se > 0 ? stats_t_quantile(1 - (1 - conf) / 2, t->df) * se : 0;
	t->diff = (struct stats_interval){diff, diff - half, diff + half, conf};
	if ((t->diff.lo > 0 || t->diff.hi < 0) != (t->p < 1 - conf))
		t->p = t->diff.lo > 0 || t->diff.hi < 0 ? nextafter(1 - conf, 0) : 1 - conf;
}

/* Yuen's on 10 and 12 values against mpmath at 40 digits (est, lo, hi, df, p). */
static int yuen_checked(void)
{
	static const double x[] = {0.31, -0.12, 0.05, 0.02, -0.03, 0.08, -0.07, 0.01, 0.04, -0.02};
	static const double y[] = {0.11, 0.09, 0.95, 0.13, 0.07, 0.15,
	                           -0.40, 0.12, 0.10, 0.14, 0.08, 0.16};
	static const double want[] = {0.10333333333333333, 0.050487130601877588,
	                              0.15617953606478908, 8.9872896009140062,
	                              0.0016665751722603361};
	struct stats_twosample t;

	yuen(x, 10, y, 12, 0.95, &t);
	const double got[] = {t.diff.est, t.diff.lo, t.diff.hi, t.df, t.p};
	for (int i = 0; i < 5; i++)
		if (!(fabs(got[i] - want[i]) <= 1e-10 * fmax(1, fabs(want[i]))))
			return 0;
	return 1;
}

static int interval_disagree(int method, const double *x, size_t nx, const double *y, size_t ny,
                             double alpha)
{
	struct stats_twosample t;
	int rc = 0;

	if (method == WELCH)
		rc = stats_welch_interval(x, nx, y, ny, 1 - alpha, &t);
	else
		yuen(x, nx, y, ny, 1 - alpha, &t);

	if (rc != 0) {
		fprintf(stderr, "agreesim: the interval failed\n");
		exit(1);
	}
	if ((t.diff.lo > 0 || t.diff.hi < 0) != (t.p < alpha)) {
		fprintf(stderr, "agreesim: interval and p disagree\n");
		exit(1);
	}
	return t.diff.lo > 0 || t.diff.hi < 0;
}

struct cell {
	int shape;
	double ratio, shift, alpha;
	size_t n_solo, n_shared;
};

/* The trials of one cell: hits[m] the trials in which method m said "disagree". */
static void run_cell(struct prng *r, const struct cell *c, long trials, long *hits)
{
	double x[MAXN], y[MAXN];
	int reached = 0;
	size_t k = old_rank(c->n_shared, c->n_solo, 1 - c->alpha, &reached);

	memset(hits, 0, NMETHODS * sizeof *hits);
	for (long t = 0; t < trials; t++) {
		for (size_t i = 0; i < c->n_shared; i++)
			x[i] = SD_SHARED * draw(r, c->shape);
		for (size_t j = 0; j < c->n_solo; j++)
			y[j] = c->shift + SD_SHARED * c->ratio * draw(r, c->shape);
		int old = old_disagree(x, c->n_shared, y, c->n_solo, k, reached);
		if (t < 200) {
			struct stats_interval iv;
			if (stats_hl_shift_interval(x, c->n_shared, y, c->n_solo, 1 - c->alpha, &iv) !=
			        0 ||
			    old != (iv.level >= 1 - c->alpha - 1e-9 && (iv.lo > 0 || iv.hi < 0))) {
				fprintf(stderr, "agreesim: the old test's count disagrees with its call\n");
				exit(1);
			}
		}
		hits[OLD] += old;
		hits[WELCH] += interval_disagree(WELCH, x, c->n_shared, y, c->n_solo, c->alpha);
		hits[YUEN] += interval_disagree(YUEN, x, c->n_shared, y, c->n_solo, c->alpha);
		hits[BM] += bm_disagree(x, c->n_shared, y, c->n_solo, c->alpha);
	}
}

/* "p [lo, hi]" in percent, the 95% Wilson interval of k in n. */
static void rate(char *buf, size_t len, long k, long n)
{
	double p = (double)k / (double)n, z = 1.959964, nn = (double)n;
	double mid = (p + z * z / (2 * nn)) / (1 + z * z / nn);
	double half = z * sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);

	snprintf(buf, len, "%.1f [%.1f, %.1f]", 100 * p, 100 * fmax(0, mid - half),
	         100 * fmin(1, mid + half));
}

/* One row of a table: lead, when not NULL, its first cells ("| a | b "). */
static void row(struct prng *r, const struct cell *c, long trials, const char *lead)
{
	long hits[NMETHODS];
	char buf[48];

	run_cell(r, c, trials, hits);
	printf("%s| %s | %g | %zu | %zu |", lead ? lead : "", shape_name[c->shape], c->ratio,
	       c->n_solo, c->n_shared);
	for (int m = 0; m < NMETHODS; m++) {
		rate(buf, sizeof buf, hits[m], trials);
		printf(" %s |", buf);
	}
	printf("\n");
	fflush(stdout);
}

/* lead: the heads of the leading cells ("| a | b "), or NULL; k: how many. */
static void header(const char *what, double alpha, long trials, const char *lead, int k)
{
	printf("\n%s at level %g, %ld trials per cell (percent, 95%% Wilson interval):\n\n", what,
	       alpha, trials);
	printf("%s| noise | sd solo / shared | solo rounds | shared rounds |", lead ? lead : "");
	for (int m = 0; m < NMETHODS; m++)
		printf(" %s |", method_name[m]);
	printf("\n|");
	for (int i = 0; i < k + 4 + NMETHODS; i++)
		printf("---|");
	printf("\n");
}

/* The grid: every shape, spread ratio 1, 2, 3, n_solo 4, 6, 10, 18, n_shared 10, 18, 36. */
static void grid(struct prng *r, double shift, double alpha, long trials)
{
	static const double ratios[] = {1, 2, 3};
	static const size_t nsolo[] = {4, 6, 10, 18}, nshared[] = {10, 18, 36};

	header(shift == 0 ? "False alarms (the true ratio 1)" : "Power at a 10% disagreement", alpha,
	       trials, NULL, 0);
	for (int s = 0; s < NSHAPES; s++)
		for (size_t a = 0; a < 3; a++)
			for (size_t b = 0; b < 4; b++)
				for (size_t d = 0; d < 3; d++) {
					struct cell c = {s, ratios[a], shift, alpha, nsolo[b], nshared[d]};
					row(r, &c, trials, NULL);
				}
}

/* The default plan: the bench's anchor sds (shared 0.05, solo 0.13), half the rounds solo, the
 * rounds stats_anchor_rounds plans for m = 1 and 2 comparisons. */
static void plan(struct prng *r, double alpha, long trials)
{
	char lead[64];

	header("The default plan (sd 0.05 shared, 0.13 solo, share 0.5, the rounds "
	       "stats_anchor_rounds plans for m comparisons, each at alpha / m)",
	       alpha, trials, "| rate | m | rounds ", 3);
	for (size_t m = 1; m <= 2; m++) {
		size_t n = stats_anchor_rounds(0.05, 0.13, 0.5, log(1.1), alpha / (double)m, 0.8);
		for (int null = 0; null < 2 && n / 2 < MAXN; null++)
			for (int s = 0; s < NSHAPES; s++) {
				struct cell c = {s, 2.6, null ? 0 : log(1.1), alpha / (double)m, n / 2,
				                 n - n / 2};
				snprintf(lead, sizeof lead, "| %s | %zu | %zu ",
				         null ? "false alarms" : "power at 10%", m, n);
				row(r, &c, trials, lead);
			}
	}
}

int main(int argc, char **argv)
{
	long trials = argc > 1 ? atol(argv[1]) : 0;
	double alpha = argc > 3 ? atof(argv[3]) : 0.05;
	struct prng r;

	if (argc < 3 || argc > 4 || trials < 100 || trials > 10000000 || !(alpha > 0 && alpha < 0.5)) {
		fprintf(stderr, "usage: agreesim TRIALS SEED [ALPHA] (100 <= TRIALS <= 10^7, ALPHA "
		                "in (0, 0.5), 0.05 by default)\n");
		return 2;
	}
	if (!yuen_checked()) {
		fprintf(stderr, "agreesim: Yuen's interval misses its reference values\n");
		return 1;
	}
	prng_seed(&r, (uint64_t)atoll(argv[2]));
	grid(&r, 0, alpha, trials);
	grid(&r, log(1.1), alpha, trials);
	plan(&r, alpha, trials);
	return 0;
}
