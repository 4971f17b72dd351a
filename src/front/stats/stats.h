/* stats.h - allocab's statistics (docs/methodology.md): robust paired and two-sample location
 * estimates with distribution-free intervals, rank tests, multiplicity correction, and the noise
 * measures of the calibration. Pure functions on caller-owned arrays; none keeps state. Functions
 * that need scratch space allocate it and return -1 if that fails (results then untouched).
 * The int-returning functions also return -1, results untouched, on unusable input: a NaN or
 * infinity in the data, fewer points than documented, conf outside (0, 1). The double-returning
 * summaries return NAN when x holds a NaN. */
#ifndef ALLOCAB_STATS_H
#define ALLOCAB_STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats_interval {
	double est;    /* point estimate */
	double lo, hi; /* confidence bounds, lo <= est <= hi */
	double level;  /* achieved confidence (exact methods cannot hit 0.95 exactly) */
};

/* Median of x[0..n-1] (n >= 1); x is not modified. NAN if n == 0. */
double stats_median(const double *x, size_t n);
/* Quantile q in [0,1] by linear interpolation between order statistics (Hyndman-Fan type 7). */
double stats_quantile(const double *x, size_t n, double q);
double stats_mean(const double *x, size_t n); /* NAN if n == 0 */
/* Sample standard deviation (n - 1 denominator); 0 if n < 2. */
double stats_sd(const double *x, size_t n);
/* Median absolute deviation scaled by 1.4826 (consistent for the normal sd). */
double stats_mad(const double *x, size_t n);

/* One-sample Hodges-Lehmann estimate: median of the n(n+1)/2 Walsh averages (x_i + x_j)/2, i <= j.
 * n >= 1. The HL functions select order statistics without listing the averages or differences
 * (hlselect.h): O(n log n) expected time, O(n) memory. */
int stats_hl_estimate(const double *x, size_t n, double *out);
/* HL estimate with the distribution-free interval from the Walsh averages' order statistics
 * (Wilcoxon signed-rank inversion; exact critical values for n <= 50, normal approximation above).
 * conf is the nominal level, e.g. 0.95. n >= 1; with too few points for the level, lo/hi are the
 * extreme Walsh averages and level reports what they achieve. */
int stats_hl_interval(const double *x, size_t n, double conf, struct stats_interval *out);

/* The rank k of the interval [A_(k), A_(M+1-k)] of the M = n(n+1)/2 sorted Walsh averages that
 * stats_hl_interval takes for n points at conf, with the level it achieves in *level (below conf
 * when no interval of n points reaches it: k is then 1). 0 for n == 0, conf outside (0, 1) or no
 * memory. */
size_t stats_signrank_rank(size_t n, double conf, double *level);

/* Two-sided Wilcoxon signed-rank test of "median of x is 0". Zeros are dropped (Wilcoxon's
 * method); ties get mid-ranks. Exact null distribution when no ties remain and n <= 50, normal
 * approximation with tie and continuity correction otherwise. Writes W+ and the p-value; with no
 * nonzero value (n == 0 included) W+ = 0 and p = 1. */
int stats_wilcoxon(const double *x, size_t n, double *w_plus, double *p);

/* Two-sample Hodges-Lehmann shift: median of all nx*ny differences y_j - x_i, with the
 * Mann-Whitney (Moses) interval: exact critical values when nx, ny <= 20, normal otherwise. */
int stats_hl_shift_interval(const double *x, size_t nx, const double *y, size_t ny, double conf,
                            struct stats_interval *out);
/* Two-sided Mann-Whitney U test (normal approximation with tie correction; exact when no ties and
 * nx, ny <= 20). Writes U for y over x (pairs with y_j > x_i, ties counting one half) and the
 * p-value. */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, double *u,
                       double *p);

/* Statistic of a bootstrap resample: returns 0 and *out, or -1 on failure. */
typedef int (*stats_statistic_fn)(const double *x, size_t n, double *out);
/* How a bootstrap resamples: the statistic, the number of resamples, the seed of the PRNG. */
struct stats_resampling {
	stats_statistic_fn stat;
	uint32_t resamples;
	uint64_t seed;
};
/* Percentile bootstrap interval of rs->stat over x, from rs->resamples resamples drawn with the
 * PRNG seeded by rs->seed: identical output for identical input and seed. est is stat(x); level
 * is conf. Should the percentiles miss est (possible for odd statistics), the interval is widened
 * to it. */
