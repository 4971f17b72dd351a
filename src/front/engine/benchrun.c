/* benchrun.c - the bench engine's loop (benchengine.h): the state made (a new document, or with
 * --resume the file's: benchresume.c), then rounds, each a straight path through its stages
 * (the plan, the runs and the evidence: benchround.c; the judgement: benchjudge.c; the round's
 * line: benchwrite.c; the decisions: benchjudge.c) until one decides the bench stops, then its
 * end (benchend.c). Format: docs/results-format.md. */
#include "front/engine/benchengine.h"
#include "front/proc/proc.h"
#include "common/errmsg.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAD_SEED_XOR 0x5ad5ad5ad5ad5ad5ULL

static int real_run(void *ctx, const struct runner_spec *spec, struct runner_result *r, char *err,
                    size_t errlen)
{
	(void)ctx;
	return runner_run(spec, r, err, errlen);
}

static int64_t real_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const struct bench_runner bench_real_runner = {.run = real_run, .now_ns = real_now_ns};

/* The document to start from (a new one, or the resumed file's: benchresume.c), the tables, the
 * cells, the duet's CPUs, the shuffles and the machine's facts at the start. Returns ST_OK, or
 * ST_FAIL or ST_USAGE with err and e freed. */
static enum status engine_start(struct engine *e, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	cJSON *resume = c->resume;
	enum status rc = ST_FAIL;

	e->disk = c->resume && c->resume_keep >= 0 ? c->resume_disk : NULL;
	if (!e->disk)
		cJSON_Delete(c->resume_disk);
	if (bench_cells_init(&e->cells, c) != 0 ||
	    !(e->outs = calloc(c->nout ? c->nout : 1, sizeof *e->outs))) {
		cJSON_Delete(resume);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	if (resume) {
		if ((rc = engine_resume(e, err, errlen)) != ST_OK)
			goto fail;
		e->written = e->disk ? e->done : 0;
	} else if (!(e->doc = benchdoc_new(c)) ||
	           !(e->rounds = cJSON_GetObjectItemCaseSensitive(e->doc, "rounds"))) {
		errmsg_fail(err, errlen, "out of memory");
		goto fail;
	} else if ((c->gate || c->alloc) &&
	           !(e->tables = rf_builder_new(e->doc, c->nout ? c->out_paths[0] : "bench", err,
	                                        errlen))) {
		goto fail;
	}
	rc = ST_USAGE;
	/* The gate judged on the document before any run catches unknown arms. */
	if (c->gate && engine_gate_precheck(e, err, errlen) != 0)
		goto fail;
	if (c->duet && ((c->narms != 2 && !c->duet_shared) || c->narms < 2 ||
	                c->narms > DUET_MAX_SIDES || !bench_all_arms(c, ARM_KIND_PAIRABLE))) {
		errmsg_fail(err, errlen, "--duet needs two arms (--one-cpu 2 to %d) of kinds that can "
		            "run at once", DUET_MAX_SIDES);
		goto fail;
	}
	if (c->duet && duet_cpus(e->cpu, c->duet_shared, err, errlen) != 0)
		goto fail;
	prng_seed(&e->order, c->shuffle_seed);
	prng_seed(&e->pad, c->shuffle_seed ^ PAD_SEED_XOR);
	benchdoc_facts(c, e->doc, "start", 1);
	return ST_OK;
fail:
	if (resume && !e->doc)
		cJSON_Delete(resume);
	engine_free(e);
	return rc;
}

/* The rounds until the decisions stop the bench: its status, or NULL on a fatal error (*fatal,
 * err set). */
static const char *run_rounds(struct engine *e, enum status *fatal, char *err, size_t errlen)
{
	struct engine_round r;
	const char *status = engine_decide(e, NULL);
	int rc;

	while (!status) {
		if ((*fatal = engine_round_plan(e, &r, err, errlen)) != ST_OK)
			return NULL;
		if ((rc = engine_round_runs(e, &r, fatal, err, errlen)) <= 0)
			return rc == 0 ? "interrupted" : NULL;
		if ((*fatal = engine_round_evidence(e, &r, err, errlen)) != ST_OK ||
		    (*fatal = engine_judge_round(e, &r, err, errlen)) != ST_OK ||
		    (*fatal = engine_round_line(e, &r, err, errlen)) != ST_OK)
			return NULL;
		status = engine_decide(e, &r);
	}
	return status;
}

/* The bench of e (its config, runner, stop flag, result and marks directory set). */
static enum status run_engine(struct engine *e, cJSON **doc, char *err, size_t errlen)
{
	const char *status;
	enum status fatal = ST_OK, st;

	e->t_start = engine_now(e);
	memset(e->res, 0, sizeof *e->res);
	e->res->gate = -1;
	if (doc)
		*doc = NULL;
	if ((st = engine_start(e, err, errlen)) != ST_OK)
		return st;
	if (!(status = run_rounds(e, &fatal, err, errlen)))
		return engine_abort(e, fatal, err, errlen);
	return engine_end(e, status, doc, err, errlen);
}

enum status bench_run(const struct bench_config *c, const volatile sig_atomic_t *stop, cJSON **doc,
                      struct bench_result *res, char *err, size_t errlen)
{
	struct engine e = {.c = c,
	                   .rn = c->runner ? c->runner : &bench_real_runner,
	                   .stop = stop,
	                   .res = res,
	                   .share = 1};
	enum status rc;

	if (bench_any_arm(c, ARM_KIND_MARKS_PHASES) &&
	    phaserun_dir(e.marks_dir, err, errlen) != 0) {
		memset(res, 0, sizeof *res);
		res->gate = -1;
		if (doc)
			*doc = NULL;
		cJSON_Delete(c->resume);
		cJSON_Delete(c->resume_disk);
		return ST_FAIL;
	}
	rc = run_engine(&e, doc, err, errlen);
	if (e.marks_dir[0])
		rmdir(e.marks_dir);
	return rc;
}
