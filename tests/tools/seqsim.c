/* seqsim.c - the simulation behind docs/methodology.md, "Sequential decisions": candidate rules
 * for a gate that is judged after every round (`allocab bench --gate`), run on synthetic paired
 * log ratios. Not used by allocab itself.
 *
 * Usage: seqsim [TRIALS [SEED [BUDGET...]]]   (default 20000 trials, seed 1, budgets 20 40 80)
 *        seqsim replay FILE CANDIDATE BASELINE PCT
 *        seqsim plan SD EFFECT_PCT POWER
 *
 * Every trial draws one stream of log ratios d_1..d_N (N = the budget in rounds) and every rule
 * judges the same stream (common random numbers) with the gate of `--max-slowdown 0%`: after each
 * round n from the first look (6) on, PASS when the rule's interval lies at or below 0, FAIL when
 * it lies above 0; the first decision stops the trial. Scenarios: the true log ratio exactly at
 * the bound (A/A: every decision is wrong) and a true 5% slowdown (ln 1.05: FAIL is right, PASS
 * wrong), each with normal noise (per-arm log-normal sd 0.1, so d has sd 0.1 sqrt 2), with a
 * heavier tail (10% of rounds with 3 times that spread) and bursty (a spread that wanders over
 * the rounds, draw()). Prints every rate with its Wilson 95%
 * interval, and checks on the first trials of each cell that the rule allocab uses decides at
 * every look as the production code (stats_seq_interval) does.
 *
 * replay: the gate `bench --gate --max-slowdown PCT%` used before sequential intervals (the
 * fixed-n signed-rank 95% interval after every round from round 6) replayed on the cold times of
 * a results file of one workload: prints "PASS N", "FAIL N" (its first decision and the paired
 * rounds it came after) or "NONE N" (N: the rounds in the file). The decisions are a function of
 * the rounds so far, so the replay is that procedure on these rounds (scripts/validate.sh).
 * plan: the rounds a fixed-n comparison and a sequential plan need for an effect of EFFECT_PCT
 * percent at alpha 0.05 with the given power, from the sd of the log ratios. */
#include "front/results/results.h"
#include "front/stats/stats.h"

#include "common/prng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA      0.05
#define FIRST_LOOK 6
#define MAX_N      512
#define MAX_BUDGETS 8
#define CROSS_TRIALS 300 /* per cell: looks checked against stats_seq_interval */
#define EFFECT     0.04879016416943205 /* ln 1.05 */
#define SD_D       0.14142135623730950 /* 0.1 sqrt 2 */

static size_t budgets[MAX_BUDGETS] = {20, 40, 80};
static size_t nbudgets = 3;

/* ---- the rules: each gives, for a plan of N rounds, per look n a nominal two-sided level
 * (rank and t rules) or a margin in standard errors (mixture rules) ---- */

enum kind { K_RANK, K_T, K_MIX };

struct rule {
	const char *name, *what;
	enum kind kind;
	/* fills lv[n] (two-sided nominal alpha at look n, 0: no decision) for n in
	 * [FIRST_LOOK, N], or for K_MIX nothing (margin computed per look) */
	void (*plan)(size_t N, double *lv);
	double tau; /* K_MIX: 0 = rho tuned for N (confidence sequence), else the mSPRT's tau */
};

static double norm_q(double p)
{
	return stats_norm_quantile(p);
}

static void plan_fixed(size_t N, double *lv)
{
	for (size_t n = FIRST_LOOK; n <= N; n++)
		lv[n] = ALPHA;
}

/* Lan-DeMets spending functions of the information fraction t. */
static double spend_obf(double t)
{
	return t <= 0 ? 0 : 2 - 2 * stats_norm_cdf(norm_q(1 - ALPHA / 2) / sqrt(t));
}

static double spend_pocock(double t)
{
	return t <= 0 ? 0 : ALPHA * log(1 + (M_E - 1) * fmin(t, 1));
}

/* Two-sided group-sequential boundaries z[n] for looks at n = FIRST_LOOK..N, information
 * fraction n/N, alpha spent by `spend`: recursive numerical integration of the score process
 * (Armitage, McPherson & Rowe 1969; Jennison & Turnbull 2000, ch. 19) on a Simpson grid. */
