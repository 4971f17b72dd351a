/* cells.c - the cell texts of the comparisons table and the per-arm table, shared by the
 * terminal table and markdown (markup.c) so both show the same numbers. */
#include "front/export/exportint.h"

#include <math.h>
#include <string.h>

/* Whether row is in the table of family fam (-1: every row). */
static int in_table(const struct cmp_row *row, int fam)
{
	return fam < 0 || row->family == (enum cmp_family)fam;
}

/* The level the CI column's header names: the one the first comparison of the table that
 * reached its family's level reached (exact intervals reach a little more), else the family's
 * level; a row at another level prints its own in the cell. */
static double head_level(const struct cmp_report *r, int fam)
{
	double want = fam < 0 ? r->family_conf : r->fam[fam].conf;

	for (size_t i = 0; i < r->nrows; i++)
		if (in_table(&r->rows[i], fam) && r->rows[i].usable &&
		    r->rows[i].d.level + 1e-9 >= want)
			return r->rows[i].d.level;
	return want;
}

/* The cells (CELL bytes each) estimate_cells fills. */
struct estimate {
	char *speedup, *ci, *impr, *verdict;
};

/* speedup, interval, improvement and verdict of one row ("-" where unusable) into e. The verdict
 * is read off the interval printed beside it; p-values are in json and csv only. */
static void estimate_cells(const struct cmp_report *r, const struct cmp_row *row, int fam,
                           const struct estimate *e)
{
	int elsewhere = row && !in_table(row, fam);
	char *speedup = e->speedup, *ci = e->ci, *impr = e->impr, *verdict = e->verdict;

	if (elsewhere)
		snprintf(verdict, CELL, "(%s: see there)", cmp_family_name(row->family));
	else if (row)
		cmp_verdict_text(row, verdict, CELL);
	else
		strcpy(verdict, "-");
	if (!row || !row->usable || elsewhere) {
		strcpy(speedup, "-");
		strcpy(ci, "-");
		strcpy(impr, "-");
		return;
	}
	snprintf(speedup, CELL, "%.3fx", cmp_speedup(row->d.est));
	snprintf(ci, CELL, "[%.3f, %.3f]", cmp_speedup(row->d.hi), cmp_speedup(row->d.lo));
	if (fabs(row->d.level - head_level(r, fam)) > 1e-9) {
		char lv[16];
		snprintf(ci + strlen(ci), CELL - strlen(ci), " (%s%%)",
		         cmp_level_text(row->d.level, lv, sizeof lv));
	}
	snprintf(impr, CELL, "%+.1f%%", cmp_improvement(row->d.est));
}

static void n_cell(const struct cmp_report *r, const struct cmp_row *row, char *buf)
{
	if (!row)
		strcpy(buf, "-");
	else if (r->paired)
		snprintf(buf, CELL, "%zu", row->n);
	else
		snprintf(buf, CELL, "%zu+%zu", row->n_base, row->n_cand);
}

/* Whether both regimes are in the table of family fam, side by side. */
static int side_by_side(const struct cmp_report *r, int fam)
{
	int has[RF_NREGIMES] = {0};

	for (size_t i = 0; i < r->nrows; i++)
		if (in_table(&r->rows[i], fam))
			has[r->rows[i].regime] = 1;
	return r->compared[RF_COLD] && r->compared[RF_STEADY] && has[RF_COLD] && has[RF_STEADY];
}

/* The phase, labelled with the time it was compared on when that is not its total's (a phase
 * whose marks carry no CPU time in a bench on CPU time: "load [wall time]"). */
static void phase_cell(const struct cmp_report *r, const struct cmp_row *row, char cell[CELL])
{
	const char *t = rf_phase_time_name(r->base, row->workload, row->phase);

	if (strcmp(t, rf_phase_time_name(r->base, row->workload, "total")) == 0)
		snprintf(cell, CELL, "%s", row->phase);
	else
		snprintf(cell, CELL, "%.80s [%s time]", row->phase, t);
}

/* One line of the comparisons table: a row, or side by side the steady row s and the cold row c
 * of one comparison (either may be NULL). Fills MAXCOL cells. */
