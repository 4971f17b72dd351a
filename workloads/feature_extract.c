/* feature_extract.c - workload: 225 float32 features per tick from rolling windows over tick-like
 * trades (price, size, timestamp, side), chunk by chunk on one thread. Per chunk: a realloc-grown
 * tick list, a realloc-grown list of same-side bursts, a 64-byte-aligned rows x 225 float32
 * matrix that is checksummed and freed; per row: 26 short-lived temporaries of 40..256 bytes
 * freed in LIFO order; the window state lives in realloc-grown ring buffers. All window sums are
 * exact integers, so every feature is finite and depends only on the seed. */
#include "common/prng.h"
#include "driver/workload.h"
#include "workloads/lib/wlutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FE_FEATURES   225
#define FE_WINDOWS    8
#define FE_PER_WINDOW 25
#define FE_RET_LAGS   10
#define FE_SIDE_LAGS  5
#define FE_MEDIAN_MAX 32  /* the rolling median looks at the last 32 prices at most */
#define FE_HISTORY    513 /* ticks kept: the longest window plus the tick leaving it */
#define FE_MIN_PRICE  100
#define FE_MAX_PRICE  10000000

enum { P_ROWS, P_CHUNK_ROWS, P_COUNT };
enum { PH_TICKS, PH_FEATURES };

static const uint32_t fe_window_len[FE_WINDOWS] = {5, 10, 20, 40, 80, 160, 320, 512};

struct fe_tick {
	int64_t ts;    /* nanoseconds */
	int64_t price; /* in ticks of 0.01 */
	int64_t size;  /* shares */
	int32_t side;  /* +1 buy, -1 sell */
	int32_t dp;    /* price change from the previous tick */
};

struct fe_burst { /* a run of trades on the same side */
	int64_t len, volume;
	int32_t side;
};

/* A deque of fixed-size items in a power-of-two ring grown by realloc. */
struct fe_ring {
	uint8_t *data;
	size_t item, cap, head, len;
};

struct fe_window {
	int64_t n; /* ticks in the window */
	int64_t sp, sp2, ss, ss2, sps, sflow, sbuys, sdp2, sabsdp, sup, sdown;
	double alpha, ema_p, ema_s, ema_flow;
	struct fe_ring minq, maxq; /* absolute tick numbers with increasing / decreasing prices */
};

struct fe_state {
	struct prng rng;
	int64_t ts, price, count; /* generator position; ticks pushed so far */
	struct fe_ring hist;      /* the last FE_HISTORY ticks */
	struct fe_window win[FE_WINDOWS];
	struct fe_burst burst; /* the burst in progress, carried across chunks */
	double ema_size;
	uint64_t ck_rows, ck_bursts; /* checksums of every feature row and every closed burst */
	size_t oom_bytes;            /* the allocation that failed, for the error message */
	const char *oom_what;
};

/* Row temporaries: what a feature routine allocates, uses and frees before the next one. */
struct fe_lags {
	double ret[FE_RET_LAGS], logsize[FE_SIDE_LAGS], side[FE_SIDE_LAGS];
	double gap_us, day_phase;
};

struct fe_moments {
	double n, mean_p, sd_p, lo, hi, mean_s, sd_s, vwap, flow, span_ns, oldest_p, median;
	double ema_p, ema_s;
};

/* clang-format off */
static const struct wl_param fe_params[] = {
	[P_ROWS] = {"rows", "rows",
		"ticks, each turned into one row of 225 features",
		{24576, 500000, 2250000}, 1, 1LL << 32},
	[P_CHUNK_ROWS] = {"chunk_rows", "rows",
		"rows per feature matrix (16Ki x 225 float32 = 14 MiB, above glibc's mmap threshold); "
		"at least 1024, so that the two clock reads per chunk stay negligible",
		{4096, 16384, 16384}, 1024, 1 << 22},
};
/* clang-format on */

static const char *const fe_phases[] = {"ticks", "features", NULL};

/* Every tick turned into a row of features. */
static double fe_work(const int64_t *p)
{
	return (double)p[P_ROWS] * FE_FEATURES * sizeof(float);
}

