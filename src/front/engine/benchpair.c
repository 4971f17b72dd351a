/* benchpair.c - the runs of one pair of the bench engine (benchengine.h): the argv of a driver
 * run, one padded process per run (probed, its phase marks read), or, with --duet, the two arms of
 * a workload at once on two CPUs; each finished process judged into its run object. */
#include "front/engine/benchengine.h"
#include "front/engine/benchprog.h"
#include "front/proc/proc.h"
#include "common/errmsg.h"
#include "common/status.h"
#include "common/trackmode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The argv of one run of arm a on w, built by its kind; strings point into c, a and w except
 * the two numbers in num. */
static char **run_argv(const struct bench_config *c, const struct bench_arm *a,
                       const struct bench_workload *w, char num[2][24], const char **path)
{
	struct arm_run_args q = {
	    .workload = w->name,
	    .scale = c->scale,
	    .seed = c->seed,
	    .reps = c->reps,
	    .steady_cpu =
	        c->time == RF_POLICY_CPU || (c->time == RF_POLICY_AUTO && w->single_threaded),
	    .params = w->params,
	    .nparams = w->nparams,
	};

	bench_arm_args(a, &q);
	return bench_arm_kind(a)->argv(&q, num, path);
}

/* Last line of a stderr tail, for a one-line message. */
static const char *last_line(const char *tail)
{
	const char *nl = strrchr(tail, '\n');

	return nl ? nl + 1 : tail;
}

static void sample(const struct engine *e, struct telemetry_sample *t)
{
	if (e->rn->telemetry)
		e->rn->telemetry(e->rn->ctx, t);
	else
		telemetry_sample(t);
}

/* A probed run whose processes were not tracked (ptrace refused for it alone) makes the document's
 * config.process_tracking say so. */
static void note_tracking(struct engine *e, const cJSON *run)
{
	cJSON *config = cJSON_GetObjectItemCaseSensitive(e->doc, "config");
	const char *doc =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(config, "process_tracking"));
	const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(run, "probe"), "tracking"));

	if (got && doc && trackmode_has(doc, TRACKMODE_EVERY_PROCESS) &&
	    !trackmode_has(got, TRACKMODE_EVERY_PROCESS))
		benchdoc_set_string(config, "process_tracking", got);
}

/* Where a fatal error of a pair goes: *fatal ST_USAGE or ST_FAIL, with err. */
struct fatal {
	enum status *st;
	char *err;
	size_t errlen;
};

/* One run of arm a on w, prepared: its argv, padding, probe record file and marks file. */
struct prep {
	const struct bench_arm *a;
	const struct bench_workload *w;
	char num[2][24], **argv;
	size_t pad;
	struct runner_spec spec;
	struct arm_probe_run *pr; /* NULL: not probed */
	struct arm_marks_run ph;  /* ph.set NULL: no marks */
};

/* What a finished process left besides its result: telemetry before and after, its containment
 * object (consumed; NULL: none), whether it was probed and the probe's verdict (the kind's
 * probe_judge; NULL: lost). */
struct evidence {
	const struct runner_result *r;
	const struct telemetry_sample *tel;
	cJSON *cn;
	int probed;
	cJSON *verdict;
};

/* Applies a probe's verdict (NULL: lost, the run unverified) to the run object: "probe" (its
 * summary, taken over) and, when the proof failed, the run unverified (benchdoc_apply_probe). */
static void apply_probe(cJSON *verdict, cJSON *run, const char *tail, enum run_status *st)
{
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(verdict, "verified");
	const char *reason =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(verdict, "reason"));
	cJSON *summary = cJSON_DetachItemFromObjectCaseSensitive(verdict, "summary");

	if (!cJSON_IsObject(summary)) {
		cJSON_Delete(summary);
		summary = NULL;
	}
	benchdoc_apply_probe(run, cJSON_IsTrue(ok),
	                     verdict ? (reason ? reason : "")
	                             : "no judgement of the probe's records came back (out of "
	                               "memory, or over 16 MiB from a duet's helper)",
	                     summary, tail, st);
}

/* The run object of the finished process of p with its evidence ev, the probe and the marks
 * judged into it, its kind's fold applied, counted; NULL with *f->st ST_USAGE when a driver
 * rejected its arguments in the first round. */
static cJSON *judge_run(struct engine *e, struct prep *p, struct evidence *ev,
                        const struct fatal *f)
{
	const struct arm_kind_ops *k = bench_arm_kind(p->a);
	const struct runner_result *r = ev->r;
	enum run_status st;
	cJSON *run = benchdoc_run(p->a, p->w, p->pad, r, ev->tel, &st);

	if (ev->cn && run)
		cJSON_AddItemToObject(run, "containment", ev->cn);
	else
		cJSON_Delete(ev->cn);
	ev->cn = NULL;
	if (ev->probed) {
		apply_probe(ev->verdict, run, r->tail, &st);
		note_tracking(e, run);
	}
	if (p->ph.set)
		phaserun_finish(k, &p->ph, &e->phases, run, &st);
	if (k->fold)
		k->fold(run);
	if (arm_kind_has(k, ARM_KIND_DRIVER_RECORD) && e->done == e->done0 &&
	    r->end == RUNNER_EXITED && r->exit_code == 2) {
		*f->st = ST_USAGE;
		errmsg_fail(f->err, f->errlen, "allocab-%s rejected the arguments: %s", p->a->name,
		            r->tail_len ? last_line(r->tail) : "(no message)");
		cJSON_Delete(run);
		return NULL;
	}
	if (st != RS_OK) {
		e->res->failed++;
		e->res->by_status[st]++;
	}
	return run;
}

