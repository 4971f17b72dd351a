/* test_wl_checkpoint.c - the checkpoint_write workload: bimodal tensor sizes at default scale and
 * a safetensors header that cJSON parses with contiguous offsets (both from its test hooks, no
 * tensor allocated); checksums that depend on the seed and the bytes written but not on how they
 * are staged; a private temporary directory left empty on success and failure; and (outside
 * ASan, through alloc_count.h) 64-byte alignment, the footprint bound and every allocation failure.
 */
#include "alloc_count.h"
#include "check.h"
#include "wl_harness.h"
#include "driver/registry.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Test hooks of workloads/checkpoint_write.c (workloads have no headers). */
size_t wl_ckpt_tensor_bytes(const int64_t *p, uint64_t *bytes, size_t cap);
char *wl_ckpt_header(const int64_t *p, uint64_t step, size_t *len);

static const struct workload *wl = &wl_checkpoint_write;
static char tmpdir[64];

/* 48 tensors of at most 4 KiB: runs in well under a millisecond. */
static void tiny(int64_t *p)
{
	wlh_defaults(wl, p, WL_SCALE_SMALL);
	*wlh_param(wl, p, "layers") = 1;
	*wlh_param(wl, p, "hidden") = 16;
	*wlh_param(wl, p, "vocab") = 64;
	*wlh_param(wl, p, "checkpoints") = 2;
}

static void test_sizes(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t b[1024], sum = 0, big = 100u << 20;
	size_t n;
	long kb = 0, mb = 0, huge = 0, between = 0;

	wlh_defaults(wl, p, WL_SCALE_DEFAULT);
	n = wl_ckpt_tensor_bytes(p, b, 1024);
	for (size_t k = 0; k < n && k < 1024; k++) {
		kb += b[k] <= 64 * 1024;
		mb += b[k] >= (1u << 20) && b[k] < big / 2;
		huge += b[k] >= big / 2;
		between += b[k] > 64 * 1024 && b[k] < (1u << 20);
		sum += b[k];
	}
	CHECK(n >= 200 && n <= 1024, "default state dict has a few hundred tensors: %zu", n);
	CHECK(kb >= (long)n / 2 && mb >= (long)n / 4 && between == 0,
	      "sizes bimodal: %ld KB-scale, %ld MB-scale, %ld in between", kb, mb, between);
	CHECK(huge == 3 && sum <= wl->footprint(p),
	      "one ~100 MB embedding, x3 with Adam state: %ld; %llu bytes in all", huge,
	      (unsigned long long)sum);
	*wlh_param(wl, p, "adam") = 0;
	CHECK(wl_ckpt_tensor_bytes(p, b, 0) * 3 == n, "adam=0 saves a third of the tensors");
}

static void test_header(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t b[1024], want = 0, total = 0;
	size_t len = 0, n, k = 0;
	char *h;
	cJSON *root, *meta, *e;
	int contiguous = 1, shapes = 1;

	wlh_defaults(wl, p, WL_SCALE_SMALL);
	n = wl_ckpt_tensor_bytes(p, b, 1024);
	h = wl_ckpt_header(p, 7, &len);
	CHECK(h && len % 8 == 0, "header built, padded to a multiple of 8 bytes (%zu)", len);
	if (!h)
		return;
	root = cJSON_ParseWithLength(h, len);
	meta = cJSON_GetObjectItemCaseSensitive(root, "__metadata__");
	e = cJSON_GetObjectItemCaseSensitive(meta, "step");
	CHECK(root && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(meta, "format")) &&
	          cJSON_IsString(e) && strcmp(e->valuestring, "7") == 0,
	      "header parses with cJSON, __metadata__ holds format and step");
	cJSON_ArrayForEach(e, root)
	{
		cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
		cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape"), *d;
		double elems = 1;

		if (e == meta)
			continue;
		if (cJSON_GetArraySize(off) != 2 ||
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "dtype")) || k >= n) {
			contiguous = 0;
			break;
		}
		cJSON_ArrayForEach(d, shape) elems *= d->valuedouble;
		contiguous &= cJSON_GetArrayItem(off, 0)->valuedouble == (double)want;
		want = (uint64_t)cJSON_GetArrayItem(off, 1)->valuedouble;
		shapes &=
		    elems * 4 == (double)b[k] &&
		    strcmp(cJSON_GetObjectItemCaseSensitive(e, "dtype")->valuestring, "F32") == 0 &&
		    (double)want - cJSON_GetArrayItem(off, 0)->valuedouble == (double)b[k];
		total += b[k++];
	}
	CHECK(k == n && contiguous && want == total,
	      "%zu entries with contiguous data_offsets from 0 to %llu", k,
	      (unsigned long long)want);
	CHECK(shapes, "every entry is F32 with shape x 4 == its byte range");
	cJSON_Delete(root);
	free(h);
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
	} same_bytes[] = {{"whole_file", 1}, {"staging", 4096}, {"staging", 4099}, {"fsync", 1}};

	wlh_defaults(wl, p, WL_SCALE_SMALL);
	rc = wlh_run(wl, p, 42, &a, err);
	CHECK(rc == 0, "small run succeeds: %s", rc ? err : "");
	CHECK(wlh_dir_empty(tmpdir), "temporary directory removed after a run");
	wlh_run(wl, p, 42, &b, NULL);
	wlh_run(wl, p, 43, &c, NULL);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	for (size_t k = 0; k < sizeof same_bytes / sizeof same_bytes[0]; k++) {
		wlh_defaults(wl, p, WL_SCALE_SMALL);
		*wlh_param(wl, p, same_bytes[k].name) = same_bytes[k].value;
		b = ~a;
		wlh_run(wl, p, 42, &b, NULL);
		same &= a == b;
		if (a != b)
			printf("# %s=%lld changed the checksum\n", same_bytes[k].name,
			       (long long)same_bytes[k].value);
	}
	CHECK(same, "checksum covers the bytes written, however staged (whole_file, staging)");
	tiny(p);
	wlh_run(wl, p, 42, &a, NULL);
	*wlh_param(wl, p, "checkpoints") = 1;
	wlh_run(wl, p, 42, &b, NULL);
	*wlh_param(wl, p, "checkpoints") = 2;
	*wlh_param(wl, p, "lm_head") = 1;
	wlh_run(wl, p, 42, &c, NULL);
	CHECK(a != b && a != c && b != c, "every checkpoint and every tensor is in the checksum");
	CHECK(wlh_dir_empty(tmpdir), "temporary directory still empty");
}

