/* duet.h - duet runs for `allocab bench --duet` (Bulej et al., "Duet Benchmarking", 2020): the two
 * arms of a pair run at the same time, each pinned to its own CPU, so that whatever disturbs the
 * machine disturbs both alike and cancels in their ratio. Each run is supervised by a forked
 * helper that pins itself (the driver inherits the affinity through fork and exec), waits for a
 * common start, runs the process with runner_run and sends the result back through a pipe. */
#ifndef ALLOCAB_DUET_H
#define ALLOCAB_DUET_H

#include "front/proc/proc.h"
#include "front/proc/telemetry.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the arms of round `round` take their CPUs swapped (1) or in order (0): drawn from the
 * bench's shuffle seed, one independent fair draw per round, so that no arm is favoured by the
 * parity of the round count. Deterministic for a given (shuffle_seed, round). */
int duet_round_swap(uint64_t shuffle_seed, unsigned round);

/* The first two CPUs this process may run on. Returns 0, or -1 with a reason in err. */
int duet_cpus(int cpu[2], char *err, size_t errlen);

struct duet_side {
	const struct runner_spec *spec;
	int cpu;
	struct runner_result r;         /* filled by duet_run; free with runner_result_free */
	struct telemetry_sample tel[2]; /* before and after the run, sampled by its helper */
};

/* Runs both sides at once; stop works as in runner_run (the helpers are told to stop).
 * Returns 0 with both results filled (an unstarted side has end RUNNER_STOPPED), or -1 with a
 * reason in err when a helper could not be started or died without reporting. */
int duet_run(struct duet_side side[2], const volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif
