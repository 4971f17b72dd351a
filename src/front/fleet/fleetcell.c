/* fleetcell.c - the machines of one fleet comparison (fleet.h): each machine's estimate and
 * standard error, or why it is not pooled, then the random-effects pooling, the deleted residuals
 * and the machines named (docs/methodology.md, "A fleet of machines"). */
#include "front/fleet/fleetint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double fleet_row_se(const struct cmp_row *r)
{
	if (!r->usable)
		return NAN;
	return stats_interval_se(r->d_each.lo, r->d_each.hi, r->d_each.level);
}

/* The standard error of machine mi's row r when its bench stopped on its sequential intervals (a
 * plan, and the bench "decided" or let cells leave the rounds): the one its sequential interval
 * implies at the level the plan guarantees over all its looks, when wider than the fixed-n one;
 * NAN otherwise (docs/fleet.md, "Machines that stopped on a sequential decision"). */
static double seq_se(const struct fleet_ctx *c, size_t mi, const struct cmp_row *r)
{
	const struct rf_doc *d = c->f->m[mi].doc;
	double level, se;

	if (!d->seq.planned || !r->has_seq || !(r->seq_asked < 1) ||
	    !(strcmp(d->status, "decided") == 0 || d->nleft))
		return NAN;
	level = 1 - stats_seq_spent(&d->seq, 1 - cmp_row_family_conf(c->f->m[mi].r, r));
	se = stats_interval_se(r->d_seq.lo, r->d_seq.hi, level);
	return se > fleet_row_se(r) ? se : NAN;
}

/* Why machine m has no row for this comparison, into why. */
static void missing_reason(const struct fleet_ctx *c, size_t mi, const struct fleet_row *row,
                           char *why, size_t len)
{
	const struct fleet_machine *m = &c->f->m[mi];
	const struct rf_doc *d = m->doc;
	int w = row->workload ? rf_workload(d, row->workload) : -1;

	if (m->problem)
		snprintf(why, len, "%s", m->problem);
	else if (rf_arm(d, row->candidate) < 0)
		snprintf(why, len, "no arm '%s'", row->candidate);
	else if (row->workload && w < 0)
		snprintf(why, len, "no workload '%s'", row->workload);
	else if (row->workload && rf_phase(&d->wl[w], row->phase) < 0)
		snprintf(why, len, "no phase '%s' of %s", row->phase, row->workload);
	else if (!m->r->compared[row->regime])
		snprintf(why, len, "measured %s", rf_regimes_measured(d));
	else if (!row->workload && c->gm_count[mi] < 2)
		snprintf(why, len, "no geometric mean: fewer than two workloads with phase %s",
		         row->phase);
	else
		snprintf(why, len, "not compared on this machine");
}

/* The first machine that ran workload name (with effective parameters, when with_work), whose
 * measure and work the others must match; NULL if none. */
static const struct rf_workload *reference(const struct fleet_ctx *c, const char *name,
                                           int with_work, const char **label)
{
	for (size_t i = 0; i < c->f->nm; i++) {
		const struct rf_doc *d = c->f->m[i].doc;
		int w = rf_workload(d, name);
		if (w >= 0 && (d->wl[w].work || !with_work)) {
			*label = c->f->m[i].label;
			return &d->wl[w];
		}
	}
	return NULL;
}

/* Whether machine mi ran workload name as the reference machine did; else the difference in
 * why. */
static int same_work(const struct fleet_ctx *c, size_t mi, const char *name, char *why,
                     size_t len)
{
	const struct rf_doc *d = c->f->m[mi].doc;
	int w = rf_workload(d, name);
	const char *ref_label = NULL;
	const struct rf_workload *x = reference(c, name, 0, &ref_label), *y = w < 0 ? NULL : &d->wl[w];
	int same;

	/* the measure first, for every workload: a command workload has no parameters */
	if (x && y && x != y && x->time != y->time) {
		snprintf(why, len, "%s compared %s time here, %s time on %s: not one measure", name,
		         y->time == RF_TIME_CPU ? "CPU" : "wall", x->time == RF_TIME_CPU ? "CPU" : "wall",
		         ref_label);
		return 0;
	}
	x = reference(c, name, 1, &ref_label);
	if (!x || !y || !y->work || x == y)
		return 1;
	if (x->checksum && y->checksum && strcmp(x->checksum, y->checksum) != 0) {
		snprintf(why, len, "%s did other work than on %s: checksum %s, not %s", name,
		         ref_label, y->checksum, x->checksum);
		return 0;
	}
	if (strcmp(x->work, y->work) != 0) {
		snprintf(why, len, "%s did other work than on %s: parameters %.60s, not %.60s",
		         name, ref_label, y->work, x->work);
		return 0;
	}
	same = x->nphases == y->nphases;
	for (size_t p = 0; same && p < x->nphases; p++)
		same = strcmp(x->phases[p], y->phases[p]) == 0;
	if (!same)
		snprintf(why, len, "%s has other phases than on %s", name, ref_label);
	return same;
}