static void gs_bounds(size_t N, double (*spend)(double), double *z)
{
	double h = 1 / (6 * sqrt((double)N));
	size_t cap = (size_t)(2 * 9 / h) + 8;
	double *s = malloc(cap * sizeof *s), *f = malloc(cap * sizeof *f), *w = malloc(cap * sizeof *w);
	double *s2 = malloc(cap * sizeof *s2), *f2 = malloc(cap * sizeof *f2);
	size_t g = 0;
	double spent = 0, tprev = 0;

	for (size_t n = FIRST_LOOK; n <= N; n++) {
		double t = (double)n / (double)N, target = spend(t) - spent, b, lo = 0, hi = 12;
		double sig = sqrt(t - tprev);

		if (n == FIRST_LOOK) {
			b = target > 1e-300 ? norm_q(1 - target / 2) : 40;
			spent += target > 1e-300 ? target : 0;
		} else if (target <= 1e-15) {
			b = 40;
		} else {
			for (int it = 0; it < 80; it++) {
				double mid = 0.5 * (lo + hi), p = 0, bs = mid * sqrt(t);
				for (size_t i = 0; i < g; i++)
					p += w[i] * f[i] *
					     (stats_norm_cdf((-bs - s[i]) / sig) +
					      stats_norm_cdf((s[i] - bs) / sig));
				if (p > target)
					lo = mid;
				else
					hi = mid;
			}
			b = 0.5 * (lo + hi);
			double p = 0, bs = b * sqrt(t);
			for (size_t i = 0; i < g; i++)
				p += w[i] * f[i] *
				     (stats_norm_cdf((-bs - s[i]) / sig) + stats_norm_cdf((s[i] - bs) / sig));
			spent += p;
		}
		z[n] = b;
		/* the density of the score S = Z sqrt(t) on (-b sqrt t, b sqrt t), clipped at 8.5 sd */
		double half = fmin(b, 8.5) * sqrt(t);
		size_t g2 = 2 * (size_t)ceil(half / h) + 1;
		if (g2 > cap)
			g2 = cap | 1;
		if (g2 % 2 == 0)
			g2--;
		double step = 2 * half / (double)(g2 - 1);
		for (size_t j = 0; j < g2; j++) {
			s2[j] = -half + step * (double)j;
			if (n == FIRST_LOOK) {
				f2[j] = exp(-s2[j] * s2[j] / (2 * t)) / sqrt(2 * M_PI * t);
				continue;
			}
			double acc = 0;
			for (size_t i = 0; i < g; i++) {
				double u = (s2[j] - s[i]) / sig;
				if (fabs(u) < 9)
					acc += w[i] * f[i] * exp(-u * u / 2);
			}
			f2[j] = acc / (sig * sqrt(2 * M_PI));
		}
		for (size_t j = 0; j < g2; j++) {
			s[j] = s2[j];
			f[j] = f2[j];
			w[j] = step / 3 * (j == 0 || j + 1 == g2 ? 1 : j % 2 ? 4 : 2);
		}
		g = g2;
		tprev = t;
	}
	free(s);
	free(f);
	free(w);
	free(s2);
	free(f2);
}

static void plan_gs(size_t N, double *lv, double (*spend)(double))
{
	double z[MAX_N + 1];

	gs_bounds(N, spend, z);
	for (size_t n = FIRST_LOOK; n <= N; n++)
		lv[n] = 2 * stats_norm_cdf(-z[n]);
}

static void plan_gs_obf(size_t N, double *lv)
{
	plan_gs(N, lv, spend_obf);
}

static void plan_gs_pocock(size_t N, double *lv)
{
	plan_gs(N, lv, spend_pocock);
}

/* The union bound over looks: the spending function's increments as per-look levels. */
static void plan_union(size_t N, double *lv)
{
	double prev = 0;

	for (size_t n = FIRST_LOOK; n <= N; n++) {
		double a = spend_obf((double)n / (double)N);
		lv[n] = a - prev;
		prev = a;
	}
}

