/* test_wl_pipeline.c - the pipeline workload: its checksum is the documented mix of the stage
 * checksums, each stage run with its table's defaults at the chosen preset and a seed derived
 * from (seed, step, stage); every phase is timed; check() rejects a cadence that never
 * checkpoints; the footprint covers every stage; and (outside ASan) an allocation failure in any
 * stage fails the run with the stage named, leaving nothing allocated and no file behind. */
#include "alloc_count.h"
#include "check.h"
#include "workload.h"
#include "wlutil.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct workload *wl = &wl_pipeline;
static const struct workload *const stages[] = {&wl_parquet_load, &wl_feature_extract,
                                                &wl_batch_prep, &wl_checkpoint_write};
static char tmpdir[64];

static size_t param_index(const struct workload *w, const char *name)
{
	for (size_t i = 0; i < w->nparams; i++)
		if (strcmp(w->params[i].name, name) == 0)
			return i;
	printf("# %s has no parameter %s\n", w->name, name);
	return WL_MAX_PARAMS - 1;
}

static int64_t *param(int64_t *p, const char *name)
{
	return &p[param_index(wl, name)];
}

static void defaults(const struct workload *w, int64_t *p, int scale)
{
	for (size_t i = 0; i < w->nparams; i++)
		p[i] = w->params[i].def[scale];
}

static int run(const int64_t *p, uint64_t seed, uint64_t *ck, struct wl_ctx *ctx)
{
	int rc;

	memset(ctx, 0, sizeof *ctx);
	ctx->p = p;
	ctx->seed = seed;
	rc = wl->check(ctx);
	return rc == 0 ? wl->run(ctx, ck) : rc;
}

static int tmpdir_empty(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n == 0;
}

static void test_table(void)
{
	static const char *const names[] = {"load", "features", "batches", "checkpoint"};
	int ok = 1;

	CHECK(strcmp(wl->name, "pipeline") == 0 && wl_find("pipeline") == wl, "registered");
	CHECK(wl->nparams <= WL_MAX_PARAMS && wl->check && wl->footprint && wl->run,
	      "table complete");
	for (size_t i = 0; i < wl->nparams; i++)
		for (int s = 0; s < WL_SCALE_COUNT; s++)
			ok &= wl->params[i].def[s] >= wl->params[i].min &&
			      wl->params[i].def[s] <= wl->params[i].max;
	CHECK(ok, "every default within its range");
	for (int i = 0; i < 4; i++)
		ok &= wl->phases[i] && strcmp(wl->phases[i], names[i]) == 0;
	CHECK(ok && !wl->phases[4], "phases load, features, batches, checkpoint");
}

static void test_check_and_footprint(void)
{
	int64_t p[WL_MAX_PARAMS], v[WL_MAX_PARAMS];
	struct wl_ctx ctx;
	int covers = 1;

	memset(&ctx, 0, sizeof ctx);
	ctx.p = p;
	for (int s = 0; s < WL_SCALE_COUNT; s++) {
		defaults(wl, p, s);
		CHECK(wl->check(&ctx) == 0, "scale %d defaults pass check(): %s", s, ctx.err);
		for (int k = 0; k < 4; k++) {
			defaults(
			    stages[k], v,
			    (int)p[param_index(wl, k == 3 ? "checkpoint_scale" : "data_scale")]);
			covers &= wl->footprint(p) >= stages[k]->footprint(v);
		}
	}
	CHECK(covers, "footprint() covers every stage's footprint at its preset");
	defaults(wl, p, WL_SCALE_SMALL);
	*param(p, "steps") = 3;
	*param(p, "checkpoint_every") = 4;
	CHECK(wl->check(&ctx) == -1 && strstr(ctx.err, "checkpoint_every"),
	      "checkpoint_every > steps rejected: %s", ctx.err);
	*param(p, "checkpoint_every") = 0;
	CHECK(wl->check(&ctx) == 0, "checkpoint_every=0 (no checkpoint) accepted");
}

