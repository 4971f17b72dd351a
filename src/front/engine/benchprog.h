/* benchprog.h - what the engine's files ask of an arm's probe (benchkind.c), private to the
 * engine: the probe's per-run hooks are the arm's kind's (front/arms/arms.h). */
#ifndef ALLOCAB_BENCHPROG_H
#define ALLOCAB_BENCHPROG_H

#include "front/engine/engine.h"

/* Whether runs of a are probed: its kind's flag, or a proof given to it (arm_probed). */
int bench_arm_probed(const struct bench_arm *a);

#endif