/* The production rule (stats_seq_alpha): the continuous-monitoring O'Brien-Fleming boundary. */
static void plan_seq(size_t N, double *lv)
{
	struct stats_seq_plan p = {.planned = N, .first_look = FIRST_LOOK};

	for (size_t n = FIRST_LOOK; n <= N; n++)
		lv[n] = stats_seq_alpha(&p, n, ALPHA);
}

/* The same boundary spent over a horizon of k times the plan (k N rounds), looked at up to N: a
 * bench that stops at N can be resumed up to k N with its decisions still covered. */
static void plan_seq_h(size_t N, double *lv, size_t k)
{
	struct stats_seq_plan p = {.planned = k * N, .first_look = FIRST_LOOK};

	for (size_t n = FIRST_LOOK; n <= N; n++)
		lv[n] = stats_seq_alpha(&p, n, ALPHA);
}

static void plan_seq_h2(size_t N, double *lv)
{
	plan_seq_h(N, lv, 2);
}

/* allocab's extendable plan (stats_seq_plan.share; docs/methodology.md, "Sequential decisions"):
 * stage j spends SEQ_FIRST_SHARE (1 - SEQ_FIRST_SHARE)^j of alpha over a horizon doubled at each
 * stage. "staged-0": a bench that stops at its first plan of N rounds; "staged-1": one resumed
 * once, its first plan N/2 and the second stage's horizon N. */
static void plan_staged0(size_t N, double *lv)
{
	struct stats_seq_plan p = {.planned = N, .first_look = FIRST_LOOK, .share = SEQ_FIRST_SHARE};

	for (size_t n = FIRST_LOOK; n <= N; n++)
		lv[n] = stats_seq_alpha(&p, n, ALPHA);
}

static void plan_staged1(size_t N, double *lv)
{
	struct stats_seq_plan p0 = {.planned = N / 2, .first_look = FIRST_LOOK, .share = SEQ_FIRST_SHARE};
	struct stats_seq_plan p1 = {.planned = N, .first_look = FIRST_LOOK,
	                            .share = SEQ_FIRST_SHARE * (1 - SEQ_FIRST_SHARE)};

	for (size_t n = FIRST_LOOK; n <= N; n++)
		lv[n] = stats_seq_alpha(n <= N / 2 ? &p0 : &p1, n, ALPHA);
}

static const struct rule rules[] = {
    {"fixed-n", "today: the fixed-n signed-rank 95% interval after every round", K_RANK, plan_fixed,
     0},
    {"mixture-CS", "asymptotic CS (normal mixture, rho tuned for N), mean and sd", K_MIX, NULL, 0},
    {"mSPRT", "mixture SPRT, tau = ln 1.05, plug-in sd", K_MIX, NULL, EFFECT},
    {"GS-OBF-t", "Lan-DeMets O'Brien-Fleming, every round, t interval", K_T, plan_gs_obf, 0},
    {"GS-Pocock-t", "Lan-DeMets Pocock, every round, t interval", K_T, plan_gs_pocock, 0},
    {"GS-OBF-rank", "Lan-DeMets O'Brien-Fleming, every round, signed-rank interval", K_RANK,
     plan_gs_obf, 0},
    {"GS-Pocock-rank", "Lan-DeMets Pocock, every round, signed-rank interval", K_RANK,
     plan_gs_pocock, 0},
    {"BM-OBF-rank", "O'Brien-Fleming boundary under continuous monitoring (closed form), "
                    "signed-rank interval",
     K_RANK, plan_seq, 0},
    {"union-rank", "O'Brien-Fleming spending as a union bound over looks, signed-rank", K_RANK,
     plan_union, 0},
    {"BM-OBF-rank-h2", "BM-OBF-rank spent over a horizon of 2N rounds, looked at up to N",
     K_RANK, plan_seq_h2, 0},
    {"staged-0", "allocab's extendable plan, stopped at its first plan of N", K_RANK,
     plan_staged0, 0},
    {"staged-1", "allocab's extendable plan resumed once: a first plan of N/2, then N", K_RANK,
     plan_staged1, 0},
};
#define NRULES (sizeof rules / sizeof rules[0])

/* ---- per-look thresholds ---- */