/* A geometric mean pools only over the same workloads, each doing the same work. */
static int same_geomean(const struct fleet_ctx *c, size_t mi, char *why, size_t len)
{
	const struct rf_doc *d = c->f->m[mi].doc;
	char lacks[128] = "";
	size_t nl = 0;

	for (size_t i = 0; i < c->ngm_union; i++) {
		int w = rf_workload(d, c->gm_union[i]);
		if (w >= 0 && rf_phase(&d->wl[w], c->gphase) >= 0) {
			if (!same_work(c, mi, c->gm_union[i], why, len))
				return 0;
			continue;
		}
		if (nl++ == 0)
			snprintf(lacks, sizeof lacks, "%s", c->gm_union[i]);
		else if (strlen(lacks) + strlen(c->gm_union[i]) + 8 < sizeof lacks)
			strcat(strcat(lacks, ", "), c->gm_union[i]);
	}
	if (nl)
		snprintf(why, len, "its geometric mean lacks %s (%zu of the fleet's %zu workloads)",
		         lacks, nl, c->ngm_union);
	return nl == 0;
}

/* Sets cell's estimate and standard error, or its reason not to pool. */
static void judge_cell(const struct fleet_ctx *c, size_t mi, const struct fleet_row *row,
                       struct fleet_cell *cell)
{
	const struct cmp_row *r = cell->row;

	cell->y = cell->se = cell->se_fixed = cell->resid = NAN;
	if (c->f->m[mi].copy_of >= 0) {
		snprintf(cell->why, sizeof cell->why,
		         "the same measurements as %s (a copy): counted once",
		         c->f->m[c->f->m[mi].copy_of].label);
		cell->copy = 1;
		return;
	}
	if (!r) {
		missing_reason(c, mi, row, cell->why, sizeof cell->why);
		return;
	}
	if (!r->usable) {
		snprintf(cell->why, sizeof cell->why,
		         "insufficient data: %zu usable round%s (2 needed)", r->n,
		         r->n == 1 ? "" : "s");
		return;
	}
	if (row->workload ? !same_work(c, mi, row->workload, cell->why, sizeof cell->why)
	                  : !same_geomean(c, mi, cell->why, sizeof cell->why))
		return;
	cell->y = r->d.est;
	cell->se = fleet_row_se(r);
	cell->se_fixed = cell->se;
	if (!isnan(seq_se(c, mi, r)))
		cell->se = seq_se(c, mi, r);
	if (!(cell->se > 0) || !isfinite(cell->se)) {
		snprintf(cell->why, sizeof cell->why,
		         "a zero-width interval (every round gave the same ratio): no standard "
		         "error to weight it by");
		return;
	}
	cell->pooled = 1;
}

/* The units of a row (fleet.h, fleet_row.nunits): unit[u] is the first file of each machine with
 * a pooled cell; with a single such machine that has several sessions, its sessions. */
static size_t row_units(const struct fleet_ctx *c, struct fleet_row *row, size_t *unit)
{
	const struct fleet_report *f = c->f;
	size_t nu = 0, files = 0;

	for (size_t i = 0; i < f->nm; i++) {
		size_t u = f->m[i].unit, k = 0;
		if (!row->cells[i].pooled)
			continue;
		files++;
		while (k < nu && unit[k] != u)
			k++;
		if (k == nu)
			unit[nu++] = u;
	}
	row->npooled = files;
	row->sessions_of = NULL;
	if (nu == 1 && files >= 2) {
		row->sessions_of = f->m[unit[0]].label;
		nu = 0;
		for (size_t i = 0; i < f->nm; i++)
			if (row->cells[i].pooled)
				unit[nu++] = i;
	}
	return nu;
}

