/* test_wl_parquet.c - the parquet_load workload through its table only: checksums that depend on
 * the seed but not on thread count or read-ahead, parameter checks, and (outside ASan, through
 * the counting malloc of alloc_count.h) dictionary values, 64-byte-aligned buffers, consumer-side
 * frees, the footprint bound, and a clean failure for every allocation that fails. */
#include "alloc_count.h"
#include "check.h"
#include "workload.h"

#include <stdint.h>
#include <string.h>

static const struct workload *wl = &wl_parquet_load;

static size_t param_index(const char *name)
{
	for (size_t i = 0; i < wl->nparams; i++)
		if (strcmp(wl->params[i].name, name) == 0)
			return i;
	printf("# no parameter %s\n", name);
	return WL_MAX_PARAMS - 1;
}

static int64_t *param(int64_t *p, const char *name)
{
	return &p[param_index(name)];
}

/* Small-scale defaults shrunk further so that a run takes milliseconds. */
static void tiny(int64_t *p)
{
	for (size_t i = 0; i < wl->nparams; i++)
		p[i] = wl->params[i].def[WL_SCALE_SMALL];
	*param(p, "row_groups") = 3;
	*param(p, "group_rows") = 9000;
	*param(p, "page_rows") = 2000;
	*param(p, "batch_rows") = 4000;
	*param(p, "dict_entries") = 300;
	*param(p, "readahead_batches") = 2;
}

static int run(const int64_t *p, uint64_t seed, uint64_t *ck, char *err)
{
	struct wl_ctx ctx;
	int rc;

	memset(&ctx, 0, sizeof ctx);
	ctx.p = p;
	ctx.seed = seed;
	rc = wl->check(&ctx);
	if (rc == 0)
		rc = wl->run(&ctx, ck);
	if (err)
		memcpy(err, ctx.err, WL_ERR_LEN);
	return rc;
}

static int check_msg(int64_t *p, char *err)
{
	struct wl_ctx ctx;
	int rc;

	memset(&ctx, 0, sizeof ctx);
	ctx.p = p;
	rc = wl->check(&ctx);
	memcpy(err, ctx.err, WL_ERR_LEN);
	return rc;
}

static void test_table(void)
{
	int ok = 1;

	CHECK(strcmp(wl->name, "parquet_load") == 0, "table name");
	CHECK(wl_find("parquet_load") == wl, "registered");
	CHECK(wl->nparams <= WL_MAX_PARAMS && wl->check && wl->footprint && wl->run,
	      "table complete");
	for (size_t i = 0; i < wl->nparams; i++)
		for (int s = 0; s < WL_SCALE_COUNT; s++)
			ok &= wl->params[i].def[s] >= wl->params[i].min &&
			      wl->params[i].def[s] <= wl->params[i].max;
	CHECK(ok, "every default within its range");
	CHECK(wl->params[param_index("batch_rows")].def[WL_SCALE_DEFAULT] == 131072,
	      "default batch_rows is Arrow's 131,072");
}

static void test_check(void)
{
	int64_t p[WL_MAX_PARAMS];
	char err[WL_ERR_LEN];

	for (int s = 0; s < WL_SCALE_COUNT; s++) {
		for (size_t i = 0; i < wl->nparams; i++)
			p[i] = wl->params[i].def[s];
		CHECK(check_msg(p, err) == 0, "scale %d defaults pass check()", s);
	}
	tiny(p);
	*param(p, "string_min_bytes") = 65;
	CHECK(check_msg(p, err) == -1 && strstr(err, "string_min_bytes"), "min > max rejected: %s",
	      err);
	tiny(p);
	*param(p, "numeric_columns") = 0;
	*param(p, "string_columns") = 0;
	*param(p, "dict_columns") = 0;
	CHECK(check_msg(p, err) == -1 && strstr(err, "columns"), "no columns rejected: %s", err);
	tiny(p);
	*param(p, "numeric_columns") = 64;
	CHECK(check_msg(p, err) == -1, "more than 64 columns rejected: %s", err);
	tiny(p);
	*param(p, "dict_entries") = 20000;
	CHECK(check_msg(p, err) == -1 && strstr(err, "1 MiB"),
	      "dictionary page over 1 MiB rejected: %s", err);
	*param(p, "dict_columns") = 0;
	CHECK(check_msg(p, err) == 0, "large dict_entries fine without dictionary columns");
	tiny(p);
	*param(p, "batch_rows") = 1 << 24;
	*param(p, "string_max_bytes") = 1024;
	CHECK(check_msg(p, err) == -1 && strstr(err, "int32"),
	      "string column over 2 GiB per batch rejected: %s", err);
}

static void test_checksums(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t a = 0, b = 1, c = 2, d = 3;
	char err[WL_ERR_LEN];
	int rc;

	tiny(p);
	rc = run(p, 42, &a, err);
	CHECK(rc == 0, "tiny run succeeds: %s", rc ? err : "");
	run(p, 42, &b, NULL);
	run(p, 43, &c, NULL);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	*param(p, "decode_threads") = 1;
	run(p, 42, &b, NULL);
	*param(p, "decode_threads") = 4;
	*param(p, "readahead_batches") = 1;
	run(p, 42, &c, NULL);
	CHECK(a == b && a == c, "checksum independent of decode_threads and readahead_batches");
	tiny(p);
	*param(p, "batch_rows") = 3000;
	run(p, 42, &d, NULL);
	CHECK(d != a, "batch boundaries are part of the output");
	for (size_t i = 0; i < wl->nparams; i++)
		p[i] = wl->params[i].def[WL_SCALE_SMALL];
	rc = run(p, 42, &a, err);
	run(p, 42, &b, NULL);
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
	*param(p, "string_min_bytes") = value_len;
	*param(p, "string_max_bytes") = value_len;
	ac_hook = shape_hook;
	run(p, 7, &ck, NULL);
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
	uint64_t ck;
	long base;

	for (size_t i = 0; i < wl->nparams; i++)
		p[i] = wl->params[i].def[WL_SCALE_SMALL];
	base = atomic_load(&ac_bytes);
	atomic_store(&ac_peak, base);
	run(p, 42, &ck, NULL);
	CHECK(ac_peak - base <= (long)wl->footprint(p),
	      "small-scale peak live bytes %ld within footprint() %llu", ac_peak - base,
	      (unsigned long long)wl->footprint(p));
}

static void test_alloc_failures(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	char err[WL_ERR_LEN];
	long before = atomic_load(&ac_calls), total, step, tried = 0, bad_rc = 0, bad_msg = 0,
	     leaks = 0, first_bad = 0;

	tiny(p);
	*param(p, "row_groups") = 2;
	*param(p, "decode_threads") = 1;
	run(p, 42, &ck, NULL);
	total = atomic_load(&ac_calls) - before;
	step = total / 400 + 1;
	for (long k = 1; k <= total; k += step, tried++) {
		long live = atomic_load(&ac_live);
		int rc;

		ac_fail_after(k);
		rc = run(p, 42, &ck, err);
		ac_fail_after(0);
		bad_rc += rc != -1;
		bad_msg += rc == -1 && strncmp(err, "out of memory", 13) != 0 &&
		           strncmp(err, "cannot start a thread", 21) != 0;
		leaks += atomic_load(&ac_live) != live;
		if (!first_bad && (rc != -1 || atomic_load(&ac_live) != live))
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
	test_table();
	test_check();
	test_checksums();
#if AC_ENABLED
	test_shapes();
	test_footprint();
	test_alloc_failures();
#endif
	return CHECK_DONE();
}
