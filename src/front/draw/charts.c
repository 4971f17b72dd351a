/* charts.c - the forest plot and speed-against-memory chart (draw.h), and the axes and legends
 * the charts share (drawint.h); chartsamples.c draws the two charts of raw samples. */
#include "front/draw/drawint.h"

#include <math.h>
#include <string.h>

#define FOREST_W  900.0
#define LABEL_W   250.0
#define PLOT_X1   650.0
#define ROW_H     22.0
#define TOP       74.0
#define BOTTOM    100.0
#define SCATTER_W 640.0
#define SCATTER_H 440.0
#define MAX_CANDS 6
#define MAX_WLS   64

void chart_convention(FILE *f, double x, double y)
{
	svg_text(f, x, y, "muted",
	         "speedup 1.12x means the candidate takes 1/1.12 of the baseline's time;");
	svg_text(f, x, y + 14, "muted", "improvement %% = (1 - t_candidate/t_baseline) x 100");
}

size_t chart_candidates(const struct cmp_report *r, const char **names, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		size_t k = 0;
		while (k < n && strcmp(names[k], r->rows[i].candidate) != 0)
			k++;
		if (k == n && n < max)
			names[n++] = r->rows[i].candidate;
	}
	return n;
}

static const char *verdict_class(const struct cmp_row *row)
{
	return row->verdict == CMP_FASTER       ? "faster"
	       : row->verdict == CMP_SLOWER     ? "slower"
	       : row->verdict == CMP_EQUIVALENT ? "equivalent"
	                                        : "none";
}

/* "WORKLOAD[/PHASE]  CANDIDATE", with "  (cold)" or "  (steady)" when the report has both. */
static void row_label(const struct cmp_report *r, const struct cmp_row *row, char *buf, size_t len)
{
	int both = r->compared[RF_COLD] && r->compared[RF_STEADY];
	int total = strcmp(row->phase, "total") == 0;

	snprintf(buf, len, "%s%s%s  %s%s%s%s", row->workload ? row->workload : "geomean",
	         total ? "" : "/", total ? "" : row->phase, row->candidate, both ? "  (" : "",
	         both ? rf_regime_name(row->regime) : "", both ? ")" : "");
}

struct svg_scale chart_ratio_axis(double lo, double hi, double pad, double margin, double p0,
                                  double p1)
{
	lo = fmax(lo, 0.05);
	hi = fmin(hi, 20);
	pad = (log(hi) - log(lo)) * pad + margin;
	return (struct svg_scale){exp(log(lo) - pad), exp(log(hi) + pad), p0, p1, 1};
}

/* The speedup axis: every usable interval, 1.0 and the margin. */
static struct svg_scale forest_scale(const struct chart_input *in)
{
	double lo = 1, hi = 1;

	for (size_t i = 0; i < in->r->nrows; i++) {
		const struct cmp_row *row = &in->r->rows[i];
		if (!row->usable)
			continue;
		lo = fmin(lo, cmp_speedup(row->d.hi));
		hi = fmax(hi, cmp_speedup(row->d.lo));
	}
	if (isfinite(in->margin) && in->margin > 0) {
		lo = fmin(lo, 1 / in->margin);
		hi = fmax(hi, 1 / in->margin);
	}
	return chart_ratio_axis(lo, hi, 0.06, 0.01, LABEL_W, PLOT_X1);
}

void chart_x_axis(FILE *f, const struct svg_scale *s, double y0, double y1, const char *label)
{
	double t[SVG_MAX_TICKS];
	size_t n = svg_ticks(s, t);

	for (size_t i = 0; i < n; i++) {
		double x = svg_map(s, t[i]);
		svg_line(f, x, y0, x, y1, "grid");
		svg_text_middle(f, x, y1 + 16, "tick", "%gx", t[i]);
	}
	svg_line(f, s->p0, y1, s->p1, y1, "axis");
	svg_text_middle(f, (s->p0 + s->p1) / 2, y1 + 36, "", "%s", label);
}