/* Creates what a probed run of p's arm needs (its kind's probe_prepare) in p->pr. Returns 0, or -1
 * with err (p->pr then freed). */
static int prep_probe(struct engine *e, struct prep *p, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	const struct arm_kind_ops *k = bench_arm_kind(p->a);
	struct arm_run_env b = {.probe_lib = c->probe_lib,
	                        .count_lib = c->count_lib,
	                        .dir = c->probe_dir,
	                        .arm = p->a->name,
	                        .n = e->nrun++};

	if (!(p->pr = malloc(sizeof *p->pr)))
		return errmsg_fail(err, errlen, "out of memory");
	if (k->probe_prepare(&b, p->a->data, p->pr, err, errlen) == 0)
		return 0;
	free(p->pr);
	p->pr = NULL;
	return -1;
}

/* Prepares p for a run of a on w. Returns 0, or -1 with err (p then holds nothing to free). */
static int prep_run(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                    struct prep *p, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	const struct arm_kind_ops *k = bench_arm_kind(a);
	const char *path = NULL;

	memset(p, 0, sizeof *p);
	p->a = a;
	p->w = w;
	p->argv = run_argv(c, a, w, p->num, &path);
	p->pad = (size_t)prng_below(&e->pad, (uint64_t)c->pad_max + 1);
	if (!p->argv)
		return errmsg_fail(err, errlen, "out of memory");
	if (bench_arm_probed(a) && prep_probe(e, p, err, errlen) != 0) {
		free(p->argv);
		return -1;
	}
	p->spec = (struct runner_spec){
	    .path = path,
	    .argv = p->argv,
	    .pad_bytes = p->pad,
	    .timeout_s = c->timeout_s,
	    .grace_s = c->grace_s,
	    .capture_stdout = arm_kind_has(k, ARM_KIND_DRIVER_RECORD),
	    .stop = e->stop,
	    .env_set = p->pr ? p->pr->set : NULL,
	    .track = p->pr != NULL,
	    .contain = 1,
	    .probe_file = p->pr ? p->pr->file : NULL,
	};
	if (arm_kind_has(k, ARM_KIND_MARKS_PHASES)) {
		if (k->marks_prepare(e->marks_dir, e->nmarks++, p->spec.env_set, &p->ph, err,
		                     errlen) != 0) {
			if (p->pr)
				k->probe_discard(p->pr);
			free(p->pr);
			free(p->argv);
			return -1;
		}
		p->spec.env_set = p->ph.set;
		p->ph.cpu_rule = c->time != RF_POLICY_WALL;
	}
	return 0;
}

/* Removes what is left of p's files (the probe's record file, the marks file when no run was
 * judged) and frees p. */
static void prep_free(struct engine *e, struct prep *p)
{
	if (p->pr)
		bench_arm_kind(p->a)->probe_discard(p->pr);
	if (p->ph.set)
		phaserun_finish(bench_arm_kind(p->a), &p->ph, &e->phases, NULL, NULL);
	free(p->pr);
	free(p->argv);
}

/* One pair (benchengine.h). */
cJSON *engine_run_pair(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                       enum status *fatal, char *err, size_t errlen)
{
	struct prep p;
	struct runner_result r;
	struct telemetry_sample tel[2];
	struct fatal f = {fatal, err, errlen};
	struct evidence ev = {.r = &r, .tel = tel};
	cJSON *run = NULL;

	*fatal = ST_OK;
	if (prep_run(e, a, w, &p, err, errlen) != 0) {
		*fatal = ST_FAIL;
		return NULL;
	}
	sample(e, &tel[0]);
	p.ph.lo = phaserun_clock();
	if (e->rn->run(e->rn->ctx, &p.spec, &r, err, errlen) != 0) {
		*fatal = ST_FAIL;
	} else if (r.end != RUNNER_STOPPED) {
		p.ph.hi = phaserun_clock();
		sample(e, &tel[1]);
		ev.probed = p.pr != NULL;
		ev.verdict = p.pr ? bench_arm_kind(a)->probe_judge(a->data, p.pr, &r) : NULL;
		ev.cn = runner_containment_json(&r);
		run = judge_run(e, &p, &ev, &f);
		cJSON_Delete(ev.verdict);
	}
	prep_free(e, &p);
	runner_result_free(&r);
	return run;
}

/* The probe's verdict of a duet run, in its helper (struct duet_side's judge): its kind's. */
static cJSON *duet_verdict(void *ctx, const struct runner_result *r)
{
	struct prep *p = ctx;

	return bench_arm_kind(p->a)->probe_judge(p->a->data, p->pr, r);
}

