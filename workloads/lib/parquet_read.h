/* parquet_read.h - the reading side of the Parquet-like file (parquet_file.h) that the
 * parquet_load workload decodes: a decode thread's column chunk readers, which copy each
 * compressed page into a short-lived buffer, decompress it into a per-column scratch buffer that
 * grows to the largest page, and append its rows to Arrow-like 64-byte-aligned column buffers.
 * Private to workloads/parquet_*.c. */
#ifndef ALLOCAB_PARQUET_READ_H
#define ALLOCAB_PARQUET_READ_H

#include "common/prng.h"
#include "driver/workload.h"
#include "workloads/lib/parquet_file.h"

#include <zstd.h>

/* What every decode thread reads: the run's parameters, its seed and the file. */
struct pq_source {
	const int64_t *p;
	uint64_t seed;
	struct pq_file file;
};

/* One column of a record batch: values (int64/float64, or string bytes) and, for strings, int32
 * offsets (rows + 1 of them), as in Arrow. */
struct pq_array {
	uint32_t kind;
	uint32_t rows;
	struct wl_buf values;
	struct wl_buf offsets;
};

struct pq_dict_entry {
	uint32_t len;
	uint8_t *bytes; /* one allocation per value, like a reader materialising its dictionary */
};

/* Decoding state of one column chunk inside the row group a decode thread is reading. */
struct pq_reader {
	struct prng layout; /* picks which stored page variant comes next in this chunk */
	const uint8_t *pos; /* next undecoded byte of the current page (in the scratch buffer) */
	uint32_t page_left; /* rows of the current page not yet decoded */
	uint32_t width;     /* bits per dictionary index */
	uint64_t bit;       /* next index's bit position within the index page */
	struct pq_dict_entry *dict;
	uint32_t ndict;
};

/* One decode thread's reading state: its zstd context and, per column, the decompressed page
 * (reused across pages and row groups) and the chunk reader. Zeroed before its first use. */
struct pq_decoder {
	ZSTD_DCtx *dctx;
	struct wl_buf scratch[PQ_MAX_COLS];
	struct pq_reader rd[PQ_MAX_COLS];
	char err[WL_ERR_LEN]; /* why a call returned -1 */
};

/* Starts column chunk (g, c) of src's file: its page sequence and, for dictionary columns, its
 * dictionary page, each value copied into its own allocation. Returns 0, or -1 with d->err. */
int pq_reader_open(struct pq_decoder *d, const struct pq_source *src, uint64_t g, int c);

/* Frees the dictionary of a chunk reader (a closed or zeroed one is fine). */
void pq_reader_close(struct pq_reader *rd);

/* Fills a with the next n rows of column c, reading pages as needed; shrinks it on finish.
 * Returns 0, or -1 with d->err. */
int pq_read_column(struct pq_decoder *d, const struct pq_source *src, int c, struct pq_array *a,
                   uint32_t n);

/* Says in d->err that n bytes for what could not be allocated; returns -1. */
int pq_oom(struct pq_decoder *d, size_t n, const char *what);

#endif
