/* test_stats_ref.c - the rank methods of src/front/stats/ against a reference written here from
 * their definitions (docs/statistics.md, "Confidence interval (distribution-free)", "p-values"
 * and "Two results files: the unpaired fallback"), sharing no code with stats.c or hlselect.c:
 * - every Walsh average (x_i + x_j) / 2, i <= j, or difference y_j - x_i is listed and sorted;
 * - the null distributions of W+ and U are counted in exact integers by recursion on the largest
 *   rank, and those counts are checked against every sign pattern (n <= 20) and every arrangement
 *   (m + n <= 16) enumerated, against the totals 2^n and C(m + n, m), and against published
 *   critical values;
 * - the critical rank compares count / total with alpha / 2 exactly, in 128-bit integers;
 * - ranks, ties and U are counted pair by pair.
 * Production must give the same doubles (the normal approximation's level and p within 1e-12) on
 * seeded random samples with ties and without. A mismatch prints its sample on "#" lines. */
#include "check.h"
#include "common/prng.h"
#include "front/stats/hlselect.h"
#include "front/stats/stats.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LEN(a)  (sizeof(a) / sizeof((a)[0]))
#define SR_MAX  50 /* exact signed-rank distribution up to n = 50 (docs/methodology.md) */
#define RS_MAX  20 /* exact rank-sum distribution up to nx, ny = 20 */
#define SR_TOP  (SR_MAX * (SR_MAX + 1) / 2)
#define SMALL_N 60 /* the largest sample compared trial by trial */

/* sr_count[n][w]: sign patterns of the ranks 1..n whose positive ranks sum to w. */
static uint64_t sr_count[SR_MAX + 1][SR_TOP + 1];
/* rs_count[m][n][u]: orderings of m x's and n y's with u pairs (x, y) where y comes later. */
static uint64_t rs_count[RS_MAX + 1][RS_MAX + 1][RS_MAX * RS_MAX + 1];

/* Rank n is negative (W+ unchanged) or positive (W+ grows by n); the largest value of a pooled
 * ordering is an x (no later y) or a y (later than all m x's). */
static void count_null_distributions(void)
{
	sr_count[0][0] = 1;
	for (size_t n = 1; n <= SR_MAX; n++)
		for (size_t w = 0; w <= n * (n + 1) / 2; w++)
			sr_count[n][w] = sr_count[n - 1][w] + (w >= n ? sr_count[n - 1][w - n] : 0);
	for (size_t m = 0; m <= RS_MAX; m++)
		for (size_t n = 0; n <= RS_MAX; n++)
			for (size_t u = 0; u <= m * n; u++)
				rs_count[m][n][u] =
				    m + n == 0 ? u == 0
				               : (m ? rs_count[m - 1][n][u] : 0) +
				                     (n && u >= m ? rs_count[m][n - 1][u - m] : 0);
}

