/* test_wl_registry.c - the table checks every workload gets, in one loop over the registry
 * (driver/registry.h): found under its name, table complete, every default within its range, and
 * the defaults of every preset accepted by its check(). The tests/unit/workloads/test_wl_*.c files keep what is
 * particular to one workload. */
#include "check.h"
#include "wl_harness.h"
#include "driver/registry.h"

#include <string.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The tables registry.h declares, with the optional members each provides. */
enum { HAS_CHECK = 1, HAS_PHASES = 2 };
static const struct {
	const struct workload *w;
	const char *name;
	unsigned has;
} declared[] = {
    {&wl_parquet_load, "parquet_load", HAS_CHECK | HAS_PHASES},
    {&wl_feature_extract, "feature_extract", HAS_PHASES},
    {&wl_batch_prep, "batch_prep", HAS_CHECK | HAS_PHASES},
    {&wl_checkpoint_write, "checkpoint_write", HAS_PHASES},
    {&wl_pipeline, "pipeline", HAS_CHECK | HAS_PHASES},
    {&wl_replay, "replay", HAS_CHECK},
};

static unsigned declared_has(const struct workload *w)
{
	for (size_t i = 0; i < LEN(declared); i++)
		if (declared[i].w == w)
			return declared[i].has;
	return 0;
}

static int name_ok(const char *name)
{
	return name && *name && strspn(name, "abcdefghijklmnopqrstuvwxyz_") == strlen(name);
}

static size_t phase_count(const struct workload *w)
{
	size_t n = 0;

	while (w->phases && n <= WL_MAX_PHASES && w->phases[n])
		n++;
	return n;
}

/* Every member the driver calls unconditionally, the parameter table within its bound, phases
 * NULL-terminated within WL_MAX_PHASES, and check() and phases where registry.h's table has
 * them. */
static int table_complete(const struct workload *w)
{
	unsigned has = declared_has(w);

	return w->description && *w->description && (w->params || w->nparams == 0) &&
	       w->nparams <= WL_MAX_PARAMS && w->footprint && w->run &&
	       phase_count(w) <= WL_MAX_PHASES && (!(has & HAS_CHECK) || w->check) &&
	       (!(has & HAS_PHASES) || phase_count(w) > 0);
}

static int defaults_in_range(const struct workload *w)
{
	int ok = 1;

	for (size_t i = 0; i < w->nparams; i++)
		for (int s = 0; s < WL_SCALE_COUNT; s++)
			ok &= w->params[i].def[s] >= w->params[i].min &&
			      w->params[i].def[s] <= w->params[i].max;
	return ok;
}

static void test_declared(void)
{
	int ok = 1;

	for (size_t i = 0; i < LEN(declared); i++) {
		int here = strcmp(declared[i].w->name, declared[i].name) == 0 &&
		           wl_find(wl_registry, declared[i].name) == declared[i].w;

		if (!here)
			printf("# %s is not registered under its name\n", declared[i].name);
		ok &= here;
	}
	CHECK(ok, "every table registry.h declares is in the registry under its name");
}

static void test_table(const struct workload *w)
{
	int64_t p[WL_MAX_PARAMS];
	char err[WL_ERR_LEN];

	CHECK(name_ok(w->name) && wl_find(wl_registry, w->name) == w,
	      "%s: a [a-z_]+ name, found under it, by no other table first", w->name);
	CHECK(table_complete(w), "%s: table complete", w->name);
	CHECK(defaults_in_range(w), "%s: every default within its range", w->name);
	/* a workload that needs an input has none among its defaults: its check() refuses them */
	if (!w->check || (w->flags & WL_NEEDS_INPUT))
		return;
	for (int s = 0; s < WL_SCALE_COUNT; s++) {
		int rc;

		wlh_defaults(w, p, s);
		rc = wlh_check(w, p, err);
		CHECK(rc == 0, "%s: scale %d defaults pass check()%s%s", w->name, s, rc ? ": " : "",
		      rc ? err : "");
	}
}

int main(void)
{
	test_declared();
	for (const struct workload *const *w = wl_registry; *w; w++)
		test_table(*w);
	return CHECK_DONE();
}