static void test_tmpdir_failure(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	char err[WL_ERR_LEN];
	int rc;

	tiny(p);
	setenv("TMPDIR", "/nonexistent/allocab-test", 1);
	rc = wlh_run(wl, p, 42, &ck, err);
	setenv("TMPDIR", tmpdir, 1);
	CHECK(rc == -1 && strstr(err, "cannot create a temporary directory"),
	      "missing TMPDIR is a runtime failure: %s", err);
}

#if AC_ENABLED
static atomic_long aligned, misaligned;

static void align_hook(enum ac_op op, size_t size, void *old, void *ptr)
{
	(void)old;
	if (op != AC_ALIGNED)
		return;
	atomic_fetch_add(&aligned, 1);
	if (size % 64 != 0 || (uintptr_t)ptr % 64 != 0)
		atomic_fetch_add(&misaligned, 1);
}

static void test_alignment_and_footprint(void)
{
	int64_t p[WL_MAX_PARAMS];
	long peak;

	for (int whole = 0; whole <= 1; whole++) {
		wlh_defaults(wl, p, WL_SCALE_SMALL);
		*wlh_param(wl, p, "whole_file") = whole;
		aligned = misaligned = 0;
		ac_hook = align_hook;
		peak = wlh_peak_bytes(wl, p, 42);
		ac_hook = NULL;
		CHECK(aligned >= (long)wl_ckpt_tensor_bytes(p, NULL, 0) + 1 && misaligned == 0,
		      "whole_file=%d: tensors and buffers 64-byte aligned (%ld, %ld not)", whole,
		      (long)aligned, (long)misaligned);
		CHECK(peak <= (long)wl->footprint(p),
		      "whole_file=%d: small-scale peak live bytes %ld within footprint() %llu",
		      whole, peak, (unsigned long long)wl->footprint(p));
	}
}

static void alloc_failures(int whole)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	char err[WL_ERR_LEN];
	long total, tried = 0, bad_rc = 0, bad_msg = 0, leaks = 0, left = 0, first_bad = 0;

	tiny(p);
	*wlh_param(wl, p, "whole_file") = whole;
	total = wlh_requests(wl, p, 42, &ck);
	for (long k = 1; k <= total; k++, tried++) {
		struct wlh_fault f = wlh_run_failing(wl, p, 42, k, &ck, err);

		bad_rc += f.rc != -1;
		bad_msg += f.rc == -1 && strncmp(err, "out of memory", 13) != 0;
		leaks += f.leaked != 0;
		left += !wlh_dir_empty(tmpdir);
		if (!first_bad && (f.rc != -1 || f.leaked != 0 || !wlh_dir_empty(tmpdir)))
			first_bad = k;
	}
	CHECK(bad_rc == 0 && bad_msg == 0,
	      "whole_file=%d: each of %ld injected allocation failures fails the run with \"out "
	      "of memory\" (%ld did not, %ld other messages; first at %ld)",
	      whole, tried, bad_rc, bad_msg, first_bad);
	CHECK(leaks == 0 && left == 0,
	      "whole_file=%d: nothing left allocated (%ld) or on disk (%ld) after any of them",
	      whole, leaks, left);
}
#endif

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/allocab-test-ckpt-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("not ok - cannot make a private TMPDIR\n");
		return 1;
	}
	setenv("TMPDIR", tmpdir, 1);
	test_sizes();
	test_header();
	test_checksums();
	test_tmpdir_failure();
#if AC_ENABLED
	test_alignment_and_footprint();
	alloc_failures(0);
	alloc_failures(1);
#endif
	rmdir(tmpdir);
	return CHECK_DONE();
}
