/* pipeline.c - the four workloads chained in one process the way a training epoch runs them:
 * every step loads a shard (parquet_load), extracts features (feature_extract) and builds batches
 * (batch_prep); every K steps a checkpoint is written (checkpoint_write). Stages are called only
 * through their tables, with parameters taken from each table's defaults at a chosen preset.
 * Data does not flow between stages (each synthesises its input from its own seed); the heap
 * does: every stage runs on the heap its predecessors left behind, as in a real epoch. */
#include "driver/registry.h"
#include "workloads/lib/wlutil.h"

#include <string.h>

enum { P_STEPS, P_CKPT_EVERY, P_DATA_SCALE, P_CKPT_SCALE };
enum { S_LOAD, S_FEATURES, S_BATCHES, S_CHECKPOINT, S_COUNT };

/* clang-format off */
static const struct wl_param pl_params[] = {
	[P_STEPS] = {"steps", "steps", "training steps; each loads, featurises and batches one shard",
		     {1, 4, 24}, 1, 100000},
	[P_CKPT_EVERY] = {"checkpoint_every", "steps",
			  "a checkpoint after every K-th step (0: none); must be <= steps",
			  {1, 4, 8}, 0, 100000},
	[P_DATA_SCALE] = {"data_scale", "preset",
			  "preset (0 small, 1 default, 2 large) whose defaults load/features/"
			  "batches use per step: a step handles a shard, not a whole dataset",
			  {0, 0, 0}, 0, 2},
	[P_CKPT_SCALE] = {"checkpoint_scale", "preset",
			  "preset whose defaults the checkpoint uses (1: ~100 MB embedding, "
			  "300 tensors)",
			  {0, 1, 1}, 0, 2},
};
/* clang-format on */

static const char *const pl_phases[] = {"load", "features", "batches", "checkpoint", NULL};

/* Indexed by stage; stage i reports as phase i. */
static const struct workload *const pl_stage[S_COUNT] = {&wl_parquet_load, &wl_feature_extract,
                                                         &wl_batch_prep, &wl_checkpoint_write};

/* Values the pipeline imposes on a stage whatever its preset: the pipeline sets the cadence. */
static const struct {
	int stage;
	const char *name;
	int64_t value;
} pl_override[] = {
    {S_BATCHES, "epochs", 1},
    {S_CHECKPOINT, "checkpoints", 1},
};