int stats_bootstrap(const double *x, size_t n, const struct stats_resampling *rs, double conf,
                    struct stats_interval *out);
/* The same resamples read at k levels conf[0..k-1] into out[0..k-1]. */
int stats_bootstrap_levels(const double *x, size_t n, const struct stats_resampling *rs,
                           const double *conf, size_t k, struct stats_interval *out);

/* Holm step-down adjustment of m p-values: adj[i] is the adjusted p of p[i] (monotone, <= 1).
 * Each p must lie in [0, 1]; adj may be p. */
int stats_holm(const double *p, size_t m, double *adj);

/* Spearman rank correlation of (x_i, y_i) with mid-ranks, and its two-sided p-value (t
 * approximation with n - 2 degrees of freedom; 1.0 when n < 4). n >= 2. If x or y is constant,
 * rho = 0 and p = 1 (no trend to see). */
int stats_spearman(const double *x, const double *y, size_t n, double *rho, double *p);

/* Welch's unequal-variance t test: t = (mean y - mean x) / se, Welch-Satterthwaite df, two-sided
 * p. Needs nx, ny >= 2. Both samples constant: t = 0 or +-inf, df = nx + ny - 2, p = 1 or 0. */
int stats_welch(const double *x, size_t nx, const double *y, size_t ny, double *t, double *df,
                double *p);

/* Welch's two-sample difference of means, valid when the samples spread differently
 * (twosample.c): diff is the mean of y minus that of x with the interval est -+ t_{df, (1+conf)/2}
 * se, se^2 = s_x^2 / nx + s_y^2 / ny, df Welch-Satterthwaite's; t = est / se, p its two-sided
 * p-value, kept consistent with the interval: it excludes 0 exactly when p < 1 - conf. Both
 * samples constant: se 0, the interval the point est, t 0 or +-inf, p 1 or 0. Needs nx, ny >= 2;
 * returns 0, or -1 for fewer, a non-finite value or conf outside (0, 1). */
struct stats_twosample {
	struct stats_interval diff;
	double t, df, p;
};
int stats_welch_interval(const double *x, size_t nx, const double *y, size_t ny, double conf,
                         struct stats_twosample *out);
/* The fewest values per sample at which Welch's interval holds its level in the simulation of
 * docs/validation.md, "One CPU against its solo rounds" (with 4 solo values it ran 5.4-6.6% at
 * a nominal 5% under normal noise, from 6 on 4.6-5.5%); the function accepts 2. */
#define STATS_WELCH_MIN_N 6

/* Distributions. */
double stats_norm_cdf(double z);
double stats_norm_quantile(double p);    /* inverse of stats_norm_cdf; -inf at 0, +inf at 1 */
double stats_t_cdf(double t, double df); /* Student t, df > 0 */
/* P(F > f) for F with d1 and d2 degrees of freedom (d1, d2 > 0); NAN for invalid arguments. */
double stats_f_sf(double f, double d1, double d2);
/* Inverse of stats_t_cdf in p: exact for df 1 and 2, else Newton on the CDF (relative error
 * about 1e-15); -inf at 0, +inf at 1, NAN unless p in [0, 1] and df > 0. */
double stats_t_quantile(double p, double df);

/* Random-effects meta-analysis (meta.c; docs/methodology.md, "A fleet of machines"): k estimates
 * y[i] with standard errors se[i] (finite, > 0), one per machine. */
struct stats_meta {
	size_t k;
	double mu;         /* pooled estimate: inverse-variance weights 1 / (se_i^2 + tau^2) */
	/* Hartung-Knapp-Sidik-Jonkman standard error of mu with the max(1, q) floor (Knapp &
	 * Hartung 2003; Roever, Knapp & Friede 2015): sqrt(max(1, q_hk) / sum of the weights),
	 * never below se_dl, so that k machines whose estimates coincide (q_hk 0) keep the width
	 * their own standard errors give (docs/fleet.md, "Which standard error") */
	double se;
	double q_hk;       /* the HKSJ scale sum w_i (y_i - mu)^2 / (k - 1) before the floor */
	double lo, hi;     /* mu -+ t_{k-1, 1 - (1 - level)/2} x se */
	double level;      /* the conf asked for (the t interval is exact under its model) */
	double se_dl;      /* the DerSimonian-Laird standard error 1 / sqrt(sum of the weights) */
	double q;          /* Cochran's Q with the fixed-effect weights 1 / se_i^2 */
	double tau2, tau;  /* DerSimonian-Laird between-machine variance, and its root */
	double i2;         /* I^2 = max(0, (Q - (k - 1)) / Q); 0 when Q is 0 */
	double pi_lo, pi_hi; /* prediction interval for a new machine: mu -+ t_{k-2} x
	                      * sqrt(tau^2 + se_dl^2) (Higgins, Thompson & Spiegelhalter 2009); NAN
	                      * when k < 3 */
};
/* Pools y[0..k) at level conf in (0, 1). k >= 2. Returns 0, or -1 (out untouched) for k < 2, a
 * non-finite y or se, an se <= 0, or conf outside (0, 1). */
