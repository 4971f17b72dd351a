/* attribchart.c - what each faster or slower comparison's difference is made of (cmp_attribs),
 * as stacked bars for the HTML report (draw.h; docs/methodology.md, "What a difference is made
 * of"). */
#include "front/draw/drawint.h"

#include <math.h>

/* Whether a is drawn: usable, of a faster or slower comparison. */
static int decided(const struct cmp_attrib *a)
{
	return a->usable && (a->row->verdict == CMP_FASTER || a->row->verdict == CMP_SLOWER);
}

#define AW   880.0
#define AX0  300.0
#define AX1  820.0
#define AROW 24.0

static const char *const part_class[CMP_NPARTS] = {"s0", "s3", "s5"};

/* The span (ns) the bars of in cover, 0 included, into lo and hi. Returns the bars. */
static size_t attrib_span(const struct chart_input *in, double *lo, double *hi)
{
	size_t n = 0;

	*lo = *hi = 0;
	for (size_t i = 0; in->attrib && i < in->r->nrows; i++) {
		const struct cmp_attrib *a = &in->attrib[i];
		double pos = 0, neg = 0;
		if (!decided(a))
			continue;
		for (int k = 0; k < CMP_NPARTS; k++)
			*(a->part[k].est > 0 ? &pos : &neg) += a->part[k].est;
		*lo = fmin(*lo, fmin(neg, a->total.lo));
		*hi = fmax(*hi, fmax(pos, a->total.hi));
		n++;
	}
	return n;
}

/* The bar of a at y: each part's difference (ms) stacked from 0, the positive parts to the
 * right, the negative to the left, and the total's interval over it. */
static void attrib_bar(FILE *f, const struct cmp_attrib *a, const struct svg_scale *s, double y)
{
	double pos = 0, neg = 0;

	svg_text_end(f, AX0 - 8, y + 15, "", "%s %s %s", a->row->workload,
	             rf_regime_name(a->row->regime), a->row->candidate);
	for (int k = 0; k < CMP_NPARTS; k++) {
		double v = a->part[k].est / 1e6, *acc = v > 0 ? &pos : &neg;
		double x0 = svg_map(s, *acc), x1 = svg_map(s, *acc + v);
		svg_rect(f, fmin(x0, x1), y + 4, fabs(x1 - x0), AROW - 10, part_class[k]);
		*acc += v;
	}
	svg_line(f, svg_map(s, a->total.lo / 1e6), y + AROW - 4, svg_map(s, a->total.hi / 1e6),
	         y + AROW - 4, "axis");
	svg_line(f, svg_map(s, a->total.est / 1e6), y + AROW - 8, svg_map(s, a->total.est / 1e6),
	         y + AROW, "axis");
}

int chart_attrib(FILE *f, const struct chart_input *in)
{
	double lo, hi, h, y = 60;
	size_t n = attrib_span(in, &lo, &hi);

	if (!n) {
		fputs("<p class=\"muted\">No faster or slower comparison carries resource counts "
		      "(user and system time per rep).</p>\n",
		      f);
		return ferror(f) ? -1 : 0;
	}
	if (hi - lo <= 0)
		hi = lo + 1;
	struct svg_scale s = {lo / 1e6, hi / 1e6, AX0, AX1, 0};
	h = 70 + AROW * (double)n + 40;
	svg_open(f, AW, h, "What each difference is made of: user, system and the rest",
	         "Stacked bars: per faster or slower comparison, the Hodges-Lehmann estimate of the "
	         "paired difference candidate - baseline of user time, system time and the rest, in "
	         "ms; the black line is the total's interval, the tick its estimate.",
	         0);
	svg_text(f, 12, 22, "title",
	         "What each difference is made of (candidate - baseline, ms; left of 0: saves time)");
	svg_rect(f, 12, 32, 10, 10, part_class[0]);
	svg_text(f, 26, 41, "muted", "user");
	svg_rect(f, 70, 32, 10, 10, part_class[1]);
	svg_text(f, 84, 41, "muted", "system");
	svg_rect(f, 140, 32, 10, 10, part_class[2]);
	svg_text(f, 154, 41, "muted", "rest (unsplit CPU or off-CPU time)");
	svg_line(f, svg_map(&s, 0), y - 6, svg_map(&s, 0), y + AROW * (double)n, "ref");
	for (size_t i = 0; i < in->r->nrows; i++)
		if (decided(&in->attrib[i])) {
			attrib_bar(f, &in->attrib[i], &s, y);
			y += AROW;
		}
	svg_text(f, svg_map(&s, lo / 1e6), y + 20, "tick", "%.1f ms", lo / 1e6);
	svg_text_end(f, svg_map(&s, hi / 1e6), y + 20, "tick", "%.1f ms", hi / 1e6);
	svg_close(f);
	return ferror(f) ? -1 : 0;
}