static void forest_row(FILE *f, const struct chart_input *in, const struct cmp_row *row,
                       const struct svg_scale *s, double y)
{
	char label[256];
	const char *v = verdict_class(row);
	char cls[32], lv[16], vt[96];

	row_label(in->r, row, label, sizeof label);
	svg_text_end(f, LABEL_W - 10, y + 4, row->workload ? "" : "geo", "%s", label);
	if (!row->usable) {
		svg_text(f, PLOT_X1 + 10, y + 4, "muted", "insufficient data");
		return;
	}
	double lo = cmp_speedup(row->d.hi), hi = cmp_speedup(row->d.lo);
	double est = cmp_speedup(row->d.est);
	snprintf(cls, sizeof cls, "ci-%s", v);
	svg_line(f, svg_map(s, fmax(lo, s->d0)), y, svg_map(s, fmin(hi, s->d1)), y, cls);
	snprintf(cls, sizeof cls, "est-%s", v);
	snprintf(label, sizeof label, "%s: %.3fx [%.3f, %.3f], %s%% interval, %zu rounds, %s",
	         row->candidate, est, lo, hi, cmp_level_text(row->d.level, lv, sizeof lv),
	         row->n, cmp_verdict_text(row, vt, sizeof vt));
	svg_circle(f, svg_map(s, est), y, row->workload ? 4.5 : 6, cls, label);
	svg_text(f, PLOT_X1 + 10, y + 4, row->workload ? "" : "geo", "%.3fx [%.3f, %.3f]%s", est,
	         lo, hi, chart_short_level(in->r, row) ? " *" : "");
}

int chart_short_level(const struct cmp_report *r, const struct cmp_row *row)
{
	return row->usable && cmp_row_family_conf(r, row) - row->d.level > 1e-9;
}

/* Whether r has secondary rows: then the forest plot draws each family under its heading. */
static int two_families(const struct cmp_report *r)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].family == CMP_FAMILY_SECONDARY)
			return 1;
	return 0;
}

/* "95% simultaneous intervals", or with two families each family's level. */
static void forest_levels(const struct cmp_report *r, int two, char *buf, size_t len)
{
	char lv[16], lv2[16];

	cmp_level_text(r->family_conf, lv, sizeof lv);
	if (two)
		snprintf(buf, len, "simultaneous intervals: primary rows %s%%, secondary rows %s%%",
		         lv, cmp_level_text(r->fam[CMP_FAMILY_SECONDARY].conf, lv2, sizeof lv2));
	else
		snprintf(buf, len, "%s%% simultaneous intervals", lv);
}

/* The rows of family fam (every row when fam < 0), workloads first, then the geometric means
 * under a line, from y down; a band behind and a heading above primary rows of two families.
 * Returns the y below them. */
static double forest_family(FILE *f, const struct chart_input *in, const struct svg_scale *s,
                            int fam, double y)
{
	const struct cmp_report *r = in->r;
	size_t n[2] = {0, 0};
	char lv[16];

	for (size_t i = 0; i < r->nrows; i++)
		n[r->rows[i].workload == NULL] += fam < 0 || (int)r->rows[i].family == fam;
	if (fam >= 0 && n[0] + n[1]) {
		cmp_level_text(r->fam[fam].conf, lv, sizeof lv);
		if (fam == CMP_FAMILY_PRIMARY) {
			svg_rect(f, 8, y - ROW_H / 2 - 2, FOREST_W - 16,
			         ROW_H * (double)(1 + n[0] + n[1] + (n[0] && n[1])), "qband");
			svg_text(f, 12, y + 4, "geo", "The question: primary rows (%s%%)", lv);
		} else
			svg_text(f, 12, y + 4, "muted", "Secondary rows (%s%%)", lv);
		y += ROW_H;
	}
	for (int geo = 0; geo < 2; geo++) {
		if (geo && n[0] && n[1]) {
			svg_line(f, LABEL_W - 100, y - ROW_H / 2 + 4, FOREST_W - 12, y - ROW_H / 2 + 4,
			         "sep");
			y += ROW_H;
		}
		for (size_t i = 0; i < r->nrows; i++)
			if ((r->rows[i].workload == NULL) == geo &&
			    (fam < 0 || (int)r->rows[i].family == fam)) {
				forest_row(f, in, &r->rows[i], s, y);
				y += ROW_H;
			}
	}
	return y;
}

/* The lines of the forest plot's rows: one per row, a separator line above geometric means, a
 * heading per family when there are two. */
static size_t forest_lines(const struct cmp_report *r, int two)
{
	size_t lines = r->nrows;

	for (int fam = 0; fam < (two ? CMP_NFAMILIES : 1); fam++) {
		size_t k[2] = {0, 0};
		for (size_t i = 0; i < r->nrows; i++)
			k[r->rows[i].workload == NULL] += !two || (int)r->rows[i].family == fam;
		lines += (two && k[0] + k[1] > 0) + (k[0] && k[1]);
	}
	return lines;
}

