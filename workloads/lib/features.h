/* features.h - the state feature_extract keeps over its ticks (the history, the rolling windows,
 * the burst in progress) and the 225 features of a tick computed from it (features.c). The small
 * accessors are inline, as they were in the workload's one file. Private to
 * workloads/feature_extract.c. */
#ifndef ALLOCAB_FEATURES_H
#define ALLOCAB_FEATURES_H

#include "common/prng.h"

#include <stddef.h>
#include <stdint.h>
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

static inline void *fe_oom(struct fe_state *st, size_t n, const char *what)
{
	st->oom_bytes = n;
	st->oom_what = what;
	return NULL;
}

/* malloc(n), or NULL with the failure noted in st. */
static inline void *fe_alloc(struct fe_state *st, size_t n, const char *what)
{
	void *p = malloc(n);

	return p ? p : fe_oom(st, n, what);
}

/* ---- realloc-grown rings ---- */

static inline void *fe_ring_at(const struct fe_ring *r, size_t i)
{
	return r->data + ((r->head + i) & (r->cap - 1)) * r->item;
}

static inline int64_t fe_ring_i64(const struct fe_ring *r, size_t i)
{
	int64_t v;

	memcpy(&v, fe_ring_at(r, i), sizeof v);
	return v;
}

/* Price of absolute tick number k, which must still be in the history. */
static inline int64_t fe_price_of(const struct fe_state *st, int64_t k)
{
	const struct fe_tick *t = fe_ring_at(&st->hist, st->hist.len - (size_t)(st->count - k));

	return t->price;
}

/* Fills row[0..225) for the newest tick. Temporaries are allocated and freed strictly LIFO.
 * Returns 0, or -1 with the failed allocation noted in st. */
int fe_row(struct fe_state *st, float *row);

#endif
