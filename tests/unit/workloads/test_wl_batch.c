/* test_wl_batch.c - the batch_prep workload through its table: checksums that depend on the seed
 * and the batch layout but not on threads, prefetch or caching; check() of the window length; and
 * (outside ASan, through the counting malloc of alloc_count.h) power-of-two staging buffers, batch
 * tensors allocated by loaders and freed by the trainer, the footprint bound, and a clean failure
 * for every allocation that fails. */
#include "alloc_count.h"
#include "check.h"
#include "wl_harness.h"
#include "driver/registry.h"
#include "workloads/lib/wlutil.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

static const struct workload *wl = &wl_batch_prep;

/* 593 windows of 8 rows: 37 batches of 16 and a last one of 1, twice. */
static void tiny(int64_t *p)
{
	wlh_defaults(wl, p, WL_SCALE_SMALL);
	*wlh_param(wl, p, "rows") = 600;
	*wlh_param(wl, p, "batch") = 16;
	*wlh_param(wl, p, "sequence") = 8;
	*wlh_param(wl, p, "epochs") = 2;
}

static void test_defaults(void)
{
	CHECK(wl->params[wlh_param_index(wl, "prefetch")].def[WL_SCALE_DEFAULT] == 2,
	      "default prefetch is DataLoader's prefetch_factor 2");
}

static void test_check(void)
{
	int64_t p[WL_MAX_PARAMS];
	char err[WL_ERR_LEN];

	tiny(p);
	*wlh_param(wl, p, "sequence") = 601;
	CHECK(wlh_check(wl, p, err) == -1 && strstr(err, "sequence"),
	      "sequence > rows rejected: %s", err);
	*wlh_param(wl, p, "sequence") = 600;
	CHECK(wlh_check(wl, p, err) == 0, "sequence == rows (one window) accepted");
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
	rc = wlh_run(wl, p, 42, &a, err);
	CHECK(rc == 0, "tiny run succeeds: %s", rc ? err : "");
	wlh_run(wl, p, 42, &b, NULL);
	wlh_run(wl, p, 43, &c, NULL);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	for (size_t k = 0; k < sizeof same_output / sizeof same_output[0]; k++) {
		tiny(p);
		*wlh_param(wl, p, same_output[k].name) = same_output[k].value;
		b = ~a;
		wlh_run(wl, p, 42, &b, NULL);
		same &= a == b;
		if (a != b)
			printf("# %s=%lld changed the checksum\n", same_output[k].name,
			       (long long)same_output[k].value);
	}
	CHECK(same, "checksum independent of workers, prefetch, pin_cache and sample_copy");
	tiny(p);
	*wlh_param(wl, p, "batch") = 15;
	wlh_run(wl, p, 42, &b, NULL);
	CHECK(b != a, "batch boundaries are part of the output");
	tiny(p);
	*wlh_param(wl, p, "epochs") = 1;
	wlh_run(wl, p, 42, &b, NULL);
	CHECK(b != a, "every epoch is part of the output");
	wlh_defaults(wl, p, WL_SCALE_SMALL);
	rc = wlh_run(wl, p, 42, &a, err);
	wlh_run(wl, p, 42, &b, NULL);
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
	*wlh_param(wl, p, "pin_cache") = 0;
	reset_counts();
	ac_hook = shape_hook;
	wlh_run(wl, p, 7, &ck, NULL);
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
	workers = *wlh_param(wl, p, "workers");
	reset_counts();
	ac_hook = shape_hook;
	wlh_run(wl, p, 7, &ck, NULL);
	ac_hook = NULL;
	CHECK(full_pins >= 1 && full_pins <= workers * (*wlh_param(wl, p, "prefetch") + 1) &&
	          last_pins >= 1 && last_pins <= workers,
	      "pin_cache=1: staging buffers reused across batches and epochs: %ld full, %ld last",
	      (long)full_pins, (long)last_pins);
	on_trainer = 0;
}

static void test_footprint(void)
{
	int64_t p[WL_MAX_PARAMS];
	long peak;

	for (int pc = 0; pc <= 1; pc++) {
		wlh_defaults(wl, p, WL_SCALE_SMALL);
		*wlh_param(wl, p, "pin_cache") = pc;
		peak = wlh_peak_bytes(wl, p, 42);
		CHECK(peak <= (long)wl->footprint(p),
		      "pin_cache=%d: small-scale peak live bytes %ld within footprint() %llu", pc,
		      peak, (unsigned long long)wl->footprint(p));
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
	long total, tried = 0, bad_rc = 0, bad_msg = 0, leaks = 0, first_bad = 0;

	tiny(p);
	*wlh_param(wl, p, "rows") = 200;
	*wlh_param(wl, p, "pin_cache") = pin_cache;
	total = wlh_requests(wl, p, 42, &want);
	for (long k = 1; k <= total; k++, tried++) {
		struct wlh_fault f = wlh_run_failing(wl, p, 42, k, &ck, err);

		if (f.rc == 0 && (f.requests < k && ck == want))
			continue;
		bad_rc += f.rc != -1;
		bad_msg += f.rc == -1 && strncmp(err, "out of memory", 13) != 0 &&
		           strncmp(err, "cannot start a loader thread", 28) != 0;
		leaks += f.leaked != 0;
		if (!first_bad && (f.rc != -1 || f.leaked != 0))
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
	test_defaults();
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
