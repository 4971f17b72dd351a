/* gab.c - `--format gab`: github-action-benchmark, customSmallerIsBetter. Per arm its median time
 * in ns, the interval of the median as the range, the speedup in the extra text. Consumer
 * configuration: docs/ci.md. */
#include "front/export/exportint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int gab_arm(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                   const struct export_arm_summary *s)
{
	char name[512], range[64], extra[512];
	cJSON *e = cJSON_CreateObject();

	(void)is_base;
	if (!e)
		return -1;
	export_bench_name(row, arm, name, sizeof name);
	snprintf(range, sizeof range, "± %.0f", fmax(s->hi - s->med, s->med - s->lo));
	snprintf(extra, sizeof extra, "median of %zu runs; interval of the median [%.0f, %.0f] ns",
	         s->n, s->lo, s->hi);
	if (isfinite(s->rss))
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; peak RSS %.1f MiB",
		         s->rss / 1048576.0);
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "unit", "ns");
	cJSON_AddNumberToObject(e, "value", s->med);
	cJSON_AddStringToObject(e, "range", range);
	if (!is_base && row->usable) {
		size_t k = strlen(extra);
		char vt[128], lv[16];
		snprintf(extra + k, sizeof extra - k, "; speedup over %s %.3fx [%.3f, %.3f] (%s%%): %s",
		         row->baseline, cmp_speedup(row->d.est), cmp_speedup(row->d.hi),
		         cmp_speedup(row->d.lo), cmp_level_text(row->d.level, lv, sizeof lv),
		         cmp_verdict_text(row, vt, sizeof vt));
	}
	cJSON_AddStringToObject(e, "extra", extra);
	cJSON_AddItemToArray(ctx, e);
	return 0;
}

static int write_gab(FILE *f, const struct export_input *in, char *err, size_t errlen)
{
	cJSON *arr = cJSON_CreateArray();

	if (arr && export_each_arm(in->r, gab_arm, arr) != 0) {
		cJSON_Delete(arr);
		arr = NULL;
	}
	return export_print_json(f, arr, err, errlen);
}

const struct exporter export_gab = {
    .name = "gab",
    .summary = "github-action-benchmark customSmallerIsBetter: median ns per arm with a range",
    .flags = EXPORT_JSON,
    .write = write_gab,
};
