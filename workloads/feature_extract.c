/* feature_extract.c - workload: 225 float32 features per tick from rolling windows over tick-like
 * trades (price, size, timestamp, side), chunk by chunk on one thread. Per chunk: a realloc-grown
 * tick list, a realloc-grown list of same-side bursts, a 64-byte-aligned rows x 225 float32
 * matrix that is checksummed and freed; per row: 26 short-lived temporaries of 40..256 bytes
 * freed in LIFO order; the window state lives in realloc-grown ring buffers. All window sums are
 * exact integers, so every feature is finite and depends only on the seed. */
#include "common/prng.h"
#include "driver/workload.h"
#include "workloads/lib/features.h"
#include "workloads/lib/wlutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { P_ROWS, P_CHUNK_ROWS, P_COUNT };
enum { PH_TICKS, PH_FEATURES };

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

/* ---- realloc-grown rings ---- */

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
