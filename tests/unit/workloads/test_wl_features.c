/* test_wl_features.c - the feature_extract workload through its table only: checksums that depend
 * on the seed but not on chunking, and (outside ASan, through the counting malloc of
 * alloc_count.h) the rows x 225 float32 matrices with finite values, 26 LIFO row temporaries of
 * 16..256 bytes per row, realloc-grown lists, the footprint bound, and a clean failure for every
 * allocation that fails. */
#include "alloc_count.h"
#include "check.h"
#include "wl_harness.h"
#include "driver/registry.h"
#include "workloads/lib/wlutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static const struct workload *wl = &wl_feature_extract;

/* Small-scale defaults with `rows` rows in chunks of `chunk`. */
static void sized(int64_t *p, int64_t rows, int64_t chunk)
{
	wlh_defaults(wl, p, WL_SCALE_SMALL);
	*wlh_param(wl, p, "rows") = rows;
	*wlh_param(wl, p, "chunk_rows") = chunk;
}

static int run(int64_t rows, int64_t chunk, uint64_t seed, uint64_t *ck, char *err)
{
	int64_t p[WL_MAX_PARAMS];

	sized(p, rows, chunk);
	return wlh_run(wl, p, seed, ck, err);
}

static void test_checksums(void)
{
	uint64_t a = 0, b = 1, c = 2, d = 3;
	char err[WL_ERR_LEN];
	int rc = run(3000, 1024, 42, &a, err);

	CHECK(rc == 0, "run succeeds: %s", rc ? err : "");
	run(3000, 1024, 42, &b, NULL);
	run(3000, 1024, 43, &c, NULL);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	run(3000, 1500, 42, &b, NULL);
	run(3000, 5000, 42, &c, NULL);
	CHECK(a == b && a == c, "checksum independent of chunk_rows");
	run(2999, 1024, 42, &d, NULL);
	CHECK(d != a, "one row fewer, another checksum");
}

#if AC_ENABLED
#define ROWS  (3 * 1024 + 512)
#define CHUNK 1024

static struct {
	long mallocs, out_of_range, not_lifo, reallocs, matrices, odd_matrices, matrix_values,
	    nonfinite;
	void *stack[64];
	int depth;
	void *matrix;
	size_t matrix_bytes;
} seen;

/* feature_extract is single-threaded: the hook needs no locking. */
static void shape_hook(enum ac_op op, size_t size, void *old, void *ptr)
{
	(void)old;
	if (op == AC_MALLOC) {
		seen.mallocs++;
		seen.out_of_range += size < 16 || size > 256;
		if (seen.depth < 64)
			seen.stack[seen.depth++] = ptr;
	} else if (op == AC_REALLOC) {
		seen.reallocs++;
	} else if (op == AC_ALIGNED) {
		size_t want =
		    wl_round64((size_t)(seen.matrices < ROWS / CHUNK ? CHUNK : ROWS % CHUNK) * 225 *
		               sizeof(float));

		seen.odd_matrices += size != want || (uintptr_t)ptr % 64 != 0;
		seen.matrices++;
		seen.matrix = ptr;
		seen.matrix_bytes = size;
	} else if (ptr == seen.matrix) {
		const float *f = ptr;

		for (size_t i = 0; i < seen.matrix_bytes / sizeof(float); i++)
			seen.nonfinite += !isfinite(f[i]);
		seen.matrix_values += (long)(seen.matrix_bytes / sizeof(float));
		seen.matrix = NULL;
	} else {
		for (int i = 0; i < seen.depth; i++)
			if (seen.stack[i] == ptr) {
				seen.not_lifo += i != seen.depth - 1;
				seen.depth = i;
				break;
			}
	}
}

static void test_shapes(void)
{
	uint64_t ck;

	ac_hook = shape_hook;
	run(ROWS, CHUNK, 7, &ck, NULL);
	ac_hook = NULL;
	CHECK(seen.matrices == (ROWS + CHUNK - 1) / CHUNK && seen.odd_matrices == 0,
	      "one 64-byte-aligned rows x 225 float32 matrix per chunk: %ld (%ld of another size)",
	      seen.matrices, seen.odd_matrices);
	CHECK(seen.matrix_values == (long)ROWS * 225 && seen.nonfinite == 0,
	      "%ld feature values, %ld not finite", seen.matrix_values, seen.nonfinite);
	CHECK(seen.mallocs == 26L * ROWS, "26 row temporaries per row: %ld for %d rows",
	      seen.mallocs, ROWS);
	CHECK(seen.out_of_range == 0, "temporaries are 16..256 bytes (%ld outside)",
	      seen.out_of_range);
	CHECK(seen.not_lifo == 0 && seen.depth == 0, "temporaries freed in LIFO order (%ld not)",
	      seen.not_lifo);
	CHECK(seen.reallocs > 2 * (ROWS + CHUNK - 1) / CHUNK, "lists grown by realloc (%ld calls)",
	      seen.reallocs);
}

static void test_footprint(void)
{
	int64_t p[WL_MAX_PARAMS];
	long peak;

	wlh_defaults(wl, p, WL_SCALE_SMALL);
	peak = wlh_peak_bytes(wl, p, 42);
	CHECK(peak <= (long)wl->footprint(p),
	      "small-scale peak live bytes %ld within footprint() %llu", peak,
	      (unsigned long long)wl->footprint(p));
}

static void test_alloc_failures(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	char err[WL_ERR_LEN];
	long total, step, tried = 0, bad = 0, leaks = 0;

	sized(p, 600, 256);
	total = wlh_requests(wl, p, 42, &ck);
	step = total / 400 + 1;
	for (long k = 1; k <= total; k += step, tried++) {
		struct wlh_fault f = wlh_run_failing(wl, p, 42, k, &ck, err);

		bad += f.rc != -1 || strncmp(err, "out of memory allocating", 24) != 0;
		leaks += f.leaked != 0;
	}
	CHECK(bad == 0,
	      "each of %ld injected allocation failures (of %ld) fails the run with \"out "
	      "of memory allocating\" (%ld did not)",
	      tried, total, bad);
	CHECK(leaks == 0, "no block left allocated after any of them (%ld leaked)", leaks);
}
#endif

int main(void)
{
	test_checksums();
#if AC_ENABLED
	test_shapes();
	test_footprint();
	test_alloc_failures();
#endif
	return CHECK_DONE();
}
