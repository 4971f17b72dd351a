/* chartsamples.c - the charts of raw samples (draw.h): per-arm distributions of the measured
 * times and per-round speedups in run order, one panel per workload. */
#include "front/draw/drawint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W         900.0
#define PLOT_X0   150.0
#define PLOT_X1   860.0
#define ARM_H     20.0
#define PANEL_PAD 46.0
#define ROUNDS_H  170.0
#define MAX_CANDS 6
#define MAX_WL    64

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The workloads of r's rows, in order (each drawn on series_chart_phase). */
static size_t workloads(const struct cmp_report *r, const char **wl, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		const char *w = r->rows[i].workload;
		size_t k = 0;
		if (!w)
			continue;
		while (k < n && strcmp(wl[k], w) != 0)
			k++;
		if (k == n && n < max)
			wl[n++] = w;
	}
	return n;
}

/* A deterministic jitter in [-1, 1] for point i. */
static double jitter(size_t i)
{
	uint32_t x = (uint32_t)i * 2654435761u;

	x ^= x >> 15;
	return (double)(x % 2001) / 1000.0 - 1.0;
}

/* What an arm's row of the distribution chart draws: the main regime's measured times as box and
 * dots, the cold rep of the same runs as rings when the main regime is steady, and the warm-up
 * rounds' main-regime times as crosses. The time axis covers exactly these. */
enum layer { LAYER_MAIN, LAYER_COLD, LAYER_WARM, LAYER_COUNT };

/* The times (ms) layer k of key draws into *t (*n of them, malloc'd; NULL when none); key's
 * regime is the main regime. Returns 0, or -1 when the layer is not drawn, has no time, or memory
 * ran out. */
static int layer_ms(const struct rf_doc *d, const struct series_key *key, enum layer k, double **t,
                    size_t *n)
{
	struct series_key cold = *key;
	int rc;

	*t = NULL;
	*n = 0;
	if (k == LAYER_COLD && key->g != RF_STEADY)
		return -1;
	cold.g = RF_COLD;
	rc = k == LAYER_WARM   ? series_warm_times(d, key, t, n)
	     : k == LAYER_COLD ? series_arm_times(d, &cold, t, n)
	                       : series_arm_times(d, key, t, n);
	if (rc != 0 || *n == 0) {
		free(*t);
		*t = NULL;
		return -1;
	}
	for (size_t i = 0; i < *n; i++)
		(*t)[i] *= 1e-6;
	return 0;
}

/* Box, median and dots of the times t[0..n) (ms), each dot with its time as its tooltip. */
static void arm_strip(FILE *f, const double *t, size_t n, const struct svg_scale *s, double y,
                      const char *arm)
{
	double *c = malloc(n * sizeof *c), q1, q3, med;
	char tip[128];

	if (!c)
		return;
	memcpy(c, t, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp_double);
	q1 = c[n / 4];
	q3 = c[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1];
	med = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	svg_rect(f, svg_map(s, q1), y - 7, svg_map(s, q3) - svg_map(s, q1), 14, "box");
	svg_line(f, svg_map(s, med), y - 8, svg_map(s, med), y + 8, "med");
	for (size_t i = 0; i < n; i++) {
		snprintf(tip, sizeof tip, "%s: %.3f ms", arm, t[i]);
		svg_circle(f, svg_map(s, t[i]), y + 5 * jitter(i), 2.2, "pt", tip);
	}
	free(c);
}

/* The millisecond axis of workload wl: what every arm's row draws (enum layer), padded by 5%. */
static struct svg_scale time_scale(const struct rf_doc *d, const char *wl, const char *phase,
                                   enum rf_regime main)
{
	double lo = INFINITY, hi = -INFINITY, *t;
	size_t n;

	for (size_t a = 0; a < d->narms; a++)
		for (int k = 0; k < LAYER_COUNT; k++) {
			struct series_key key = {d->arms[a], wl, phase, main};
			if (layer_ms(d, &key, (enum layer)k, &t, &n) != 0)
				continue;
			for (size_t i = 0; i < n; i++) {
				lo = fmin(lo, t[i]);
				hi = fmax(hi, t[i]);
			}
			free(t);
		}
	if (!(hi >= lo))
		lo = 0, hi = 1;
	return (struct svg_scale){lo - (hi - lo) * 0.05 - 1e-9, hi + (hi - lo) * 0.05 + 1e-9,
	                          PLOT_X0, PLOT_X1, 0};
}

/* The row of key's arm (enum layer; key's regime the main one). Returns 0, or -1 when the arm
 * has no ok run. */
