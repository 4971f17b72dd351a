/* benchresume.c - the engine started from the rounds of the file a --resume continues
 * (engine_resume, benchengine.h); the file was loaded and checked by the plan (front/plan/plan.h,
 * bench_resume_load). The rules: docs/methodology.md, "Resuming a bench". */
#include "front/engine/benchengine.h"
#include "common/errmsg.h"
#include "common/status.h"

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The plan of a sequential decision the file fixed (config.sequential), kept. */
static void resume_plan(struct engine *e)
{
	const cJSON *seq = get(get(e->doc, "config"), "sequential");
	const cJSON *planned = get(seq, "planned_rounds"), *first = get(seq, "first_look");

	if (!cJSON_IsNumber(planned) || !cJSON_IsNumber(first))
		return;
	e->plan.planned = (size_t)planned->valuedouble;
	e->plan.first_look = (size_t)first->valuedouble;
	e->plan.share = cJSON_IsNumber(get(seq, "alpha_share"))
	                    ? get(seq, "alpha_share")->valuedouble
	                    : 0;
	e->res->planned = e->plan.planned;
}

enum status engine_resume(struct engine *e, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	const cJSON *round;

	e->doc = c->resume;
	e->rounds = (cJSON *)get(e->doc, "rounds");
	if ((c->gate || c->alloc) &&
	    !(e->tables = rf_builder_new(e->doc, c->nout ? c->out_paths[0] : "bench", err, errlen)))
		return ST_FAIL;
	cJSON_ArrayForEach(round, e->rounds)
	{
		if (e->tables && rf_builder_round(e->tables, round, err, errlen) != 0)
			return ST_FAIL;
		e->done++;
		e->measured += !cJSON_IsTrue(get(round, "warmup"));
	}
	e->done0 = e->res->rounds0 = e->done;
	e->measured0 = e->res->measured0 = e->measured;
	resume_plan(e);
	if (!c->alloc)
		return ST_OK;
	bench_cells_restore(&e->cells, c, e->rounds);
	if (e->plan.planned && bench_cells_update(&e->cells, c, e->tables, err, errlen) != 0)
		return ST_USAGE;
	if (bench_cells_needed(&e->cells) == 0)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--resume: every comparison of the file is decided");
	e->share = bench_cells_share(&e->cells);
	return ST_OK;
}
