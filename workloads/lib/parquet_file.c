/* parquet_file.c - writes the in-memory Parquet-like file of the parquet_load workload: trades-like
 * numeric pages, PLAIN string pages, dictionary pages and bit-packed dictionary index pages, each
 * compressed once with zstd (Parquet's ZSTD codec). Only a few distinct pages per column are
 * written and the reader reuses them, so building the file stays cheap next to reading it. */
#include "workloads/lib/parquet_file.h"
#include "common/prng.h"
#include "driver/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

int pq_zstd_fail(char *err, size_t code, const char *what)
{
	if (ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation)
		snprintf(err, WL_ERR_LEN, "out of memory allocating zstd %s workspace", what);
	else
		snprintf(err, WL_ERR_LEN, "zstd %s failed: %s", what, ZSTD_getErrorName(code));
	return -1;
}

void pq_file_schema(struct pq_file *f, const int64_t *p)
{
	int c = 0;

	for (int64_t i = 0; i < p[P_NUMERIC_COLS]; i++)
		f->kind[c++] = (uint8_t)(i % 3);
	for (int64_t i = 0; i < p[P_STRING_COLS]; i++)
		f->kind[c++] = K_STRING;
	for (int64_t i = 0; i < p[P_DICT_COLS]; i++)
		f->kind[c++] = K_DICT;
	f->ncols = c;
	f->variants = p[P_VARIANTS];
}

const struct pq_page *pq_file_page(const struct pq_file *f, int c, int64_t v)
{
	return &f->pages[(size_t)c * (size_t)(f->variants + 1) + (size_t)(v + 1)];
}

void pq_file_free(struct pq_file *f)
{
	if (!f)
		return;
	wl_buf_free(&f->data);
	free(f->pages);
	f->pages = NULL;
}

/* Makes room for extra bytes; returns 0, or the total size that could not be had. */
static size_t pq_reserve(struct wl_buf *raw, size_t extra)
{
	return wl_buf_reserve(raw, extra) == 0 ? 0 : raw->len + extra;
}

static uint32_t pq_string_len(struct prng *r, const int64_t *p)
{
	double u = prng_double(r);
	uint64_t span = (uint64_t)(p[P_STRING_MAX] - p[P_STRING_MIN] + 1);

	return (uint32_t)p[P_STRING_MIN] + (uint32_t)((double)span * u * u * u);
}

/* Appends one length-prefixed value (Parquet PLAIN BYTE_ARRAY) of upper-case letters and digits. */
static size_t pq_put_string(struct wl_buf *raw, struct prng *r, uint32_t len)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t failed = pq_reserve(raw, 4 + (size_t)len);
	uint8_t *d;

	if (failed)
		return failed;
	d = raw->data + raw->len;
	memcpy(d, &len, 4);
	for (uint32_t i = 0; i < len; i++)
		d[4 + i] = (uint8_t)alphabet[prng_below(r, sizeof alphabet - 1)];
	raw->len += 4 + (size_t)len;
	return 0;
}

/* Timestamps in ns with jitter, prices as a cent-rounded random walk, sizes log-normal. */
static size_t pq_put_numeric(struct wl_buf *raw, struct prng *r, enum pq_kind kind, uint32_t rows)
{
	int64_t ts = 1700000000000000000LL + (int64_t)prng_below(r, 1000000000000ULL);
	double price = 20.0 + 480.0 * prng_double(r);
	size_t failed = pq_reserve(raw, (size_t)rows * 8);

	if (failed)
		return failed;
	for (uint32_t i = 0; i < rows; i++) {
		uint64_t v;
		double d;

		if (kind == K_TIMESTAMP) {
			ts += 50000 + (int64_t)prng_below(r, 2000000);
			v = (uint64_t)ts;
		} else if (kind == K_PRICE) {
			price = fmax(1.0, price + 0.01 * prng_normal(r));
			d = (double)(int64_t)(price * 100.0 + 0.5) / 100.0;
			memcpy(&v, &d, 8);
		} else {
			v = (uint64_t)(int64_t)(exp(4.0 + 1.3 * prng_normal(r)) + 1.0);
		}
		memcpy(raw->data + raw->len + (size_t)i * 8, &v, 8);
	}
	raw->len += (size_t)rows * 8;
	return 0;
}

/* A dictionary index page: a bit-width byte, then indices bit-packed LSB first (the bit-packed
 * runs of Parquet's RLE_DICTIONARY encoding). Indices are skewed: a few symbols trade most. */
