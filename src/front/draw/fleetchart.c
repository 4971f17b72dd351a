/* fleetchart.c - the forest plot of a fleet of machines (draw.h): per comparison one line per
 * machine and the pooled diamond with the prediction interval for a new machine. */
#include "front/draw/drawint.h"

#include <math.h>
#include <string.h>

#define W       900.0
#define LABEL_W 250.0
#define PLOT_X1 650.0
#define ROW_H   20.0
#define TOP     58.0
#define BOTTOM  100.0

/* The speedup axis: every usable machine interval, the pooled intervals, 1.0 and the margin; a
 * prediction interval wider than that is cut at the plot's edges (its figures are in the
 * tooltip and the tables). */
static struct svg_scale fleet_scale(const struct chart_fleet_input *in)
{
	const struct fleet_report *f = in->f;
	double lo = 1, hi = 1;

	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *row = &f->rows[i];
		for (size_t m = 0; m < f->nm; m++) {
			const struct cmp_row *r = row->cells[m].row;
			if (r && r->usable) {
				lo = fmin(lo, cmp_speedup(r->d.hi));
				hi = fmax(hi, cmp_speedup(r->d.lo));
			}
		}
		if (row->has_meta) {
			lo = fmin(lo, cmp_speedup(row->meta.hi));
			hi = fmax(hi, cmp_speedup(row->meta.lo));
		}
	}
	if (isfinite(in->margin) && in->margin > 0) {
		lo = fmin(lo, 1 / in->margin);
		hi = fmax(hi, 1 / in->margin);
	}
	return chart_ratio_axis(lo, hi, 0.04, 0.01, LABEL_W, PLOT_X1);
}

static double clamp_x(const struct svg_scale *s, double v)
{
	return svg_map(s, fmin(fmax(v, s->d0), s->d1));
}

/* The largest pooling weight 1 / (se^2 + tau^2) of a row, for the squares' sizes. */
static double max_weight(const struct fleet_report *f, const struct fleet_row *row)
{
	double w = 0;

	for (size_t m = 0; m < f->nm; m++)
		if (row->cells[m].pooled)
			w = fmax(w, 1 / (row->cells[m].se * row->cells[m].se + row->meta.tau2));
	return w;
}

/* Machine m's line of row at y: its interval, and its estimate as a square sized by its weight
 * in the pooling relative to the row's largest. */
static void machine_line(FILE *out, const struct chart_fleet_input *in, const struct fleet_row *row,
                         size_t m, const struct svg_scale *s, double y)
{
	const struct fleet_report *f = in->f;
	const struct fleet_cell *c = &row->cells[m];
	double wmax = row->has_meta ? max_weight(f, row) : 0;
	const struct cmp_row *r = c->row;
	char tip[512], note[256];

	svg_text_end(out, LABEL_W - 10, y + 4, c->odd ? "odd" : "", "%s", f->m[m].label);
	if (!r || !r->usable) {
		svg_text(out, LABEL_W + 4, y + 4, "muted", "not pooled: %s", c->why);
		return;
	}
	double est = cmp_speedup(r->d.est), lo = cmp_speedup(r->d.hi), hi = cmp_speedup(r->d.lo);
	double w = c->pooled && row->has_meta ? 1 / (c->se * c->se + row->meta.tau2) : 0;
	double size = 2.5 + (wmax > 0 ? 4.5 * sqrt(w / wmax) : 0);
	svg_line(out, clamp_x(s, lo), y, clamp_x(s, hi), y, c->odd ? "ci-odd" : "ci-none");
	in->note(f, row, m, note, sizeof note);
	snprintf(tip, sizeof tip, "%s: %.3fx [%.3f, %.3f], %.3g%% interval, %zu rounds%s%s",
	         f->m[m].label, est, lo, hi, 100 * r->d.level, r->n, note[0] ? "; " : "", note);
	svg_mark(out, clamp_x(s, est), y,
	         &(struct svg_glyph){size, 1, c->odd ? "est-odd" : "est-none"}, tip);
	svg_text(out, PLOT_X1 + 10, y + 4, c->pooled ? "" : "muted",
	         "%.3fx [%.3f, %.3f]%s", est, lo, hi,
	         c->odd ? " odd" : c->pooled ? "" : " (not pooled)");
}

