/* bmf.c - `--format bmf`: Bencher Metric Format. Per arm, the latency (its median time in ns with
 * the interval of the median) and the peak RSS; per candidate, the speedup with its interval.
 * Consumer configuration: docs/ci.md. */
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

static int bmf_arm(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                   const struct export_arm_summary *s)
{
	char name[512];
	cJSON *b;

	(void)is_base;
	export_bench_name(row, arm, name, sizeof name);
	if (!(b = bmf_bench(ctx, name)))
		return -1;
	cJSON_AddItemToObject(b, "latency", bmf_measure(s->med, s->lo, s->hi));
	if (isfinite(s->rss))
		cJSON_AddItemToObject(b, "peak-rss", bmf_measure(s->rss, NAN, NAN));
	return 0;
}

/* Adds each usable row's speedup with its interval to the candidate's benchmark. */
static int bmf_speedups(cJSON *doc, const struct cmp_report *r)
{
	char name[512];
	cJSON *b;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!row->usable)
			continue;
		export_bench_name(row, row->candidate, name, sizeof name);
		if (!(b = bmf_bench(doc, name)))
			return -1;
		cJSON_AddItemToObject(b, "speedup",
		                      bmf_measure(cmp_speedup(row->d.est), cmp_speedup(row->d.hi),
		                                  cmp_speedup(row->d.lo)));
	}
	return 0;
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
};