/* Estimates y[i] with their standard errors se[i]. */
struct est_list {
	double *y, *se;
};

/* Unit u's estimate and standard error: its one pooled session's, or the random-effects pool of
 * its sessions (DerSimonian-Laird; the standard error 1 / sqrt(sum of the weights) holds the
 * between-session variance), its sessions' gathered in scratch (room for every machine).
 * Returns 0, or -1 when its sessions cannot be pooled. */
static int unit_estimate(const struct fleet_ctx *c, const struct fleet_row *row, size_t u,
                         double *y, double *se, const struct est_list *scratch)
{
	const struct fleet_report *f = c->f;
	double *sy = scratch->y, *sse = scratch->se;
	struct stats_meta m;
	size_t k = 0;

	if (row->sessions_of) {
		*y = row->cells[u].y;
		*se = row->cells[u].se;
		return 0;
	}
	for (size_t i = 0; i < f->nm; i++)
		if (row->cells[i].pooled && f->m[i].unit == u) {
			sy[k] = row->cells[i].y;
			sse[k++] = row->cells[i].se;
		}
	if (k == 1) {
		*y = sy[0];
		*se = sse[0];
		return 0;
	}
	if (stats_meta_re(sy, sse, k, c->f->conf, &m) != 0)
		return -1;
	*y = m.mu;
	*se = m.se_dl;
	return 0;
}

/* Whether cell i belongs to unit j of the row. */
static int in_unit(const struct fleet_ctx *c, const struct fleet_row *row, size_t i, size_t u)
{
	return row->sessions_of ? i == u : c->f->m[i].unit == u;
}

/* The meta-analysis over the units, the deleted residuals and the machines named. */
static int pool(const struct fleet_ctx *c, struct fleet_row *row)
{
	size_t nm = c->f->nm, k;
	double *y = calloc(nm + 1, sizeof *y), *se = calloc(nm + 1, sizeof *se);
	double *t = calloc(nm + 1, sizeof *t), *sy = calloc(nm + 1, sizeof *sy);
	double *sse = calloc(nm + 1, sizeof *sse);
	size_t *unit = calloc(nm + 1, sizeof *unit);
	int rc = y && se && t && sy && sse && unit ? 0 : -1;

	const struct est_list scratch = {sy, sse};

	k = rc == 0 ? row_units(c, row, unit) : 0;
	for (size_t j = 0; rc == 0 && j < k; j++)
		if (unit_estimate(c, row, unit[j], &y[j], &se[j], &scratch) != 0)
			k = 0;
	row->nunits = k;
	row->odd_bound = NAN;
	if (rc == 0 && k >= 2)
		row->has_meta = stats_meta_re(y, se, k, c->f->conf, &row->meta) == 0;
	if (rc == 0 && row->has_meta && k >= 3 && stats_meta_deleted(y, se, k, t) == 0)
		row->odd_bound = stats_meta_odd_bound(1 - c->f->conf, k);
	for (size_t i = 0; rc == 0 && row->has_meta && i < nm; i++) {
		struct fleet_cell *cell = &row->cells[i];
		size_t j = 0;
		if (!cell->pooled)
			continue;
		while (j < k && !in_unit(c, row, i, unit[j]))
			j++;
		if (!isnan(row->odd_bound) && j < k) {
			cell->resid = t[j];
			cell->odd = fabs(t[j]) > row->odd_bound;
		}
		cell->excludes = cell->row->d.lo > row->meta.mu || cell->row->d.hi < row->meta.mu;
		row->nodd += (size_t)cell->odd;
		row->nexcludes += (size_t)cell->excludes;
	}
	if (rc == 0)
		fleet_explain(c, row, unit, y, se, k);
	free(y);
	free(se);
	free(t);
	free(sy);
	free(sse);
	free(unit);
	return rc;
}

int fleet_fill_row(const struct fleet_ctx *c, struct fleet_row *row,
                   const struct cmp_row *const *entries)
{
	if (!(row->cells = calloc(c->f->nm, sizeof *row->cells)))
		return -1;
	for (size_t i = 0; i < c->f->nm; i++) {
		row->cells[i].row = entries[i];
		judge_cell(c, i, row, &row->cells[i]);
	}
	return pool(c, row);
}
