/* benchalloc.c - adaptive allocation (docs/methodology.md, "Adaptive allocation"): the cells a
 * round runs, the "left" list of a round (docs/results-format.md), the round time the budget
 * expects from the cells still running, and the allocation that follows a decision rule on
 * the primary comparisons of compare's default report (docs/methodology.md, "Multiplicity"). */
#include "front/engine/benchalloc.h"

#include "common/errmsg.h"
#include "common/status.h"
#include "front/compare/compare.h"
#include "front/results/results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int bench_cells_init(struct bench_cells *s, const struct bench_config *c)
{
	s->n = c->narms * c->nwl;
	s->need = malloc(s->n);
	s->ns = calloc(s->n, sizeof *s->ns);
	s->runs = calloc(s->n, sizeof *s->runs);
	if (!s->need || !s->ns || !s->runs) {
		bench_cells_free(s);
		return -1;
	}
	memset(s->need, 1, s->n);
	return 0;
}

void bench_cells_free(struct bench_cells *s)
{
	free(s->need);
	free(s->ns);
	free(s->runs);
	memset(s, 0, sizeof *s);
}

size_t bench_cells_needed(const struct bench_cells *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		k += s->need[i];
	return k;
}

static long find_arm(const struct bench_config *c, const char *name)
{
	for (size_t i = 0; name && i < c->narms; i++)
		if (strcmp(c->arms[i].name, name) == 0)
			return (long)i;
	return -1;
}

