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

/* The options in the order of --help; O_H_* are its headings. */
enum opt_id {
	O_ALLOC,
	O_ARM,
	O_WL,
	O_SCALE,
	O_SEED,
	O_PARAM,
	O_REPS,
	O_TIME,
	O_DDIR,
	O_DUET,
	O_ONE_CPU,
	O_SOLO_SHARE,
	O_ONE_CPU_THREADS,
	O_H_ROUNDS,
	O_ROUNDS,
	O_BUDGET,
	O_WARMUP,
	O_MINR,
	O_TIMEOUT,
	O_ALLOCATION,
	O_SHUF,
	O_PAD,
	O_EQUIVALENCE,
	O_PRIMARY,
	O_GATE,
	O_H_OUTPUT,
	O_OUT,
	O_RDIR,
	O_RESUME,
	O_QUIET,
	O_H_FLEET,
	O_LABEL,
	O_SHARD,
	O_H_PROGRAMS,
	O_CMD,
	O_PROGRAM,
	O_PRELOAD,
	O_EXPECT,
	O_COUNT_CALLS,
	O_HELP,
	O_COUNT
};

extern const struct opt bench_opt_table[O_COUNT];

#endif