/* The documented checksum: h = 0; for each stage run in order, h = mix(mix(h, stage), its
 * checksum), the stage seeded with mix(mix(seed, step), stage). */
static uint64_t expected_checksum(uint64_t seed, int with_checkpoint)
{
	static const char *const fixed[] = {NULL, NULL, "epochs", "checkpoints"};
	uint64_t h = 0;

	for (int s = 0; s < (with_checkpoint ? 4 : 3); s++) {
		int64_t v[WL_MAX_PARAMS];
		struct wl_ctx sub;
		uint64_t ck = 0;

		defaults(stages[s], v, WL_SCALE_SMALL);
		if (fixed[s])
			v[param_index(stages[s], fixed[s])] = 1;
		memset(&sub, 0, sizeof sub);
		sub.p = v;
		sub.seed = ck_mix(ck_mix(seed, 0), (uint64_t)s);
		if (stages[s]->run(&sub, &ck) != 0)
			printf("# stage %s failed: %s\n", stages[s]->name, sub.err);
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

	defaults(wl, p, WL_SCALE_SMALL);
	*param(p, "steps") = 1;
	*param(p, "checkpoint_every") = 1;
	rc = run(p, 42, &a, &ctx);
	CHECK(rc == 0, "one small step with a checkpoint succeeds: %s", rc ? ctx.err : "");
	for (int i = 0; i < 4; i++)
		timed &= ctx.phase[i].wall_ns > 0 && ctx.phase[i].cpu_ns > 0;
	CHECK(timed, "all four phases timed");
	CHECK(tmpdir_empty(), "no checkpoint file or directory left behind");
	CHECK(a == expected_checksum(42, 1),
	      "checksum is the mix of the stage checksums, stages at their small defaults");
	run(p, 42, &b, &ctx);
	run(p, 43, &c, &ctx);
	CHECK(a == b, "same seed, same checksum (%016llx)", (unsigned long long)a);
	CHECK(a != c, "another seed, another checksum");
	*param(p, "checkpoint_every") = 0;
	rc = run(p, 42, &b, &ctx);
	CHECK(rc == 0 && b == expected_checksum(42, 0) && ctx.phase[3].wall_ns == 0,
	      "checkpoint_every=0: no checkpoint stage, none timed");
}

#if AC_ENABLED
static void test_alloc_failures(void)
{
	int64_t p[WL_MAX_PARAMS];
	uint64_t ck;
	struct wl_ctx ctx;
	long before, total, tried = 0, bad = 0, leaks = 0, left = 0;

	defaults(wl, p, WL_SCALE_SMALL);
	*param(p, "steps") = 1;
	*param(p, "checkpoint_every") = 1;
	before = atomic_load(&ac_calls);
	run(p, 42, &ck, &ctx);
	total = atomic_load(&ac_calls) - before;
	/* requests 1 .. 7/8 of the way: the count varies a little between runs (threads, caches) */
	for (long i = 0; i < 8; i++, tried++) {
		long k = 1 + i * (total / 8), live = atomic_load(&ac_live);
		int rc;

		ac_fail_after(k);
		rc = run(p, 42, &ck, &ctx);
		ac_fail_after(0);
		if (rc != -1 || !strstr(ctx.err, "(pipeline step 1, ") ||
		    (strncmp(ctx.err, "out of memory", 13) != 0 &&
		     strncmp(ctx.err, "cannot start", 12) != 0)) {
			bad++;
			printf("# failing request %ld of %ld: rc %d: %s\n", k, total, rc, ctx.err);
		}
		leaks += atomic_load(&ac_live) != live;
		left += !tmpdir_empty();
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
	test_table();
	test_check_and_footprint();
	test_run();
#if AC_ENABLED
	test_alloc_failures();
#endif
	rmdir(tmpdir);
	return CHECK_DONE();
}