static long find_wl(const struct bench_config *c, const char *name)
{
	for (size_t i = 0; name && i < c->nwl; i++)
		if (strcmp(c->wl[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* Adds the process wall times of the runs (an array of run objects of c's arms and workloads)
 * to their cells. */
static void bench_cells_account(struct bench_cells *s, const struct bench_config *c,
                                const cJSON *runs)
{
	const cJSON *run;

	cJSON_ArrayForEach(run, runs)
	{
		long a = find_arm(c, cJSON_GetStringValue(cJSON_GetObjectItem(run, "arm")));
		long w = find_wl(c, cJSON_GetStringValue(cJSON_GetObjectItem(run, "workload")));
		const cJSON *ns =
		    cJSON_GetObjectItem(cJSON_GetObjectItem(run, "process"), "wall_ns");

		if (a < 0 || w < 0 || !cJSON_IsNumber(ns) || !(ns->valuedouble > 0))
			continue;
		s->ns[(size_t)a * c->nwl + (size_t)w] += ns->valuedouble;
		s->runs[(size_t)a * c->nwl + (size_t)w]++;
	}
}

/* Adds "left": [{"arm": A, "workload": W}, ...] to round, in cell order, when a cell has left.
 * Returns 0, or -1 out of memory. */
static int bench_cells_record(const struct bench_cells *s, const struct bench_config *c,
                              cJSON *round)
{
	cJSON *left;

	if (bench_cells_needed(s) == s->n)
		return 0;
	if (!(left = cJSON_AddArrayToObject(round, "left")))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		cJSON *cell;

		if (s->need[i])
			continue;
		if (!(cell = cJSON_CreateObject()) || !cJSON_AddItemToArray(left, cell) ||
		    !cJSON_AddStringToObject(cell, "arm", c->arms[i / c->nwl].name) ||
		    !cJSON_AddStringToObject(cell, "workload", c->wl[i % c->nwl].name))
			return -1;
	}
	return 0;
}

int bench_cells_round(struct bench_cells *s, const struct bench_config *c, cJSON *round,
                      const cJSON *runs, int measured)
{
	if (bench_cells_record(s, c, round) != 0)
		return -1;
	if (measured)
		bench_cells_account(s, c, runs);
	return 0;
}

void bench_cells_restore(struct bench_cells *s, const struct bench_config *c, const cJSON *rounds)
{
	const cJSON *round, *cell;

	cJSON_ArrayForEach(round, rounds)
	{
		if (!cJSON_IsTrue(cJSON_GetObjectItem(round, "warmup")))
			bench_cells_account(s, c, cJSON_GetObjectItem(round, "runs"));
		if (round->next)
			continue;
		cJSON_ArrayForEach(cell, cJSON_GetObjectItem(round, "left"))
		{
			long a =
			    find_arm(c, cJSON_GetStringValue(cJSON_GetObjectItem(cell, "arm")));
			long w =
			    find_wl(c, cJSON_GetStringValue(cJSON_GetObjectItem(cell, "workload")));

			if (a >= 0 && w >= 0)
				s->need[(size_t)a * c->nwl + (size_t)w] = 0;
		}
	}
}

double bench_cells_share(const struct bench_cells *s)
{
	double all = 0, kept = 0, known = 0, mean;
	size_t nknown = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->runs[i]) {
			known += s->ns[i] / (double)s->runs[i];
			nknown++;
		}
	if (nknown == 0 || !(known > 0))
		return 1;
	mean = known / (double)nknown;
	for (size_t i = 0; i < s->n; i++) {
		double t = s->runs[i] ? s->ns[i] / (double)s->runs[i] : mean;

		all += t;
		kept += s->need[i] ? t : 0;
	}
	return kept / all;
}

int bench_cells_update(struct bench_cells *s, const struct bench_config *c,
                       struct rf_builder *tables, char *err, size_t errlen)
{
	const struct rf_doc *doc = rf_builder_doc(tables, err, errlen);
	unsigned char *need;
	int rc;

	if (!doc)
		return -1;
	if (!(need = malloc(s->n)))
		return errmsg_fail(err, errlen, "out of memory");
	memcpy(need, s->need, s->n);
	rc = c->alloc->update(c->alloc->ctx, doc, need, s->n, err, errlen);
	for (size_t i = 0; rc == 0 && i < s->n; i++)
		s->need[i] &= need[i];
	for (size_t w = 0; rc == 0 && c->duet && w < c->nwl; w++) {
		unsigned char any = 0;

		for (size_t a = 0; a < c->narms; a++)
			any |= s->need[a * c->nwl + w];
		for (size_t a = 0; a < c->narms; a++)
			s->need[a * c->nwl + w] = any;
	}
	free(need);
	return rc;
}

/* ---- the allocation by a decision rule ---- */

/* Marks the cells row uses in keep: its workload (or, for a geometric mean, every workload) for
 * its candidate and its baseline arm. */
static void keep_row(const struct rf_doc *d, const struct cmp_row *row, unsigned char *keep)
{
	int ca = rf_arm(d, row->candidate), ba = rf_arm(d, row->baseline);
	int w = row->workload ? rf_workload(d, row->workload) : -1;

	for (size_t k = 0; k < d->nwl; k++) {
		if (w >= 0 && k != (size_t)w)
			continue;
		if (ca >= 0)
			keep[(size_t)ca * d->nwl + k] = 1;
		if (ba >= 0)
			keep[(size_t)ba * d->nwl + k] = 1;
	}
}

static int rule_update(void *ctx, const struct rf_doc *d, unsigned char *need, size_t ncells,
                       char *err, size_t errlen)
{
	const struct bench_rule *rule = ctx;
	struct cmp_opts o = {.conf = 0.95, .regimes = CMP_REGIMES_BOTH};
	struct cmp_report *r = NULL;
	unsigned char *keep = calloc(ncells, 1);
	int rc = -1;

	if (!keep) {
		errmsg_fail(err, errlen, "out of memory");
		goto out;
	}
	o.equivalence = cmp_pick_equivalence(NAN, d, CMP_DEFAULT_EQUIVALENCE);
	o.seq = d->seq.planned ? &d->seq : NULL;
	if (d->narms * d->nwl != ncells) {
		errmsg_fail(err, errlen, "the document has %zu cells, the bench %zu",
		            d->narms * d->nwl, ncells);
		goto out;
	}
	if (cmp_build(d, NULL, &o, &r, err, errlen) != ST_OK)
		goto out;
	/* only the question holds cells: a secondary row never keeps a cell running */
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].family == CMP_FAMILY_PRIMARY &&
		    (!r->rows[i].usable || !rule->decided(rule->ctx, &r->rows[i])))
			keep_row(d, &r->rows[i], keep);
	for (size_t i = 0; i < ncells; i++)
		need[i] &= keep[i];
	rc = 0;
out:
	cmp_free(r);
	free(keep);
	return rc;
}

void bench_alloc_by_rule(struct bench_alloc *a, const struct bench_rule *rule)
{
	*a = (struct bench_alloc){.name = rule->name, .ctx = (void *)rule, .update = rule_update};
}

static int seq_decided(void *ctx, const struct cmp_row *row)
{
	(void)ctx;
	return cmp_row_seq_decided(row);
}

const struct bench_rule bench_rule_sequential = {"sequential", seq_decided, NULL};