/* Rank k of the signed-rank interval [A_(k), A_(M+1-k)] at two-sided nominal alpha a, as
 * stats_hl_interval takes it; 0 when no interval of n points reaches 1 - a. */
static size_t rank_k(size_t n, double a)
{
	double level;
	size_t k = a > 0 ? stats_signrank_rank(n, 1 - a, &level) : 0;

	return k && level >= 1 - a - 1e-12 ? k : 0;
}

/* The normal-mixture margin in standard errors x sqrt(n) (Robbins; Waudby-Smith et al.):
 * sqrt(2 (n r + 1) / (n^2 r) log(sqrt(n r + 1) / alpha)) x sqrt(n). */
static double mix_margin(double n, double r)
{
	return sqrt(2 * (n * r + 1) / (n * n * r) * log(sqrt(n * r + 1) / ALPHA)) * sqrt(n);
}

/* rho^2 minimising the margin at n = N (golden section on log rho^2). */
static double best_rho2(double N)
{
	double a = log(1e-6), b = log(1e3), g = (sqrt(5) - 1) / 2;

	for (int i = 0; i < 200; i++) {
		double x1 = b - g * (b - a), x2 = a + g * (b - a);
		if (mix_margin(N, exp(x1)) < mix_margin(N, exp(x2)))
			b = x2;
		else
			a = x1;
	}
	return exp(0.5 * (a + b));
}

struct thresholds {
	size_t k[MAX_N + 1];   /* K_RANK: interval rank (0: no decision) */
	double q[MAX_N + 1];   /* K_T: t quantile */
	double rho2;           /* K_MIX with tau 0 */
};

static void thresholds_for(const struct rule *ru, size_t N, struct thresholds *th)
{
	double lv[MAX_N + 1] = {0};

	memset(th, 0, sizeof *th);
	if (ru->kind == K_MIX) {
		th->rho2 = best_rho2((double)N);
		return;
	}
	ru->plan(N, lv);
	for (size_t n = FIRST_LOOK; n <= N; n++) {
		if (ru->kind == K_RANK)
			th->k[n] = rank_k(n, lv[n]);
		else
			th->q[n] = lv[n] > 0 ? stats_t_quantile(1 - lv[n] / 2, (double)(n - 1)) : INFINITY;
	}
}

/* ---- one trial ---- */

enum outcome { O_NONE, O_PASS, O_FAIL };

struct state {
	size_t n;
	double sum, sumsq;
	double *d;
	size_t le; /* Walsh averages (d_i + d_j)/2, i <= j, that are <= 0 */
};

static void add(struct state *s, double x)
{
	s->d[s->n] = x;
	s->n++;
	s->sum += x;
	s->sumsq += x * x;
	for (size_t i = 0; i < s->n; i++)
		s->le += s->d[i] + x <= 0;
}

static enum outcome judge(const struct rule *ru, const struct thresholds *th, const struct state *s)
{
	size_t n = s->n;
	double mean = s->sum / (double)n, var = (s->sumsq - s->sum * mean) / (double)(n - 1);
	double se = sqrt(fmax(var, 0) / (double)n), m;

	switch (ru->kind) {
	case K_RANK: {
		size_t k = th->k[n], M = n * (n + 1) / 2;
		if (!k)
			return O_NONE;
		if (s->le >= M + 1 - k)
			return O_PASS;
		return s->le <= k - 1 ? O_FAIL : O_NONE;
	}
	case K_T:
		m = th->q[n] * se;
		break;
	default: {
		double r = ru->tau > 0 ? ru->tau * ru->tau / fmax(var, 1e-300) : th->rho2;
		m = mix_margin((double)n, r) * se;
		break;
	}
	}
	if (mean + m <= 0)
		return O_PASS;
	return mean - m > 0 ? O_FAIL : O_NONE;
}

/* The decision of allocab's rule at this look, from stats_seq_interval on the data. */
static enum outcome production(const struct state *s, size_t N)
{
	struct stats_seq_plan p = {.planned = N, .first_look = FIRST_LOOK};
	struct stats_interval iv;
	double asked;

