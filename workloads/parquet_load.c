/* parquet_load.c - workload: read a zstd-compressed Parquet-like file into Arrow-like record
 * batches. Phase "prepare" writes the file in memory (a few distinct pages per column, compressed
 * once with real zstd); phase "read" has decode threads take whole row groups, copy each compressed
 * page into a short-lived buffer, decompress it into a per-thread, per-column scratch buffer that
 * grows to the largest page, and build 64-byte-aligned column buffers that grow x1.5 by alloc +
 * copy + free; finished batches cross a bounded queue to a consumer thread that checksums and
 * frees them. */
#include "workloads/lib/parquet_read.h"
#include "driver/workload.h"
#include "workloads/lib/wlutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PH_PREPARE, PH_READ };

struct pq_batch {
	uint64_t index; /* position in the file: the checksum is combined in this order */
	uint32_t rows;
	int ncols;
	struct pq_array col[];
};

struct pq_shared;

struct pq_worker {
	struct pq_shared *sh;
	struct pq_decoder d;
	pthread_t tid;
	int started;
};

/* Everything the threads share. The file is read-only once built; the queue is under lock. */
struct pq_shared {
	struct pq_source src;
	int ncols;
	uint64_t nbatches, group_batches;
	uint64_t *batch_ck; /* per-batch checksums, indexed by batch position */
	atomic_uint_fast64_t next_group;
	pthread_mutex_t lock;
	pthread_cond_t not_full, not_empty;
	struct pq_batch **ring;
	size_t ring_cap, ring_head, ring_len;
	int stop; /* set when a thread failed: everyone winds down, leftovers are freed by run */
};

/* clang-format off */
static const struct wl_param pq_params[] = {
	[P_ROW_GROUPS] = {"row_groups", "count",
		"row groups in the file; a decode thread takes one at a time",
		{2, 14, 64}, 1, 100000},
	[P_GROUP_ROWS] = {"group_rows", "rows",
		"rows per row group (Arrow Parquet max_row_group_length: 1Mi)",
		{65536, 1048576, 1048576}, 1, 1 << 26},
	[P_PAGE_ROWS] = {"page_rows", "rows",
		"data page row limit (Arrow kDefaultMaxRowsPerPage: 20,000); pages also end at 1 MiB",
		{20000, 20000, 20000}, 1, 131072},
	[P_BATCH_ROWS] = {"batch_rows", "rows",
		"rows per record batch (Arrow dataset scanner kDefaultBatchSize: 128Ki)",
		{16384, 131072, 131072}, 1, 1 << 24},
	[P_READAHEAD] = {"readahead_batches", "count",
		"finished batches queued for the consumer (Arrow kDefaultBatchReadahead: 16)",
		{16, 16, 16}, 1, 4096},
	[P_THREADS] = {"decode_threads", "count",
		"decode threads besides the consumer (Arrow's CPU pool: one per core, 2 here)",
		{2, 2, 2}, 1, 64},
	[P_NUMERIC_COLS] = {"numeric_columns", "count",
		"int64/float64 columns cycling timestamp, price, size (a trades table)",
		{3, 3, 3}, 0, PQ_MAX_COLS},
	[P_STRING_COLS] = {"string_columns", "count",
		"plain-encoded string columns (order and trade ids)",
		{2, 2, 2}, 0, PQ_MAX_COLS},
	[P_DICT_COLS] = {"dict_columns", "count",
		"dictionary-encoded string columns (symbol, venue), materialised as strings",
		{2, 2, 2}, 0, PQ_MAX_COLS},
	[P_DICT_ENTRIES] = {"dict_entries", "count",
		"values per dictionary page (about the number of listed US equities)",
		{2000, 8000, 8000}, 1, 1 << 20},
	[P_STRING_MIN] = {"string_min_bytes", "bytes",
		"shortest string value",
		{4, 4, 4}, 1, 1024},
	[P_STRING_MAX] = {"string_max_bytes", "bytes",
		"longest string value; lengths skew short: min + (max - min + 1) * u^3",
		{64, 64, 64}, 1, 1024},
	[P_VARIANTS] = {"page_variants", "count",
		"distinct stored pages per column, reused across the file so building it stays cheap",
		{2, 8, 8}, 1, 1024},
	[P_ZSTD_LEVEL] = {"zstd_level", "level",
		"zstd level of the file (Arrow's ZSTD codec default: 1)",
		{1, 1, 1}, 1, 19},
};
/* clang-format on */