static uint64_t fe_footprint(const int64_t *p)
{
	uint64_t chunk = (uint64_t)p[P_CHUNK_ROWS];
	uint64_t matrix = wl_round64(chunk * FE_FEATURES * sizeof(float));
	uint64_t lists = 4 * chunk * (sizeof(struct fe_tick) + sizeof(struct fe_burst));
	uint64_t rings = 4 * 1024 * (sizeof(struct fe_tick) + 2 * FE_WINDOWS * sizeof(int64_t));

	return matrix + lists + rings + 64 * 1024;
}

static void *fe_oom(struct fe_state *st, size_t n, const char *what)
{
	st->oom_bytes = n;
	st->oom_what = what;
	return NULL;
}

/* malloc(n), or NULL with the failure noted in st. */
static void *fe_alloc(struct fe_state *st, size_t n, const char *what)
{
	void *p = malloc(n);

	return p ? p : fe_oom(st, n, what);
}

/* ---- realloc-grown rings ---- */

static void *fe_ring_at(const struct fe_ring *r, size_t i)
{
	return r->data + ((r->head + i) & (r->cap - 1)) * r->item;
}

static int fe_ring_push(struct fe_state *st, struct fe_ring *r, const void *item)
{
	if (r->len == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		uint8_t *d = realloc(r->data, cap * r->item);

		if (!d) {
			fe_oom(st, cap * r->item, "a rolling window ring");
			return -1;
		}
		if (r->head + r->len > r->cap) /* wrapped: move the front part past the old end */
			memcpy(d + r->cap * r->item, d, (r->head + r->len - r->cap) * r->item);
		r->data = d;
		r->cap = cap;
	}
	memcpy(fe_ring_at(r, r->len++), item, r->item);
	return 0;
}

static void fe_ring_pop_front(struct fe_ring *r)
{
	r->head = (r->head + 1) & (r->cap - 1);
	r->len--;
}

static int64_t fe_ring_i64(const struct fe_ring *r, size_t i)
{
	int64_t v;

	memcpy(&v, fe_ring_at(r, i), sizeof v);
	return v;
}

static void fe_ring_free(struct fe_ring *r)
{
	free(r->data);
	r->data = NULL;
	r->cap = r->head = r->len = 0;
}

/* ---- tick generation ---- */

/* Appends n ticks to the realloc-grown list *ticks (capacity *cap, doubled when full). */
static int fe_gen_ticks(struct fe_state *st, int64_t n, struct fe_tick **ticks, size_t *cap,
                        size_t *len)
{
	for (int64_t i = 0; i < n; i++) {
		struct prng *r = &st->rng;
		struct fe_tick *t;
		double drift = (double)(10000 - st->price) * 0.0005;
		int64_t dp = (int64_t)lround(1.2 * prng_normal(r) + drift);
		double buy_p = dp > 0 ? 0.8 : dp < 0 ? 0.2 : 0.5;

		if (*len == *cap) {
			size_t ncap = *cap ? 2 * *cap : 16;
			struct fe_tick *d = realloc(*ticks, ncap * sizeof *d);

			if (!d) {
				fe_oom(st, ncap * sizeof *d, "the tick list");
				return -1;
			}
			*ticks = d;
			*cap = ncap;
		}
		if (st->price + dp < FE_MIN_PRICE || st->price + dp > FE_MAX_PRICE)
			dp = -dp;
		st->price += dp;
		st->ts += 200000 + (int64_t)(-2000000.0 * log(1.0 - prng_double(r)));
		t = &(*ticks)[(*len)++];
		t->ts = st->ts;
		t->price = st->price;
		t->dp = (int32_t)dp;
		t->size = 1 + (int64_t)fmin(exp(3.0 + prng_normal(r)), 1e6);
		t->side = prng_double(r) < buy_p ? 1 : -1;
	}
	return 0;
}

/* ---- rolling windows ---- */

