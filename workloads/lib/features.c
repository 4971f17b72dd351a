/* features.c - the 225 features of feature_extract's newest tick (features.h): per rolling window
 * its moments and 25 features, then the lags, the time of day and the burst. */
#include "workloads/lib/features.h"

#include <math.h>

/* Row temporaries: what a feature routine allocates, uses and frees before the next one. */
struct fe_lags {
	double ret[FE_RET_LAGS], logsize[FE_SIDE_LAGS], side[FE_SIDE_LAGS];
	double gap_us, day_phase;
};

struct fe_moments {
	double n, mean_p, sd_p, lo, hi, mean_s, sd_s, vwap, flow, span_ns, oldest_p, median;
	double ema_p, ema_s;
};

static double fe_sd(int64_t n, int64_t s, int64_t s2)
{
	__int128 num = (__int128)n * s2 - (__int128)s * s;

	return num > 0 ? sqrt((double)num) / (double)n : 0.0;
}

static double fe_ratio(double a, double b)
{
	return b != 0.0 ? a / b : 0.0;
}

/* The median of v[0..n) by quickselect; reorders v. */
static int64_t fe_median(int64_t *v, size_t n)
{
	size_t lo = 0, hi = n - 1, k = n / 2;

	while (lo < hi) {
		int64_t pivot = v[(lo + hi) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = v[i];
				v[i++] = v[j];
				v[j] = t;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

/* Summarises window i into m; the median scratch is a temporary of 8 * min(len, 32) bytes. */
static int fe_moments_of(struct fe_state *st, int i, struct fe_moments *m)
{
	const struct fe_window *w = &st->win[i];
	size_t keep = fe_window_len[i] < FE_MEDIAN_MAX ? fe_window_len[i] : FE_MEDIAN_MAX;
	size_t n = (size_t)w->n < keep ? (size_t)w->n : keep;
	int64_t *scratch = fe_alloc(st, keep * sizeof *scratch, "a median scratch vector");
	const struct fe_tick *oldest = fe_ring_at(&st->hist, st->hist.len - (size_t)w->n);
	const struct fe_tick *now = fe_ring_at(&st->hist, st->hist.len - 1);

	if (!scratch)
		return -1;
	for (size_t j = 0; j < n; j++)
		scratch[j] =
		    ((const struct fe_tick *)fe_ring_at(&st->hist, st->hist.len - 1 - j))->price;
	m->median = (double)fe_median(scratch, n);
	free(scratch);
	m->n = (double)w->n;
	m->mean_p = (double)w->sp / m->n;
	m->sd_p = fe_sd(w->n, w->sp, w->sp2);
	m->lo = (double)fe_price_of(st, fe_ring_i64(&w->minq, 0));
	m->hi = (double)fe_price_of(st, fe_ring_i64(&w->maxq, 0));
	m->mean_s = (double)w->ss / m->n;
	m->sd_s = fe_sd(w->n, w->ss, w->ss2);
	m->vwap = (double)w->sps / (double)w->ss;
	m->flow = (double)w->sflow / (double)w->ss;
	m->span_ns = (double)(now->ts - oldest->ts);
	m->oldest_p = (double)oldest->price;
	m->ema_p = w->ema_p;
	m->ema_s = w->ema_s;
	return 0;
}

static void fe_window_features(const struct fe_window *w, const struct fe_moments *m,
                               const struct fe_tick *t, float *f)
{
	double p = (double)t->price, s = (double)t->size, n = m->n, span = fmax(m->span_ns, 1.0);
	double v[FE_PER_WINDOW] = {
	    p / m->oldest_p - 1.0,
	    m->mean_p / p - 1.0,
	    m->sd_p / m->mean_p,
	    fe_ratio(p - m->mean_p, m->sd_p),
	    p / m->lo - 1.0,
	    p / m->hi - 1.0,
	    (m->hi - m->lo) / m->mean_p,
	    m->hi > m->lo ? (p - m->lo) / (m->hi - m->lo) : 0.5,
	    log(m->mean_s),
	    m->sd_s / m->mean_s,
	    fe_ratio(s - m->mean_s, m->sd_s),
	    m->vwap / p - 1.0,
	    m->flow,
	    (double)w->sbuys / n,
	    log1p(n * 1e9 / span),
	    log1p(span / n / 1000.0),
	    sqrt((double)w->sdp2) / p,
	    (double)w->sabsdp / n / p,
	    (double)w->sup / n,
	    (double)w->sdown / n,
	    m->ema_p / p - 1.0,
	    log(m->ema_s / m->mean_s),
	    fe_ratio(w->ema_flow, m->ema_s),
	    m->median / p - 1.0,
	    (double)(w->sup - w->sdown) / n,
	};

	for (int j = 0; j < FE_PER_WINDOW; j++)
		f[j] = (float)v[j];
}

static void fe_lags_of(const struct fe_state *st, struct fe_lags *l)
{
	const struct fe_ring *h = &st->hist;
	const struct fe_tick *now = fe_ring_at(h, h->len - 1);

	memset(l, 0, sizeof *l);
	for (size_t k = 0; k < FE_RET_LAGS && k + 1 < h->len; k++) {
		const struct fe_tick *t = fe_ring_at(h, h->len - 1 - k);

		l->ret[k] = (double)t->dp / (double)(t->price - t->dp);
	}
	for (size_t k = 0; k < FE_SIDE_LAGS && k < h->len; k++) {
		const struct fe_tick *t = fe_ring_at(h, h->len - 1 - k);

		l->logsize[k] = log((double)t->size);
		l->side[k] = t->side;
	}
	if (h->len > 1)
		l->gap_us =
		    (double)(now->ts - ((const struct fe_tick *)fe_ring_at(h, h->len - 2))->ts) /
		    1000.0;
	l->day_phase = (double)(now->ts % 86400000000000LL) / 86400e9 * 2.0 * M_PI;
}

int fe_row(struct fe_state *st, float *row)
{
	const struct fe_tick *t = fe_ring_at(&st->hist, st->hist.len - 1);
	struct fe_lags *lags = fe_alloc(st, sizeof *lags, "a lag vector");
	float *g;
	int rc = -1;

	if (!lags)
		return -1;
	fe_lags_of(st, lags);
	for (int i = 0; i < FE_WINDOWS; i++) {
		struct fe_moments *m = fe_alloc(st, sizeof *m, "window moments");
		float *f;

		if (!m || fe_moments_of(st, i, m) != 0) {
			free(m);
			goto out;
		}
		f = fe_alloc(st, FE_PER_WINDOW * sizeof *f, "a feature vector");
		if (!f) {
			free(m);
			goto out;
		}
		fe_window_features(&st->win[i], m, t, f);
		memcpy(row + i * FE_PER_WINDOW, f, FE_PER_WINDOW * sizeof *f);
		free(f);
		free(m);
	}
	g = fe_alloc(st, FE_PER_WINDOW * sizeof *g, "a feature vector");
	if (!g)
		goto out;
	for (int k = 0; k < FE_RET_LAGS; k++)
		g[k] = (float)lags->ret[k];
	for (int k = 0; k < FE_SIDE_LAGS; k++) {
		g[FE_RET_LAGS + k] = (float)lags->logsize[k];
		g[FE_RET_LAGS + FE_SIDE_LAGS + k] = (float)lags->side[k];
	}
	g[20] = (float)log1p(lags->gap_us);
	g[21] = (float)sin(lags->day_phase);
	g[22] = (float)cos(lags->day_phase);
	g[23] = (float)log1p((double)st->burst.len);
	g[24] = (float)fe_ratio((double)st->burst.volume, st->ema_size * (double)st->burst.len);
	memcpy(row + FE_WINDOWS * FE_PER_WINDOW, g, FE_PER_WINDOW * sizeof *g);
	free(g);
	rc = 0;
out:
	free(lags);
	return rc;
}
