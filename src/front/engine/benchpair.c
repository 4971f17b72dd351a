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
	    .path = a->path,
	    .command = a->command,
	    .workload = w->name,
	    .scale = c->scale,
	    .seed = c->seed,
	    .reps = c->reps,
	    .steady_cpu =
	        c->time == RF_POLICY_CPU || (c->time == RF_POLICY_AUTO && w->single_threaded),
	    .params = w->params,
	    .nparams = w->nparams,
	    .config = a->config,
	    .nconfig = a->nconfig,
	};

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

/* The run object of a finished process with its containment object cn (consumed; NULL: none),
 * counted; NULL with *fatal ST_USAGE when a driver rejected its arguments in the first round. */
static cJSON *judge_run(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                        size_t pad, const struct runner_result *r,
                        const struct telemetry_sample tel[2], cJSON *cn,
                        struct bench_probe_run *pr, struct phaserun *ph, enum status *fatal,
                        char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	const struct arm_kind_ops *k = bench_arm_kind(a);
	enum run_status st;
	cJSON *run = benchdoc_run(c, a, w, pad, r, tel, &st);

	if (cn && run)
		cJSON_AddItemToObject(run, "containment", cn);
	else
		cJSON_Delete(cn);

	if (pr) {
		bench_probe_finish(a, pr, r, run, &st);
		note_tracking(e, run);
	}
	if (ph)
		phaserun_finish(ph, &e->phases, run, &st);
	if (k->fold)
		k->fold(run);
	if (arm_kind_has(k, ARM_KIND_DRIVER_RECORD) && e->done == e->done0 &&
	    r->end == RUNNER_EXITED && r->exit_code == 2) {
		*fatal = ST_USAGE;
		errmsg_fail(err, errlen, "allocab-%s rejected the arguments: %s", a->name,
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

/* One pair (benchengine.h). */
cJSON *engine_run_pair(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                       enum status *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	const struct arm_kind_ops *k = bench_arm_kind(a);
	int marks = arm_kind_has(k, ARM_KIND_MARKS_PHASES);
	const char *path = NULL;
	char num[2][24], **argv = run_argv(c, a, w, num, &path);
	size_t pad = (size_t)prng_below(&e->pad, (uint64_t)c->pad_max + 1);
	struct runner_spec spec = {
	    .path = path,
	    .argv = argv,
	    .pad_bytes = pad,
	    .timeout_s = c->timeout_s,
	    .grace_s = c->grace_s,
	    .capture_stdout = arm_kind_has(k, ARM_KIND_DRIVER_RECORD),
	    .stop = e->stop,
	};
	struct runner_result r;
	struct telemetry_sample tel[2];
	struct bench_probe_run *pr = NULL;
	struct phaserun ph = {.set = NULL};
	cJSON *run = NULL;

	*fatal = ST_OK;
	if (!argv || (bench_arm_probed(a) && !(pr = malloc(sizeof *pr)))) {
		*fatal = ST_FAIL;
		errmsg_fail(err, errlen, "out of memory");
		free(argv);
		return NULL;
	}
	if (pr && bench_probe_prepare(c, a, e->nrun++, pr, err, errlen) != 0) {
		*fatal = ST_FAIL;
		free(pr);
		free(argv);
		return NULL;
	}
	spec.env_set = pr ? pr->set : a->env;
	if (marks &&
	    phaserun_prepare(e->marks_dir, e->nmarks++, spec.env_set, &ph, err, errlen) != 0) {
		*fatal = ST_FAIL;
		if (pr)
			bench_probe_discard(pr);
		free(pr);
		free(argv);
		return NULL;
	}
	spec.env_set = marks ? ph.set : spec.env_set;
	ph.cpu_rule = c->time != RF_POLICY_WALL;
	spec.track = pr != NULL;
	spec.contain = 1;
	spec.probe_file = pr ? pr->file : NULL;
	sample(e, &tel[0]);
	ph.lo = phaserun_clock();
	if (e->rn->run(e->rn->ctx, &spec, &r, err, errlen) != 0) {
		*fatal = ST_FAIL;
	} else if (r.end != RUNNER_STOPPED) {
		ph.hi = phaserun_clock();
		sample(e, &tel[1]);
		run = judge_run(e, a, w, pad, &r, tel, runner_containment_json(&r), pr,
		                marks ? &ph : NULL, fatal, err, errlen);
	}
	if (pr && !run)
		bench_probe_discard(pr);
	if (marks && ph.set)
		phaserun_finish(&ph, &e->phases, NULL, NULL);
	free(pr);
	runner_result_free(&r);
	free(argv);
	return run;
}

/* --duet (benchengine.h). */
int engine_run_duet(struct engine *e, const struct bench_workload *w, cJSON *runs,
                    enum status *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	char num[2][2][24], **argv[2];
	struct runner_spec spec[2];
	struct duet_side side[2];
	size_t pad[2];
	int rc = 1, first = (int)prng_below(&e->order, 2);
	const struct bench_arm *arm[2] = {&c->arms[first], &c->arms[1 - first]};

	*fatal = ST_OK;
	for (int i = 0; i < 2; i++) {
		const char *path = NULL;
		argv[i] = run_argv(c, arm[i], w, num[i], &path);
		pad[i] = (size_t)prng_below(&e->pad, (uint64_t)c->pad_max + 1);
		spec[i] = (struct runner_spec){.path = path,
		                               .argv = argv[i],
		                               .pad_bytes = pad[i],
		                               .timeout_s = c->timeout_s,
		                               .grace_s = c->grace_s,
		                               .capture_stdout = 1,
		                               .contain = 1,
		                               .stop = e->stop};
		side[i] = (struct duet_side){
		    .spec = &spec[i],
		    .cpu = e->cpu[((size_t)(arm[i] - c->arms) +
		                   (size_t)duet_round_swap(c->shuffle_seed, e->done)) %
		                  2]};
	}
	if (!argv[0] || !argv[1])
		rc = errmsg_fail(err, errlen, "out of memory");
	else if (duet_run(side, e->stop, err, errlen) != 0)
		rc = -1;
	else if (side[0].r.end == RUNNER_STOPPED || side[1].r.end == RUNNER_STOPPED)
		rc = 0;
	*fatal = rc < 0 ? ST_FAIL : ST_OK;
	for (int i = 0; rc == 1 && i < 2; i++) {
		cJSON *run = judge_run(e, arm[i], w, pad[i], &side[i].r, side[i].tel,
		                       side[i].containment, NULL, NULL, fatal, err, errlen);

		side[i].containment = NULL;
		if (!run) {
			rc = -1;
			break;
		}
		cJSON_AddNumberToObject(run, "cpu", side[i].cpu);
		cJSON_AddItemToArray(runs, run);
	}
	if (argv[0] && argv[1]) {
		for (int i = 0; i < 2; i++) {
			runner_result_free(&side[i].r);
			cJSON_Delete(side[i].containment);
		}
	}
	free(argv[0]);
	free(argv[1]);
	return rc;
}