/* The start order of a duet's arms into idx: for two CPUs the first drawn from the round's order
 * (as a pair of a sequential round), for one CPU a shuffle of every arm. */
static void duet_order(struct engine *e, uint32_t *idx, size_t n)
{
	for (uint32_t i = 0; i < n; i++)
		idx[i] = i;
	if (e->c->duet_shared) {
		prng_shuffle(&e->order, idx, (uint32_t)n);
	} else {
		idx[0] = (uint32_t)prng_below(&e->order, 2);
		idx[1] = 1 - idx[0];
	}
}

/* Judges the n finished sides of a duet into runs (their marks read between lo and hi, set in
 * each p[i].ph). Returns 1, or -1 (*f->st set by judge_run). */
static int duet_judge(struct engine *e, struct prep *p, struct duet_side *side, size_t n,
                      cJSON *runs, const struct fatal *f)
{
	for (size_t i = 0; i < n; i++) {
		const struct arm_kind_ops *k = bench_arm_kind(p[i].a);
		struct evidence ev = {.r = &side[i].r,
		                      .tel = side[i].tel,
		                      .cn = side[i].containment,
		                      .probed = p[i].pr != NULL || side[i].refused,
		                      .verdict = side[i].judged};
		cJSON *run;

		side[i].containment = NULL;
		run = judge_run(e, &p[i], &ev, f);
		if (!run)
			return -1;
		/* a kind whose "cpu" is the run's CPU time records the CPU it was pinned to apart */
		cJSON_AddNumberToObject(run,
		                        arm_kind_has(k, ARM_KIND_CPU_PER_PROCESS) ? "pinned_cpu"
		                                                                  : "cpu",
		                        side[i].cpu);
		cJSON_AddItemToArray(runs, run);
	}
	return 1;
}

/* A solo round of workload w (benchsolo.h): every arm's run of it, one after the other in an
 * order drawn from the engine's shuffle, added to runs. Returns 1, 0 when stopped, -1 on a fatal
 * error (*fatal). */
static int solo_runs(struct engine *e, const struct bench_workload *w, cJSON *runs,
                     enum status *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	uint32_t idx[DUET_MAX_SIDES];
	int from = cJSON_GetArraySize(runs);

	for (uint32_t i = 0; i < c->narms; i++)
		idx[i] = i;
	prng_shuffle(&e->order, idx, (uint32_t)c->narms);
	for (size_t i = 0; i < c->narms; i++) {
		cJSON *run = engine_run_pair(e, &c->arms[idx[i]], w, fatal, err, errlen);

		if (!run)
			return *fatal != ST_OK ? -1 : 0;
		cJSON_AddItemToArray(runs, run);
	}
	return benchsolo_threads(e, runs, from, fatal, err, errlen) == 0 ? 1 : -1;
}

/* --duet and --one-cpu (benchengine.h). */
int engine_run_duet(struct engine *e, const struct bench_workload *w, cJSON *runs,
                    enum status *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	size_t n = c->narms, ready = 0;
	struct prep p[DUET_MAX_SIDES];
	struct duet_side side[DUET_MAX_SIDES];
	uint32_t idx[DUET_MAX_SIDES];
	int rc = 1, swap;
	int64_t lo, hi;
	struct fatal f = {fatal, err, errlen};

	*fatal = ST_OK;
	if (benchsolo_round(e))
		return solo_runs(e, w, runs, fatal, err, errlen);
	duet_order(e, idx, n);
	while (ready < n && prep_run(e, &c->arms[idx[ready]], w, &p[ready], err, errlen) == 0)
		ready++;
	if (ready < n) {
		while (ready > 0)
			prep_free(e, &p[--ready]);
		*fatal = ST_FAIL;
		return -1;
	}
	swap = duet_round_swap(c->shuffle_seed, e->done);
	for (size_t i = 0; i < n; i++)
		side[i] = (struct duet_side){
		    .spec = &p[i].spec,
		    .cpu = e->cpu[c->duet_shared ? (size_t)swap : (idx[i] + (size_t)swap) % 2],
		    .judge = p[i].pr ? duet_verdict : NULL,
		    .judge_ctx = &p[i]};
	lo = phaserun_clock();
	if (duet_run(side, n, e->stop, err, errlen) != 0)
		rc = -1;
	for (size_t i = 0; rc == 1 && i < n; i++)
		if (side[i].r.end == RUNNER_STOPPED)
			rc = 0;
	hi = phaserun_clock();
	*fatal = rc < 0 ? ST_FAIL : ST_OK;
	for (size_t i = 0; i < n; i++) {
		p[i].ph.lo = lo;
		p[i].ph.hi = hi;
	}
	if (rc == 1)
		rc = duet_judge(e, p, side, n, runs, &f);
	if (rc == 1 && benchsolo_threads(e, runs, cJSON_GetArraySize(runs) - (int)n, fatal, err,
	                                 errlen) != 0)
		rc = -1;
	for (size_t i = 0; i < n; i++) {
		runner_result_free(&side[i].r);
		cJSON_Delete(side[i].containment);
		cJSON_Delete(side[i].judged);
		prep_free(e, &p[i]);
	}
	return rc;
}
