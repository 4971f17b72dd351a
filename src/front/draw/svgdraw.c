/* svgdraw.c - the drawing primitives of the charts (draw.h). */
#include "front/draw/draw.h"

#include "common/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char css[] =
    ":root, svg { --fg: #1b1f24; --muted: #57606a; --grid: #d0d7de; --bg: #ffffff;\n"
    "  --faster: #1a7f37; --slower: #cf222e; --none: #6e7781; --accent: #0969da;\n"
    "  --warm: #bf8700; --equiv: #1b7c83; }\n"
    "@media (prefers-color-scheme: dark) { :root, svg { --fg: #e6edf3; --muted: #9198a1;\n"
    "  --grid: #3d444d; --bg: #0d1117; --faster: #3fb950; --slower: #f85149; --none: #9198a1;\n"
    "  --accent: #4493f8; --warm: #d29922; --equiv: #39c5cf; } }\n"
    "svg { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 12px; }\n"
    ".bg { fill: var(--bg); }\n"
    "text { fill: var(--fg); }\n"
    "text.muted, text.tick { fill: var(--muted); }\n"
    "text.title { font-weight: 600; font-size: 14px; }\n"
    "text.geo { font-weight: 600; }\n"
    "text.odd { fill: var(--slower); font-weight: 600; }\n"
    ".axis { stroke: var(--fg); stroke-width: 1; }\n"
    ".grid { stroke: var(--grid); stroke-width: 1; }\n"
    ".ref { stroke: var(--fg); stroke-width: 1.5; stroke-dasharray: 4 3; }\n"
    ".margin { stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 8 4; }\n"
    ".sep { stroke: var(--muted); stroke-width: 1; }\n"
    ".qband { fill: var(--accent); fill-opacity: 0.07; }\n"
    ".ci-faster { stroke: var(--faster); stroke-width: 2.5; }\n"
    ".ci-slower { stroke: var(--slower); stroke-width: 2.5; }\n"
    ".ci-none { stroke: var(--none); stroke-width: 2.5; }\n"
    ".ci-equivalent { stroke: var(--equiv); stroke-width: 2.5; }\n"
    ".est-faster { fill: var(--faster); } .est-slower { fill: var(--slower); }\n"
    ".est-none { fill: var(--none); } .est-equivalent { fill: var(--equiv); }\n"
    ".ci-odd { stroke: var(--slower); stroke-width: 2.5; } .est-odd { fill: var(--slower); }\n"
    ".diamond { fill: var(--accent); } .pi { stroke: var(--accent); stroke-width: 1.5;\n"
    "  stroke-dasharray: 3 2; }\n"
    ".pt { fill: var(--accent); fill-opacity: 0.55; }\n"
    ".pt-warm { fill: none; stroke: var(--warm); stroke-width: 1.2; }\n"
    ".box { fill: var(--accent); fill-opacity: 0.12; stroke: var(--accent); stroke-width: 1; }\n"
    ".med { stroke: var(--fg); stroke-width: 2; }\n"
    "polyline.series, line.series { fill: none; stroke-width: 1.5; }\n"
    ".s0 { stroke: #0969da; fill: #0969da; } .s1 { stroke: #bf3989; fill: #bf3989; }\n"
    ".s2 { stroke: #1a7f37; fill: #1a7f37; } .s3 { stroke: #bc4c00; fill: #bc4c00; }\n"
    ".s4 { stroke: #8250df; fill: #8250df; } .s5 { stroke: #6e7781; fill: #6e7781; }\n"
    "text.s0, text.s1, text.s2, text.s3, text.s4, text.s5 { stroke: none; }\n";

const char *svg_css(void)
{
	return css;
}

double svg_map(const struct svg_scale *s, double v)
{
	double a = s->log ? log(s->d0) : s->d0, b = s->log ? log(s->d1) : s->d1;
	double x = s->log ? log(v) : v;

	return b == a ? (s->p0 + s->p1) / 2 : s->p0 + (x - a) / (b - a) * (s->p1 - s->p0);
}

