/* test_wl_parquet.c - the parquet_load workload through its table only: checksums that depend on
 * the seed but not on thread count or read-ahead, parameter checks, and (outside ASan, through
 * the counting malloc of alloc_count.h) dictionary values, 64-byte-aligned buffers, consumer-side
 * frees, the footprint bound, and a clean failure for every allocation that fails. */
#include "alloc_count.h"
#include "check.h"
#include "wl_harness.h"
#include "driver/registry.h"

#include <stdint.h>
#include <string.h>

static const struct workload *wl = &wl_parquet_load;

/* Small-scale defaults shrunk further so that a run takes milliseconds. */
static void tiny(int64_t *p)
{
	wlh_defaults(wl, p, WL_SCALE_SMALL);
	*wlh_param(wl, p, "row_groups") = 3;
	*wlh_param(wl, p, "group_rows") = 9000;
	*wlh_param(wl, p, "page_rows") = 2000;
	*wlh_param(wl, p, "batch_rows") = 4000;
	*wlh_param(wl, p, "dict_entries") = 300;
	*wlh_param(wl, p, "readahead_batches") = 2;
}

static void test_defaults(void)
{
	CHECK(wl->params[wlh_param_index(wl, "batch_rows")].def[WL_SCALE_DEFAULT] == 131072,
	      "default batch_rows is Arrow's 131,072");
}

static void test_check(void)
{
	int64_t p[WL_MAX_PARAMS];
	char err[WL_ERR_LEN];

	tiny(p);
	*wlh_param(wl, p, "string_min_bytes") = 65;
	CHECK(wlh_check(wl, p, err) == -1 && strstr(err, "string_min_bytes"),
	      "min > max rejected: %s", err);
	tiny(p);
	*wlh_param(wl, p, "numeric_columns") = 0;
	*wlh_param(wl, p, "string_columns") = 0;
	*wlh_param(wl, p, "dict_columns") = 0;
	CHECK(wlh_check(wl, p, err) == -1 && strstr(err, "columns"), "no columns rejected: %s",
	      err);
	tiny(p);
	*wlh_param(wl, p, "numeric_columns") = 64;
	CHECK(wlh_check(wl, p, err) == -1, "more than 64 columns rejected: %s", err);
	tiny(p);
	*wlh_param(wl, p, "dict_entries") = 20000;
	CHECK(wlh_check(wl, p, err) == -1 && strstr(err, "1 MiB"),
	      "dictionary page over 1 MiB rejected: %s", err);
	*wlh_param(wl, p, "dict_columns") = 0;
	CHECK(wlh_check(wl, p, err) == 0, "large dict_entries fine without dictionary columns");
	tiny(p);
	*wlh_param(wl, p, "batch_rows") = 1 << 24;
	*wlh_param(wl, p, "string_max_bytes") = 1024;
	CHECK(wlh_check(wl, p, err) == -1 && strstr(err, "int32"),
	      "string column over 2 GiB per batch rejected: %s", err);
}

static void test_checksums(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t a = 0, b = 1, c = 2, d = 3;
	char err[WL_ERR_LEN];
	int rc;

	tiny(p);
	rc = wlh_run(wl, p, 42, &a, err);
	CHECK(rc == 0, "tiny run succeeds: %s", rc ? err : "");
	wlh_run(wl, p, 42, &b, NULL);
	wlh_run(wl, p, 43, &c, NULL);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	*wlh_param(wl, p, "decode_threads") = 1;
	wlh_run(wl, p, 42, &b, NULL);
	*wlh_param(wl, p, "decode_threads") = 4;
	*wlh_param(wl, p, "readahead_batches") = 1;
	wlh_run(wl, p, 42, &c, NULL);
	CHECK(a == b && a == c, "checksum independent of decode_threads and readahead_batches");
	tiny(p);
	*wlh_param(wl, p, "batch_rows") = 3000;
	wlh_run(wl, p, 42, &d, NULL);
	CHECK(d != a, "batch boundaries are part of the output");
	wlh_defaults(wl, p, WL_SCALE_SMALL);
	rc = wlh_run(wl, p, 42, &a, err);
	wlh_run(wl, p, 42, &b, NULL);
	CHECK(rc == 0 && a == b, "small scale is deterministic: %s", rc ? err : "");
}

#if AC_ENABLED
static atomic_long dict_values, aligned, misaligned, remote_frees;
static long value_len;
static __thread long thread_allocs;

static void shape_hook(enum ac_op op, size_t size, void *old, void *ptr)
{
	(void)old;
	if (op == AC_FREE) {
		if (thread_allocs == 0)
			atomic_fetch_add(&remote_frees, 1);
		return;
	}
	thread_allocs++;
	if (op == AC_MALLOC && (long)size == value_len)
		atomic_fetch_add(&dict_values, 1);
	if (op == AC_ALIGNED) {
		atomic_fetch_add(&aligned, 1);
		if (size % 64 != 0 || (uintptr_t)ptr % 64 != 0)
			atomic_fetch_add(&misaligned, 1);
	}
}

static void test_shapes(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	long batches = 3 * ((9000 + 3999) / 4000), blocks = 1 + 3 + 2 * (2 + 2);

	tiny(p);
	value_len = 23;
	*wlh_param(wl, p, "string_min_bytes") = value_len;
	*wlh_param(wl, p, "string_max_bytes") = value_len;
	ac_hook = shape_hook;
	wlh_run(wl, p, 7, &ck, NULL);
	ac_hook = NULL;
	CHECK(dict_values == 2 * 300 * 3,
	      "one %ld-byte allocation per dictionary value per column chunk: %ld (want %d)",
	      value_len, (long)dict_values, 2 * 300 * 3);
	CHECK(aligned > 0 && misaligned == 0,
	      "%ld aligned allocations, all 64-byte aligned with sizes multiple of 64",
	      (long)aligned);
	CHECK(remote_frees == batches * blocks,
	      "consumer frees every batch block: %ld (want %ld batches x %ld blocks)",
	      (long)remote_frees, batches, blocks);
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
	long total, step, tried = 0, bad_rc = 0, bad_msg = 0, leaks = 0, first_bad = 0;

	tiny(p);
	*wlh_param(wl, p, "row_groups") = 2;
	*wlh_param(wl, p, "decode_threads") = 1;
	total = wlh_requests(wl, p, 42, &ck);
	step = total / 400 + 1;
	for (long k = 1; k <= total; k += step, tried++) {
		struct wlh_fault f = wlh_run_failing(wl, p, 42, k, &ck, err);

		bad_rc += f.rc != -1;
		bad_msg += f.rc == -1 && strncmp(err, "out of memory", 13) != 0 &&
		           strncmp(err, "cannot start a thread", 21) != 0;
		leaks += f.leaked != 0;
		if (!first_bad && (f.rc != -1 || f.leaked != 0))
			first_bad = k;
	}
	CHECK(bad_rc == 0 && bad_msg == 0,
	      "each of %ld injected allocation failures (of %ld) fails the run with \"out of "
	      "memory\" (%ld did not, %ld other messages; first at %ld)",
	      tried, total, bad_rc, bad_msg, first_bad);
	CHECK(leaks == 0, "no block left allocated after any of them (%ld leaked)", leaks);
}
#endif

int main(void)
{
	test_defaults();
	test_check();
	test_checksums();
#if AC_ENABLED
	test_shapes();
	test_footprint();
	test_alloc_failures();
#endif
	return CHECK_DONE();
}