	if (stats_seq_interval(s->d, s->n, &p, ALPHA, &iv, &asked) != 0 || !(asked < 1) ||
	    iv.level < asked - 1e-12)
		return O_NONE;
	return iv.hi <= 0 ? O_PASS : iv.lo > 0 ? O_FAIL : O_NONE;
}

/* One log ratio: normal (kind 0), with a heavier tail (1: 10% of rounds with 3 times the
 * spread), or bursty (2: a spread that wanders over the rounds as a busy machine's does,
 * exp(0.7 u) times the normal one with u an AR(1) series of correlation 0.9, *u its state). */
static double draw(struct prng *r, double effect, int kind, double *u)
{
	double sd = kind == 1 && prng_double(r) < 0.1 ? 3 * SD_D : SD_D;

	if (kind == 2) {
		*u = 0.9 * *u + sqrt(1 - 0.81) * prng_normal(r);
		sd *= exp(0.7 * *u);
	}
	return effect + sd * prng_normal(r);
}

/* ---- the tally and its report ---- */

struct tally {
	size_t pass, fail, stop_sum, trials;
};

static void wilson(size_t k, size_t n, double *lo, double *hi)
{
	double z = 1.959964, p = (double)k / (double)n, d = 1 + z * z / (double)n;
	double c = (p + z * z / (2 * (double)n)) / d;
	double h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;

	*lo = fmax(0, c - h);
	*hi = fmin(1, c + h);
}

static void rate(char *buf, size_t len, size_t k, size_t n)
{
	double lo, hi;

	wilson(k, n, &lo, &hi);
	snprintf(buf, len, "%.2f%% (%.2f-%.2f)", 100.0 * (double)k / (double)n, 100 * lo, 100 * hi);
}

#define NSCEN 6
static const char *const scen_name[NSCEN] = {
    "A/A at the bound, normal",     "5% slower, normal",
    "A/A at the bound, heavy tail", "5% slower, heavy tail",
    "A/A at the bound, bursty",     "5% slower, bursty"};