int stats_meta_re(const double *y, const double *se, size_t k, double conf,
                  struct stats_meta *out);
/* Studentized deleted residuals: t[i] = (y_i - mu_(-i)) / sqrt(se_i^2 + tau^2_(-i) +
 * se_DL(-i)^2), where mu_(-i), tau^2_(-i) and se_DL(-i) are the DerSimonian-Laird fit of the
 * other k - 1 machines (Viechtbauer & Cheung 2010): how far machine i lies from what the others
 * predict for it. k >= 3. Returns 0, or -1 (t untouched) for unusable input as stats_meta_re. */
int stats_meta_deleted(const double *y, const double *se, size_t k, double *t);
/* The bound a deleted residual must exceed in absolute value for its machine to be named odd:
 * t_{k-1, 1 - alpha / (2k)}, Bonferroni over the k machines, with the Student t for the spread
 * the other machines' tau^2 estimate leaves (docs/methodology.md, "A fleet of machines": with
 * z_{1 - alpha/(2k)} an ordinary machine of a fleet of 3 to 8 was named in 11-19% of synthetic
 * fleets). NAN unless alpha in (0, 1) and k >= 2. */
double stats_meta_odd_bound(double alpha, size_t k);
/* Mixed-effects meta-regression (metareg.c; docs/fleet.md, "A fleet that explains itself"): the
 * estimates y[0..k) with standard errors se[i] on an intercept and p - 1 moderators x (k rows of
 * p - 1, row-major). The residual tau^2 is the method-of-moments (DerSimonian-Laird) estimate
 * max(0, (Q_E - (k - p)) / tr(P)), with Q_E the residual Q of the fit with weights 1 / se_i^2 and
 * P = W - W X (X'WX)^-1 X'W; the coefficients are the weighted least squares fit with weights
 * 1 / (se_i^2 + tau^2), their standard errors Knapp-Hartung: sqrt(max(1, s2) [(X'W*X)^-1]_jj),
 * intervals and p-values from t with k - p degrees of freedom. */
#define STATS_METAREG_MAX   4    /* coefficients, the intercept included */
#define STATS_METAREG_MAX_K 4096 /* estimates */
struct stats_metareg {
	size_t k, p;
	double b[STATS_METAREG_MAX], se[STATS_METAREG_MAX]; /* b[0]: the intercept */
	double lo[STATS_METAREG_MAX], hi[STATS_METAREG_MAX], pval[STATS_METAREG_MAX];
	double level;
	double qe;   /* Q_E: the residual heterogeneity statistic (fixed-effect weights) */
	double tau2; /* the residual between-unit variance */
	double s2;   /* the Knapp-Hartung scale before its max(1, .) floor */
	/* the omnibus test of the moderators (b[1..p) all 0): the Wald statistic QM = b' V^-1 b
	 * with V their Knapp-Hartung covariance, and its p-value from F = QM / (p - 1) on p - 1 and
	 * k - p degrees of freedom (metafor's rma(test = "knha") QM test, here with the max(1, s^2)
	 * floor); NAN without moderators */
	double qm, qm_p;
};
/* The moderators are centred and scaled (each column's mean and standard deviation) before the
 * fit, so that the collinearity check and the solution do not depend on their units or offsets
 * (fault costs of 1e14 + 1 .. 1e14 + 8 ns are not collinear with an indicator); the coefficients
 * and their covariance are transformed back to the moderators as given.
 * Returns 0, or -1 (out untouched) when k < p + 1, p outside 1..STATS_METAREG_MAX, k above
 * STATS_METAREG_MAX_K, a non-finite value, an se <= 0, conf outside (0, 1), or a design whose
 * moderators are constant or collinear. */
int stats_meta_reg(const double *y, const double *se, const double *x, size_t k, size_t p,
                   double conf, struct stats_metareg *out);
