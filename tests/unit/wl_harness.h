/* wl_harness.h - what the workload unit tests (tests/unit/workloads/test_wl_*.c) share: parameters by name, a
 * parameter vector from a scale preset, one check() or run through a workload's table, an
 * empty-directory probe and, when alloc_count.h is included first, a run's peak bytes and
 * allocation requests and a run with one request failing. Each test passes its own table; nothing
 * here prints a check line, so every test keeps its own assertions. The checks every table gets
 * are one loop over the registry in tests/unit/workloads/test_wl_registry.c. */
#ifndef ALLOCAB_WL_HARNESS_H
#define ALLOCAB_WL_HARNESS_H

#include "driver/workload.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Index of parameter `name` in w's table. A name the table lacks is reported on a "#" line and
 * gets the spare last slot, so the check that uses it fails instead of the test crashing. */
static inline size_t wlh_param_index(const struct workload *w, const char *name)
{
	for (size_t i = 0; i < w->nparams; i++)
		if (strcmp(w->params[i].name, name) == 0)
			return i;
	printf("# %s has no parameter %s\n", w->name, name);
	return WL_MAX_PARAMS - 1;
}

/* The slot of parameter `name` in p (WL_MAX_PARAMS values in w's order). */
static inline int64_t *wlh_param(const struct workload *w, int64_t *p, const char *name)
{
	return &p[wlh_param_index(w, name)];
}

/* Fills p with w's defaults at preset `scale`. */
static inline void wlh_defaults(const struct workload *w, int64_t *p, enum wl_scale scale)
{
	for (size_t i = 0; i < w->nparams; i++)
		p[i] = w->params[i].def[scale];
}

/* w->check() on p (the caller guarantees the table has one), with a fresh context; copies the
 * message into err (WL_ERR_LEN bytes). */
static inline int wlh_check(const struct workload *w, const int64_t *p, char *err)
{
	struct wl_ctx ctx;
	int rc;

	memset(&ctx, 0, sizeof ctx);
	ctx.p = p;
	rc = w->check(&ctx);
	memcpy(err, ctx.err, WL_ERR_LEN);
	return rc;
}

/* Runs w once on p as the driver does: check() if the table has one, then run(). Returns 0 with
 * *ck set, or -1; the caller's ctx keeps the error and the phase times. */
static inline int wlh_run_ctx(const struct workload *w, const int64_t *p, uint64_t seed,
                              uint64_t *ck, struct wl_ctx *ctx)
{
	int rc = 0;

	memset(ctx, 0, sizeof *ctx);
	ctx->p = p;
	ctx->seed = seed;
	if (w->check)
		rc = w->check(ctx);
	return rc == 0 ? w->run(ctx, ck) : rc;
}

/* wlh_run_ctx with a context of its own; copies the error into err (WL_ERR_LEN bytes) unless
 * err is NULL. */
static inline int wlh_run(const struct workload *w, const int64_t *p, uint64_t seed, uint64_t *ck,
                          char *err)
{
	struct wl_ctx ctx;
	int rc = wlh_run_ctx(w, p, seed, ck, &ctx);

	if (err)
		memcpy(err, ctx.err, WL_ERR_LEN);
	return rc;
}

#if defined(AC_ENABLED) && AC_ENABLED
/* Live bytes at the peak of one run of w on p, above those live before it (needs alloc_count.h
 * included first; resets its ac_peak). */
static inline long wlh_peak_bytes(const struct workload *w, const int64_t *p, uint64_t seed)
{
	long base = atomic_load(&ac_bytes);
	uint64_t ck;

	atomic_store(&ac_peak, base);
	wlh_run(w, p, seed, &ck, NULL);
	return atomic_load(&ac_peak) - base;
}

/* Allocation requests one run of w on p makes, its checksum in *ck (needs alloc_count.h included
 * first). */
static inline long wlh_requests(const struct workload *w, const int64_t *p, uint64_t seed,
                                uint64_t *ck)
{
	long before = atomic_load(&ac_calls);

	wlh_run(w, p, seed, ck, NULL);
	return atomic_load(&ac_calls) - before;
}

/* What one run did when one of its allocation requests failed. */
struct wlh_fault {
	int rc;        /* the run's result */
	long requests; /* allocation requests it made, the failed one included */
	long leaked;   /* blocks it left allocated */
};

/* Runs w on p with its k-th allocation request (1: the first) failing, then disarms the failure;
 * the error goes to err as in wlh_run (needs alloc_count.h included first). */
static inline struct wlh_fault wlh_run_failing(const struct workload *w, const int64_t *p,
                                               uint64_t seed, long k, uint64_t *ck, char *err)
{
	long live = atomic_load(&ac_live), start = atomic_load(&ac_calls);
	struct wlh_fault f;

	ac_fail_after(k);
	f.rc = wlh_run(w, p, seed, ck, err);
	ac_fail_after(0);
	f.requests = atomic_load(&ac_calls) - start;
	f.leaked = atomic_load(&ac_live) - live;
	return f;
}
#endif

/* 1 if dir exists and holds nothing but "." and "..". */
static inline int wlh_dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n == 0;
}

#endif
