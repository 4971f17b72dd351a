/* chartsamples.c - the charts of raw samples (charts.h): per-arm distributions of the measured
 * times and per-round speedups in run order, one panel per workload. */
#include "front/export/charts.h"

#include "front/export/series.h"
#include "front/export/svgdraw.h"

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

/* The workloads of r's rows, in order, that have a "total" row. */
static size_t workloads(const struct cmp_report *r, const char **wl, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nrows; i++) {
		const char *w = r->rows[i].workload;
		size_t k = 0;
		if (!w || strcmp(r->rows[i].phase, "total") != 0)
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
		snprintf(tip, sizeof tip, "%s: %.3f ms", arm, t[i] * 1e-6);
		svg_circle(f, svg_map(s, t[i]), y + 5 * jitter(i), 2.2, "pt", tip);
	}
	free(c);
}

/* The millisecond range of every arm's times, both regimes, measured and warm-up rounds, in
 * workload wl. */
static struct svg_scale time_scale(const struct rf_doc *d, const char *wl)
{
	int (*const series[2])(const struct rf_doc *, const char *, const char *, const char *,
	                       enum rf_regime, double **,
	                       size_t *) = {series_arm_times, series_warm_times};
	double lo = INFINITY, hi = -INFINITY, *t;
	size_t n;

	for (size_t a = 0; a < d->narms; a++)
		for (int g = 0; g < RF_NREGIMES * 2; g++) {
			if (series[g / RF_NREGIMES](d, d->arms[a], wl, "total",
			                            (enum rf_regime)(g % RF_NREGIMES), &t, &n) != 0)
				continue;
			for (size_t i = 0; i < n; i++) {
				lo = fmin(lo, t[i] * 1e-6);
				hi = fmax(hi, t[i] * 1e-6);
			}
			free(t);
		}
	if (!(hi >= lo))
		lo = 0, hi = 1;
	return (struct svg_scale){lo - (hi - lo) * 0.05 - 1e-9, hi + (hi - lo) * 0.05 + 1e-9,
	                          PLOT_X0, PLOT_X1, 0};
}

/* One arm's row: the main regime as box and dots, the cold rep beside it as rings when the main
 * regime is steady. Returns 0, or -1 when the arm has no ok run. */
static int arm_row(FILE *f, const struct rf_doc *d, const char *arm, const char *wl,
                   enum rf_regime main, const struct svg_scale *s, double y)
{
	double *t;
	size_t n;
	char tip[128];

	if (series_arm_times(d, arm, wl, "total", main, &t, &n) != 0 || n == 0) {
		free(t);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		t[i] *= 1e-6;
	arm_strip(f, t, n, s, y, arm);
	free(t);
	if (main == RF_STEADY && series_arm_times(d, arm, wl, "total", RF_COLD, &t, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			snprintf(tip, sizeof tip, "%s, cold first repetition: %.3f ms", arm,
			         t[i] * 1e-6);
			svg_circle(f, svg_map(s, t[i] * 1e-6), y + 5 * jitter(i + 7), 2.6,
			           "pt-warm", tip);
		}
		free(t);
	}
	if (series_warm_times(d, arm, wl, "total", main, &t, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			snprintf(tip, sizeof tip, "%s, warm-up round (not compared): %.3f ms", arm,
			         t[i] * 1e-6);
			svg_mark(f, svg_map(s, t[i] * 1e-6), y - 8, 3, 5, "pt-warm", tip);
		}
		free(t);
	}
	return 0;
}

static double panel_distribution(FILE *f, const struct rf_doc *d, const char *wl,
                                 enum rf_regime main, double y0)
{
	struct svg_scale s = time_scale(d, wl);
	double y = y0 + 24, tk[SVG_MAX_TICKS];
	size_t nt = svg_ticks(&s, tk);