/* The standard error an interval [lo, hi] of achieved level `level` implies for its estimate:
 * (hi - lo) / (2 z_{(1 + level)/2}) (for the signed-rank interval of a Hodges-Lehmann estimate a
 * consistent estimate of its standard deviation; docs/methodology.md). NAN for a non-finite or
 * reversed interval or a level outside (0, 1). */
double stats_interval_se(double lo, double hi, double level);

/* Minimum detectable effect on the log-ratio scale for a paired design of n rounds whose
 * per-round log ratios have standard deviation sd: two-sided level alpha, given power, normal
 * approximation adjusted for the Wilcoxon test's efficiency (3/pi):
 *     MDE = (z_{1-alpha/2} + z_power) * sd / sqrt(n * 3 / pi).
 * INFINITY when n is too small for a two-sided signed-rank test to reach alpha at all
 * (2 / 2^n > alpha: n < 6 at alpha 0.05); NAN unless sd >= 0 and alpha, power in (0, 1). */
double stats_mde(double sd, size_t n, double alpha, double power);
/* Rounds needed so that stats_mde(sd, n, alpha, power) <= effect (log scale, > 0): the smallest
 * such n, at least 2. 0 for invalid arguments, SIZE_MAX if the answer does not fit. */
size_t stats_rounds_needed(double sd, double effect, double alpha, double power);

/* The fewest paired rounds with which m comparisons can reach a verdict at family level alpha
 * (Bonferroni: each interval at 1 - alpha/m) with the exact signed-rank interval: the smallest n
 * with 2 / 2^n <= alpha / m (the widest interval of n rounds, from the smallest to the largest
 * Walsh average, has level 1 - 2/2^n; equally, the smallest p the exact test can give is
 * 2 / 2^n). 0 unless alpha is in (0, 1) and m >= 1. */
size_t stats_signrank_min_n(double alpha, size_t m);
/* The rounds N of a bench of which a share s runs solo (docs/methodology.md, "Solo anchor
 * rounds") for Welch's test of the solo rounds' mean log ratio against the shared ones'
 * (stats_welch_interval) to find a difference of `effect` (log scale) with `power` at two-sided
 * level alpha: the smallest N, its solo rounds n_so = floor(s N) and shared n_sh = N - n_so each
 * at least STATS_WELCH_MIN_N, with
 *     (t_{df, 1-alpha/2} + t_{df, power}) sqrt(sd_shared^2 / n_sh + sd_solo^2 / n_so) <= effect,
 * df Welch-Satterthwaite's at those sds and counts. 0 for invalid arguments (s outside (0, 1)),
 * SIZE_MAX if the answer does not fit. */
size_t stats_anchor_rounds(double sd_shared, double sd_solo, double share, double effect,
                           double alpha, double power);
/* The same for two samples of k rounds each with the exact Mann-Whitney interval: the smallest k
 * with 2 / C(2k, k) <= alpha / m. 0 for invalid arguments. */
size_t stats_ranksum_min_n(double alpha, size_t m);

/* Sequential decisions (seqci.c; docs/methodology.md, "Sequential decisions"): intervals that
 * stay valid when a procedure looks at them after every observation and stops at the first
 * decision. The rule: Lan-DeMets O'Brien-Fleming-type spending in its continuous-monitoring
 * form, a constant boundary c on the score (Brownian) scale over the planned information, applied
 * to the fixed-n rank intervals: at information fraction t the interval is taken at the nominal
 * two-sided level alpha_t = 2 (1 - Phi(c / sqrt t)). Any subset of looks (every observation, or
 * fewer) keeps the chance that some look's interval misses the true value at most alpha, as far
 * as the standardised rank statistic behaves like Brownian motion in information time. */
struct stats_seq_plan {
	size_t planned;    /* N: the most observations the procedure may take (information 1) */
	size_t first_look; /* no decision before this many */
	/* the share of alpha this plan spends (0: all of it). An extendable plan spends
	 * SEQ_FIRST_SHARE over its first N; a continuation past N spends the rest in stages, stage
	 * j the share SEQ_FIRST_SHARE (1 - SEQ_FIRST_SHARE)^j over a horizon doubled at each stage
	 * (stats_seq_extend): the shares sum to 1, so by the union bound over stages every decision
	 * of every stage is wrong with probability at most alpha (docs/methodology.md, "Sequential
	 * decisions"). */
	double share;
};
/* The share of alpha the first stage of an extendable plan spends. */
#define SEQ_FIRST_SHARE 0.8
/* The next stage of an extendable plan p (share > 0): twice the horizon, the share times
 * 1 - SEQ_FIRST_SHARE. Returns 0, or -1 when p is not extendable (share 0 spends all of alpha). */