static int arm_row(FILE *f, const struct rf_doc *d, const struct series_key *key,
                   const struct svg_scale *s, double y)
{
	double *t;
	size_t n;
	char tip[128];

	if (layer_ms(d, key, LAYER_MAIN, &t, &n) != 0)
		return -1;
	arm_strip(f, t, n, s, y, key->arm);
	free(t);
	if (layer_ms(d, key, LAYER_COLD, &t, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			snprintf(tip, sizeof tip, "%s, cold first repetition: %.3f ms", key->arm,
			         t[i]);
			svg_circle(f, svg_map(s, t[i]), y + 5 * jitter(i + 7), 2.6, "pt-warm", tip);
		}
		free(t);
	}
	if (layer_ms(d, key, LAYER_WARM, &t, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			snprintf(tip, sizeof tip, "%s, warm-up round (not compared): %.3f ms",
			         key->arm, t[i]);
			svg_mark(f, svg_map(s, t[i]), y - 8, &(struct svg_glyph){3, 5, "pt-warm"},
			         tip);
		}
		free(t);
	}
	return 0;
}

/* The panel of workload wl: its chart phase in the regime the report compared it on. */
static double panel_distribution(FILE *f, const struct cmp_report *r, const struct rf_doc *d,
                                 const char *wl, double y0)
{
	const char *phase = series_chart_phase(r, wl);
	enum rf_regime main = series_row_regime(r, wl, phase);
	struct svg_scale s = time_scale(d, wl, phase, main);
	double y = y0 + 24, tk[SVG_MAX_TICKS];
	size_t nt = svg_ticks(&s, tk);

	svg_text(f, 12, y0 + 12, "title", "%s/%s (%s)", wl, phase,
	         main == RF_STEADY ? "steady state; rings: cold start" : "cold start");
	for (size_t a = 0; a < d->narms; a++, y += ARM_H) {
		struct series_key key = {d->arms[a], wl, phase, main};
		svg_text_end(f, PLOT_X0 - 10, y + 4, "", "%s", d->arms[a]);
		if (arm_row(f, d, &key, &s, y) != 0)
			svg_text(f, PLOT_X0, y + 4, "muted", "no ok runs");
	}
	for (size_t i = 0; i < nt; i++) {
		double x = svg_map(&s, tk[i]);
		svg_line(f, x, y - 4, x, y, "axis");
		svg_text_middle(f, x, y + 12, "tick", "%g", tk[i]);
	}
	svg_line(f, PLOT_X0, y - 4, PLOT_X1, y - 4, "axis");
	return y + PANEL_PAD - 20;
}

int chart_distributions(FILE *f, const struct chart_input *in)
{
	const char *wl[MAX_WL];
	size_t nw = workloads(in->r, wl, MAX_WL);
	const struct rf_doc *d = in->r->cand ? in->r->cand : in->r->base;
	double h = 70 + (double)nw * ((double)d->narms * ARM_H + PANEL_PAD + 10), y = 56;
	const char *phase = nw ? series_chart_phase(in->r, wl[0]) : "total";

	svg_open(f, W, h, "Measured times per allocator",
	         "Strip and box plot per workload: each measured round's time (ms) of the phase "
	         "compared, for each allocator; box = quartiles, bar = median; steady-state time as "
	         "dots, the cold first repetition of the same runs as rings, warm-up rounds (never "
	         "compared) as crosses.",
	         0);
	svg_text(f, 12, 22, "title", "Measured times per allocator (ms, %s)", d->path);
	svg_text(f, 12, 40, "muted",
	         "dot = one round; box = quartiles; bar = median; ring = the same run's first "
	         "repetition; cross = a warm-up round (not compared)");
	for (size_t i = 0; i < nw; i++)
		y = panel_distribution(f, in->r, d, wl[i], y);
	svg_text(f, 12, h - 12, "muted", "time of the workload's %s phase, milliseconds",
	         phase ? phase : "total");
	svg_close(f);
	return ferror(f) ? -1 : 0;
}

/* The round axis from pixel p0 to p1 at y: ticks at whole round indices, and its label. */
static void round_axis(FILE *f, const struct svg_scale *x, double y)
{
	double t[SVG_MAX_TICKS];
	size_t n = svg_ticks(x, t);

	svg_line(f, x->p0, y, x->p1, y, "axis");
	for (size_t i = 0; i < n; i++) {
		if (t[i] != floor(t[i]))
			continue;
		svg_line(f, svg_map(x, t[i]), y, svg_map(x, t[i]), y + 4, "axis");
		svg_text_middle(f, svg_map(x, t[i]), y + 15, "tick", "%g", t[i]);
	}
	svg_text_end(f, x->p1, y + 28, "tick", "round (its index in the file, in run order)");
}

/* Per-round speedups of every candidate of workload wl, in run order, on a log axis; the first
 * pass finds the range of the rounds and speedups drawn, the second draws. */