static void line_cells(const struct cmp_report *r, const struct cmp_row *s, const struct cmp_row *c,
                       int fam, char cell[MAXCOL][CELL])
{
	const struct cmp_row *any = s ? s : c;
	char unused[CELL];
	size_t k = 3;

	snprintf(cell[0], CELL, "%s", any->workload ? any->workload : "geomean");
	phase_cell(r, any, cell[1]);
	snprintf(cell[2], CELL, "%s", any->candidate);
	if (side_by_side(r, fam)) {
		estimate_cells(r, s, fam, &(struct estimate){cell[3], cell[4], unused, cell[5]});
		estimate_cells(r, c, fam, &(struct estimate){cell[6], cell[7], unused, cell[8]});
		char ns[CELL], nc[CELL];
		n_cell(r, s, ns);
		n_cell(r, c, nc);
		snprintf(cell[9], CELL, "%.60s/%.60s", ns, nc);
		k = 10;
	} else {
		estimate_cells(r, any, fam, &(struct estimate){cell[3], cell[4], cell[5], cell[6]});
		n_cell(r, any, cell[7]);
		k = 8;
	}
	if (isnan(any->rss_ratio))
		strcpy(cell[k], "-");
	else
		snprintf(cell[k], CELL, "%.2f", any->rss_ratio);
	if (isnan(any->floor_pct))
		strcpy(cell[k + 1], "-");
	else if (isinf(any->floor_pct))
		strcpy(cell[k + 1], "none yet");
	else
		snprintf(cell[k + 1], CELL, "%.1f%%", any->floor_pct);
}

/* Whether rows x and y are the two regimes of one comparison. */
static int same_comparison(const struct cmp_row *x, const struct cmp_row *y)
{
	return x->regime != y->regime && (x->workload == NULL) == (y->workload == NULL) &&
	       (!x->workload || strcmp(x->workload, y->workload) == 0) &&
	       strcmp(x->phase, y->phase) == 0 && strcmp(x->candidate, y->candidate) == 0;
}

void export_table_cells(const struct cmp_report *r, int fam, struct export_grid *g)
{
	static const char *const one[] = {"workload", "phase",          "candidate", "speedup",
	                                  "CI",       "improvement",    "verdict",   "n",
	                                  "peak RSS ratio", "noise floor"};
	static const char *const two[] = {"workload",       "phase",          "candidate",
	                                  "steady speedup", "steady CI",      "steady verdict",
	                                  "cold speedup",   "cold CI",        "cold verdict",
	                                  "n steady/cold",  "peak RSS ratio", "noise floor"};
	int both = side_by_side(r, fam);
	size_t n = 1, cols = both ? 12 : 10, *ncol = &g->cols;
	char(*c)[CELL] = g->c;
	enum rf_regime only = r->compared[RF_STEADY] ? RF_STEADY : RF_COLD;
	char lv[16];

	for (size_t i = 0; i < r->nrows; i++)
		if (in_table(&r->rows[i], fam)) {
			only = r->rows[i].regime;
			break;
		}
	const char *regime = rf_regime_name(only);
	cmp_level_text(head_level(r, fam), lv, sizeof lv);
	*ncol = r->calibration ? cols : cols - 1;
	g->right = both ? 0xED8 : 0x3B8;
	g->keys = 3;
	g->groups = both ? 1u << 3 | 1u << 6 | 1u << 9 : 1u << 3 | 1u << 7;
	for (size_t j = 0; j < *ncol; j++) {
		const char *name = both ? two[j] : one[j];
		if (both && (j == 4 || j == 7))
			snprintf(c[j], CELL, "%s %s%% CI", j == 4 ? "steady" : "cold", lv);
		else if (!both && j == 4)
			snprintf(c[j], CELL, "%s%% CI", lv);
		else if (!both && j == 3)
			snprintf(c[j], CELL, "%s speedup", regime);
		else
			snprintf(c[j], CELL, "%s", name);
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *x = &r->rows[i], *y = NULL;
		char cells[MAXCOL][CELL];
		if (both && i + 1 < r->nrows && same_comparison(x, &r->rows[i + 1]))
			y = &r->rows[++i];
		if (!in_table(x, fam) && !(y && in_table(y, fam)))
			continue;
		if (both && x->regime == RF_COLD)
			line_cells(r, y, x, fam, cells);
		else
			line_cells(r, x, y, fam, cells);
		memcpy(&c[n++ * *ncol], cells, *ncol * CELL);
	}
	g->rows = n;
}

static void fmt_ns(double ns, char *buf)
{
	if (isnan(ns))
		strcpy(buf, "-");
	else if (ns >= 10e9)
		snprintf(buf, CELL, "%.2f s", ns * 1e-9);
	else
		snprintf(buf, CELL, "%.2f ms", ns * 1e-6);
}

static void fmt_mib(double bytes, char *buf)
{
	if (isnan(bytes))
		strcpy(buf, "-");
	else
		snprintf(buf, CELL, "%.1f MiB", bytes / 1048576.0);
}

