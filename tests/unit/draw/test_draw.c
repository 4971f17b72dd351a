/* test_draw.c - the drawing module (front/draw/draw.h): the text anchors and markers the charts
 * write, the median's interval the history formats read, and what the caller gives a chart:
 * the lines under a standalone forest plot and a fleet's tooltips. */
#include "check.h"

#include "front/draw/draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What draw writes into a memory stream: the text (malloc'd), or NULL. */
struct out {
	FILE *f;
	char *buf;
	size_t len;
};

static void out_open(struct out *o)
{
	o->buf = NULL;
	o->f = open_memstream(&o->buf, &o->len);
}

static char *out_close(struct out *o)
{
	if (o->f)
		fclose(o->f);
	return o->buf;
}

static void test_text(void)
{
	struct out o;
	char *s;

	out_open(&o);
	svg_text(o.f, 1, 2, "muted", "%s", "a<b");
	svg_text_middle(o.f, 3, 4, NULL, "%d", 5);
	svg_text_end(o.f, 6, 7.5, "tick", "%gx", 1.5);
	s = out_close(&o);
	CHECK(s && strcmp(s, "<text x=\"1.0\" y=\"2.0\" class=\"muted\" text-anchor=\"start\">a&lt;b"
	                     "</text>\n"
	                     "<text x=\"3.0\" y=\"4.0\" class=\"\" text-anchor=\"middle\">5</text>\n"
	                     "<text x=\"6.0\" y=\"7.5\" class=\"tick\" text-anchor=\"end\">1.5x"
	                     "</text>\n") == 0,
	      "svg_text, svg_text_middle, svg_text_end: the anchor, the class (none: \"\"), the "
	      "escaped text");
	free(s);
}

static void test_mark(void)
{
	struct out o;
	char *s;

	out_open(&o);
	svg_mark(o.f, 10, 20, &(struct svg_glyph){2, 1, "s0"}, "a&b");
	svg_mark(o.f, 10, 20, &(struct svg_glyph){3, 6, "s1"}, NULL);
	svg_mark(o.f, 0, 0, &(struct svg_glyph){1, 5, "pt-warm"}, NULL);
	s = out_close(&o);
	CHECK(s && strstr(s, "<rect x=\"8.0\" y=\"18.0\" width=\"4.0\" height=\"4.0\" class=\"s0\">"
	                     "<title>a&amp;b</title></rect>\n"),
	      "svg_mark: shape 1 is a square of side 2r centred on the point, with its tooltip");
	CHECK(s && strstr(s, "<circle cx=\"10.0\" cy=\"20.0\" r=\"3.0\" class=\"s1\"></circle>\n"),
	      "svg_mark: shape 6 is shape 0, a circle (modulo 6)");
	CHECK(s && strstr(s, "<path d=\"M-1.0 -1.0L1.0 1.0M-1.0 1.0L1.0 -1.0\" class=\"pt-warm\""),
	      "svg_mark: shape 5 is a cross");
	free(s);
}

static void test_median_interval(void)
{
	double x[10], lo, hi;

	for (int i = 0; i < 10; i++)
		x[i] = i + 1;
	/* P(B <= 1) = 11/1024 keeps 1 - 2P = 0.979 >= 0.95; P(B <= 2) = 56/1024 does not */
	series_median_interval(x, 10, 0.95, &lo, &hi);
	CHECK(lo == 2 && hi == 9, "series_median_interval: n 10 at 95%% is [x(1), x(8)] (%g, %g)",
	      lo, hi);
	series_median_interval(x, 3, 0.95, &lo, &hi);
	CHECK(lo == 1 && hi == 3, "series_median_interval: too few to reach 95%%: the whole range");
	series_median_interval(x, 0, 0.95, &lo, &hi);
	CHECK(isnan(lo) && isnan(hi), "series_median_interval: none: NaN");
}

static void test_forest_notes(void)
{
	struct cmp_report r = {0};
	const char *notes[2] = {"first <note>", "second note"};
	struct chart_input in = {.r = &r, .margin = NAN, .notes = notes, .nnotes = 2};
	struct out o;
	char *s;

	r.paired = 1;
	r.baseline = "system";
	r.compared[RF_COLD] = 1;
	r.family_conf = 0.95;
	out_open(&o);
	CHECK(chart_forest(o.f, &in, 1) == 0, "chart_forest: a standalone plot of no row is drawn");
	s = out_close(&o);
	CHECK(s && strstr(s, ">first &lt;note&gt;</text>") && strstr(s, ">second note</text>"),
	      "chart_forest: a standalone plot writes every line it is given under it, escaped");
	CHECK(s && strstr(s, "height=\"206\""),
	      "chart_forest: each line adds 16 to the height (174 + 2 x 16)");
	free(s);
	out_open(&o);
	chart_forest(o.f, &in, 0);
	s = out_close(&o);
	CHECK(s && !strstr(s, "note</text>") && strstr(s, "height=\"174\""),
	      "chart_forest: inside a page, the lines are not drawn and take no room");
	free(s);
}

/* The fleet's tooltips, as the caller words them. */
static void note(const struct fleet_report *f, const struct fleet_row *row, size_t m, char *buf,
                 size_t len)
{
	(void)row;
	snprintf(buf, len, m == f->nm ? "NOTE pooled" : "NOTE machine %zu", m);
}

static void test_fleet_tooltips(void)
{
	struct cmp_row cr = {.candidate = "m", .baseline = "system", .usable = 1, .n = 8};
	struct fleet_cell cells[2] = {{.row = &cr, .pooled = 1, .se = 0.01},
	                              {.row = &cr, .pooled = 1, .se = 0.02}};
	struct fleet_machine m[2] = {{.label = "a"}, {.label = "b"}};
	struct fleet_row row = {.workload = "w", .phase = "total", .candidate = "m",
	                        .baseline = "system", .cells = cells, .npooled = 2, .nunits = 2,
	                        .has_meta = 1};
	struct fleet_report f = {.nm = 2, .m = m, .nrows = 1, .rows = &row, .conf = 0.95};
	struct chart_fleet_input in = {&f, NAN, note};
	struct out o;
	char *s;

	cr.d = (struct stats_interval){-0.1, -0.12, -0.08, 0.95};
	row.meta.mu = -0.1;
	row.meta.lo = -0.2;
	row.meta.hi = 0.0;
	row.meta.pi_lo = NAN;
	out_open(&o);
	CHECK(chart_fleet_forest(o.f, &in, 0) == 0, "chart_fleet_forest: a fleet of two is drawn");
	s = out_close(&o);
	CHECK(s && strstr(s, "NOTE machine 0</title>") && strstr(s, "NOTE machine 1</title>"),
	      "chart_fleet_forest: each machine's tooltip ends with the caller's note of it");
	CHECK(s && strstr(s, "class=\"diamond\"><title>NOTE pooled</title>"),
	      "chart_fleet_forest: the pooled diamond's tooltip is the caller's note of m == nm");
	free(s);
}

int main(void)
{
	test_text();
	test_mark();
	test_median_interval();
	test_forest_notes();
	test_fleet_tooltips();
	return CHECK_DONE();
}
