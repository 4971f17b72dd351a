/* test_wl_pipeline.c - the pipeline workload: its checksum is the documented mix of the stage
 * checksums, each stage run with its table's defaults at the chosen preset and a seed derived
 * from (seed, step, stage); every phase is timed; check() rejects a cadence that never
 * checkpoints; the footprint covers every stage; and (outside ASan) an allocation failure in any
 * stage fails the run with the stage named, leaving nothing allocated and no file behind. */
#include "alloc_count.h"
#include "check.h"
#include "wl_harness.h"
#include "driver/registry.h"
#include "workloads/lib/wlutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct workload *wl = &wl_pipeline;
static const struct workload *const stages[] = {&wl_parquet_load, &wl_feature_extract,
                                                &wl_batch_prep, &wl_checkpoint_write};
static char tmpdir[64];

static void test_phases(void)
{
	static const char *const names[] = {"load", "features", "batches", "checkpoint"};
	int ok = 1;

	for (int i = 0; i < 4; i++)
		ok &= wl->phases[i] && strcmp(wl->phases[i], names[i]) == 0;
	CHECK(ok && !wl->phases[4], "phases load, features, batches, checkpoint");
}

static void test_check_and_footprint(void)
{
	int64_t p[WL_MAX_PARAMS], v[WL_MAX_PARAMS];
	char err[WL_ERR_LEN];
	int covers = 1;

	for (int s = 0; s < WL_SCALE_COUNT; s++) {
		wlh_defaults(wl, p, s);
		for (int k = 0; k < 4; k++) {
			const char *preset = k == 3 ? "checkpoint_scale" : "data_scale";

			wlh_defaults(stages[k], v, (enum wl_scale) * wlh_param(wl, p, preset));
			covers &= wl->footprint(p) >= stages[k]->footprint(v);
		}
	}
	CHECK(covers, "footprint() covers every stage's footprint at its preset");
	wlh_defaults(wl, p, WL_SCALE_SMALL);
	*wlh_param(wl, p, "steps") = 3;
	*wlh_param(wl, p, "checkpoint_every") = 4;
	CHECK(wlh_check(wl, p, err) == -1 && strstr(err, "checkpoint_every"),
	      "checkpoint_every > steps rejected: %s", err);
	*wlh_param(wl, p, "checkpoint_every") = 0;
	CHECK(wlh_check(wl, p, err) == 0, "checkpoint_every=0 (no checkpoint) accepted");
}

/* The documented checksum: h = 0; for each stage run in order, h = mix(mix(h, stage), its
 * checksum), the stage seeded with mix(mix(seed, step), stage). */
static uint64_t expected_checksum(uint64_t seed, int with_checkpoint)
{
	static const char *const fixed[] = {NULL, NULL, "epochs", "checkpoints"};
	uint64_t h = 0;

	for (int s = 0; s < (with_checkpoint ? 4 : 3); s++) {
		int64_t v[WL_MAX_PARAMS];
		char err[WL_ERR_LEN];
		uint64_t ck = 0;

		wlh_defaults(stages[s], v, WL_SCALE_SMALL);
		if (fixed[s])
			*wlh_param(stages[s], v, fixed[s]) = 1;
		if (wlh_run(stages[s], v, ck_mix(ck_mix(seed, 0), (uint64_t)s), &ck, err) != 0)
			printf("# stage %s failed: %s\n", stages[s]->name, err);
		h = ck_mix(ck_mix(h, (uint64_t)s), ck);
	}
	return h;
}

static void test_run(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t a = 0, b = 1, c = 2;
	struct wl_ctx ctx;
	int rc, timed = 1;

	wlh_defaults(wl, p, WL_SCALE_SMALL);
	*wlh_param(wl, p, "steps") = 1;
	*wlh_param(wl, p, "checkpoint_every") = 1;
	rc = wlh_run_ctx(wl, p, 42, &a, &ctx);
	CHECK(rc == 0, "one small step with a checkpoint succeeds: %s", rc ? ctx.err : "");
	for (int i = 0; i < 4; i++)
		timed &= ctx.phase[i].wall_ns > 0 && ctx.phase[i].cpu_ns > 0;
	CHECK(timed, "all four phases timed");
	CHECK(wlh_dir_empty(tmpdir), "no checkpoint file or directory left behind");
	CHECK(a == expected_checksum(42, 1),
	      "checksum is the mix of the stage checksums, stages at their small defaults");
	wlh_run_ctx(wl, p, 42, &b, &ctx);
	wlh_run_ctx(wl, p, 43, &c, &ctx);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	*wlh_param(wl, p, "checkpoint_every") = 0;
	rc = wlh_run_ctx(wl, p, 42, &b, &ctx);
	CHECK(rc == 0 && b == expected_checksum(42, 0) && ctx.phase[3].wall_ns == 0,
	      "checkpoint_every=0: no checkpoint stage, none timed");
}

#if AC_ENABLED
static void test_alloc_failures(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	char err[WL_ERR_LEN];
	long total, tried = 0, bad = 0, leaks = 0, left = 0;

	wlh_defaults(wl, p, WL_SCALE_SMALL);
	*wlh_param(wl, p, "steps") = 1;
	*wlh_param(wl, p, "checkpoint_every") = 1;
	total = wlh_requests(wl, p, 42, &ck);
	/* requests 1 .. 7/8 of the way: the count varies a little between runs (threads, caches) */
	for (long i = 0; i < 8; i++, tried++) {
		long k = 1 + i * (total / 8);
		struct wlh_fault f = wlh_run_failing(wl, p, 42, k, &ck, err);

		if (f.rc != -1 || !strstr(err, "(pipeline step 1, ") ||
		    (strncmp(err, "out of memory", 13) != 0 &&
		     strncmp(err, "cannot start", 12) != 0)) {
			bad++;
			printf("# failing request %ld of %ld: rc %d: %s\n", k, total, f.rc, err);
		}
		leaks += f.leaked != 0;
		left += !wlh_dir_empty(tmpdir);
	}
	CHECK(bad == 0,
	      "%ld allocation failures spread over %ld requests fail the run naming the "
	      "stage (%ld did not)",
	      tried, total, bad);
	CHECK(leaks == 0 && left == 0, "nothing left allocated (%ld) or on disk (%ld)", leaks,
	      left);
}
#endif

int main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/allocab-test-pipe-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		printf("not ok - cannot make a private TMPDIR\n");
		return 1;
	}
	setenv("TMPDIR", tmpdir, 1);
	test_phases();
	test_check_and_footprint();
	test_run();
#if AC_ENABLED
	test_alloc_failures();
#endif
	rmdir(tmpdir);
	return CHECK_DONE();
}