static uint64_t binomial(size_t n, size_t k)
{
	uint64_t c = 1;

	for (size_t i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

/* Every sign pattern of n <= 20 ranks and every ordering of m + n <= 16 values, enumerated. */
static void test_null_distributions(void)
{
	static uint64_t seen[SR_TOP + 1];
	int sr_ok = 1, rs_ok = 1;

	for (size_t n = 1; n <= 20; n++) {
		memset(seen, 0, sizeof seen);
		for (uint32_t mask = 0; mask < (1u << n); mask++) {
			size_t w = 0;
			for (size_t r = 1; r <= n; r++)
				w += mask >> (r - 1) & 1 ? r : 0;
			seen[w]++;
		}
		sr_ok &= !memcmp(seen, sr_count[n], (n * (n + 1) / 2 + 1) * sizeof *seen);
	}
	for (size_t total = 2; total <= 16; total++)
		for (size_t m = 1; m < total; m++) {
			size_t n = total - m;
			memset(seen, 0, sizeof seen);
			for (uint32_t mask = 0; mask < (1u << total); mask++) {
				size_t u = 0, later_y = 0;
				if ((size_t)__builtin_popcount(mask) != m)
					continue;
				for (size_t pos = total; pos-- > 0;)
					if (mask >> pos & 1)
						u += later_y;
					else
						later_y++;
				seen[u]++;
			}
			rs_ok &= !memcmp(seen, rs_count[m][n], (m * n + 1) * sizeof *seen);
		}
	CHECK(sr_ok, "reference: W+ counts equal every sign pattern enumerated, n = 1..20");
	CHECK(rs_ok, "reference: U counts equal every ordering enumerated, m + n <= 16");
	for (size_t n = 1; n <= SR_MAX; n++) {
		uint64_t sum = 0;
		for (size_t w = 0; w <= n * (n + 1) / 2; w++)
			sum += sr_count[n][w];
		sr_ok &= sum == (uint64_t)1 << n;
	}
	for (size_t m = 0; m <= RS_MAX; m++)
		for (size_t n = 0; n <= RS_MAX; n++) {
			uint64_t sum = 0;
			for (size_t u = 0; u <= m * n; u++)
				sum += rs_count[m][n][u];
			rs_ok &= sum == binomial(m + n, m);
		}
	CHECK(sr_ok && rs_ok, "reference: counts total 2^n (n <= 50) and C(m + n, m) (m, n <= 20)");
}

/* count / total <= alpha / 2, decided exactly for alpha = f 2^e in [2^-10, 1) as a double. */
static int tail_within(uint64_t count, uint64_t total, double alpha)
{
	int e;
	double f = frexp(alpha, &e);
	unsigned __int128 a = (unsigned __int128)ldexp(f, 53);

	/* alpha / 2 = a 2^(e - 54): count 2^(54 - e) <= a total */
	return ((unsigned __int128)count << (54 - e)) <= a * total;
}

/* Largest T with P(S <= T) <= alpha / 2 over counts[0..top], or -1 if none. */
static long critical_value(const uint64_t *counts, size_t top, double alpha)
{
	uint64_t total = 0, cum = 0;
	long t = -1;

	for (size_t s = 0; s <= top; s++)
		total += counts[s];
	for (size_t s = 0; s <= top && tail_within(cum += counts[s], total, alpha); s++)
		t = (long)s;
	return t;
}

/* Two-sided 0.05 critical values of the signed-rank T and the Mann-Whitney U, as published in
 * the tables of Hollander & Wolfe (docs/statistics.md, "References"); -1: no value. */
static void test_published_values(void)
{
	static const struct {
		size_t n;
		long t;
	} sr[] = {{5, -1}, {6, 0}, {8, 3}, {10, 8}, {12, 13}, {15, 25}, {20, 52}, {50, 434}};
	static const struct {
		size_t m, n;
		long u;
	} rs[] = {{3, 4, -1}, {5, 5, 2}, {4, 6, 2}, {6, 7, 6}, {8, 8, 13}, {20, 20, 127}};
	int ok = 1;

	for (size_t i = 0; i < LEN(sr); i++)
		ok &=
		    critical_value(sr_count[sr[i].n], sr[i].n * (sr[i].n + 1) / 2, 0.05) == sr[i].t;
	CHECK(ok,
	      "reference: W+ counts give the published critical T (n 5, 6, 8, 10, 12, 15, 20, 50)");
	ok = 1;
	for (size_t i = 0; i < LEN(rs); i++)
		ok &=
		    critical_value(rs_count[rs[i].m][rs[i].n], rs[i].m * rs[i].n, 0.05) == rs[i].u;
	CHECK(ok, "reference: U counts give the published critical U ((3,4) none, (5,5), (4,6), "
	          "(6,7), (8,8), (20,20))");
}

/* z with P(Z > z) = a, by bisection on erfc. */
static double upper_quantile(double a)
{
	double lo = -40, hi = 40;

	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if (0.5 * erfc(mid / M_SQRT2) > a)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* The rank k of the lower bound among top sorted values (docs: the largest k with
 * P(S <= k - 1) <= alpha / 2, at most (top + 1) / 2, at least 1), from exact counts or, with
 * counts NULL, from the normal approximation with standard deviation sd; *level = 1 - 2 P(S <=
 * k - 1). */
static size_t bound_rank(const uint64_t *counts, size_t top, double sd, double alpha, double *level)
{
	size_t kmax = (top + 1) / 2, k = 1;
	double mu = (double)top / 2;

	if (counts) {
		long t = critical_value(counts, top, alpha);
		uint64_t total = 0, tail = 0;

		k = t + 1 < 1 ? 1 : (size_t)(t + 1) > kmax ? kmax : (size_t)(t + 1);
		for (size_t s = 0; s <= top; s++) {
			total += counts[s];
			tail += s < k ? counts[s] : 0;
		}
		*level = fmax(0, 1 - 2 * ((double)tail / (double)total));
		return k;
	}
	double kf = floor(mu + 0.5 - upper_quantile(alpha / 2) * sd);
	k = kf < 1 ? 1 : kf > (double)kmax ? kmax : (size_t)kf;
	*level = fmax(0, 1 - erfc(-(((double)k - 0.5 - mu) / sd) / M_SQRT2));
	return k;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* All Walsh averages of x (y == NULL) or all differences y_j - x_i, sorted; *m: how many. */
static double *listing(const double *x, size_t nx, const double *y, size_t ny, size_t *m)
{
	double *v = malloc((nx * (nx + 1) / 2 + nx * ny + 1) * sizeof *v);
	size_t k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = y ? 0 : i; j < (y ? ny : nx); j++)
			v[k++] = y ? y[j] - x[i] : 0.5 * (x[i] + x[j]);
	qsort(v, k, sizeof *v, cmp_double);
	*m = k;
	return v;
}

/* Estimate and interval from the sorted listing of x (and y), as docs/methodology.md defines
 * them; -1 if memory runs out. */
static int ref_interval(const double *x, size_t nx, const double *y, size_t ny, double conf,
                        struct stats_interval *out)
{
	size_t m, k;
	double *v = listing(x, nx, y, ny, &m), sd;
	const uint64_t *counts = NULL;

	if (!v)
		return -1;
	if (!y) {
		sd = sqrt((double)nx * (double)(nx + 1) * (double)(2 * nx + 1) / 24);
		counts = nx <= SR_MAX ? sr_count[nx] : NULL;
	} else {
		sd = sqrt((double)nx * (double)ny * (double)(nx + ny + 1) / 12);
		counts = nx <= RS_MAX && ny <= RS_MAX ? rs_count[nx][ny] : NULL;
	}
	k = bound_rank(counts, m, sd, 1 - conf, &out->level);
	out->est = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
	out->lo = v[k - 1];
	out->hi = v[m - k];
	free(v);
	return 0;
}

/* Two-sided p of a statistic symmetric about mu, normal with continuity correction. */
static double normal_p(double stat, double mu, double var)
{
	return var > 0 ? fmin(1, erfc(fmax(0, fabs(stat - mu) - 0.5) / sqrt(2 * var))) : 1;
}

/* 2 min(P(S <= s), P(S >= s)), capped at 1, from exact counts over 0..top. */
static double exact_p(const uint64_t *counts, size_t top, size_t s)
{
	uint64_t le = 0, ge = 0, total = 0;

	for (size_t i = 0; i <= top; i++) {
		total += counts[i];
		le += i <= s ? counts[i] : 0;
		ge += i >= s ? counts[i] : 0;
	}
	return fmin(1, 2 * ((double)(le < ge ? le : ge) / (double)total));
}

/* W+ with mid-ranks over the nonzero |x_i|, and its p (docs/statistics.md, "p-values"). */
static void ref_wilcoxon(const double *x, size_t n, double *w, double *p)
{
	double ties = 0;
	size_t m = 0;

	*w = 0;
	for (size_t i = 0; i < n; i++) {
		size_t below = 0, same = 0;
		if (x[i] == 0)
			continue;
		m++;
		for (size_t j = 0; j < n; j++) {
			below += x[j] != 0 && fabs(x[j]) < fabs(x[i]);
			same += x[j] != 0 && fabs(x[j]) == fabs(x[i]);
		}
		*w += x[i] > 0 ? (double)below + (double)(same + 1) / 2 : 0;
		ties += (double)(same * same - 1); /* t members of a group: t (t^2 - 1) */
	}
	double top = (double)m * (double)(m + 1) / 2;
	if (m == 0)
		*p = 1;
	else if (ties == 0 && m <= SR_MAX)
		*p = exact_p(sr_count[m], (size_t)top, (size_t)*w);
	else
		*p = normal_p(*w, top / 2,
		              (double)m * (double)(m + 1) * (double)(2 * m + 1) / 24 - ties / 48);
}

/* U = pairs with y_j > x_i, ties one half, and its p (docs/methodology.md). */
static void ref_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, double *u,
                             double *p)
{
	double ties = 0, top = (double)nx * (double)ny, big_n = (double)(nx + ny);

	*u = 0;
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			*u += y[j] > x[i] ? 1 : y[j] == x[i] ? 0.5 : 0;
	for (size_t i = 0; i < nx + ny; i++) {
		double v = i < nx ? x[i] : y[i - nx];
		size_t same = 0;
		for (size_t j = 0; j < nx + ny; j++)
			same += (j < nx ? x[j] : y[j - nx]) == v;
		ties += (double)(same * same - 1);
	}
	if (ties == 0 && nx <= RS_MAX && ny <= RS_MAX)
		*p = exact_p(rs_count[nx][ny], nx * ny, (size_t)*u);
	else
		*p = normal_p(*u, top / 2, top / 12 * (big_n + 1 - ties / (big_n * (big_n - 1))));
}

/* n values of one kind: 0 small integers, 1 values on quarter steps around 0, 2 a few values
 * repeated (kinds 0-2: ties, zeros among 0-1); 3 normal deviates, 4 positive values spread over
 * decades, 5 normal deviates mixed with finite values near the overflow limit (kinds 3-5: no
 * ties, except by chance). */
static void fill_sample(struct prng *r, double *x, size_t n, unsigned kind)
{
	double pool[4];

	for (size_t i = 0; i < 4; i++)
		pool[i] = prng_normal(r);
	for (size_t i = 0; i < n; i++) {
		switch (kind % 6) {
		case 0:
			x[i] = (double)prng_range(r, -3, 3);
			break;
		case 1:
			x[i] = (double)prng_range(r, -4, 4) / 4 * (prng_below(r, 2) ? 1 : -1);
			break;
		case 2:
			x[i] = pool[prng_below(r, 4)];
			break;
		case 3:
			x[i] = 0.01 + 0.05 * prng_normal(r);
			break;
		case 4:
			x[i] = exp(6 * prng_double(r) - 3);
			break;
		default:
			x[i] = prng_below(r, 3) ? prng_normal(r)
			                        : 1.7e308 * (prng_double(r) - 0.5) * 2;
		}
	}
}

static int tied_kind(unsigned kind)
{
	return kind % 6 < 3;
}

/* Equal doubles (0 and -0 alike), or both NaN (the mean of an infinite pair of medians). */
static int same_double(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

static int near(double a, double b, int exact)
{
	return exact ? same_double(a, b) : fabs(a - b) <= 1e-12 * fmax(1, fabs(b));
}

static int same_interval(const struct stats_interval *a, const struct stats_interval *b, int exact)
{
	return same_double(a->est, b->est) && same_double(a->lo, b->lo) &&
	       same_double(a->hi, b->hi) && near(a->level, b->level, exact);
}

static const double test_confs[] = {0.5, 0.8, 0.9, 0.95, 0.99, 0.999};

/* Trials and mismatches of one comparison; the first mismatch is printed. */
struct tally {
	const char *what;
	size_t trials, bad;
};

static void tally(struct tally *t, int same, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void tally(struct tally *t, int same, const char *fmt, ...)
{
	va_list ap;

	t->trials++;
	if (same || t->bad++)
		return;
	printf("# %s: first mismatch: ", t->what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void print_sample(const char *name, const double *x, size_t n)
{
	printf("# %s =", name);
	for (size_t i = 0; i < n; i++)
		printf(" %.17g", x[i]);
	printf("\n");
}

static void check_tally(const struct tally *t)
{
	CHECK(t->trials > 0 && t->bad == 0, "%s: %zu samples, %zu differ", t->what, t->trials,
	      t->bad);
}

#define IV_FMT "%.17g [%.17g, %.17g] level %.17g"
#define IV(c)  (c).est, (c).lo, (c).hi, (c).level

/* One sample of n values of `kind`: the HL estimate and interval and the signed-rank test
 * against the reference. t: estimate, interval, Wilcoxon p (each by tied or untied kind). */
static void one_sample_trial(struct prng *r, size_t n, unsigned kind, double conf,
                             struct tally t[3][2])
{
	double x[SMALL_N], est, w, p, rw, rp;
	struct stats_interval ci, rc;
	int tied = tied_kind(kind), exact = n <= SR_MAX, bad;

	fill_sample(r, x, n, kind);
	if (ref_interval(x, n, NULL, 0, conf, &rc) != 0)
		return;
	bad = t[0][tied].bad + t[1][tied].bad + t[2][tied].bad;
	tally(&t[0][tied], stats_hl_estimate(x, n, &est) == 0 && same_double(est, rc.est),
	      "n %zu: %.17g, reference %.17g", n, est, rc.est);
	tally(&t[1][tied],
	      stats_hl_interval(x, n, conf, &ci) == 0 && same_interval(&ci, &rc, exact),
	      "n %zu conf %g: " IV_FMT ", reference " IV_FMT, n, conf, IV(ci), IV(rc));
	ref_wilcoxon(x, n, &rw, &rp);
	tally(&t[2][tied], stats_wilcoxon(x, n, &w, &p) == 0 && w == rw && near(p, rp, exact),
	      "n %zu: W+ %.17g p %.17g, reference W+ %.17g p %.17g", n, w, p, rw, rp);
	if (bad == 0 && t[0][tied].bad + t[1][tied].bad + t[2][tied].bad)
		print_sample("x", x, n);
}

/* Two samples: the HL shift and its interval and the Mann-Whitney test against the reference.
 * t: shift interval, Mann-Whitney p (each by tied or untied kind). */
static void two_sample_trial(struct prng *r, size_t nx, size_t ny, unsigned kind, double conf,
                             struct tally t[2][2])
{
	double x[SMALL_N], y[SMALL_N], u, p, ru, rp;
	struct stats_interval ci, rc;
	int tied = tied_kind(kind), exact = nx <= RS_MAX && ny <= RS_MAX, bad;

	fill_sample(r, x, nx, kind);
	fill_sample(r, y, ny, kind);
	if (ref_interval(x, nx, y, ny, conf, &rc) != 0)
		return;
	bad = t[0][tied].bad + t[1][tied].bad;
	tally(&t[0][tied],
	      stats_hl_shift_interval(x, nx, y, ny, conf, &ci) == 0 &&
	          same_interval(&ci, &rc, exact),
	      "nx %zu ny %zu conf %g: " IV_FMT ", reference " IV_FMT, nx, ny, conf, IV(ci), IV(rc));
	ref_mann_whitney(x, nx, y, ny, &ru, &rp);
	tally(&t[1][tied],
	      stats_mann_whitney(x, nx, y, ny, &u, &p) == 0 && u == ru && near(p, rp, exact),
	      "nx %zu ny %zu: U %.17g p %.17g, reference U %.17g p %.17g", nx, ny, u, p, ru, rp);
	if (bad == 0 && t[0][tied].bad + t[1][tied].bad) {
		print_sample("x", x, nx);
		print_sample("y", y, ny);
	}
}

/* trials samples of n in [lo, hi], one check per function and tie class. */
static void one_sample(struct prng *r, size_t trials, size_t lo, size_t hi)
{
	static const char *const what[3] = {"hl estimate", "hl interval", "wilcoxon W+ and p"};
	static const char *const ties[2] = {"without ties", "with ties"};
	struct tally t[3][2];
	char name[3][2][160];

	for (int f = 0; f < 3; f++)
		for (int k = 0; k < 2; k++) {
			snprintf(name[f][k], sizeof name[f][k], "%s = reference, n %zu..%zu, %s",
			         what[f], lo, hi, ties[k]);
			t[f][k] = (struct tally){name[f][k], 0, 0};
		}
	for (size_t i = 0; i < trials; i++)
		one_sample_trial(r, lo + prng_below(r, hi - lo + 1), (unsigned)i,
		                 test_confs[prng_below(r, LEN(test_confs))], t);
	for (int f = 0; f < 3; f++)
		for (int k = 0; k < 2; k++)
			check_tally(&t[f][k]);
}

/* trials pairs of samples of nx, ny in [lo, hi], at least one above exact_max if it is set. */
static void two_sample(struct prng *r, size_t trials, size_t lo, size_t hi, size_t exact_max)
{
	static const char *const what[2] = {"hl shift interval", "mann-whitney U and p"};
	static const char *const ties[2] = {"without ties", "with ties"};
	struct tally t[2][2];
	char name[2][2][160];

	for (int f = 0; f < 2; f++)
		for (int k = 0; k < 2; k++) {
			snprintf(name[f][k], sizeof name[f][k],
			         "%s = reference, nx, ny %zu..%zu, %s%s", what[f], lo, hi,
			         exact_max ? "one above the exact region, " : "", ties[k]);
			t[f][k] = (struct tally){name[f][k], 0, 0};
		}
	for (size_t i = 0; i < trials; i++) {
		size_t nx = lo + prng_below(r, hi - lo + 1), ny = lo + prng_below(r, hi - lo + 1);
		if (exact_max && nx <= exact_max && ny <= exact_max)
			nx = exact_max + 1 + prng_below(r, hi - exact_max);
		two_sample_trial(r, nx, ny, (unsigned)i, test_confs[prng_below(r, LEN(test_confs))],
		                 t);
	}
	for (int f = 0; f < 2; f++)
		for (int k = 0; k < 2; k++)
			check_tally(&t[f][k]);
}

/* Large samples (normal region): estimates and intervals against the sorted listing. */
static void large_samples(struct prng *r, size_t trials, size_t lo, size_t hi)
{
	static double x[1100], y[1100];
	struct stats_interval ci, rc;
	struct tally t = {"hl estimate, interval and shift interval = reference, n 360..1100", 0,
	                  0};

	for (size_t i = 0; i < trials; i++) {
		size_t n = lo + prng_below(r, hi - lo + 1), ny = lo + prng_below(r, hi - lo + 1);
		double conf = test_confs[prng_below(r, LEN(test_confs))], est;

		fill_sample(r, x, n, (unsigned)i);
		fill_sample(r, y, ny, (unsigned)i / 6);
		int same = ref_interval(x, n, NULL, 0, conf, &rc) == 0 &&
		           stats_hl_estimate(x, n, &est) == 0 && same_double(est, rc.est) &&
		           stats_hl_interval(x, n, conf, &ci) == 0 && same_interval(&ci, &rc, 0);
		same = same && ref_interval(x, n, y, ny, conf, &rc) == 0 &&
		       stats_hl_shift_interval(x, n, y, ny, conf, &ci) == 0 &&
		       same_interval(&ci, &rc, 0);
		tally(&t, same, "trial %zu n %zu ny %zu conf %g: " IV_FMT ", reference " IV_FMT, i,
		      n, ny, conf, IV(ci), IV(rc));
	}
	check_tally(&t);
}

/* hl_select at every rank of small lists and at 97 spread ranks of larger ones. */
static int select_vs_listing(struct prng *r, size_t nx, size_t ny, unsigned kind)
{
	static double x[2000], y[2000];
	struct hl_source src = {x, ny ? y : NULL, nx, ny};
	size_t m;
	double *v, got;
	int bad = 0;

	fill_sample(r, x, nx, kind);
	fill_sample(r, y, ny, kind);
	if (!(v = listing(x, nx, ny ? y : NULL, ny, &m)) || m != hl_count(&src)) {
		free(v);
		return 1;
	}
	for (size_t i = 0, parts = m > 400 ? 96 : m - 1; i <= parts; i++) {
		size_t k = parts ? i * (m - 1) / parts : 0;
		if (hl_select(&src, &k, 1, &got) != 0 || !same_double(got, v[k]))
			bad++;
	}
	free(v);
	return bad;
}

static void test_selection(struct prng *r)
{
	int bad = 0;

	for (unsigned kind = 0; kind < 6; kind++) {
		bad += select_vs_listing(r, 1 + kind, 0, kind);
		bad += select_vs_listing(r, 40, 0, kind);
		bad += select_vs_listing(r, 900, 0, kind);
		bad += select_vs_listing(r, 7, 5, kind);
		bad += select_vs_listing(r, 1, 30, kind);
		bad += select_vs_listing(r, 1500, 90, kind);
		bad += select_vs_listing(r, 60, 1999, kind);
		for (size_t nx = 1; nx <= 3; nx++)
			for (size_t ny = 0; ny <= 3; ny++)
				bad += select_vs_listing(r, nx, ny, kind);
	}
	CHECK(bad == 0, "hl_select equals the sorted listing at every rank tried (%d differ)", bad);
}

int main(void)
{
	struct prng r;

	count_null_distributions();
	test_null_distributions();
	test_published_values();
	prng_seed(&r, 20261130);
	one_sample(&r, 3000, 1, SR_MAX);
	one_sample(&r, 600, SR_MAX + 1, SMALL_N);
	two_sample(&r, 3000, 1, RS_MAX, 0);
	two_sample(&r, 600, 1, SMALL_N, RS_MAX);
	large_samples(&r, 24, 360, 1100);
	test_selection(&r);
	return CHECK_DONE();
}
