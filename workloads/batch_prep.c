/* batch_prep.c - the batch path of a PyTorch DataLoader: an epoch shuffle over sequence windows of
 * a 225-feature dataset, loader threads that build whole batches (per-sample tensors stacked into
 * one 64-aligned batch tensor, labels, a power-of-two pinned-memory-like staging copy), and a
 * trainer thread that receives them in order through a bounded window and frees them. */
#include "common/prng.h"
#include "driver/workload.h"
#include "workloads/lib/wlutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BP_FEATURES  225
#define BP_ROW_BYTES (BP_FEATURES * sizeof(float))

enum { P_ROWS, P_BATCH, P_SEQUENCE, P_WORKERS, P_PREFETCH, P_EPOCHS, P_SAMPLE_COPY, P_PIN_CACHE };
enum { PH_DATASET, PH_EPOCH };

/* clang-format off */
static const struct wl_param bp_params[] = {
	[P_ROWS] = {"rows", "rows",
		    "dataset rows of 225 float32 features + int64 label (a tabular time series in RAM)",
		    {4096, 65536, 262144}, 64, 1 << 24},
	[P_BATCH] = {"batch", "samples", "samples per batch (DataLoader batch_size; 32-256 typical)",
		     {32, 64, 64}, 1, 65536},
	[P_SEQUENCE] = {"sequence", "rows",
			"consecutive rows per sample window (sequence models over ticks)",
			{16, 32, 32}, 1, 65536},
	[P_WORKERS] = {"workers", "threads", "loader threads (DataLoader num_workers)", {2, 2, 2}, 1,
		       64},
	[P_PREFETCH] = {"prefetch", "batches",
			"batches in flight per worker (DataLoader prefetch_factor, default 2)",
			{2, 2, 2}, 1, 16},
	[P_EPOCHS] = {"epochs", "count", "passes over every window, each with a fresh shuffle",
		      {1, 4, 4}, 1, 1000},
	[P_SAMPLE_COPY] = {"sample_copy", "bool",
			   "1: Dataset.__getitem__ returns a fresh tensor per sample that collate "
			   "stacks and frees; 0: gather straight into the batch",
			   {1, 1, 1}, 0, 1},
	[P_PIN_CACHE] = {"pin_cache", "bool",
			 "1: staging buffers cached per worker (PyTorch CachingHostAllocator); 0: "
			 "allocated and freed per batch",
			 {1, 1, 1}, 0, 1},
};
/* clang-format on */

static const char *const bp_phases[] = {"dataset", "epoch", NULL};

/* A staging (pinned-like) buffer; cap is a power of two. */
struct bp_pin {
	uint8_t *buf;
	size_t cap;
};

/* One batch; built by a loader, owned by the trainer once published. */
struct bp_batch {
	float *x;          /* n x sequence x 225, 64-aligned */
	int64_t *y;        /* n labels */
	struct bp_pin pin; /* staging copy: x bytes then y bytes */
	size_t n;
	int owner; /* worker whose pin cache takes pin back */
	int ready;
};

/* State shared by the trainer and the loaders; mu guards consumed, failed, err, slot, cache. */
struct bp_state {
	const float *data;
	const int64_t *label;
	const uint32_t *order; /* shuffled window starts of the current epoch */
	size_t nstarts, nbatches, batch, seq;
	int workers, inflight, sample_copy, pin_cache;
	pthread_mutex_t mu;
	pthread_cond_t can_load, can_train;
	size_t consumed;
	int failed;
	char err[WL_ERR_LEN];
	struct bp_batch *slot; /* inflight slots; batch i lives in slot i % inflight */
	struct bp_pin *cache;  /* workers x cache_len cached staging buffers */
	size_t *ncached;       /* per worker */
	int cache_len;
};

struct bp_loader {
	struct bp_state *st;
	int id;
	pthread_t tid;
};