static size_t pq_put_indices(struct wl_buf *raw, struct prng *r, uint32_t rows, uint32_t entries)
{
	uint32_t width = 1;
	size_t bytes, failed;
	uint8_t *d;

	while ((1ULL << width) < entries)
		width++;
	bytes = 1 + ((size_t)rows * width + 7) / 8 + PQ_PAD;
	failed = pq_reserve(raw, bytes);
	if (failed)
		return failed;
	d = raw->data + raw->len;
	memset(d, 0, bytes);
	d[0] = (uint8_t)width;
	for (uint32_t i = 0; i < rows; i++) {
		double u = prng_double(r);
		uint64_t idx = (uint64_t)((double)entries * u * u * u), bit = (uint64_t)i * width;
		uint64_t w;

		memcpy(&w, d + 1 + bit / 8, 8);
		w |= idx << (bit % 8);
		memcpy(d + 1 + bit / 8, &w, 8);
	}
	raw->len += bytes;
	return 0;
}

/* The writer of a file's pages: its schema f, the parameters p and seed its pages follow, and
 * raw, the page being written (uncompressed). */
struct pq_gen {
	const struct pq_file *f;
	const int64_t *p;
	uint64_t seed;
	struct wl_buf raw;
};

/* Fills g->raw with page v of column c (v = -1: the dictionary) and sets *rows. String pages end
 * at page_rows values or before 1 MiB, whichever comes first, as Parquet writers do. Returns 0, or
 * the size of the allocation that failed. */
static size_t pq_gen_page(struct pq_gen *g, int c, int64_t v, uint32_t *rows)
{
	const struct pq_file *f = g->f;
	const int64_t *p = g->p;
	struct wl_buf *raw = &g->raw;
	uint32_t limit = (uint32_t)p[P_PAGE_ROWS];
	size_t failed = 0;
	struct prng r;

	prng_seed(&r, ck_mix(ck_mix(g->seed ^ 0x70617271756574ULL, (uint64_t)c), (uint64_t)v));
	raw->len = 0;
	*rows = 0;
	if (f->kind[c] == K_DICT && v < 0) {
		for (; *rows < (uint32_t)p[P_DICT_ENTRIES] && !failed; ++*rows)
			failed = pq_put_string(raw, &r, pq_string_len(&r, p));
	} else if (f->kind[c] == K_DICT) {
		*rows = limit;
		failed = pq_put_indices(raw, &r, limit, (uint32_t)p[P_DICT_ENTRIES]);
	} else if (f->kind[c] == K_STRING) {
		for (; *rows < limit && !failed; ++*rows) {
			uint32_t len = pq_string_len(&r, p);

			if (raw->len + 4 + len > PQ_PAGE_BYTES)
				break;
			failed = pq_put_string(raw, &r, len);
		}
	} else {
		*rows = limit;
		failed = pq_put_numeric(raw, &r, (enum pq_kind)f->kind[c], limit);
	}
	return failed;
}

int pq_file_build(struct pq_file *f, const int64_t *p, uint64_t seed, char *err)
{
	size_t npages = (size_t)f->ncols * (size_t)(f->variants + 1), failed;
	struct pq_gen g = {.f = f, .p = p, .seed = seed};
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	int rc = -1;

	f->pages = calloc(npages, sizeof *f->pages);
	if (!f->pages || !cctx) {
		snprintf(err, WL_ERR_LEN, "out of memory allocating %s",
		         cctx ? "the page index" : "a zstd compression context");
		goto out;
	}
	for (int c = 0; c < f->ncols; c++) {
		for (int64_t v = f->kind[c] == K_DICT ? -1 : 0; v < f->variants; v++) {
			struct pq_page *pg =
			    &f->pages[(size_t)c * (size_t)(f->variants + 1) + (size_t)(v + 1)];
			size_t bound, n;

			failed = pq_gen_page(&g, c, v, &pg->rows);
			if (failed) {
				snprintf(
				    err, WL_ERR_LEN,
				    "out of memory allocating %zu bytes for a page being written",
				    failed);
				goto out;
			}
			bound = ZSTD_compressBound(g.raw.len);
			if (wl_buf_reserve(&f->data, bound) != 0) {
				snprintf(err, WL_ERR_LEN,
				         "out of memory allocating %zu bytes for the file",
				         f->data.len + bound);
				goto out;
			}
			n = ZSTD_compressCCtx(cctx, f->data.data + f->data.len, bound, g.raw.data,
			                      g.raw.len, (int)p[P_ZSTD_LEVEL]);
			if (ZSTD_isError(n)) {
				pq_zstd_fail(err, n, "compression");
				goto out;
			}
			pg->off = f->data.len;
			pg->csize = n;
			pg->usize = g.raw.len;
			f->data.len += n;
		}
	}
	rc = 0;
out:
	ZSTD_freeCCtx(cctx);
	wl_buf_free(&g.raw);
	return rc;
}
