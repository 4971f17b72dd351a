/* planint.h - private to the plan module: the steps of plan_build that live in their own files. */
#ifndef ALLOCAB_PLANINT_H
#define ALLOCAB_PLANINT_H

#include "front/plan/plan.h"

/* The first plain arm whose backend is flagged baseline, or NULL (arms.c). */
const char *plan_flagged_baseline(const struct bench_plan *s);

/* The arms, their workloads and the probe (arms.c); ST_OK, ST_USAGE or ST_FAIL with err. */
enum status plan_arms(struct bench_plan *s, struct bench_opts *o, char *err, size_t errlen);

/* The file resumed, the outputs and the machine's lock (outputs.c); ST_OK, ST_USAGE or ST_FAIL
 * with err. */
enum status plan_outputs(struct bench_plan *s, const struct bench_opts *o, char *err,
                         size_t errlen);

#endif
