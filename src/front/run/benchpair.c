/* benchpair.c - the runs of one pair of the bench engine (benchengine.h): the argv of a driver
 * run, one padded process per run (probed, its phase marks read), or, with --duet, the two arms of
 * a workload at once on two CPUs; each finished process judged into its run object. */
#include "front/run/benchengine.h"
#include "front/run/benchprog.h"
#include "front/run/duet.h"
#include "front/run/runner.h"
#include "front/run/telemetry.h"
#include "common/errmsg.h"
#include "common/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The argv of one driver run; strings point into c except the two numbers in num. */
static char **driver_argv(const struct bench_config *c, const struct bench_arm *a,
                          const struct bench_workload *w, char num[2][24])
{
	size_t n = 0;
	char **v = calloc(14 + 2 * w->nparams + 2 * a->nconfig, sizeof *v);

	if (!v)
		return NULL;
	snprintf(num[0], 24, "%llu", (unsigned long long)c->seed);
	snprintf(num[1], 24, "%u", c->reps);
	v[n++] = a->path;
	v[n++] = "run";
	v[n++] = w->name;
	v[n++] = "--scale";
	v[n++] = (char *)c->scale;
	v[n++] = "--seed";
	v[n++] = num[0];
	if (c->reps) {
		v[n++] = "--reps";
		v[n++] = num[1];
	}
	if (c->time == RF_POLICY_CPU || (c->time == RF_POLICY_AUTO && w->single_threaded)) {
		v[n++] = "--steady-time";
		v[n++] = "cpu";
	}
	for (size_t i = 0; i < w->nparams; i++) {
		v[n++] = "--param";
		v[n++] = w->params[i];
	}
	for (size_t i = 0; i < a->nconfig; i++) {
		v[n++] = "--config";
		v[n++] = a->config[i];
	}
	v[n++] = "--out";
	v[n++] = "-";
	return v;
}

/* Last line of a stderr tail, for a one-line message. */
static const char *last_line(const char *tail)
{
	const char *nl = strrchr(tail, '\n');

	return nl ? nl + 1 : tail;
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

	if (got && doc && strcmp(doc, "ptrace") == 0 && strcmp(got, "ptrace") != 0)
		benchdoc_set_string(config, "process_tracking", got);
}

/* The run object of a finished process, counted; NULL with *fatal ST_USAGE when a driver rejected
 * its arguments in the first round. */
static cJSON *judge_run(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                        size_t pad, const struct runner_result *r,
                        const struct telemetry_sample tel[2], struct bench_probe_run *pr,
                        struct phaserun *ph, int *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	enum run_status st;
	cJSON *run = benchdoc_run(c, a, w, pad, r, tel, &st);
	cJSON *cn = bench_containment_json(r);

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
	if (c->mode == BENCH_DRIVERS && e->done == e->done0 && r->end == RUNNER_EXITED &&
	    r->exit_code == 2) {
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
                       int *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	char num[2][24], *sh_argv[] = {"sh", "-c", a->command, NULL};
	char **argv = c->mode == BENCH_DRIVERS ? driver_argv(c, a, w, num) : sh_argv;
	size_t pad = (size_t)prng_below(&e->pad, (uint64_t)c->pad_max + 1);
	struct runner_spec spec = {
	    .path = c->mode == BENCH_DRIVERS ? a->path : "/bin/sh",
	    .argv = argv,
	    .pad_bytes = pad,
	    .timeout_s = c->timeout_s,
	    .grace_s = c->grace_s,
	    .capture_stdout = c->mode == BENCH_DRIVERS,
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
		if (argv != sh_argv)
			free(argv);
		return NULL;
	}
	if (pr && bench_probe_prepare(c, a, e->nrun++, pr, err, errlen) != 0) {
		*fatal = ST_FAIL;
		free(pr);
		return NULL;
	}
	spec.env_set = pr ? pr->set : a->env;
	if (c->mode == BENCH_COMMANDS &&
	    phaserun_prepare(e->marks_dir, e->nmarks++, spec.env_set, &ph, err, errlen) != 0) {
		*fatal = ST_FAIL;
		if (pr)
			bench_probe_discard(pr);
		free(pr);
		return NULL;
	}
	spec.env_set = c->mode == BENCH_COMMANDS ? ph.set : spec.env_set;
	spec.track = pr != NULL;
	spec.contain = 1;
	spec.probe_file = pr ? pr->file : NULL;
	telemetry_sample(&tel[0]);
	ph.lo = phaserun_clock();
	if (e->rn->run(e->rn->ctx, &spec, &r, err, errlen) != 0) {
		*fatal = ST_FAIL;
	} else if (r.end != RUNNER_STOPPED) {
		ph.hi = phaserun_clock();
		telemetry_sample(&tel[1]);
		run = judge_run(e, a, w, pad, &r, tel, pr, c->mode == BENCH_COMMANDS ? &ph : NULL,
		                fatal, err, errlen);
	}
	if (pr && !run)
		bench_probe_discard(pr);
	if (c->mode == BENCH_COMMANDS && ph.set)
		phaserun_finish(&ph, &e->phases, NULL, NULL);
	free(pr);
	runner_result_free(&r);
	if (argv != sh_argv)
		free(argv);
	return run;
}

/* --duet (benchengine.h). */
int engine_run_duet(struct engine *e, const struct bench_workload *w, cJSON *runs, int *fatal,
                    char *err, size_t errlen)
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
		argv[i] = driver_argv(c, arm[i], w, num[i]);
		pad[i] = (size_t)prng_below(&e->pad, (uint64_t)c->pad_max + 1);
		spec[i] = (struct runner_spec){.path = arm[i]->path,
		                               .argv = argv[i],
		                               .pad_bytes = pad[i],
		                               .timeout_s = c->timeout_s,
		                               .grace_s = c->grace_s,
		                               .capture_stdout = 1,
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
		cJSON *run = judge_run(e, arm[i], w, pad[i], &side[i].r, side[i].tel, NULL, NULL,
		                       fatal, err, errlen);

		if (!run) {
			rc = -1;
			break;
		}
		cJSON_AddNumberToObject(run, "cpu", side[i].cpu);
		cJSON_AddItemToArray(runs, run);
	}
	if (argv[0] && argv[1]) {
		runner_result_free(&side[0].r);
		runner_result_free(&side[1].r);
	}
	free(argv[0]);
	free(argv[1]);
	return rc;
}