static const char *const pq_phases[] = {"prepare", "read", NULL};

static uint64_t pq_columns(const int64_t *p)
{
	return (uint64_t)(p[P_NUMERIC_COLS] + p[P_STRING_COLS] + p[P_DICT_COLS]);
}

static int pq_check(struct wl_ctx *ctx)
{
	const int64_t *p = ctx->p;

	if (pq_columns(p) < 1 || pq_columns(p) > PQ_MAX_COLS)
		return wl_fail(ctx, "numeric_columns + string_columns + dict_columns must be 1..%d",
		               PQ_MAX_COLS);
	if (p[P_STRING_MIN] > p[P_STRING_MAX])
		return wl_fail(ctx, "string_min_bytes (%lld) exceeds string_max_bytes (%lld)",
		               (long long)p[P_STRING_MIN], (long long)p[P_STRING_MAX]);
	if (p[P_DICT_COLS] > 0 && p[P_DICT_ENTRIES] * (4 + p[P_STRING_MAX]) > PQ_PAGE_BYTES)
		return wl_fail(ctx, "dict_entries * (4 + string_max_bytes) exceeds the 1 MiB "
		                    "dictionary page limit");
	if (p[P_BATCH_ROWS] * p[P_STRING_MAX] > INT32_MAX)
		return wl_fail(ctx,
		               "batch_rows * string_max_bytes exceeds the 2 GiB a string column "
		               "with int32 offsets can hold");
	return 0;
}

/* Every row of every row group decoded into batches. */
static double pq_work(const int64_t *p)
{
	double strings = (double)(p[P_STRING_COLS] + p[P_DICT_COLS]);
	double row = (double)p[P_NUMERIC_COLS] * 8 + strings * (double)(4 + p[P_STRING_MAX]);

	return (double)p[P_ROW_GROUPS] * (double)p[P_GROUP_ROWS] * row;
}

static uint64_t pq_footprint(const int64_t *p)
{
	uint64_t cols = pq_columns(p), strings = (uint64_t)(p[P_STRING_COLS] + p[P_DICT_COLS]);
	uint64_t page = ZSTD_COMPRESSBOUND(PQ_PAGE_BYTES) + WL_ALIGN;
	uint64_t file = cols * (uint64_t)(p[P_VARIANTS] + 1) * page + 2 * page;
	uint64_t row = (uint64_t)p[P_NUMERIC_COLS] * 8 + strings * (uint64_t)(4 + p[P_STRING_MAX]);
	uint64_t batch = ((uint64_t)p[P_BATCH_ROWS] * row + cols * 4 * WL_ALIGN) * 3 / 2;
	uint64_t dict = (uint64_t)p[P_DICT_COLS] * (uint64_t)p[P_DICT_ENTRIES] *
	                (uint64_t)(p[P_STRING_MAX] + 32);
	uint64_t thread = cols * page * 3 / 2 + page + dict + (1u << 20) + batch;
	uint64_t in_flight = (uint64_t)(p[P_READAHEAD] + p[P_THREADS] + 1) * batch;
	uint64_t groups = (uint64_t)p[P_ROW_GROUPS];
	uint64_t per_group =
	    ((uint64_t)p[P_GROUP_ROWS] + (uint64_t)p[P_BATCH_ROWS] - 1) / (uint64_t)p[P_BATCH_ROWS];

	return file + (uint64_t)p[P_THREADS] * thread + in_flight + groups * per_group * 8;
}

/* ---- the bounded queue between decode threads and the consumer ---- */

/* Hands b to the consumer, waiting while the queue is full. Returns -1 if the run is stopping; the
 * caller still owns b then. */
static int pq_push(struct pq_shared *sh, struct pq_batch *b)
{
	int rc = -1;

	pthread_mutex_lock(&sh->lock);
	while (sh->ring_len == sh->ring_cap && !sh->stop)
		pthread_cond_wait(&sh->not_full, &sh->lock);
	if (!sh->stop) {
		sh->ring[(sh->ring_head + sh->ring_len++) % sh->ring_cap] = b;
		pthread_cond_signal(&sh->not_empty);
		rc = 0;
	}
	pthread_mutex_unlock(&sh->lock);
	return rc;
}

/* Takes the oldest batch (the caller owns it), or NULL once the run is stopping. */
static struct pq_batch *pq_pop(struct pq_shared *sh)
{
	struct pq_batch *b = NULL;