static void fe_window_add(struct fe_window *w, const struct fe_tick *t, int sign)
{
	w->n += sign;
	w->sp += sign * t->price;
	w->sp2 += sign * t->price * t->price;
	w->ss += sign * t->size;
	w->ss2 += sign * t->size * t->size;
	w->sps += sign * t->price * t->size;
	w->sflow += sign * t->side * t->size;
	w->sbuys += sign * (t->side > 0);
	w->sdp2 += sign * (int64_t)t->dp * t->dp;
	w->sabsdp += sign * (int64_t)labs(t->dp);
	w->sup += sign * (t->dp > 0);
	w->sdown += sign * (t->dp < 0);
}

/* Price of absolute tick number k, which must still be in the history. */
static int64_t fe_price_of(const struct fe_state *st, int64_t k)
{
	const struct fe_tick *t = fe_ring_at(&st->hist, st->hist.len - (size_t)(st->count - k));

	return t->price;
}

/* Pushes index k onto a monotonic deque, dropping entries it dominates (sign 1: minimum). */
static int fe_mono_push(struct fe_state *st, struct fe_ring *q, int64_t k, int64_t len, int sign)
{
	int64_t p = fe_price_of(st, k);

	while (q->len > 0 && sign * fe_price_of(st, fe_ring_i64(q, q->len - 1)) >= sign * p)
		q->len--;
	if (fe_ring_push(st, q, &k) != 0)
		return -1;
	while (fe_ring_i64(q, 0) <= k - len)
		fe_ring_pop_front(q);
	return 0;
}

/* Adds tick t (absolute number st->count) to the history and to every window. */
static int fe_push(struct fe_state *st, const struct fe_tick *t)
{
	int64_t k = st->count;

	if (fe_ring_push(st, &st->hist, t) != 0)
		return -1;
	if (st->hist.len > FE_HISTORY)
		fe_ring_pop_front(&st->hist);
	st->count++;
	st->ema_size += (k ? 0.01 : 1.0) * ((double)t->size - st->ema_size);
	for (int i = 0; i < FE_WINDOWS; i++) {
		struct fe_window *w = &st->win[i];
		int64_t len = fe_window_len[i];

		fe_window_add(w, t, 1);
		if (w->n > len)
			fe_window_add(w, fe_ring_at(&st->hist, st->hist.len - 1 - (size_t)len), -1);
		if (fe_mono_push(st, &w->minq, k, len, 1) != 0 ||
		    fe_mono_push(st, &w->maxq, k, len, -1) != 0)
			return -1;
		if (k == 0) {
			w->ema_p = (double)t->price;
			w->ema_s = (double)t->size;
		}
		w->ema_p += w->alpha * ((double)t->price - w->ema_p);
		w->ema_s += w->alpha * ((double)t->size - w->ema_s);
		w->ema_flow += w->alpha * ((double)(t->side * t->size) - w->ema_flow);
	}
	return 0;
}

/* ---- features ---- */

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

/* Fills row[0..225) for the newest tick. Temporaries are allocated and freed strictly LIFO. */
static int fe_row(struct fe_state *st, float *row)
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

/* Closes the burst in progress into the chunk's realloc-grown list when the side changes. */
static int fe_burst_step(struct fe_state *st, const struct fe_tick *t, struct fe_burst **list,
                         size_t *cap, size_t *len)
{
	if (st->burst.len > 0 && st->burst.side != t->side) {
		if (*len == *cap) {
			size_t ncap = *cap ? 2 * *cap : 16;
			struct fe_burst *d = realloc(*list, ncap * sizeof *d);

			if (!d) {
				fe_oom(st, ncap * sizeof *d, "the burst list");
				return -1;
			}
			*list = d;
			*cap = ncap;
		}
		(*list)[(*len)++] = st->burst;
		st->burst.len = st->burst.volume = 0;
	}
	st->burst.side = t->side;
	st->burst.len++;
	st->burst.volume += t->size;
	return 0;
}

/* Turns the next n ticks into one n x 225 matrix and mixes its rows and the bursts closed in the
 * chunk into the state's checksums, row by row and burst by burst, so that chunk_rows changes
 * the allocations but not the checksum. */
