/* bmf.c - `--format bmf`: Bencher Metric Format. Per arm, the latency (its median time in ns with
 * the interval of the median) and the peak RSS; per candidate, the speedup with its interval. For
 * a fleet, the same per machine (benchmarks named ...@MACHINE) and the pooled speedup
 * (...@pooled). Consumer configuration: docs/ci.md, docs/fleet.md. */
#include "front/export/exportint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

static cJSON *bmf_measure(double v, double lo, double hi)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddNumberToObject(m, "value", v);
	if (isfinite(lo) && isfinite(hi)) {
		cJSON_AddNumberToObject(m, "lower_value", lo);
		cJSON_AddNumberToObject(m, "upper_value", hi);
	}
	return m;
}

/* The benchmark object named name in doc, created on first use. */
static cJSON *bmf_bench(cJSON *doc, const char *name)
{
	cJSON *b = cJSON_GetObjectItemCaseSensitive(doc, name);

	return b ? b : cJSON_AddObjectToObject(doc, name);
}

/* Adds an arm's latency (and peak RSS) to the benchmark called name. */
static int bmf_latency(cJSON *doc, const char *name, const struct export_arm_summary *s)
{
	cJSON *b = bmf_bench(doc, name);

	if (!b)
		return -1;
	cJSON_AddItemToObject(b, "latency", bmf_measure(s->med, s->lo, s->hi));
	if (isfinite(s->rss))
		cJSON_AddItemToObject(b, "peak-rss", bmf_measure(s->rss, NAN, NAN));
	return 0;
}

/* Adds the speedup of log ratio d with interval [lo, hi] to the benchmark called name. */
static int bmf_speedup(cJSON *doc, const char *name, double d, double lo, double hi)
{
	cJSON *b = bmf_bench(doc, name);

	if (!b)
		return -1;
	cJSON_AddItemToObject(b, "speedup",
	                      bmf_measure(cmp_speedup(d), cmp_speedup(hi), cmp_speedup(lo)));
	return 0;
}

static int bmf_arm(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                   const struct export_arm_summary *s)
{
	char name[512];

	(void)is_base;
	export_bench_name(row, arm, name, sizeof name);
	return bmf_latency(ctx, name, s);
}

/* Adds each usable row's speedup with its interval to the candidate's benchmark. */
static int bmf_speedups(cJSON *doc, const struct cmp_report *r)
{
	char name[512];

	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		export_bench_name(row, row->candidate, name, sizeof name);
		if (row->usable && bmf_speedup(doc, name, row->d.est, row->d.lo, row->d.hi) != 0)
			return -1;
	}
	return 0;
}

static int bmf_fleet_arm(void *ctx, const char *machine, const struct cmp_row *row,
                         const char *arm, int is_base, const struct export_arm_summary *s)
{
	char name[512], full[640];

	(void)is_base;
	export_bench_name(row, arm, name, sizeof name);
	snprintf(full, sizeof full, "%s@%s", name, machine);
	return bmf_latency(ctx, full, s);
}

/* Every machine's speedups with their own intervals, and the pooled ones. */
static int bmf_fleet_speedups(cJSON *doc, const struct fleet_report *f)
{
	char name[640];

	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *row = &f->rows[i];
		for (size_t m = 0; m < f->nm; m++) {
			const struct cmp_row *r = row->cells[m].row;
			export_fleet_bench_name(row, row->candidate, f->m[m].label, name, sizeof name);
			if (r && r->usable && bmf_speedup(doc, name, r->d.est, r->d.lo, r->d.hi) != 0)
				return -1;
		}
		export_fleet_bench_name(row, row->candidate, "pooled", name, sizeof name);
		if (row->has_meta &&
		    bmf_speedup(doc, name, row->meta.mu, row->meta.lo, row->meta.hi) != 0)
			return -1;
	}
	return 0;
}

static int write_bmf_fleet(FILE *f, const struct export_fleet_input *in, char *err,
                           size_t errlen)
{
	cJSON *doc = cJSON_CreateObject();

	if (doc && (export_fleet_each_arm(in->f, bmf_fleet_arm, doc) != 0 ||
	            bmf_fleet_speedups(doc, in->f) != 0)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return export_print_json(f, doc, err, errlen);
}

static int write_bmf(FILE *f, const struct export_input *in, char *err, size_t errlen)
{
	cJSON *doc = cJSON_CreateObject();

	if (doc && (export_each_arm(in->r, bmf_arm, doc) != 0 || bmf_speedups(doc, in->r) != 0)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return export_print_json(f, doc, err, errlen);
}

const struct exporter export_bmf = {
    .name = "bmf",
    .summary = "Bencher Metric Format: latency (ns) with the median's interval, speedup, peak RSS",
    .flags = EXPORT_JSON,
    .write = write_bmf,
    .write_fleet = write_bmf_fleet,
};