static uint64_t bp_footprint(const int64_t *p)
{
	uint64_t rows = (uint64_t)p[P_ROWS], batch = (uint64_t)p[P_BATCH];
	uint64_t workers = (uint64_t)p[P_WORKERS];
	uint64_t sample = wl_sat_mul((uint64_t)p[P_SEQUENCE], BP_ROW_BYTES);
	uint64_t xb = wl_sat_mul(batch, sample), yb = batch * sizeof(int64_t);
	uint64_t pin = wl_pow2_ceil(wl_sat_add(xb, yb));
	uint64_t live = wl_sat_mul((uint64_t)p[P_PREFETCH] + 1, workers) + 1;
	/* bp_setup's pin cache */
	uint64_t cached = wl_sat_mul((uint64_t)p[P_PREFETCH] + 2, workers);
	uint64_t total = wl_sat_mul(rows, BP_ROW_BYTES + sizeof(int64_t) + sizeof(uint32_t));

	if (!pin)
		return UINT64_MAX;
	/* every batch in flight (x, y) and every staging buffer, in use or cached */
	total = wl_sat_add(total, wl_sat_mul(live, wl_sat_add(xb, yb)));
	total = wl_sat_add(total, wl_sat_mul(wl_sat_add(live, cached), pin));
	if (p[P_SAMPLE_COPY])
		total =
		    wl_sat_add(total, wl_sat_mul(workers, wl_sat_mul(batch, wl_round64(sample))));
	return total;
}

/* The dataset generated, then every epoch's windows gathered (and copied per sample). */
static double bp_work(const int64_t *p)
{
	double row = (double)BP_ROW_BYTES, rows = (double)p[P_ROWS];
	double windows = rows - (double)p[P_SEQUENCE] + 1;

	return rows * row + (double)p[P_EPOCHS] * windows * (double)p[P_SEQUENCE] * row *
	                        (1.0 + (double)p[P_SAMPLE_COPY]);
}

static int bp_check(struct wl_ctx *ctx)
{
	if (ctx->p[P_SEQUENCE] > ctx->p[P_ROWS])
		return wl_fail(ctx, "sequence (%lld rows) exceeds rows (%lld): no window fits",
		               (long long)ctx->p[P_SEQUENCE], (long long)ctx->p[P_ROWS]);
	return 0;
}

static void bp_set_failed(struct bp_state *st, const char *what, size_t bytes)
{
	pthread_mutex_lock(&st->mu);
	if (!st->failed)
		snprintf(st->err, sizeof st->err, "out of memory allocating %zu bytes for %s",
		         bytes, what);
	st->failed = 1;
	pthread_cond_broadcast(&st->can_load);
	pthread_cond_signal(&st->can_train);
	pthread_mutex_unlock(&st->mu);
}

/* Takes a cached staging buffer of exactly cap bytes from worker w, or allocates one. */
static struct bp_pin bp_pin_get(struct bp_state *st, int w, size_t cap)
{
	struct bp_pin pin = {NULL, cap};

	if (st->pin_cache) {
		struct bp_pin *c = st->cache + (size_t)w * st->cache_len;

		pthread_mutex_lock(&st->mu);
		for (size_t k = 0; k < st->ncached[w]; k++) {
			if (c[k].cap == cap) {
				pin = c[k];
				c[k] = c[--st->ncached[w]];
				break;
			}
		}
		pthread_mutex_unlock(&st->mu);
		if (pin.buf)
			return pin;
	}
	pin.buf = wl_aligned_alloc(cap);
	return pin;
}

/* Returns a staging buffer to worker w's cache, or frees it. Called by the trainer. */
static void bp_pin_put(struct bp_state *st, int w, struct bp_pin pin)
{
	if (st->pin_cache) {
		pthread_mutex_lock(&st->mu);
		if (st->ncached[w] < (size_t)st->cache_len) {
			st->cache[(size_t)w * st->cache_len + st->ncached[w]++] = pin;
			pin.buf = NULL;
		}
		pthread_mutex_unlock(&st->mu);
	}
	free(pin.buf);
}

static void bp_batch_free(struct bp_batch *b)
{
	free(b->x);
	free(b->y);
	free(b->pin.buf);
	b->x = NULL;
	b->y = NULL;
	b->pin.buf = NULL;
}

