/* series.c - the samples behind a comparison, for the charts and the history formats (draw.h). */
#include "front/draw/drawint.h"

#include <math.h>
#include <string.h>
#include <stdlib.h>

/* The first primary row of workload wl (of phase `phase` when not NULL), or NULL. */
static const struct cmp_row *primary_row(const struct cmp_report *r, const char *wl,
                                         const char *phase)
{
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (row->family == CMP_FAMILY_PRIMARY && row->workload &&
		    strcmp(row->workload, wl) == 0 && (!phase || strcmp(row->phase, phase) == 0))
			return row;
	}
	return NULL;
}

const char *series_chart_phase(const struct cmp_report *r, const char *wl)
{
	const struct cmp_row *q = primary_row(r, wl, NULL);
	const char *first = NULL;

	if (q)
		return q->phase;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!row->workload || strcmp(row->workload, wl) != 0)
			continue;
		if (strcmp(row->phase, "total") == 0)
			return row->phase;
		first = first ? first : row->phase;
	}
	return first;
}

enum rf_regime series_row_regime(const struct cmp_report *r, const char *wl, const char *phase)
{
	const struct cmp_row *q = primary_row(r, wl, phase);

	if (q)
		return q->regime;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (row->workload && strcmp(row->workload, wl) == 0 && strcmp(row->phase, phase) == 0 &&
		    row->regime == RF_STEADY)
			return RF_STEADY;
	}
	return RF_COLD;
}

/* The times of key in d's measured rounds, or in its warm-up rounds when warm is set. */
static int times_of(const struct rf_doc *d, const struct series_key *key, int warm, double **t,
                    size_t *n)
{
	int a = rf_arm(d, key->arm), w = key->wl ? rf_workload(d, key->wl) : -1, p;
	size_t rounds = warm ? d->nwarmup : d->nrounds;

	*t = NULL;
	*n = 0;
	if (a < 0 || w < 0 || (p = rf_phase(&d->wl[w], key->phase)) < 0)
		return -1;
	if (rounds && !(*t = malloc(rounds * sizeof **t)))
		return -1;
	for (size_t i = 0; i < rounds; i++) {
		const struct rf_run *run =
		    (warm ? rf_warm_run : rf_run)(d, i, (size_t)a, (size_t)w);
		if (run->present && run->ok && run->t_regime[key->g][p] > 0)
			(*t)[(*n)++] = run->t_regime[key->g][p];
	}
	return 0;
}

int series_arm_times(const struct rf_doc *d, const struct series_key *key, double **t, size_t *n)
{
	return times_of(d, key, 0, t, n);
}

int series_warm_times(const struct rf_doc *d, const struct series_key *key, double **t, size_t *n)
{
	return times_of(d, key, 1, t, n);
}

int series_arm_peak_rss(const struct rf_doc *d, const char *arm, const char *wl, double **v,
                        size_t *n)
{
	int a = rf_arm(d, arm), w = wl ? rf_workload(d, wl) : -1;

	*v = NULL;
	*n = 0;
	if (a < 0 || w < 0)
		return -1;
	if (d->nrounds && !(*v = malloc(d->nrounds * sizeof **v)))
		return -1;
	for (size_t i = 0; i < d->nrounds; i++) {
		const struct rf_run *run = rf_run(d, i, (size_t)a, (size_t)w);
		if (run->present && run->ok && run->max_rss_kib > 0)
			(*v)[(*n)++] = run->max_rss_kib * 1024;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double series_sorted_median(double *x, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(x, n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

int series_round_ratios(const struct cmp_report *r, const struct cmp_row *row, double **d,
                        size_t **round, size_t *n)
{
	const struct rf_doc *doc = r->base;
	int b = rf_arm(doc, row->baseline), c = rf_arm(doc, row->candidate);
	int w = row->workload ? rf_workload(doc, row->workload) : -1, p;

	*d = NULL;
	*round = NULL;
	*n = 0;
	if (!r->paired || b < 0 || c < 0 || w < 0 || (p = rf_phase(&doc->wl[w], row->phase)) < 0)
		return -1;
	if (doc->nrounds && (!(*d = malloc(doc->nrounds * sizeof **d)) ||
	                     !(*round = malloc(doc->nrounds * sizeof **round)))) {
		free(*d);
		*d = NULL;
		return -1;
	}
	for (size_t i = 0; i < doc->nrounds; i++) {
		const struct rf_run *rb = rf_run(doc, i, (size_t)b, (size_t)w);
		const struct rf_run *rc = rf_run(doc, i, (size_t)c, (size_t)w);
		double tb = rb->t_regime[row->regime][p], tc = rc->t_regime[row->regime][p];
		if (!rb->present || !rc->present || !rb->ok || !rc->ok || !(tb > 0) || !(tc > 0))
			continue;
		(*d)[*n] = log(tc / tb);
		(*round)[(*n)++] = doc->round_index[i];
	}
	return 0;
}

void series_median_interval(const double *sorted, size_t n, double conf, double *lo, double *hi)
{
	double cdf = 0, lognorm = (double)n * log(0.5), lgn = lgamma((double)n + 1);
	size_t j = 0;

	if (n == 0) {
		*lo = *hi = NAN;
		return;
	}
	/* [x(j), x(n-1-j)] (0-based) covers the median with 1 - 2 P(B <= j), B ~ Binomial(n, 1/2):
	 * the largest j that keeps the coverage at conf, or the whole range when none does. */
	for (size_t k = 0; 2 * k + 1 < n; k++) {
		cdf += exp(lgn - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) + lognorm);
		if (1 - 2 * cdf < conf)
			break;
		j = k;
	}
	*lo = sorted[j];
	*hi = sorted[n - 1 - j];
}