	svg_text(f, 12, y0 + 12, "title", "start", "%s", wl);
	for (size_t a = 0; a < d->narms; a++, y += ARM_H) {
		svg_text(f, PLOT_X0 - 10, y + 4, "", "end", "%s", d->arms[a]);
		if (arm_row(f, d, d->arms[a], wl, main, &s, y) != 0)
			svg_text(f, PLOT_X0, y + 4, "muted", "start", "no ok runs");
	}
	for (size_t i = 0; i < nt; i++) {
		double x = svg_map(&s, tk[i]);
		svg_line(f, x, y - 4, x, y, "axis");
		svg_text(f, x, y + 12, "tick", "middle", "%g", tk[i]);
	}
	svg_line(f, PLOT_X0, y - 4, PLOT_X1, y - 4, "axis");
	return y + PANEL_PAD - 20;
}

int chart_distributions(FILE *f, const struct export_input *in)
{
	const char *wl[MAX_WL];
	size_t nw = workloads(in->r, wl, MAX_WL);
	const struct rf_doc *d = in->r->cand ? in->r->cand : in->r->base;
	enum rf_regime main = d->has_regime[RF_STEADY] ? RF_STEADY : RF_COLD;
	double h = 70 + (double)nw * ((double)d->narms * ARM_H + PANEL_PAD + 10), y = 56;

	svg_open(f, W, h, "Measured times per allocator",
	         "Strip and box plot per workload: each measured round's total time (ms) for each "
	         "allocator; box = quartiles, bar = median; steady-state time as dots, the cold "
	         "first repetition of the same runs as rings, warm-up rounds (never compared) as "
	         "crosses.",
	         0);
	svg_text(f, 12, 22, "title", "start", "Measured times per allocator (ms, %s, %s)",
	         main == RF_STEADY ? "steady state; rings: cold start" : "cold start only",
	         d->path);
	svg_text(f, 12, 40, "muted", "start",
	         "dot = one round; box = quartiles; bar = median; ring = the same run's first "
	         "repetition; cross = a warm-up round (not compared)");
	for (size_t i = 0; i < nw; i++)
		y = panel_distribution(f, d, wl[i], main, y);
	svg_text(f, 12, h - 12, "muted", "start",
	         "time of the workload's total phase, milliseconds");
	svg_close(f);
	return ferror(f) ? -1 : 0;
}

/* Per-round speedups of every candidate of workload wl, in run order, on a log axis. */
static double panel_rounds(FILE *f, const struct export_input *in, const char *wl,
                           const char **cands, size_t nc, double y0)
{
	const struct cmp_report *r = in->r;
	double lo = 1, hi = 1, *d;
	size_t *round, n, rmax = 1;
	char cls[24];

	for (int pass = 0; pass < 2; pass++) {
		struct svg_scale x = {0, (double)rmax, PLOT_X0, PLOT_X1, 0};
		struct svg_scale y = {lo / 1.02, hi * 1.02, y0 + ROUNDS_H - 30, y0 + 20, 1};
		if (pass) {
			svg_text(f, 12, y0 + 12, "title", "start", "%s", wl);
			double t[SVG_MAX_TICKS];
			size_t nt = svg_ticks(&y, t);
			for (size_t i = 0; i < nt; i++) {
				svg_line(f, PLOT_X0, svg_map(&y, t[i]), PLOT_X1, svg_map(&y, t[i]),
				         "grid");
				svg_text(f, PLOT_X0 - 6, svg_map(&y, t[i]) + 4, "tick", "end",
				         "%gx", t[i]);
			}
			svg_line(f, PLOT_X0, svg_map(&y, 1), PLOT_X1, svg_map(&y, 1), "ref");
			svg_line(f, PLOT_X0, y.p0, PLOT_X1, y.p0, "axis");
			svg_text(f, PLOT_X1, y.p0 + 16, "tick", "end",
			         "round index, run order (0 to %zu)", rmax);
		}
		for (size_t i = 0; i < r->nrows; i++) {
			const struct cmp_row *row = &r->rows[i];
			size_t k = 0;
			if (!row->workload || strcmp(row->workload, wl) != 0 ||
			    strcmp(row->phase, "total") != 0 ||
			    row->regime != series_primary_regime(r))
				continue;
			if (series_round_ratios(r, row, &d, &round, &n) != 0)
				return -1;
			while (k < nc && strcmp(cands[k], row->candidate) != 0)
				k++;
			for (size_t j = 0; j < n; j++) {
				double s = exp(-d[j]);
				lo = fmin(lo, s);
				hi = fmax(hi, s);
				rmax = round[j] > rmax ? round[j] : rmax;
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

int chart_rounds(FILE *f, const struct export_input *in)
{
	const char *wl[MAX_WL], *cands[MAX_CANDS];
	size_t nw = workloads(in->r, wl, MAX_WL);
	size_t nc = chart_candidates(in->r, cands, MAX_CANDS);
	double h = 100 + (double)nw * ROUNDS_H, y = 56;
	char cls[32];

	svg_open(f, W, h, "Per-round speedup in run order",
	         "One line per allocator: the speedup t_baseline/t_candidate of each round, in the "
	         "order the rounds ran, so drift and outliers are visible. " CMP_CONVENTION,
	         0);
	svg_text(f, 12, 22, "title", "start",
	         "Per-round speedup over %s, %s, in run order (log scale)",
	         in->r->baseline ? in->r->baseline : "the baseline",
	         series_primary_regime(in->r) == RF_STEADY ? "steady state" : "cold start");
	for (size_t k = 0; k < nc; k++) {
		snprintf(cls, sizeof cls, "s%zu", k);
		svg_line(f, PLOT_X0 + 120 * (double)k, 36, PLOT_X0 + 120 * (double)k + 18, 36, cls);
		svg_text(f, PLOT_X0 + 120 * (double)k + 22, 40, "", "start", "%s", cands[k]);
	}
	if (!in->r->paired) {
		svg_text(f, 12, 76, "muted", "start",
		         "two files: rounds are not paired, so there are no per-round ratios");
		svg_close(f);
		return ferror(f) ? -1 : 0;
	}
	for (size_t i = 0; i < nw; i++)
		if ((y = panel_rounds(f, in, wl[i], cands, nc, y)) < 0)
			return -1;
	chart_convention(f, 12, h - 26);
	svg_close(f);
	return ferror(f) ? -1 : 0;
}