/* Per-sample tensors as Dataset.__getitem__ returns them; NULL on failure (nothing left live). */
static float **bp_samples(struct bp_state *st, size_t first, size_t n, size_t *failed_bytes)
{
	size_t sb = st->seq * BP_ROW_BYTES;
	float **s = calloc(n, sizeof *s);

	*failed_bytes = n * sizeof *s;
	if (!s)
		return NULL;
	for (size_t k = 0; k < n; k++) {
		s[k] = wl_aligned_alloc(sb);
		if (!s[k]) {
			*failed_bytes = wl_round64(sb);
			while (k--)
				free(s[k]);
			free(s);
			return NULL;
		}
		memcpy(s[k], st->data + (size_t)st->order[first + k] * BP_FEATURES, sb);
	}
	return s;
}

/* Builds batch i into *b (collate + pin copy). Returns 0, or -1 with st->failed set. */
static int bp_build(struct bp_state *st, int w, size_t i, struct bp_batch *b)
{
	size_t first = i * st->batch;
	size_t n = st->nstarts - first < st->batch ? st->nstarts - first : st->batch;
	size_t sb = st->seq * BP_ROW_BYTES, xb = n * sb, yb = n * sizeof(int64_t);
	size_t bytes = 0;
	float **samples = NULL;

	memset(b, 0, sizeof *b);
	b->n = n;
	b->owner = w;
	if (st->sample_copy && !(samples = bp_samples(st, first, n, &bytes))) {
		bp_set_failed(st, "a sample tensor", bytes);
		return -1;
	}
	b->x = wl_aligned_alloc(xb);
	b->y = malloc(yb);
	if (!b->x || !b->y) {
		bp_set_failed(st, b->x ? "batch labels" : "a batch tensor",
		              b->x ? yb : wl_round64(xb));
		goto fail;
	}
	for (size_t k = 0; k < n; k++) {
		size_t start = st->order[first + k];
		const float *src = samples ? samples[k] : st->data + start * BP_FEATURES;

		memcpy(b->x + k * st->seq * BP_FEATURES, src, sb);
		b->y[k] = st->label[start + st->seq - 1];
	}
	if (samples) {
		for (size_t k = 0; k < n; k++)
			free(samples[k]);
		free(samples);
		samples = NULL;
	}
	b->pin = bp_pin_get(st, w, wl_pow2_ceil(xb + yb));
	if (!b->pin.buf) {
		bp_set_failed(st, "a staging buffer", b->pin.cap);
		goto fail;
	}
	memcpy(b->pin.buf, b->x, xb);
	memcpy(b->pin.buf + xb, b->y, yb);
	return 0;
fail:
	if (samples) {
		for (size_t k = 0; k < n; k++)
			free(samples[k]);
		free(samples);
	}
	bp_batch_free(b);
	return -1;
}

static void *bp_loader_main(void *arg)
{
	struct bp_loader *ld = arg;
	struct bp_state *st = ld->st;

	for (size_t i = (size_t)ld->id; i < st->nbatches; i += (size_t)st->workers) {
		struct bp_batch b;
		int stop;

		pthread_mutex_lock(&st->mu);
		while (!st->failed && i >= st->consumed + (size_t)st->inflight)
			pthread_cond_wait(&st->can_load, &st->mu);
		stop = st->failed;
		pthread_mutex_unlock(&st->mu);
		if (stop || bp_build(st, ld->id, i, &b) != 0)
			break;
		b.ready = 1;
		pthread_mutex_lock(&st->mu);
		st->slot[i % (size_t)st->inflight] = b;
		pthread_cond_signal(&st->can_train);
		pthread_mutex_unlock(&st->mu);
	}
	return NULL;
}

/* What the trainer reads of a batch: the first and last row of every window in the batch tensor,
 * the labels, and the labels' staging copy (the device copy itself needs no CPU). */