static void pooled_line(FILE *out, const struct chart_fleet_input *in, const struct fleet_row *row,
                        const struct svg_scale *s, double y)
{
	const struct fleet_report *f = in->f;
	const struct stats_meta *m = &row->meta;
	char note[256];

	svg_text_end(out, LABEL_W - 10, y + 4, "geo", "pooled (%zu of %zu)", row->npooled, f->nm);
	if (!row->has_meta) {
		svg_text(out, LABEL_W + 4, y + 4, "muted", "%s",
		         row->npooled ? "one machine: nothing to pool" : "no machine to pool");
		return;
	}
	if (!isnan(m->pi_lo))
		svg_line(out, clamp_x(s, cmp_speedup(m->pi_hi)), y, clamp_x(s, cmp_speedup(m->pi_lo)),
		         y, "pi");
	double xl = clamp_x(s, cmp_speedup(m->hi)), xr = clamp_x(s, cmp_speedup(m->lo));
	double xm = clamp_x(s, cmp_speedup(m->mu));
	in->note(f, row, f->nm, note, sizeof note);
	fprintf(out,
	        "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" class=\"diamond\">"
	        "<title>",
	        xl, y, xm, y - 7, xr, y, xm, y + 7);
	svg_esc(out, note);
	fputs("</title></polygon>\n", out);
	svg_text(out, PLOT_X1 + 10, y + 4, "geo", "%.3fx [%.3f, %.3f]",
	         cmp_speedup(m->mu), cmp_speedup(m->hi), cmp_speedup(m->lo));
}

int chart_fleet_forest(FILE *out, const struct chart_fleet_input *in, int standalone)
{
	const struct fleet_report *f = in->f;
	struct svg_scale s = fleet_scale(in);
	double h = TOP + ROW_H * (double)(f->nrows * (f->nm + 3)) + BOTTOM, y = TOP + ROW_H / 2;

	svg_open(out, W, h, "Speedup on each machine and pooled over the fleet",
	         "Forest plot: per comparison one line per machine (square = Hodges-Lehmann speedup, "
	         "sized by its weight in the pooling; bar = its interval; red = odd machine), the "
	         "pooled speedup as a diamond over its interval, and the dashed prediction interval "
	         "for a new machine. " CMP_CONVENTION,
	         standalone);
	svg_text(out, 12, 22, "title",
	         "Speedup per machine and pooled (%g%% intervals; log scale; %zu machines)",
	         100 * f->conf, f->nm);
	svg_text(out, 12, 40, "muted",
	         "right of 1.0x: candidate faster; diamond: pooled; dashed: where a new machine "
	         "would fall");
	chart_x_axis(out, &s, TOP - 6, h - BOTTOM + 4, "speedup (x, log scale)");
	svg_line(out, svg_map(&s, 1), TOP - 6, svg_map(&s, 1), h - BOTTOM + 4, "ref");
	if (isfinite(in->margin) && in->margin > 0) {
		double x = svg_map(&s, 1 / in->margin);
		svg_line(out, x, TOP - 6, x, h - BOTTOM + 4, "margin");
		svg_text(out, x + 3, TOP - 10, "muted", "gate margin %.3fx",
		         1 / in->margin);
	}
	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *row = &f->rows[i];
		char name[256];
		svg_text(out, 12, y + 4, "geo", "%s  %s vs %s  (%s)",
		         fleet_row_name(row, name, sizeof name), row->candidate, row->baseline,
		         rf_regime_name(row->regime));
		y += ROW_H;
		for (size_t m = 0; m < f->nm; m++, y += ROW_H)
			machine_line(out, in, row, m, &s, y);
		pooled_line(out, in, row, &s, y);
		y += ROW_H;
		svg_line(out, 12, y - ROW_H / 2 + 4, W - 12, y - ROW_H / 2 + 4, "sep");
		y += ROW_H;
	}
	if (standalone)
		chart_convention(out, 12, h - 40);
	svg_text(out, 12, h - 10, "muted",
	         "odd: the other machines do not predict it: |studentized deleted residual| > "
	         "t_{k-1, 1 - %g/(2k)}, k machines pooled",
	         1 - f->conf);
	svg_close(out);
	return ferror(out) ? -1 : 0;
}