static int cmp_tick(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Round values first (1, 2, 5, ...), each kept when it stands SVG_TICK_GAP pixels from every
 * value kept before it. */
static size_t log_ticks(const struct svg_scale *s, double *t)
{
	static const double mant[] = {1, 2, 5, 1.5, 3, 1.25, 4, 2.5, 1.1, 1.2, 7, 1.75, 6, 8, 9};
	size_t n = 0;

	for (size_t i = 0; i < sizeof mant / sizeof mant[0]; i++)
		for (int e = (int)floor(log10(s->d0)); e <= (int)ceil(log10(s->d1)); e++) {
			double v = mant[i] * pow(10, e), x = svg_map(s, v);
			size_t k = 0;
			if (v < s->d0 * (1 - 1e-12) || v > s->d1 * (1 + 1e-12))
				continue;
			while (k < n && fabs(svg_map(s, t[k]) - x) >= SVG_TICK_GAP)
				k++;
			if (k == n && n < SVG_MAX_TICKS)
				t[n++] = v;
		}
	qsort(t, n, sizeof *t, cmp_tick);
	return n;
}

size_t svg_ticks(const struct svg_scale *s, double *t)
{
	double span = s->d1 - s->d0, step, first;
	size_t n = 0;

	if (s->log)
		return log_ticks(s, t);
	if (!(span > 0) || !isfinite(span)) {
		t[0] = s->d0;
		return 1;
	}
	step = pow(10, floor(log10(span / 5)));
	if (span / step > 10)
		step *= span / step > 25 ? 5 : 2;
	first = ceil(s->d0 / step) * step;
	for (double v = first; v <= s->d1 + step * 1e-9 && n < SVG_MAX_TICKS; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

void svg_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		int k = (unsigned char)*s < 0x80 ? 1 : utf8_seq((const unsigned char *)s, strnlen(s, 4));
		if (k != 1) {
			if (k > 1)
				fwrite(s, 1, (size_t)k, f);
			else
				fputs("\xef\xbf\xbd", f); /* U+FFFD for a byte that is not UTF-8 */
			s += k > 1 ? k - 1 : 0;
			continue;
		}
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
				fputc(*s, f);
		}
	}
}

void svg_open(FILE *f, double w, double h, const char *title, const char *desc, int standalone)
{
	if (standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	        "viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n<title>",
	        w, h, w, h);
	svg_esc(f, title);
	fputs("</title>\n<desc>", f);
	svg_esc(f, desc);
	fputs("</desc>\n", f);
	if (standalone)
		fprintf(f, "<style>\n%s</style>\n", css);
	svg_rect(f, 0, 0, w, h, "bg");
}

void svg_close(FILE *f)
{
	fputs("</svg>\n", f);
}

/* <text> at (x, y) of class cls and text-anchor anchor, its text printf'd from fmt and ap. */
static void text_v(FILE *f, const double at[2], const char *cls, const char *anchor,
                   const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof buf, fmt, ap);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\" text-anchor=\"%s\">", at[0], at[1],
	        cls ? cls : "", anchor);
	svg_esc(f, buf);
	fputs("</text>\n", f);
}

void svg_text(FILE *f, double x, double y, const char *cls, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_v(f, (const double[2]){x, y}, cls, "start", fmt, ap);
	va_end(ap);
}

void svg_text_middle(FILE *f, double x, double y, const char *cls, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_v(f, (const double[2]){x, y}, cls, "middle", fmt, ap);
	va_end(ap);
}

void svg_text_end(FILE *f, double x, double y, const char *cls, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_v(f, (const double[2]){x, y}, cls, "end", fmt, ap);
	va_end(ap);
}

void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *cls)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"/>\n", x1, y1,
	        x2, y2, cls);
}

void svg_rect(FILE *f, double x, double y, double w, double h, const char *cls)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"%s\"/>\n", x,
	        y, w < 0 ? 0 : w, h < 0 ? 0 : h, cls);
}

void svg_circle(FILE *f, double x, double y, double r, const char *cls, const char *tip)
{
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" class=\"%s\">", x, y, r, cls);
	if (tip) {
		fputs("<title>", f);
		svg_esc(f, tip);
		fputs("</title>", f);
	}
	fputs("</circle>\n", f);
}

static void tooltip_close(FILE *f, const char *tip, const char *tag)
{
	if (tip) {
		fputs("><title>", f);
		svg_esc(f, tip);
		fprintf(f, "</title></%s>\n", tag);
	} else {
		fputs("/>\n", f);
	}
}

void svg_mark(FILE *f, double x, double y, const struct svg_glyph *g, const char *tip)
{
	static const double pts[6][8] = {{0},
	                                 {0},
	                                 {0, -1.2, 1.1, 0.8, -1.1, 0.8},
	                                 {0, -1.3, 1.3, 0, 0, 1.3, -1.3, 0},
	                                 {0, 1.2, 1.1, -0.8, -1.1, -0.8},
	                                 {0}};
	static const int npts[6] = {0, 0, 3, 4, 3, 0};
	unsigned shape = g->shape % 6;
	double r = g->r;
	const char *cls = g->cls;

	if (shape == 0) {
		svg_circle(f, x, y, r, cls, tip);
		return;
	}
	if (shape == 1) {
		fprintf(f,
		        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"%s\"",
		        x - r, y - r, 2 * r, 2 * r, cls);
		tooltip_close(f, tip, "rect");
		return;
	}
	if (shape == 5) {
		fprintf(f,
		        "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" class=\"%s\" "
		        "style=\"stroke-width:2.5\"",
		        x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r, cls);
		tooltip_close(f, tip, "path");
		return;
	}
	fputs("<polygon points=\"", f);
	for (int i = 0; i < npts[shape]; i++)
		fprintf(f, "%.1f,%.1f ", x + r * pts[shape][2 * i], y + r * pts[shape][2 * i + 1]);
	fprintf(f, "\" class=\"%s\"", cls);
	tooltip_close(f, tip, "polygon");
}