static uint64_t bp_batch_hash(uint64_t h, const struct bp_batch *b, size_t i, size_t seq)
{
	size_t xb = b->n * seq * BP_ROW_BYTES, yb = b->n * sizeof(int64_t);

	h = ck_mix(h, i);
	h = ck_mix(h, b->n);
	for (size_t k = 0; k < b->n; k++) {
		const float *w = b->x + k * seq * BP_FEATURES;

		h = ck_bytes(h, w, BP_ROW_BYTES);
		h = ck_bytes(h, w + (seq - 1) * BP_FEATURES, BP_ROW_BYTES);
	}
	h = ck_bytes(h, b->y, yb);
	return ck_bytes(h, b->pin.buf + xb, yb);
}

/* The trainer: takes batches in index order, hashes and frees them. Returns 0 or -1 (failed). */
static int bp_train(struct bp_state *st, uint64_t *h)
{
	for (size_t i = 0; i < st->nbatches; i++) {
		struct bp_batch *s = &st->slot[i % (size_t)st->inflight];
		struct bp_batch b;

		pthread_mutex_lock(&st->mu);
		while (!st->failed && !s->ready)
			pthread_cond_wait(&st->can_train, &st->mu);
		if (st->failed) {
			pthread_mutex_unlock(&st->mu);
			return -1;
		}
		b = *s;
		memset(s, 0, sizeof *s);
		st->consumed = i + 1;
		pthread_cond_broadcast(&st->can_load);
		pthread_mutex_unlock(&st->mu);

		*h = bp_batch_hash(*h, &b, i, st->seq);
		free(b.x);
		free(b.y);
		bp_pin_put(st, b.owner, b.pin);
	}
	return 0;
}

/* One epoch: shuffle, start loaders, train, join. Frees everything of the epoch. */
static int bp_epoch(struct wl_ctx *ctx, struct bp_state *st, struct prng *rng, uint64_t *h)
{
	uint32_t *order = malloc(st->nstarts * sizeof *order);
	struct bp_loader *ld = calloc((size_t)st->workers, sizeof *ld);
	int started = 0, rc = 0;

	if (!order || !ld) {
		free(order);
		free(ld);
		return wl_fail(ctx, "out of memory allocating %zu bytes for the epoch permutation",
		               st->nstarts * sizeof *order);
	}
	for (size_t k = 0; k < st->nstarts; k++)
		order[k] = (uint32_t)k;
	prng_shuffle(rng, order, (uint32_t)st->nstarts);
	st->order = order;
	st->consumed = 0;
	for (; started < st->workers; started++) {
		ld[started].st = st;
		ld[started].id = started;
		int e = pthread_create(&ld[started].tid, NULL, bp_loader_main, &ld[started]);
		if (e) {
			pthread_mutex_lock(&st->mu);
			if (!st->failed)
				snprintf(st->err, sizeof st->err,
				         "cannot start a loader thread: %s", strerror(e));
			st->failed = 1;
			pthread_cond_broadcast(&st->can_load);
			pthread_mutex_unlock(&st->mu);
			break;
		}
	}
	if (started == st->workers)
		rc = bp_train(st, h);
	for (int k = 0; k < started; k++)
		pthread_join(ld[k].tid, NULL);
	for (int k = 0; k < st->inflight; k++) {
		bp_batch_free(&st->slot[k]);
		st->slot[k].ready = 0;
	}
	free(order);
	free(ld);
	st->order = NULL;
	if (rc || st->failed)
		return wl_fail(ctx, "%s", st->err);
	return 0;
}

