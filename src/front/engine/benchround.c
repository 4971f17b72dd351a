/* benchround.c - one round of the bench engine, stages 1 to 3 (benchengine.h): its plan (every
 * (arm, workload) pair in a freshly shuffled order), its runs (benchpair.c) and its evidence (the
 * finished round into the document, the tables, the cells and the counters). Format:
 * docs/results-format.md. */
#include "front/engine/benchengine.h"
#include "front/engine/benchprogress.h"
#include "common/errmsg.h"

#include <stdint.h>
#include <stdlib.h>

static void round_free(struct engine_round *r)
{
	free(r->order);
	r->order = NULL;
	cJSON_Delete(r->round);
	r->round = NULL;
	cJSON_Delete(r->runs);
	r->runs = NULL;
}

enum status engine_round_plan(struct engine *e, struct engine_round *r, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	char now[32];

	*r = (struct engine_round){
	    .warmup = engine_warming(e),
	    .npairs = c->duet ? c->nwl : c->narms * c->nwl, /* a duet runs every arm at once */
	};
	r->order = malloc(r->npairs * sizeof *r->order);
	r->round = cJSON_CreateObject();
	r->runs = cJSON_CreateArray();
	if (!r->order || !r->round || !r->runs) {
		round_free(r);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	for (uint32_t i = 0; i < r->npairs; i++)
		r->order[i] = i;
	prng_shuffle(&e->order, r->order, (uint32_t)r->npairs);
	benchdoc_utc_now(now);
	cJSON_AddNumberToObject(r->round, "index", e->done);
	cJSON_AddBoolToObject(r->round, "warmup", r->warmup);
	cJSON_AddStringToObject(r->round, "started_utc", now);
	benchsolo_mark(e, r->round);
	return ST_OK;
}

/* Whether pair runs in this round: its cell has not left (in a duet, any arm's cell of the
 * workload). */
static int cell_runs(const struct engine *e, uint32_t pair)
{
	const struct bench_config *c = e->c;

	if (!c->duet)
		return e->cells.need[pair];
	for (size_t a = 0; a < c->narms; a++)
		if (e->cells.need[a * c->nwl + pair % c->nwl])
			return 1;
	return 0;
}

int engine_round_runs(struct engine *e, struct engine_round *r, enum status *fatal, char *err,
                      size_t errlen)
{
	const struct bench_config *c = e->c;
	int rc = 1;

	r->t0 = engine_now(e);
	for (size_t i = 0; i < r->npairs && rc == 1; i++) {
		const struct bench_arm *a = &c->arms[r->order[i] / c->nwl];
		const struct bench_workload *w = &c->wl[r->order[i] % c->nwl];
		cJSON *run;

		if (!cell_runs(e, r->order[i]))
			continue;
		if (c->progress == PROGRESS_TTY)
			engine_progress_run(e, i + 1, r->npairs);
		if (c->duet) {
			rc = engine_run_duet(e, w, r->runs, fatal, err, errlen);
			continue;
		}
		run = engine_run_pair(e, a, w, fatal, err, errlen);
		if (run)
			cJSON_AddItemToArray(r->runs, run);
		else
			rc = *fatal != ST_OK ? -1 : 0;
	}
	r->t1 = engine_now(e);
	free(r->order);
	r->order = NULL;
	if (rc != 1)
		round_free(r);
	return rc;
}

enum status engine_round_evidence(struct engine *e, struct engine_round *r, char *err,
                                  size_t errlen)
{
	const struct bench_config *c = e->c;
	cJSON *round = r->round;

	cJSON_AddNumberToObject(round, "wall_ns", (double)(r->t1 - r->t0));
	cJSON_AddItemToObject(round, "runs", r->runs);
	cJSON_AddItemToArray(e->rounds, round);
	if (bench_cells_round(&e->cells, c, round, r->runs, !r->warmup) != 0)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (e->tables && rf_builder_round(e->tables, round, err, errlen) != 0)
		return ST_FAIL;
	if (!r->warmup) {
		e->measured++;
		e->measured_ns += (int64_t)((double)(r->t1 - r->t0) / e->share);
	}
	e->done++;
	e->res->runs += (size_t)cJSON_GetArraySize(r->runs);
	return ST_OK;
}
