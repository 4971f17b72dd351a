/* history.c - what the exports for benchmark-history services share (bmf.c, gab.c): both name a
 * benchmark "WORKLOAD/PHASE/REGIME/ARM" (a fleet's: "...@MACHINE") and give each arm's median
 * time with a distribution-free interval for the median at the comparison's level. Consumer
 * configuration: docs/ci.md, docs/fleet.md. */
#include "front/export/exportint.h"

#include "front/draw/draw.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int summarize(const struct rf_doc *d, const char *arm, const struct cmp_row *row,
                     double conf, struct export_arm_summary *s)
{
	struct series_key key = {arm, row->workload, row->phase, row->regime};
	double *t, *v;
	size_t n, nv;

	if (series_arm_times(d, &key, &t, &n) != 0)
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

int export_each_arm(const struct cmp_report *r, export_arm_fn fn, void *ctx)
{
	const struct rf_doc *d = r->paired ? r->base : r->cand;
	struct export_arm_summary s;

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

void export_bench_name(const struct cmp_row *row, const char *arm, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s/%s", row->workload ? row->workload : "geomean", row->phase,
	         rf_regime_name(row->regime), arm);
}

struct fleet_tramp {
	export_fleet_arm_fn fn;
	void *ctx;
	const char *machine;
};

static int fleet_arm(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                     const struct export_arm_summary *s)
{
	const struct fleet_tramp *t = ctx;

	return t->fn(t->ctx, t->machine, row, arm, is_base, s);
}

int export_fleet_each_arm(const struct fleet_report *f, export_fleet_arm_fn fn, void *ctx)
{
	for (size_t i = 0; i < f->nm; i++) {
		struct fleet_tramp t = {fn, ctx, f->m[i].label};
		if (f->m[i].r && export_each_arm(f->m[i].r, fleet_arm, &t) != 0)
			return -1;
	}
	return 0;
}

void export_fleet_bench_name(const struct fleet_row *row, const char *arm, const char *machine,
                             char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s/%s@%s", row->workload ? row->workload : "geomean", row->phase,
	         rf_regime_name(row->regime), arm, machine);
}