int chart_forest(FILE *f, const struct chart_input *in, int standalone)
{
	const struct cmp_report *r = in->r;
	struct svg_scale s = forest_scale(in);
	int two = two_families(r);
	double y, h, notes;
	char lv[16], levels[96];

	notes = standalone ? 16 * (double)in->nnotes : 0;
	h = TOP + ROW_H * (double)forest_lines(r, two) + BOTTOM + notes;
	svg_open(f, FOREST_W, h, "Speedup of each allocator over the baseline, with intervals",
	         "Forest plot: one row per workload and candidate; dot = Hodges-Lehmann speedup, "
	         "bar = interval; right of the 1.0x line is faster. " CMP_CONVENTION,
	         standalone);
	forest_levels(r, two, levels, sizeof levels);
	svg_text(f, 12, 22, "title", "Speedup over %s (%s; log scale%s%s)",
	         r->paired ? r->baseline : "the first file", levels, two ? "" : "; ",
	         two                                              ? ""
	         : r->compared[RF_COLD] && r->compared[RF_STEADY] ? "steady state and cold start"
	         : r->compared[RF_STEADY]                         ? "steady state"
	                                                          : "cold start");
	svg_text(f, 12, 40, "muted",
	         "right of 1.0x: candidate faster; %s; colour: the verdict, read off the bar",
	         "speedup = t_baseline / t_candidate");
	y = TOP + ROW_H / 2;
	chart_x_axis(f, &s, TOP - 6, h - BOTTOM - notes + 4, "speedup (x, log scale)");
	svg_line(f, svg_map(&s, 1), TOP - 6, svg_map(&s, 1), h - BOTTOM - notes + 4, "ref");
	if (isfinite(in->margin) && in->margin > 0) {
		double x = svg_map(&s, 1 / in->margin);
		svg_line(f, x, TOP - 6, x, h - BOTTOM - notes + 4, "margin");
		svg_text(f, x + 3, TOP - 10, "muted", "gate margin %.3fx", 1 / in->margin);
	}
	for (int fam = two ? 0 : -1; fam < (two ? CMP_NFAMILIES : 0); fam++)
		y = forest_family(f, in, &s, fam, y);
	if (standalone)
		chart_convention(f, 12, h - 40);
	for (size_t k = 0; standalone && k < in->nnotes; k++)
		svg_text(f, 12, h - 56 - 16 * (double)k, "muted", "%s", in->notes[k]);
	for (size_t i = 0; i < r->nrows; i++)
		if (chart_short_level(r, &r->rows[i])) {
			if (two)
				svg_text(f, 12, h - 10, "muted",
				         "* the interval reaches less than its family's requested level "
				         "(too few rounds)");
			else
				svg_text(f, 12, h - 10, "muted",
				         "* the interval reaches less than the requested level %s%% (too "
				         "few rounds)",
				         cmp_level_text(r->family_conf, lv, sizeof lv));
			break;
		}
	svg_close(f);
	return ferror(f) ? -1 : 0;
}

/* Whether the speed-against-memory chart draws row: a usable row of its workload's chart phase
 * (series_chart_phase) in the regime the report compared it on, with a memory ratio. */
static int scatter_row(const struct cmp_report *r, const struct cmp_row *row)
{
	const char *phase = row->workload ? series_chart_phase(r, row->workload) : NULL;

	return row->usable && phase && strcmp(row->phase, phase) == 0 && row->rss_ratio > 0 &&
	       row->regime == series_row_regime(r, row->workload, phase);
}

/* The memory (memory 1) or speedup axis of the rows scatter_row draws, with 1.0. */
static struct svg_scale scatter_axis(const struct cmp_report *r, int memory, double p0, double p1)
{
	double lo = 1, hi = 1;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!scatter_row(r, row))
			continue;
		lo = fmin(lo, memory ? row->rss_ratio : cmp_speedup(row->d.hi));
		hi = fmax(hi, memory ? row->rss_ratio : cmp_speedup(row->d.lo));
	}
	return chart_ratio_axis(lo, hi, 0.08, 0.02, p0, p1);
}

