/* gab.c - `--format gab`: github-action-benchmark, customSmallerIsBetter. Per arm its median time
 * in ns, the interval of the median as the range, the speedup in the extra text; for a fleet, per
 * machine (...@MACHINE), the pooled speedup in the candidates' extra text. Consumer
 * configuration: docs/ci.md, docs/fleet.md. */
#include "front/export/exportint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* What an entry's extra text says besides the arm's own figures; either may be NULL. */
struct gab_extra {
	const char *more; /* after a candidate's speedup (a fleet's pooled speedup) */
	const char *note; /* last, on every entry (a replay's caveat) */
};

/* One entry: the arm's median with its range, the speedup of a candidate in the extra text, and
 * x's texts. */
static int gab_entry(cJSON *arr, const char *name, const struct cmp_row *row, int is_base,
                     const struct export_arm_summary *s, const struct gab_extra *x)
{
	const char *more = x->more, *note = x->note;
	char range[64], extra[1536];
	cJSON *e = cJSON_CreateObject();

	if (!e)
		return -1;
	snprintf(range, sizeof range, "± %.0f", fmax(s->hi - s->med, s->med - s->lo));
	snprintf(extra, sizeof extra, "median of %zu run%s; interval of the median [%.0f, %.0f] ns",
	         s->n, s->n == 1 ? "" : "s", s->lo, s->hi);
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
		snprintf(extra + k, sizeof extra - k, "; speedup over %s %.3fx [%.3f, %.3f] (%s%%): %s%s",
		         row->baseline, cmp_speedup(row->d.est), cmp_speedup(row->d.hi),
		         cmp_speedup(row->d.lo), cmp_level_text(row->d.level, lv, sizeof lv),
		         cmp_verdict_text(row, vt, sizeof vt), more ? more : "");
	}
	if (note)
		snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "; %s", note);
	cJSON_AddStringToObject(e, "extra", extra);
	cJSON_AddItemToArray(arr, e);
	return 0;
}

struct gab_compare {
	cJSON *arr;
	const struct export_input *in;
};

static int gab_arm(void *ctx, const struct cmp_row *row, const char *arm, int is_base,
                   const struct export_arm_summary *s)
{
	const struct gab_compare *g = ctx;
	char name[512], note[EXPORT_LINE];

	export_bench_name(row, arm, name, sizeof name);
	return gab_entry(g->arr, name, row, is_base, s,
	                 &(struct gab_extra){NULL, export_replay_note(g->in, row->workload, note,
	                                                              sizeof note)});
}

struct gab_fleet {
	cJSON *arr;
	const struct fleet_report *f;
};

/* The fleet row of a machine's comparison row. */
static const struct fleet_row *fleet_row_of(const struct fleet_report *f,
                                            const struct cmp_row *r)
{
	for (size_t i = 0; i < f->nrows; i++)
		for (size_t m = 0; m < f->nm; m++)
			if (f->rows[i].cells[m].row == r)
				return &f->rows[i];
	return NULL;
}

static int gab_fleet_arm(void *ctx, const char *machine, const struct cmp_row *row,
                         const char *arm, int is_base, const struct export_arm_summary *s)
{
	const struct gab_fleet *g = ctx;
	const struct fleet_row *fr = fleet_row_of(g->f, row);
	char name[512], full[640], more[160] = "";

	export_bench_name(row, arm, name, sizeof name);
	snprintf(full, sizeof full, "%s@%s", name, machine);
	if (fr && fr->has_meta)
		snprintf(more, sizeof more, "; pooled over %zu machines %.3fx [%.3f, %.3f]",
		         fr->npooled, cmp_speedup(fr->meta.mu), cmp_speedup(fr->meta.hi),
		         cmp_speedup(fr->meta.lo));
	return gab_entry(g->arr, full, row, is_base, s, &(struct gab_extra){more, NULL});
}

static int write_gab_fleet(FILE *f, const struct export_fleet_input *in, char *err,
                           size_t errlen)
{
	struct gab_fleet g = {cJSON_CreateArray(), in->f};

	if (g.arr && export_fleet_each_arm(in->f, gab_fleet_arm, &g) != 0) {
		cJSON_Delete(g.arr);
		g.arr = NULL;
	}
	return export_print_json(f, g.arr, err, errlen);
}

static int write_gab(FILE *f, const struct export_input *in, char *err, size_t errlen)
{
	struct gab_compare g = {cJSON_CreateArray(), in};

	if (g.arr && export_each_arm(in->r, gab_arm, &g) != 0) {
		cJSON_Delete(g.arr);
		g.arr = NULL;
	}
	return export_print_json(f, g.arr, err, errlen);
}

const struct exporter export_gab = {
    .name = "gab",
    .summary = "github-action-benchmark customSmallerIsBetter: median ns per arm with a range",
    .flags = EXPORT_JSON,
    .write = write_gab,
    .write_fleet = write_gab_fleet,
};
