/* history.c - the exports that benchmark-history services read: `--format bmf` (Bencher Metric
 * Format) and `--format gab` (github-action-benchmark, customSmallerIsBetter). Both name a
 * benchmark "WORKLOAD/PHASE/REGIME/ARM" and give each arm's median time with a distribution-free
 * interval for the median at the comparison's level; BMF adds the speedup with its interval and the
 * peak RSS. Consumer configuration: docs/ci.md. */
#include "front/export/export.h"

#include "front/export/series.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct arm_summary {
	size_t n;
	double med, lo, hi; /* ns */
	double rss;         /* median peak RSS, bytes; NAN if unknown */
};

static int summarize(const struct rf_doc *d, const char *arm, const struct cmp_row *row,
                     double conf, struct arm_summary *s)
{
	double *t, *v;
	size_t n, nv;

	if (series_arm_times(d, arm, row->workload, row->phase, row->regime, &t, &n) != 0)
		return -1;
	s->n = n;
	s->med = series_sorted_median(t, n);
	series_median_interval(t, n, conf, &s->lo, &s->hi);
	free(t);
	s->rss = NAN;
	if (strcmp(row->phase, "total") == 0 &&
	    series_arm_peak_rss(d, arm, row->workload, &v, &nv) == 0) {
		s->rss = series_sorted_median(v, nv);
		free(v);
	}
	return 0;
}

typedef int (*arm_fn)(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                      const struct arm_summary *s);

/* Whether a row before row i of the same workload, phase and regime already gave arm. */
static int seen_before(const struct cmp_report *r, size_t i, const char *arm)
{
	const struct cmp_row *b = &r->rows[i];

	for (size_t j = 0; j < i; j++) {
		const struct cmp_row *a = &r->rows[j];
		if (!a->workload || strcmp(a->workload, b->workload) ||
		    strcmp(a->phase, b->phase) || a->regime != b->regime)
			continue;
		if ((r->paired && strcmp(a->baseline, arm) == 0) || strcmp(a->candidate, arm) == 0)
			return 1;
	}
	return 0;
}

/* Calls fn for the baseline (paired) and the candidate of every non-geomean row, each arm,
 * workload and phase once. */
static int each_arm(const struct cmp_report *r, arm_fn fn, void *ctx)
{
	const struct rf_doc *d = r->paired ? r->base : r->cand;
	struct arm_summary s;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!row->workload)
			continue;
		for (int base = 1; base >= 0; base--) {
			const char *arm = base ? row->baseline : row->candidate;
			if ((base && !r->paired) || seen_before(r, i, arm))
				continue;
			if (summarize(d, arm, row, r->conf, &s) != 0)
				return -1;
			if (s.n && fn(ctx, row, arm, base, &s) != 0)
				return -1;
		}
	}
	return 0;
}

/* Prints the document j (NULL: memory ran out while building it) and deletes it. */
static int print_and_free(FILE *f, cJSON *j, char *err, size_t errlen)
{
	char *text = j ? cJSON_Print(j) : NULL;

	cJSON_Delete(j);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(f, "%s\n", text);
	free(text);
	return 0;
}

static void bench_name(const struct cmp_row *row, const char *arm, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s/%s", row->workload ? row->workload : "geomean", row->phase,
	         rf_regime_name(row->regime), arm);
}

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
                   const struct arm_summary *s)
{
	char name[512];
	cJSON *b;

	(void)is_base;
	bench_name(row, arm, name, sizeof name);
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
		bench_name(row, row->candidate, name, sizeof name);
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

	if (doc && (each_arm(in->r, bmf_arm, doc) != 0 || bmf_speedups(doc, in->r) != 0)) {
		cJSON_Delete(doc);
		doc = NULL;
	}
	return print_and_free(f, doc, err, errlen);
}

static int gab_arm(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                   const struct arm_summary *s)
{
	char name[512], range[64], extra[512];
	cJSON *e = cJSON_CreateObject();

	(void)is_base;
	if (!e)
		return -1;
	bench_name(row, arm, name, sizeof name);
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
		snprintf(extra + k, sizeof extra - k, "; speedup over %s %.3fx [%.3f, %.3f]",
		         row->baseline, cmp_speedup(row->d.est), cmp_speedup(row->d.hi),
		         cmp_speedup(row->d.lo));
	}
	cJSON_AddStringToObject(e, "extra", extra);
	cJSON_AddItemToArray(ctx, e);
	return 0;
}

static int write_gab(FILE *f, const struct export_input *in, char *err, size_t errlen)
{
	cJSON *arr = cJSON_CreateArray();

	if (arr && each_arm(in->r, gab_arm, arr) != 0) {
		cJSON_Delete(arr);
		arr = NULL;
	}
	return print_and_free(f, arr, err, errlen);
}

const struct exporter export_bmf = {
    .name = "bmf",
    .summary = "Bencher Metric Format: latency (ns) with the median's interval, speedup, peak RSS",
    .flags = EXPORT_JSON,
    .write = write_bmf,
};

const struct exporter export_gab = {
    .name = "gab",
    .summary = "github-action-benchmark customSmallerIsBetter: median ns per arm with a range",
    .flags = EXPORT_JSON,
    .write = write_gab,
};