static void y_axis(FILE *f, const struct svg_scale *s, double x0, double x1, const char *label)
{
	double t[SVG_MAX_TICKS];
	size_t n = svg_ticks(s, t);

	for (size_t i = 0; i < n; i++) {
		double y = svg_map(s, t[i]);
		svg_line(f, x0, y, x1, y, "grid");
		svg_text_end(f, x0 - 6, y + 4, "tick", "%gx", t[i]);
	}
	svg_line(f, x0, s->p0, x0, s->p1, "axis");
	fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">",
	        x0 - 48, (s->p0 + s->p1) / 2);
	svg_esc(f, label);
	fputs("</text>\n", f);
}

/* The mark of row on the axes xy (memory, speedup): its speedup's interval as a bar and its
 * estimate as the shape of workload w, in the colour of candidate k. */
static void scatter_mark(FILE *f, const struct cmp_row *row, const struct svg_scale xy[2],
                         size_t k, size_t w)
{
	char cls[32], tip[256];
	double px = svg_map(&xy[0], row->rss_ratio), py = svg_map(&xy[1], cmp_speedup(row->d.est));

	snprintf(cls, sizeof cls, "s%zu", k % MAX_CANDS);
	fprintf(f, "<g class=\"%s\">\n", cls);
	svg_line(f, px, svg_map(&xy[1], cmp_speedup(row->d.hi)), px,
	         svg_map(&xy[1], cmp_speedup(row->d.lo)), "series");
	snprintf(tip, sizeof tip, "%s %s: %.3fx, peak RSS ratio %.2f", row->workload,
	         row->candidate, cmp_speedup(row->d.est), row->rss_ratio);
	svg_mark(f, px, py, &(struct svg_glyph){5, (unsigned)w, cls}, tip);
	fputs("</g>\n", f);
}

int chart_speed_memory(FILE *f, const struct chart_input *in)
{
	const struct cmp_report *r = in->r;
	const char *cands[MAX_CANDS], *wls[MAX_WLS];
	size_t nc = chart_candidates(r, cands, MAX_CANDS), nw = 0;
	struct svg_scale x = scatter_axis(r, 1, 90, SCATTER_W - 190);
	struct svg_scale y = scatter_axis(r, 0, SCATTER_H - 84, 50);
	char cls[32];

	svg_open(f, SCATTER_W, SCATTER_H, "Speed against memory",
	         "Each mark is one workload (shape) and allocator (colour): speedup (up is faster) "
	         "against peak resident memory relative to the baseline (left uses less); the bar "
	         "is the speedup's interval. " CMP_CONVENTION,
	         0);
	svg_text(f, 12, 22, "title", "Speed against memory (each workload's phase compared)");
	svg_text(f, 12, 40, "muted", "up: faster; left: less peak RSS than %s",
	         r->paired ? r->baseline : "the first file");
	chart_x_axis(f, &x, 50, SCATTER_H - 84, "peak RSS, candidate / baseline (log scale)");
	y_axis(f, &y, 90, SCATTER_W - 190, "speedup (x, log scale)");
	svg_line(f, svg_map(&x, 1), 50, svg_map(&x, 1), SCATTER_H - 84, "ref");
	svg_line(f, 90, svg_map(&y, 1), SCATTER_W - 190, svg_map(&y, 1), "ref");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		size_t k = 0;
		if (!scatter_row(r, row))
			continue;
		size_t w = 0;
		while (k < nc && strcmp(cands[k], row->candidate) != 0)
			k++;
		while (w < nw && strcmp(wls[w], row->workload) != 0)
			w++;
		if (w == nw && nw < MAX_WLS)
			wls[nw++] = row->workload;
		scatter_mark(f, row, (const struct svg_scale[2]){x, y}, k, w);
	}
	for (size_t k = 0; k < nc; k++) {
		snprintf(cls, sizeof cls, "s%zu", k);
		svg_circle(f, SCATTER_W - 170, 60 + 18 * (double)k, 5, cls, NULL);
		svg_text(f, SCATTER_W - 160, 64 + 18 * (double)k, "", "%s", cands[k]);
	}
	for (size_t w = 0; w < nw; w++) {
		double ly = 80 + 18 * (double)(nc + w);
		svg_mark(f, SCATTER_W - 170, ly, &(struct svg_glyph){5, (unsigned)w, "s5"}, NULL);
		svg_text(f, SCATTER_W - 160, ly + 4, "", "%s", wls[w]);
	}
	svg_close(f);
	return ferror(f) ? -1 : 0;
}
