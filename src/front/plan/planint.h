/* planint.h - private to the plan module: the steps of plan_build that live in their own files. */
#ifndef ALLOCAB_PLANINT_H
#define ALLOCAB_PLANINT_H

#include "front/plan/plan.h"

/* The first plain arm whose backend is flagged baseline, or NULL (arms.c). */
const char *plan_flagged_baseline(const struct bench_plan *s);

/* The arms, their workloads and the probe (arms.c); ST_OK, ST_USAGE or ST_FAIL with err. */
enum status plan_arms(struct bench_plan *s, struct bench_opts *o, char *err, size_t errlen);

/* The one workload setup of bench and calibrate (drivers.c): asks the first arm's driver for its
 * workloads (into s->list), and routes the -w selection (workloads, a comma list; NULL: the
 * defaults) and the --param values of s->c to s->c.wl (bench_route_workloads). Returns ST_OK, or
 * with err ST_USAGE (an unknown workload, a --param no selected workload takes) or ST_FAIL. */
enum status plan_workloads(struct bench_plan *s, const char *workloads, char *err, size_t errlen);

/* The file resumed, the outputs and the machine's lock (outputs.c); ST_OK, ST_USAGE or ST_FAIL
 * with err. */
enum status plan_outputs(struct bench_plan *s, const struct bench_opts *o, char *err,
                         size_t errlen);

#endif