static double panel_rounds(FILE *f, const struct chart_input *in, const char *wl,
                           const char **cands, size_t nc, double y0)
{
	const struct cmp_report *r = in->r;
	double lo = 1, hi = 1, *d, rmin = INFINITY, rmax = -INFINITY;
	size_t *round, n;
	char cls[24];

	for (int pass = 0; pass < 2; pass++) {
		double pad = rmax > rmin ? 0.02 * (rmax - rmin) : 0.5;
		struct svg_scale x = {rmin - pad, rmax + pad, PLOT_X0, PLOT_X1, 0};
		struct svg_scale y = {lo / 1.02, hi * 1.02, y0 + ROUNDS_H - 40, y0 + 20, 1};
		if (pass) {
			const char *ph = series_chart_phase(r, wl);
			svg_text(f, 12, y0 + 12, "title", "%s/%s (%s)", wl, ph,
			         series_row_regime(r, wl, ph) == RF_STEADY ? "steady state"
			                                                   : "cold start");
			double t[SVG_MAX_TICKS];
			size_t nt = svg_ticks(&y, t);
			for (size_t i = 0; i < nt; i++) {
				svg_line(f, PLOT_X0, svg_map(&y, t[i]), PLOT_X1, svg_map(&y, t[i]),
				         "grid");
				svg_text_end(f, PLOT_X0 - 6, svg_map(&y, t[i]) + 4, "tick", "%gx",
				             t[i]);
			}
			svg_line(f, PLOT_X0, svg_map(&y, 1), PLOT_X1, svg_map(&y, 1), "ref");
			if (rmax >= rmin)
				round_axis(f, &x, y.p0);
		}
		for (size_t i = 0; i < r->nrows; i++) {
			const struct cmp_row *row = &r->rows[i];
			size_t k = 0;
			if (!row->workload || strcmp(row->workload, wl) != 0 ||
			    strcmp(row->phase, series_chart_phase(r, wl)) != 0 ||
			    row->regime != series_row_regime(r, wl, row->phase))
				continue;
			if (series_round_ratios(r, row, &d, &round, &n) != 0)
				return -1;
			while (k < nc && strcmp(cands[k], row->candidate) != 0)
				k++;
			for (size_t j = 0; j < n; j++) {
				double s = exp(-d[j]);
				lo = fmin(lo, s);
				hi = fmax(hi, s);
				rmin = fmin(rmin, (double)round[j]);
				rmax = fmax(rmax, (double)round[j]);
			}
			if (pass && n) {
				snprintf(cls, sizeof cls, "series s%zu", k % MAX_CANDS);
				fprintf(f, "<polyline class=\"%s\" points=\"", cls);
				for (size_t j = 0; j < n; j++)
					fprintf(f, "%.1f,%.1f ", svg_map(&x, (double)round[j]),
					        svg_map(&y, exp(-d[j])));
				fputs("\"/>\n", f);
			}
			free(d);
			free(round);
		}
	}
	return y0 + ROUNDS_H;
}

int chart_rounds(FILE *f, const struct chart_input *in)
{
	const char *wl[MAX_WL], *cands[MAX_CANDS];
	size_t nw = workloads(in->r, wl, MAX_WL);
	size_t nc = chart_candidates(in->r, cands, MAX_CANDS);
	double h = 70 + (double)nw * ROUNDS_H, y = 56;
	char cls[32];

	svg_open(f, W, h, "Per-round speedup in run order",
	         "One line per allocator: the speedup t_baseline/t_candidate of each round, in the "
	         "order the rounds ran, so drift and outliers are visible. " CMP_CONVENTION,
	         0);
	svg_text(f, 12, 22, "title",
	         "Per-round speedup over %s, in run order (log scale; each panel names its phase "
	         "and regime)",
	         in->r->baseline ? in->r->baseline : "the baseline");
	for (size_t k = 0; k < nc; k++) {
		snprintf(cls, sizeof cls, "s%zu", k);
		svg_line(f, PLOT_X0 + 120 * (double)k, 36, PLOT_X0 + 120 * (double)k + 18, 36, cls);
		svg_text(f, PLOT_X0 + 120 * (double)k + 22, 40, "", "%s", cands[k]);
	}
	if (!in->r->paired) {
		svg_text(f, 12, 76, "muted",
		         "two files: rounds are not paired, so there are no per-round ratios");
		svg_close(f);
		return ferror(f) ? -1 : 0;
	}
	for (size_t i = 0; i < nw; i++)
		if ((y = panel_rounds(f, in, wl[i], cands, nc, y)) < 0)
			return -1;
	svg_close(f);
	return ferror(f) ? -1 : 0;
}