/* The dataset: rows x 225 float32 in one 64-aligned buffer, labels in another. */
static int bp_dataset(struct wl_ctx *ctx, struct bp_state *st, size_t rows, struct prng *rng)
{
	size_t nf = rows * BP_FEATURES;
	float *x = wl_aligned_alloc(nf * sizeof(float));
	int64_t *y = malloc(rows * sizeof *y);

	if (!x || !y) {
		free(x);
		free(y);
		return wl_fail(ctx, "out of memory allocating %zu bytes for the dataset",
		               nf * sizeof(float));
	}
	for (size_t k = 0; k + 1 < nf; k += 2) {
		uint64_t v = prng_next(rng);
		x[k] = (float)(int32_t)(uint32_t)v * 0x1p-31f;
		x[k + 1] = (float)(int32_t)(uint32_t)(v >> 32) * 0x1p-31f;
	}
	if (nf % 2)
		x[nf - 1] = (float)(int32_t)(uint32_t)prng_next(rng) * 0x1p-31f;
	for (size_t r = 0; r < rows; r++)
		y[r] = (int64_t)prng_below(rng, 1000);
	st->data = x;
	st->label = y;
	return 0;
}

static int bp_setup(struct wl_ctx *ctx, struct bp_state *st)
{
	const int64_t *p = ctx->p;
	size_t cache_slots;

	st->batch = (size_t)p[P_BATCH];
	st->seq = (size_t)p[P_SEQUENCE];
	st->nstarts = (size_t)p[P_ROWS] - st->seq + 1;
	st->nbatches = (st->nstarts + st->batch - 1) / st->batch;
	st->workers = (int)p[P_WORKERS];
	st->inflight = st->workers * (int)p[P_PREFETCH];
	st->sample_copy = (int)p[P_SAMPLE_COPY];
	st->pin_cache = (int)p[P_PIN_CACHE];
	/* per worker: prefetch + 1 full-size pins (one with the trainer) and a last-batch one */
	st->cache_len = (int)p[P_PREFETCH] + 2;
	cache_slots = (size_t)st->workers * (size_t)st->cache_len;
	st->slot = calloc((size_t)st->inflight, sizeof *st->slot);
	st->cache = calloc(cache_slots, sizeof *st->cache);
	st->ncached = calloc((size_t)st->workers, sizeof *st->ncached);
	if (!st->slot || !st->cache || !st->ncached)
		return wl_fail(ctx, "out of memory allocating %zu bytes for loader state",
		               cache_slots * sizeof *st->cache);
	return 0;
}

static void bp_teardown(struct bp_state *st)
{
	for (int w = 0; st->cache && st->ncached && w < st->workers; w++)
		for (size_t k = 0; k < st->ncached[w]; k++)
			free(st->cache[(size_t)w * st->cache_len + k].buf);
	free(st->cache);
	free(st->ncached);
	free(st->slot);
	free((void *)st->data);
	free((void *)st->label);
}

static int bp_run(struct wl_ctx *ctx, uint64_t *checksum)
{
	struct bp_state st = {0};
	struct prng rng;
	uint64_t h = 0;
	int rc;

	prng_seed(&rng, ctx->seed);
	pthread_mutex_init(&st.mu, NULL);
	pthread_cond_init(&st.can_load, NULL);
	pthread_cond_init(&st.can_train, NULL);
	rc = bp_setup(ctx, &st);
	if (rc == 0) {
		wl_phase_begin(ctx, PH_DATASET);
		rc = bp_dataset(ctx, &st, (size_t)ctx->p[P_ROWS], &rng);
		wl_phase_end(ctx, PH_DATASET);
	}
	for (int64_t e = 0; rc == 0 && e < ctx->p[P_EPOCHS]; e++) {
		wl_phase_begin(ctx, PH_EPOCH);
		rc = bp_epoch(ctx, &st, &rng, &h);
		wl_phase_end(ctx, PH_EPOCH);
	}
	bp_teardown(&st);
	pthread_cond_destroy(&st.can_train);
	pthread_cond_destroy(&st.can_load);
	pthread_mutex_destroy(&st.mu);
	if (rc == 0)
		*checksum = h;
	return rc;
}

const struct workload wl_batch_prep = {
    .name = "batch_prep",
    .description = "DataLoader batches: shuffled windows, loader threads, pinned staging, "
                   "trainer frees",
    .params = bp_params,
    .nparams = sizeof bp_params / sizeof bp_params[0],
    .phases = bp_phases,
    .footprint = bp_footprint,
    .work = bp_work,
    .check = bp_check,
    .run = bp_run,
};