/* The fixed-n 95% gate after every round from FIRST_LOOK on, replayed. */
static int replay(const char *path, const char *cand, const char *base, double pct)
{
	struct rf_doc *d;
	char err[512];
	double m = log1p(pct / 100), *x;
	size_t n = 0;
	int a, b, w;

	if (rf_load(path, &d, err, sizeof err) != 0) {
		fprintf(stderr, "seqsim: %s\n", err);
		return 2;
	}
	a = rf_arm(d, base), b = rf_arm(d, cand), w = d->nwl == 1 ? 0 : -1;
	if (a < 0 || b < 0 || w < 0 || !(x = malloc((d->nrounds + 1) * sizeof *x))) {
		fprintf(stderr, "seqsim: %s: want arms %s and %s and one workload\n", path, base, cand);
		rf_free(d);
		return 2;
	}
	for (size_t r = 0; r < d->nrounds; r++) {
		const struct rf_run *rb = rf_run(d, r, (size_t)a, 0), *rc = rf_run(d, r, (size_t)b, 0);
		struct stats_interval iv;
		if (!rb->ok || !rc->ok)
			continue;
		x[n] = stats_log_ratio(rc->t_regime[RF_COLD][0], rb->t_regime[RF_COLD][0]);
		if (++n < FIRST_LOOK || stats_hl_interval(x, n, 1 - ALPHA, &iv) != 0)
			continue;
		if (iv.hi <= m || iv.lo > m) {
			printf("%s %zu\n", iv.hi <= m ? "PASS" : "FAIL", n);
			free(x);
			rf_free(d);
			return 0;
		}
	}
	printf("NONE %zu\n", n);
	free(x);
	rf_free(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "replay") == 0)
		return replay(argv[2], argv[3], argv[4], strtod(argv[5], NULL));
	if (argc == 5 && strcmp(argv[1], "plan") == 0) {
		double sd = strtod(argv[2], NULL), e = log1p(strtod(argv[3], NULL) / 100);
		double pw = strtod(argv[4], NULL);
		printf("fixed %zu sequential %zu\n", stats_rounds_needed(sd, e, ALPHA, pw),
		       stats_seq_rounds_needed(sd, e, ALPHA, pw));
		return 0;
	}
	size_t trials = argc > 1 ? strtoul(argv[1], NULL, 10) : 20000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	static struct thresholds th[MAX_BUDGETS][NRULES];
	static struct tally t[NSCEN][MAX_BUDGETS][NRULES];
	double d[MAX_N + 1];
	size_t looks = 0, differ = 0;

	if (argc > 3)
		nbudgets = 0;
	for (int i = 3; i < argc && nbudgets < MAX_BUDGETS; i++) {
		budgets[nbudgets] = strtoul(argv[i], NULL, 10);
		if (budgets[nbudgets] < FIRST_LOOK || budgets[nbudgets] > MAX_N)
			trials = 0;
		nbudgets++;
	}
	if (trials == 0) {
		fprintf(stderr, "usage: seqsim [TRIALS [SEED [BUDGET...]]] (budgets %d..%d)\n",
		        FIRST_LOOK, MAX_N);
		return 2;
	}
	for (size_t b = 0; b < nbudgets; b++)
		for (size_t k = 0; k < NRULES; k++)
			thresholds_for(&rules[k], budgets[b], &th[b][k]);
	for (int sc = 0; sc < NSCEN; sc++) {
		struct prng r;
		prng_seed(&r, seed * 1000003 + (uint64_t)sc);
		for (size_t b = 0; b < nbudgets; b++)
			for (size_t i = 0; i < trials; i++) {
				struct state s = {.d = d};
				double u = sc / 2 == 2 ? prng_normal(&r) : 0;
				enum outcome o[NRULES] = {0};
				size_t stop[NRULES] = {0}, open = NRULES;
				for (size_t n = 1; n <= budgets[b] && open; n++) {
					add(&s, draw(&r, sc % 2 ? EFFECT : 0, sc / 2, &u));
					for (size_t k = 0; n >= FIRST_LOOK && k < NRULES; k++) {
						if (o[k])
							continue;
						o[k] = judge(&rules[k], &th[b][k], &s);
						if (rules[k].plan == plan_seq && i < CROSS_TRIALS) {
							looks++;
							differ += o[k] != production(&s, budgets[b]);
						}
						if (o[k] != O_NONE) {
							stop[k] = n;
							open--;
						}
					}
				}
				for (size_t k = 0; k < NRULES; k++) {
					struct tally *x = &t[sc][b][k];
					x->trials++;
					x->pass += o[k] == O_PASS;
					x->fail += o[k] == O_FAIL;
					x->stop_sum += o[k] ? stop[k] : budgets[b];
				}
			}
	}
	printf("seqsim: %zu trials per cell, seed %llu, alpha %.2f, first look after %d rounds; "
	       "d = ln(t_cand/t_base), sd %.4f (heavy tail: 10%% of rounds 3x that; bursty: times "
	       "exp(0.7 u), u AR(1) 0.9), gate "
	       "--max-slowdown 0%%\n",
	       trials, (unsigned long long)seed, ALPHA, FIRST_LOOK, SD_D);
	for (size_t k = 0; k < NRULES; k++)
		printf("rule %-15s %s\n", rules[k].name, rules[k].what);
	printf("cross-check: BM-OBF-rank decided as stats_seq_interval at %zu of %zu looks\n",
	       looks - differ, looks);
	for (int sc = 0; sc < NSCEN; sc++) {
		printf("\n%s\n", scen_name[sc]);
		printf("%-15s %6s  %-24s %-24s %s\n", "rule", "budget",
		       sc % 2 ? "FAIL (power)" : "FAIL (wrong)", "PASS (wrong)", "mean rounds");
		for (size_t k = 0; k < NRULES; k++)
			for (size_t b = 0; b < nbudgets; b++) {
				struct tally *x = &t[sc][b][k];
				char f[64], p[64];
				rate(f, sizeof f, x->fail, x->trials);
				rate(p, sizeof p, x->pass, x->trials);
				printf("%-15s %6zu  %-24s %-24s %.1f\n", rules[k].name, budgets[b], f, p,
				       (double)x->stop_sum / (double)x->trials);
			}
	}
	return differ ? 1 : 0;
}