static int pl_param_index(const struct workload *w, const char *name)
{
	for (size_t i = 0; i < w->nparams; i++)
		if (strcmp(w->params[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Fills v with stage s's parameters for pipeline parameters p. Returns NULL, or the name of an
 * overridden parameter the stage's table lacks. */
static const char *pl_stage_params(const int64_t *p, int s, int64_t *v)
{
	const struct workload *w = pl_stage[s];
	int64_t preset = s == S_CHECKPOINT ? p[P_CKPT_SCALE] : p[P_DATA_SCALE];

	for (size_t i = 0; i < w->nparams; i++)
		v[i] = w->params[i].def[preset];
	for (size_t k = 0; k < sizeof pl_override / sizeof pl_override[0]; k++) {
		int i;

		if (pl_override[k].stage != s)
			continue;
		if ((i = pl_param_index(w, pl_override[k].name)) < 0)
			return pl_override[k].name;
		v[i] = pl_override[k].value;
	}
	return NULL;
}

static uint64_t pl_footprint(const int64_t *p)
{
	uint64_t most = 0;

	for (int s = 0; s < S_COUNT; s++) {
		int64_t v[WL_MAX_PARAMS];
		uint64_t f;

		if ((s == S_CHECKPOINT && !p[P_CKPT_EVERY]) || pl_stage_params(p, s, v))
			continue;
		f = pl_stage[s]->footprint(v);
		most = f > most ? f : most;
	}
	return most; /* stages run one after another and each frees everything */
}

/* Every step's load, features and batches at the data preset, and every checkpoint. */
static double pl_work(const int64_t *p)
{
	double total = 0;

	for (int s = 0; s < S_COUNT; s++) {
		int64_t v[WL_MAX_PARAMS];
		double runs = s == S_CHECKPOINT
		                  ? (p[P_CKPT_EVERY] ? (double)(p[P_STEPS] / p[P_CKPT_EVERY]) : 0)
		                  : (double)p[P_STEPS];

		if (runs > 0 && !pl_stage_params(p, s, v) && pl_stage[s]->work)
			total += runs * pl_stage[s]->work(v);
	}
	return total;
}

/* Prepares stage s's context; returns 0, or -1 with ctx->err set. */
static int pl_stage_ctx(struct wl_ctx *ctx, int s, int64_t *v, struct wl_ctx *sub)
{
	const struct workload *w = pl_stage[s];
	const char *missing = pl_stage_params(ctx->p, s, v);

	if (missing)
		return wl_fail(ctx, "stage %s has no parameter %s", w->name, missing);
	memset(sub, 0, sizeof *sub);
	sub->p = v;
	sub->scale =
	    (enum wl_scale)(s == S_CHECKPOINT ? ctx->p[P_CKPT_SCALE] : ctx->p[P_DATA_SCALE]);
	if (w->check && w->check(sub) != 0)
		return wl_fail(ctx, "stage %s: %s", w->name, sub->err);
	return 0;
}

static int pl_check(struct wl_ctx *ctx)
{
	int64_t v[WL_MAX_PARAMS];
	struct wl_ctx sub;

	if (ctx->p[P_CKPT_EVERY] > ctx->p[P_STEPS])
		return wl_fail(ctx,
		               "checkpoint_every (%lld) exceeds steps (%lld): no checkpoint would "
		               "be written (0 disables checkpoints)",
		               (long long)ctx->p[P_CKPT_EVERY], (long long)ctx->p[P_STEPS]);
	for (int s = 0; s < S_COUNT; s++)
		if (pl_stage_ctx(ctx, s, v, &sub) != 0)
			return -1;
	return 0;
}

/* Runs stage s of step `step` as its own workload run, timed as phase s. */
static int pl_call(struct wl_ctx *ctx, int s, int64_t step, uint64_t *h)
{
	int64_t v[WL_MAX_PARAMS];
	struct wl_ctx sub;
	uint64_t ck = 0;
	int rc;

	if (pl_stage_ctx(ctx, s, v, &sub) != 0)
		return -1;
	sub.seed = ck_mix(ck_mix(ctx->seed, (uint64_t)step), (uint64_t)s);
	wl_phase_begin(ctx, s);
	rc = pl_stage[s]->run(&sub, &ck);
	wl_phase_end(ctx, s);
	if (rc != 0)
		return wl_fail(ctx, "%s (pipeline step %lld, %s)", sub.err, (long long)step + 1,
		               pl_stage[s]->name);
	*h = ck_mix(ck_mix(*h, (uint64_t)s), ck);
	return 0;
}

static int pl_run(struct wl_ctx *ctx, uint64_t *checksum)
{
	int64_t every = ctx->p[P_CKPT_EVERY];
	uint64_t h = 0;

	for (int64_t step = 0; step < ctx->p[P_STEPS]; step++) {
		for (int s = S_LOAD; s <= S_BATCHES; s++)
			if (pl_call(ctx, s, step, &h) != 0)
				return -1;
		if (every && (step + 1) % every == 0 && pl_call(ctx, S_CHECKPOINT, step, &h) != 0)
			return -1;
	}
	*checksum = h;
	return 0;
}

const struct workload wl_pipeline = {
    .name = "pipeline",
    .description = "a training epoch in one process: load, features, batches per step, "
                   "a checkpoint every K steps",
    .params = pl_params,
    .nparams = sizeof pl_params / sizeof pl_params[0],
    .phases = pl_phases,
    .flags = WL_SHOW_PHASES,
    .footprint = pl_footprint,
    .work = pl_work,
    .check = pl_check,
    .run = pl_run,
};