	pthread_mutex_lock(&sh->lock);
	while (sh->ring_len == 0 && !sh->stop)
		pthread_cond_wait(&sh->not_empty, &sh->lock);
	if (sh->ring_len > 0) {
		b = sh->ring[sh->ring_head];
		sh->ring_head = (sh->ring_head + 1) % sh->ring_cap;
		sh->ring_len--;
		pthread_cond_signal(&sh->not_full);
	}
	pthread_mutex_unlock(&sh->lock);
	return b;
}

static void pq_stop(struct pq_shared *sh)
{
	pthread_mutex_lock(&sh->lock);
	sh->stop = 1;
	pthread_cond_broadcast(&sh->not_full);
	pthread_cond_broadcast(&sh->not_empty);
	pthread_mutex_unlock(&sh->lock);
}

/* ---- decoding ---- */

static void pq_batch_free(struct pq_batch *b)
{
	if (!b)
		return;
	for (int c = 0; c < b->ncols; c++) {
		wl_buf_free(&b->col[c].values);
		wl_buf_free(&b->col[c].offsets);
	}
	free(b);
}

static uint64_t pq_batch_checksum(const struct pq_batch *b)
{
	uint64_t h = ck_mix(b->index, b->rows);

	for (int c = 0; c < b->ncols; c++) {
		const struct pq_array *a = &b->col[c];

		h = ck_mix(h, ((uint64_t)a->kind << 32) | a->rows);
		h = ck_bytes(h, a->values.data, a->values.len);
		if (a->offsets.data)
			h = ck_bytes(h, a->offsets.data, a->offsets.len);
	}
	return h;
}

/* Decodes row group g batch by batch and queues each batch. Returns -1 with w->d.err set on
 * failure, or -1 with w->d.err empty when the run is stopping because another thread failed. */
static int pq_decode_group(struct pq_worker *w, uint64_t g)
{
	struct pq_shared *sh = w->sh;
	uint64_t left = (uint64_t)sh->src.p[P_GROUP_ROWS];
	size_t size = sizeof(struct pq_batch) + (size_t)sh->ncols * sizeof(struct pq_array);
	int rc = 0;

	for (int c = 0; c < sh->ncols && rc == 0; c++)
		rc = pq_reader_open(&w->d, &sh->src, g, c);
	for (uint64_t k = 0; left > 0 && rc == 0; k++) {
		uint32_t n = left < (uint64_t)sh->src.p[P_BATCH_ROWS]
		                 ? (uint32_t)left
		                 : (uint32_t)sh->src.p[P_BATCH_ROWS];
		struct pq_batch *b = calloc(1, size);

		if (!b) {
			rc = pq_oom(&w->d, size, "a record batch");
			break;
		}
		b->index = g * sh->group_batches + k;
		b->rows = n;
		b->ncols = sh->ncols;
		for (int c = 0; c < sh->ncols && rc == 0; c++)
			rc = pq_read_column(&w->d, &sh->src, c, &b->col[c], n);
		if (rc == 0)
			rc = pq_push(sh, b);
		if (rc != 0)
			pq_batch_free(b);
		left -= n;
	}
	for (int c = 0; c < sh->ncols; c++)
		pq_reader_close(&w->d.rd[c]);
	return rc;
}

static void *pq_decode_main(void *arg)
{
	struct pq_worker *w = arg;
	struct pq_shared *sh = w->sh;

	w->d.dctx = ZSTD_createDCtx();
	if (!w->d.dctx) {
		snprintf(w->d.err, sizeof w->d.err,
		         "out of memory allocating a zstd decompression context");
		pq_stop(sh);
		return NULL;
	}
	for (;;) {
		uint64_t g = atomic_fetch_add(&sh->next_group, 1);

		if (g >= (uint64_t)sh->src.p[P_ROW_GROUPS])
			break;
		if (pq_decode_group(w, g) != 0) {
			pq_stop(sh);
			break;
		}
	}
	for (int c = 0; c < sh->ncols; c++)
		wl_buf_free(&w->d.scratch[c]);
	ZSTD_freeDCtx(w->d.dctx);
	return NULL;
}

static void *pq_consume_main(void *arg)
{
	struct pq_shared *sh = arg;

	for (uint64_t got = 0; got < sh->nbatches; got++) {
		struct pq_batch *b = pq_pop(sh);

		if (!b)
			break;
		sh->batch_ck[b->index] = pq_batch_checksum(b);
		pq_batch_free(b);
	}
	return NULL;
}