/* "12", "125.4 k", "2.80 M": a count per run, short. */
static void fmt_count(double v, char *buf)
{
	if (isnan(v))
		strcpy(buf, "-");
	else if (v < 10000)
		snprintf(buf, CELL, "%.0f", v);
	else if (v < 999950)
		snprintf(buf, CELL, "%.1f k", v * 1e-3);
	else
		snprintf(buf, CELL, "%.2f M", v * 1e-6);
}

/* Whether some row of r has a figure of probed runs: processes (calls 0) or calls (1). */
static int any_probed(const struct cmp_report *r, int calls)
{
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!isnan(calls ? row->calls_base : row->processes_base) ||
		    !isnan(calls ? row->calls_cand : row->processes_cand))
			return 1;
	}
	return 0;
}

/* The measured rounds of d in which arm ran workload (fewer than all once its cell left the
 * rounds under adaptive allocation). */
static size_t rounds_ran(const struct rf_doc *d, const char *arm, const char *workload)
{
	int a = rf_arm(d, arm), w = rf_workload(d, workload);
	size_t n = 0;

	if (a < 0 || w < 0)
		return d->nrounds;
	for (size_t i = 0; i < d->nrounds; i++)
		n += rf_run(d, i, (size_t)a, (size_t)w)->present;
	return n;
}

/* One arm's line: its cells in the order of the header (arm_head), the probed ones last. */
static void arm_line(const struct cmp_report *r, const struct cmp_row *row, int side,
                     char (*c)[CELL], size_t ncol)
{
	const struct rf_doc *d = side ? r->cand : r->base;
	const double *med = side ? row->med_regime_cand : row->med_regime_base;
	double growth = side ? row->growth_cand : row->growth_base;
	size_t ran = rounds_ran(d, side ? row->candidate : row->baseline, row->workload);

	snprintf(c[0], CELL, "%s", row->workload);
	snprintf(c[1], CELL, "%s%s", side ? row->candidate : row->baseline,
	         r->paired ? ""
	         : side    ? " (2nd file)"
	                   : " (1st file)");
	snprintf(c[2], CELL, "%zu/%zu%s", side ? row->n_cand : row->n_base, ran,
	         ran < d->nrounds ? " (left)" : "");
	fmt_ns(med[RF_COLD], c[3]);
	fmt_ns(med[RF_STEADY], c[4]);
	if (r->compared[RF_STEADY])
		snprintf(c[5], CELL, "%zu", side ? row->unsettled_cand : row->unsettled_base);
	else
		strcpy(c[5], "-");
	fmt_mib((side ? row->peak_cand_kib : row->peak_base_kib) * 1024, c[6]);
	fmt_mib(side ? row->retained_cand : row->retained_base, c[7]);
	fmt_mib(growth, c[8]);
	if (growth >= 0)
		memmove(c[8] + 1, c[8], strlen(c[8]) + 1), c[8][0] = '+';
	for (size_t j = 9; j < ncol; j++) {
		int calls = j == ncol - 1 && any_probed(r, 1);
		fmt_count(calls ? (side ? row->calls_cand : row->calls_base)
		                : (side ? row->processes_cand : row->processes_base),
		          c[j]);
	}
}

void export_arm_cells(const struct cmp_report *r, struct export_grid *g)
{
	static const char *const arm_head[ARMCOL] = {
	    "workload", "arm",          "ok rounds",  "cold time",     "steady time", "unsettled",
	    "peak RSS", "retained RSS", "RSS growth", "processes/run", "calls/run"};
	size_t n = 1;
	const char *last = NULL;
	int procs = any_probed(r, 0), calls = any_probed(r, 1);
	char(*c)[CELL] = g->c;
	size_t *ncol = &g->cols;

	*ncol = 9 + (size_t)procs + (size_t)calls;
	g->right = 0x7FC;
	g->keys = 2;
	g->groups = 1u << 2 | 1u << 6 | 1u << 9;
	for (size_t j = 0; j < *ncol; j++)
		snprintf(c[j], CELL, "%s", arm_head[j == 9 && !procs ? 10 : j]);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (!row->workload || strcmp(row->phase, "total") != 0 ||
		    (i > 0 && same_comparison(&r->rows[i - 1], row)))
			continue;
		for (int side = 0; side < 2; side++) {
			if (side == 0 && r->paired && last && strcmp(last, row->workload) == 0)
				continue;
			arm_line(r, row, side, &c[n++ * *ncol], *ncol);
		}
		last = row->workload;
	}
	g->rows = n;
}