int stats_seq_extend(struct stats_seq_plan *p);
/* The alpha plan p spends: alpha x p->share for a stage of an extendable plan, else alpha. The
 * one source of every level and boundary of the plan (the gate's rule line prints its boundary
 * from it). */
double stats_seq_spent(const struct stats_seq_plan *p, double alpha);
/* c with P(sup_{0<=t<=1} |B_t| >= c) = alpha for standard Brownian motion B (2.2414 at 0.05).
 * NAN unless alpha is in (0, 1). */
double stats_seq_boundary(double alpha);
/* The nominal two-sided level 2 (1 - Phi(c / sqrt(frac))) at information fraction frac in (0, 1];
 * 0 (no decision) for frac outside it or alpha outside (0, 1). */
double stats_seq_alpha_at(double frac, double alpha);
/* The same for n paired observations of a plan (frac = n / N): 0 when n is below first_look or
 * above N. */
double stats_seq_alpha(const struct stats_seq_plan *p, size_t n, double alpha);
/* The sequential interval after n paired observations: stats_hl_interval at the nominal level
 * 1 - stats_seq_alpha(p, n, alpha), written to *asked (1 when no decision is possible at n, and
 * the interval is then the widest). out->level is the level reached; the interval decides only
 * when it reaches *asked and *asked < 1. Returns 0, or -1 as stats_hl_interval. */
int stats_seq_interval(const double *x, size_t n, const struct stats_seq_plan *p, double alpha,
                       struct stats_interval *out, double *asked);
/* P(sup_{t<=1} B_t + drift t >= c(alpha)): the chance that a true effect of `drift` standard
 * errors of the full plan crosses the boundary on its side by the last look (continuous
 * monitoring; looks once a round cross a little less often). NAN for invalid arguments. */
double stats_seq_power(double drift, double alpha);
/* The sequential counterpart of stats_mde: the smallest effect (log scale) that a plan of N
 * rounds with per-round sd decides with the given power (rank efficiency 3/pi as stats_mde).
 * INFINITY when even the last look cannot reach its level (2 / 2^N above it); NAN for invalid
 * arguments. */
double stats_seq_mde(double sd, size_t planned, double alpha, double power);
/* The smallest plan N with stats_seq_mde(sd, N, alpha, power) <= effect; 0 for invalid
 * arguments, SIZE_MAX if the answer does not fit. */
size_t stats_seq_rounds_needed(double sd, double effect, double alpha, double power);
/* The smallest plan N whose last look can decide at all (2 / 2^N <= stats_seq_alpha_at(1,
 * alpha)): 7 at alpha 0.05. 0 for alpha outside (0, 1). */
size_t stats_seq_min_planned(double alpha);
/* The first look of plan p at which the exact signed-rank interval can reach its level at all
 * (2 / 2^n <= stats_seq_alpha(p, n, alpha)); 0 when none up to N can. */
size_t stats_seq_first_decision(const struct stats_seq_plan *p, double alpha);

/* The equivalence margin (log scale) that n paired rounds of per-round sd establish with the given
 * power when the true difference is 0: the interval at 1 - alpha lies within +-M with that
 * probability for M = (z_{1-alpha/2} + z_{(1+power)/2}) sd / sqrt(n 3/pi) (normal approximation,
 * signed-rank efficiency as stats_mde). INFINITY when n rounds cannot reach 1 - alpha (2/2^n >
 * alpha); NAN for invalid arguments. */
double stats_equiv_margin(double sd, size_t n, double alpha, double power);

/* The per-round log ratio d = ln(t_num / t_den) of two times, decided on the times
 * themselves: results files hold integer nanoseconds (medians of reps may end in .5), and two
 * rounds whose times stand in the same ratio must give the same d to the last bit, a ratio and
 * its inverse exact negatives, or the rank tests miss the tie (docs/methodology.md). */
/* ln(num / den) for num, den > 0. When both are whole or half units below 2^52, computed as
 * log(a) - log(b) of the fraction a/b = num/den in lowest terms: 0 exactly for equal times,
 * bit-identical for equal ratios, lr(x, y) == -lr(y, x). Otherwise log(num / den). */
double stats_log_ratio(double num, double den);

#endif
