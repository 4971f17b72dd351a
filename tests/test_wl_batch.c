/* test_wl_batch.c - the batch_prep workload through its table: checksums that depend on the seed
 * and the batch layout but not on threads, prefetch or caching; check() of the window length; and
 * (outside ASan, through the counting malloc of alloc_count.h) power-of-two staging buffers, batch
 * tensors allocated by loaders and freed by the trainer, the footprint bound, and a clean failure
 * for every allocation that fails. */
#include "alloc_count.h"
#include "check.h"
#include "workload.h"
#include "wlutil.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

static const struct workload *wl = &wl_batch_prep;

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

static void defaults(int64_t *p, int scale)
{
	for (size_t i = 0; i < wl->nparams; i++)
		p[i] = wl->params[i].def[scale];
}

/* 593 windows of 8 rows: 37 batches of 16 and a last one of 1, twice. */
static void tiny(int64_t *p)
{
	defaults(p, WL_SCALE_SMALL);
	*param(p, "rows") = 600;
	*param(p, "batch") = 16;
	*param(p, "sequence") = 8;
	*param(p, "epochs") = 2;
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

static void test_table(void)
{
	int ok = 1;

	CHECK(strcmp(wl->name, "batch_prep") == 0 && wl_find("batch_prep") == wl, "registered");
	CHECK(wl->nparams <= WL_MAX_PARAMS && wl->check && wl->footprint && wl->run && wl->phases,
	      "table complete");
	for (size_t i = 0; i < wl->nparams; i++)
		for (int s = 0; s < WL_SCALE_COUNT; s++)
			ok &= wl->params[i].def[s] >= wl->params[i].min &&
			      wl->params[i].def[s] <= wl->params[i].max;
	CHECK(ok, "every default within its range");
	CHECK(wl->params[param_index("prefetch")].def[WL_SCALE_DEFAULT] == 2,
	      "default prefetch is DataLoader's prefetch_factor 2");
}

static void test_check(void)
{
	int64_t p[WL_MAX_PARAMS];
	struct wl_ctx ctx;

	memset(&ctx, 0, sizeof ctx);
	ctx.p = p;
	for (int s = 0; s < WL_SCALE_COUNT; s++) {
		defaults(p, s);
		CHECK(wl->check(&ctx) == 0, "scale %d defaults pass check()", s);
	}
	tiny(p);
	*param(p, "sequence") = 601;
	CHECK(wl->check(&ctx) == -1 && strstr(ctx.err, "sequence"), "sequence > rows rejected: %s",
	      ctx.err);
	*param(p, "sequence") = 600;
	CHECK(wl->check(&ctx) == 0, "sequence == rows (one window) accepted");
}

static void test_checksums(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t a = 0, b = 1, c = 2;
	char err[WL_ERR_LEN];
	int rc, same = 1;
	static const struct {
		const char *name;
		int64_t value;
	} same_output[] = {{"workers", 1},  {"workers", 5},   {"prefetch", 1},
	                   {"prefetch", 7}, {"pin_cache", 0}, {"sample_copy", 0}};

	tiny(p);
	rc = run(p, 42, &a, err);
	CHECK(rc == 0, "tiny run succeeds: %s", rc ? err : "");
	run(p, 42, &b, NULL);
	run(p, 43, &c, NULL);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	for (size_t k = 0; k < sizeof same_output / sizeof same_output[0]; k++) {
		tiny(p);
		*param(p, same_output[k].name) = same_output[k].value;
		b = ~a;
		run(p, 42, &b, NULL);
		same &= a == b;
		if (a != b)
			printf("# %s=%lld changed the checksum\n", same_output[k].name,
			       (long long)same_output[k].value);
	}
	CHECK(same, "checksum independent of workers, prefetch, pin_cache and sample_copy");
	tiny(p);
	*param(p, "batch") = 15;
	run(p, 42, &b, NULL);
	CHECK(b != a, "batch boundaries are part of the output");
	tiny(p);
	*param(p, "epochs") = 1;
	run(p, 42, &b, NULL);
	CHECK(b != a, "every epoch is part of the output");
	defaults(p, WL_SCALE_SMALL);
	rc = run(p, 42, &a, err);
	run(p, 42, &b, NULL);
	CHECK(rc == 0 && a == b, "small scale is deterministic: %s", rc ? err : "");
}

#if AC_ENABLED
#define MAX_TENSORS 256

static __thread int on_trainer;
static size_t tensor_size, full_pin, last_pin;
static atomic_long loader_tensors, trainer_tensor_frees, full_pins, last_pins, other_pow2;
static atomic_long aligned, misaligned;
static _Atomic(void *) tensors[MAX_TENSORS];

static int is_pow2(size_t n)
{
	return n && (n & (n - 1)) == 0;
}

static void shape_hook(enum ac_op op, size_t size, void *old, void *ptr)
{
	(void)old;
	if (op == AC_FREE) {
		for (int k = 0; on_trainer && k < MAX_TENSORS; k++) {
			void *want = ptr;

			if (atomic_compare_exchange_strong(&tensors[k], &want, NULL))
				atomic_fetch_add(&trainer_tensor_frees, 1);
		}
		return;
	}
	if (op != AC_ALIGNED)
		return;
	atomic_fetch_add(&aligned, 1);
	if (size % 64 != 0 || (uintptr_t)ptr % 64 != 0)
		atomic_fetch_add(&misaligned, 1);
	if (size == tensor_size && !on_trainer) {
		long k = atomic_fetch_add(&loader_tensors, 1);

		if (k < MAX_TENSORS)
			atomic_store(&tensors[k], ptr);
	}
	if (size == full_pin)
		atomic_fetch_add(&full_pins, 1);
	else if (size == last_pin)
		atomic_fetch_add(&last_pins, 1);
	else if (is_pow2(size) && size >= 4096)
		atomic_fetch_add(&other_pow2, 1);
}

static void reset_counts(void)
{
	loader_tensors = trainer_tensor_frees = full_pins = last_pins = other_pow2 = 0;
	aligned = misaligned = 0;
	for (int k = 0; k < MAX_TENSORS; k++)
		tensors[k] = NULL;
}

static void test_shapes(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	size_t row = 225 * sizeof(float), batch_bytes = 16 * 8 * row + 16 * sizeof(int64_t);
	long full = 37 * 2, workers;

	on_trainer = 1;
	tensor_size = wl_round64(16 * 8 * row);
	full_pin = wl_pow2_ceil(batch_bytes);
	last_pin = wl_pow2_ceil(8 * row + sizeof(int64_t));
	CHECK(full_pin == 131072 && last_pin == 8192,
	      "staging sizes are the powers of two above "
	      "batch bytes (%zu -> %zu)",
	      batch_bytes, full_pin);

	tiny(p);
	*param(p, "pin_cache") = 0;
	reset_counts();
	ac_hook = shape_hook;
	run(p, 7, &ck, NULL);
	ac_hook = NULL;
	CHECK(full_pins == full && last_pins == 2 && other_pow2 == 0,
	      "pin_cache=0: one staging buffer per batch: %ld + %ld (want %ld + 2), %ld others",
	      (long)full_pins, (long)last_pins, full, (long)other_pow2);
	CHECK(loader_tensors == full && trainer_tensor_frees == full,
	      "loaders allocate every full batch tensor (%ld of %ld), the trainer frees them (%ld)",
	      (long)loader_tensors, full, (long)trainer_tensor_frees);
	CHECK(aligned > 0 && misaligned == 0,
	      "%ld aligned allocations, all 64-byte aligned with sizes multiple of 64",
	      (long)aligned);

	tiny(p);
	workers = *param(p, "workers");
	reset_counts();
	ac_hook = shape_hook;
	run(p, 7, &ck, NULL);
	ac_hook = NULL;
	CHECK(full_pins >= 1 && full_pins <= workers * (*param(p, "prefetch") + 1) &&
	          last_pins >= 1 && last_pins <= workers,
	      "pin_cache=1: staging buffers reused across batches and epochs: %ld full, %ld last",
	      (long)full_pins, (long)last_pins);
	on_trainer = 0;
}

static void test_footprint(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	long base;

	for (int pc = 0; pc <= 1; pc++) {
		defaults(p, WL_SCALE_SMALL);
		*param(p, "pin_cache") = pc;
		base = atomic_load(&ac_bytes);
		atomic_store(&ac_peak, base);
		run(p, 42, &ck, NULL);
		CHECK(ac_peak - base <= (long)wl->footprint(p),
		      "pin_cache=%d: small-scale peak live bytes %ld within footprint() %llu", pc,
		      ac_peak - base, (unsigned long long)wl->footprint(p));
	}
}

/* Fails every allocation request of a tiny run in turn. The count varies a little between runs
 * (staging-cache hits and thread start-up depend on timing), so a run that succeeds is wrong only
 * if it made the request that should have failed. */
static void alloc_failures(int pin_cache)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck, want;
	char err[WL_ERR_LEN];
	long before, total, tried = 0, bad_rc = 0, bad_msg = 0, leaks = 0, first_bad = 0;

	tiny(p);
	*param(p, "rows") = 200;
	*param(p, "pin_cache") = pin_cache;
	before = atomic_load(&ac_calls);
	run(p, 42, &want, NULL);
	total = atomic_load(&ac_calls) - before;
	for (long k = 1; k <= total; k++, tried++) {
		long live = atomic_load(&ac_live), start = atomic_load(&ac_calls);
		int rc;

		ac_fail_after(k);
		rc = run(p, 42, &ck, err);
		ac_fail_after(0);
		if (rc == 0 && (atomic_load(&ac_calls) - start < k && ck == want))
			continue;
		bad_rc += rc != -1;
		bad_msg += rc == -1 && strncmp(err, "out of memory", 13) != 0 &&
		           strncmp(err, "cannot start a loader thread", 28) != 0;
		leaks += atomic_load(&ac_live) != live;
		if (!first_bad && (rc != -1 || atomic_load(&ac_live) != live))
			first_bad = k;
	}
	CHECK(bad_rc == 0 && bad_msg == 0,
	      "pin_cache=%d: each of %ld injected allocation failures fails the run with \"out of "
	      "memory\" (%ld did not, %ld other messages; first at %ld)",
	      pin_cache, tried, bad_rc, bad_msg, first_bad);
	CHECK(leaks == 0, "pin_cache=%d: no block left allocated after any of them (%ld leaked)",
	      pin_cache, leaks);
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
	alloc_failures(0);
	alloc_failures(1);
#endif
	return CHECK_DONE();
}
