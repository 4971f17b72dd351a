/* benchoptab.h - private to the options of `allocab bench` (benchopt.c, the parse, the rules that
 * depend on values and the plan; benchoptab.c, their declarative rows with types, ranges,
 * defaults, destinations, needs/excludes and the setters of the few that need one): the
 * defaults and the table's rows. */
#ifndef ALLOCAB_BENCHOPTAB_H
#define ALLOCAB_BENCHOPTAB_H

#include "common/opt.h"

#include <stddef.h>

#define DEFAULT_WARMUP     1
/* --solo-share: one round in 1/share of a shared-CPU bench runs its arms one after the other
 * (docs/methodology.md, "Solo anchor rounds") */
#define DEFAULT_SOLO_SHARE 0.5
#define DEFAULT_MIN_ROUNDS 3
#define DEFAULT_TIMEOUT_S 120.0
#define DEFAULT_PAD_MAX   4096
#define DEFAULT_SEED      42
#define BENCH_REPS_MAX    1000



#endif
