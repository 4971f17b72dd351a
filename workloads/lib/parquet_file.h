/* parquet_file.h - the in-memory Parquet-like file that the parquet_load workload reads: its
 * parameter indices, column kinds, page index, and the writer that builds it with real zstd.
 * Private to workloads/parquet_*.c. */
#ifndef ALLOCAB_PARQUET_FILE_H
#define ALLOCAB_PARQUET_FILE_H

#include "workloads/lib/wlutil.h"

#include <stddef.h>
#include <stdint.h>

#define PQ_PAGE_BYTES (1u << 20) /* Parquet's data and dictionary page size limit */
#define PQ_MAX_COLS   64
#define PQ_PAD        8 /* zero bytes after an index page so unpacking may read 8 at a time */

/* Indices into parquet_load's parameter table. */
enum {
	P_ROW_GROUPS,
	P_GROUP_ROWS,
	P_PAGE_ROWS,
	P_BATCH_ROWS,
	P_READAHEAD,
	P_THREADS,
	P_NUMERIC_COLS,
	P_STRING_COLS,
	P_DICT_COLS,
	P_DICT_ENTRIES,
	P_STRING_MIN,
	P_STRING_MAX,
	P_VARIANTS,
	P_ZSTD_LEVEL,
	P_COUNT
};

/* Column kinds; the first three are 8-byte values (int64, float64, int64). */
enum pq_kind { K_TIMESTAMP, K_PRICE, K_SIZE, K_STRING, K_DICT };

/* Where one compressed page sits in the file, like a Parquet page header. */
struct pq_page {
	size_t off, csize, usize; /* usize: decompressed bytes */
	uint32_t rows; /* values in the page (dictionary entries for a dictionary page) */
};

/* Numeric columns, then plain string columns, then dictionary columns. For each column the file
 * holds `variants` distinct data pages (and a dictionary page first for dictionary columns);
 * the reader picks among them page by page. */
struct pq_file {
	int ncols;
	uint8_t kind[PQ_MAX_COLS];
	int64_t variants;
	struct wl_buf data;    /* every compressed page, back to back */
	struct pq_page *pages; /* ncols * (variants + 1) entries */
};

/* Sets the schema of f from the parameters p (whose column counts check() has accepted). */
void pq_file_schema(struct pq_file *f, const int64_t *p);

/* Writes every page of f, deterministically from p and seed. Returns 0, or -1 with err (of
 * WL_ERR_LEN bytes) set. Either way f owns what it holds: release it with pq_file_free. */
int pq_file_build(struct pq_file *f, const int64_t *p, uint64_t seed, char *err);

/* Frees the pages of f (a zeroed or freed f is fine). */
void pq_file_free(struct pq_file *f);

/* Page v of column c: v = -1 is the dictionary page, 0 <= v < variants a data page. */
const struct pq_page *pq_file_page(const struct pq_file *f, int c, int64_t v);

/* Formats a zstd error into err (WL_ERR_LEN bytes); zstd's own allocation failures are reported
 * as out of memory. Returns -1. */
int pq_zstd_fail(char *err, size_t code, const char *what);

#endif