/* Runs the decode threads and the consumer to completion; joins every thread it started. */
static int pq_read(struct pq_shared *sh, struct wl_ctx *ctx)
{
	int nthreads = (int)sh->src.p[P_THREADS], rc = 0, err;
	struct pq_worker *w = calloc((size_t)nthreads, sizeof *w);
	pthread_t consumer;
	int consumer_started = 0;

	if (!w)
		return wl_fail(ctx, "out of memory allocating %zu bytes for decode threads",
		               (size_t)nthreads * sizeof *w);
	err = pthread_create(&consumer, NULL, pq_consume_main, sh);
	consumer_started = err == 0;
	for (int i = 0; i < nthreads && err == 0; i++) {
		w[i].sh = sh;
		err = pthread_create(&w[i].tid, NULL, pq_decode_main, &w[i]);
		w[i].started = err == 0;
	}
	if (err != 0)
		pq_stop(sh);
	for (int i = 0; i < nthreads; i++)
		if (w[i].started)
			pthread_join(w[i].tid, NULL);
	if (!consumer_started)
		pq_stop(sh);
	else
		pthread_join(consumer, NULL);
	if (err != 0)
		rc = wl_fail(ctx, "cannot start a thread: %s", strerror(err));
	for (int i = 0; i < nthreads && rc == 0; i++)
		if (w[i].d.err[0])
			rc = wl_fail(ctx, "%s", w[i].d.err);
	free(w);
	return rc;
}

static void pq_teardown(struct pq_shared *sh)
{
	if (sh->ring)
		for (; sh->ring_len > 0; sh->ring_len--) {
			pq_batch_free(sh->ring[sh->ring_head]);
			sh->ring_head = (sh->ring_head + 1) % sh->ring_cap;
		}
	free(sh->ring);
	free(sh->batch_ck);
	pq_file_free(&sh->src.file);
	pthread_cond_destroy(&sh->not_empty);
	pthread_cond_destroy(&sh->not_full);
	pthread_mutex_destroy(&sh->lock);
}

static int pq_run(struct wl_ctx *ctx, uint64_t *checksum)
{
	const int64_t *p = ctx->p;
	struct pq_shared sh = {.src = {.p = p, .seed = ctx->seed}};
	int rc;
	uint64_t h;

	if (pq_check(ctx) != 0)
		return -1;
	pq_file_schema(&sh.src.file, p);
	sh.ncols = sh.src.file.ncols;
	sh.group_batches =
	    ((uint64_t)p[P_GROUP_ROWS] + (uint64_t)p[P_BATCH_ROWS] - 1) / (uint64_t)p[P_BATCH_ROWS];
	sh.nbatches = (uint64_t)p[P_ROW_GROUPS] * sh.group_batches;
	atomic_init(&sh.next_group, 0);
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.not_full, NULL);
	pthread_cond_init(&sh.not_empty, NULL);

	wl_phase_begin(ctx, PH_PREPARE);
	rc = pq_file_build(&sh.src.file, p, ctx->seed, ctx->err);
	wl_phase_end(ctx, PH_PREPARE);
	if (rc != 0)
		goto out;

	wl_phase_begin(ctx, PH_READ);
	sh.ring_cap = (size_t)p[P_READAHEAD];
	sh.ring = malloc(sh.ring_cap * sizeof *sh.ring);
	sh.batch_ck = calloc(sh.nbatches, sizeof *sh.batch_ck);
	if (!sh.ring || !sh.batch_ck)
		rc = wl_fail(ctx, "out of memory allocating %zu bytes for the batch queue",
		             (size_t)sh.nbatches * sizeof *sh.batch_ck);
	else
		rc = pq_read(&sh, ctx);
	wl_phase_end(ctx, PH_READ);
	if (rc != 0)
		goto out;

	h = ck_mix(0x7061727175657431ULL, sh.nbatches);
	for (uint64_t b = 0; b < sh.nbatches; b++)
		h = ck_mix(h, sh.batch_ck[b]);
	*checksum = h;
out:
	pq_teardown(&sh);
	return rc;
}

const struct workload wl_parquet_load = {
    .name = "parquet_load",
    .description = "decode a zstd Parquet-like file into 64-byte-aligned Arrow-like batches on "
                   "decode threads; a consumer thread checksums and frees them",
    .params = pq_params,
    .nparams = P_COUNT,
    .phases = pq_phases,
    .footprint = pq_footprint,
    .work = pq_work,
    .check = pq_check,
    .run = pq_run,
};
