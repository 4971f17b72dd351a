/* benchkind.c - what the engine asks of its arms' kinds (engine.h; front/arms/arms.h). */
#include "front/engine/benchprog.h"

const struct arm_kind_ops *bench_arm_kind(const struct bench_arm *a)
{
	return a->kind ? a->kind : &arm_kind_driver;
}

void bench_arm_args(const struct bench_arm *a, struct arm_run_args *q)
{
	const struct arm_kind_ops *k = bench_arm_kind(a);

	if (k->run_args)
		k->run_args(a->data, q);
}

int bench_any_arm(const struct bench_config *c, unsigned flags)
{
	for (size_t i = 0; i < c->narms; i++)
		if (arm_kind_has(bench_arm_kind(&c->arms[i]), flags))
			return 1;
	return 0;
}

int bench_all_arms(const struct bench_config *c, unsigned flags)
{
	for (size_t i = 0; i < c->narms; i++)
		if (!arm_kind_has(bench_arm_kind(&c->arms[i]), flags))
			return 0;
	return c->narms > 0;
}

int bench_arm_probed(const struct bench_arm *a)
{
	return arm_probed(bench_arm_kind(a), a->data);
}