static int fe_chunk(struct wl_ctx *ctx, struct fe_state *st, int64_t n)
{
	struct fe_tick *ticks = NULL;
	struct fe_burst *bursts = NULL;
	size_t tcap = 0, tlen = 0, bcap = 0, blen = 0,
	       bytes = (size_t)n * FE_FEATURES * sizeof(float);
	float *matrix = NULL;
	int rc;

	wl_phase_begin(ctx, PH_TICKS);
	rc = fe_gen_ticks(st, n, &ticks, &tcap, &tlen);
	wl_phase_end(ctx, PH_TICKS);
	if (rc != 0)
		goto out;
	wl_phase_begin(ctx, PH_FEATURES);
	matrix = wl_aligned_alloc(bytes);
	if (!matrix) {
		fe_oom(st, wl_round64(bytes), "the feature matrix");
		rc = -1;
	}
	for (size_t r = 0; r < tlen && rc == 0; r++) {
		rc = fe_push(st, &ticks[r]);
		if (rc == 0)
			rc = fe_burst_step(st, &ticks[r], &bursts, &bcap, &blen);
		if (rc == 0)
			rc = fe_row(st, matrix + r * FE_FEATURES);
	}
	for (size_t r = 0; r < tlen && rc == 0; r++)
		st->ck_rows =
		    ck_bytes(st->ck_rows, matrix + r * FE_FEATURES, FE_FEATURES * sizeof(float));
	for (size_t b = 0; b < blen && rc == 0; b++)
		st->ck_bursts = ck_mix(ck_mix(st->ck_bursts, (uint64_t)bursts[b].len),
		                       (uint64_t)bursts[b].volume * 2 + (bursts[b].side > 0));
	free(matrix);
	wl_phase_end(ctx, PH_FEATURES);
out:
	free(bursts);
	free(ticks);
	return rc;
}

static void fe_state_init(struct fe_state *st, uint64_t seed)
{
	memset(st, 0, sizeof *st);
	prng_seed(&st->rng, seed);
	st->ts = 1700000000000000000LL + (int64_t)prng_below(&st->rng, 86400000000000ULL);
	st->price = 10000;
	st->hist.item = sizeof(struct fe_tick);
	for (int i = 0; i < FE_WINDOWS; i++) {
		st->win[i].alpha = 2.0 / (fe_window_len[i] + 1.0);
		st->win[i].minq.item = sizeof(int64_t);
		st->win[i].maxq.item = sizeof(int64_t);
	}
}

static void fe_state_free(struct fe_state *st)
{
	fe_ring_free(&st->hist);
	for (int i = 0; i < FE_WINDOWS; i++) {
		fe_ring_free(&st->win[i].minq);
		fe_ring_free(&st->win[i].maxq);
	}
}

static int fe_run(struct wl_ctx *ctx, uint64_t *checksum)
{
	int64_t rows = ctx->p[P_ROWS], chunk = ctx->p[P_CHUNK_ROWS];
	struct fe_state st;
	int rc = 0;

	fe_state_init(&st, ctx->seed);
	for (int64_t done = 0; done < rows && rc == 0; done += chunk)
		rc = fe_chunk(ctx, &st, rows - done < chunk ? rows - done : chunk);
	fe_state_free(&st);
	if (rc != 0)
		return wl_fail(ctx, "out of memory allocating %zu bytes for %s", st.oom_bytes,
		               st.oom_what);
	*checksum = ck_mix(ck_mix((uint64_t)rows, st.ck_rows), st.ck_bursts);
	return 0;
}

const struct workload wl_feature_extract = {
    .name = "feature_extract",
    .description = "225 rolling-window features per tick into 64-byte-aligned float32 matrices, "
                   "with LIFO row temporaries and realloc-grown lists (one thread)",
    .params = fe_params,
    .nparams = P_COUNT,
    .phases = fe_phases,
    .flags = WL_SINGLE_THREADED,
    .footprint = fe_footprint,
    .work = fe_work,
    .check = NULL,
    .run = fe_run,
};
