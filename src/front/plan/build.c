/* build.c - a plan from the options (front/plan/plan.h): its first step (signals, task, the
 * settings), then the arms (arms.c), --duet's rule, the rounds rule, adaptive allocation and the
 * outputs (outputs.c); and the plan freed. */
#include "front/plan/planint.h"
#include "common/errmsg.h"
#include "common/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rounds rule on what this bench compares (bench_rounds_rule); prints its warning. */
static int apply_rounds_rule(struct bench_opts *o, struct bench_plan *s)
{
	size_t *ph = calloc(s->c.nwl + 1, sizeof *ph);
	char warn[512];

	if (!ph)
		return -1;
	for (size_t i = 0; i < s->c.nwl; i++) {
		long k = s->list.nphases ? bench_wl_index(&s->list, s->c.wl[i].name) : -1;
		int all = k >= 0 && s->list.flags && (s->list.flags[k] & BENCH_WL_SHOW_PHASES);
		ph[i] = all ? s->list.nphases[k] : 1;
	}
	s->c.need_extends = s->c.budget_s > 0 && !o->rounds_set && !o->min_rounds_set && !o->gate_argv;
	s->c.need_comparisons = bench_comparisons(&s->c, ph);
	s->c.need_rounds = bench_rounds_rule(
	    o, &s->c, s->c.need_comparisons,
	    s->c.gate ? bench_gate_need(s->c.gate, s->c.nwl, s->c.narms) : 0, warn, sizeof warn);
	free(ph);
	/* a continuation's count includes the file's rounds and phases: the engine says it */
	if (warn[0] && !o->quiet && !o->resume)
		errmsg_warn(stderr, "bench", warn);
	return 0;
}

/* --allocation sequential (the default): needs the arm compare takes as baseline by default
 * (the driver flagged baseline, system; the first arm of a --cmd or --program bench), without
 * which the default is none. Returns ST_OK, or ST_USAGE with err when it was given without. */
static enum status setup_allocation(struct bench_plan *s, const struct bench_opts *o, char *err,
                                    size_t errlen)
{
	int base = !bench_all_arms(&s->c, ARM_KIND_DRIVER_RECORD) || plan_flagged_baseline(s);

	if (!o->allocation || (!base && !o->allocation_set))
		return ST_OK;
	if (!base)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--allocation sequential: no arm 'system', the baseline of "
		                     "compare's default comparisons");
	bench_alloc_by_rule(&s->alloc, &bench_rule_sequential);
	s->c.alloc = &s->alloc;
	return ST_OK;
}

enum status plan_init(struct bench_plan *p, struct bench_opts *o, int argc, char **argv,
                      char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	p->task.lock_fd = -1;
	p->stop = bench_catch_signals();
	if (!o->aa_runs && bench_task_resolve(&p->task, o->label, o->shard, err, errlen) != 0)
		return ST_USAGE;
	p->c = o->cfg;
	p->c.argv = argv;
	p->c.argc = argc;
	p->c.gate_argv = o->gate_argv ? o->gate_argv + 1 : NULL;
	p->c.gate_argc = o->gate_argc ? o->gate_argc - 1 : 0;
	p->c.task = &p->task;
	p->c.grace_s = BENCH_KILL_GRACE_S;
	p->c.progress = (int)progress_mode_for(o->quiet, 2);
	if (!o->shuffle_seed_set)
		p->c.shuffle_seed = bench_clock_seed();
	if (o->aa_runs)
		p->c.solo_share = 0; /* an A/A calibration measures the placement it is given */
	/* a continuation draws its own: the shard's would repeat the first session's orders */
	else if (!o->shuffle_seed_set && p->task.shard >= 0 && !o->resume)
		p->c.shuffle_seed = bench_task_shuffle_seed(&p->task);
	return ST_OK;
}

enum status plan_build(struct bench_plan *p, struct bench_opts *o, char *err, size_t errlen)
{
	enum status rc = plan_arms(p, o, err, errlen);

	if (rc == ST_OK && (o->duet || o->one_cpu))
		rc = bench_duet_setup(&p->c, &p->list, o->one_cpu, err, errlen) != 0 ? ST_USAGE : ST_OK;
	if (rc == ST_OK && !o->aa_runs && apply_rounds_rule(o, p) != 0)
		rc = errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (rc == ST_OK && !o->aa_runs)
		rc = setup_allocation(p, o, err, errlen);
	return rc == ST_OK ? plan_outputs(p, o, err, errlen) : rc;
}

void plan_free(struct bench_plan *s)
{
	bench_resume_free(&s->c);
	bench_task_unlock(&s->task);
	bench_free_proof(&s->c, &s->pp);
	for (size_t i = 0; i < s->c.narms; i++)
		free(s->c.arms[i].name);
	free(s->c.arms);
	bench_free_workloads(&s->c);
	bench_wl_list_free(&s->list);
	bench_drivers_free(&s->drv);
	bench_free_list(s->sel, s->nsel);
	free(s->paths[0]);
	free(s->paths[1]);
	for (size_t i = 0; i < s->nspecs; i++)
		armspec_free(&s->specs[i]);
	free(s->specs);
}
