/* benchprogress.h - the text of `allocab bench`'s progress line (engine.h, "Progress", says where
 * and how it is shown): the round, the time spent and left, and per arm its median times so far. */
#ifndef ALLOCAB_BENCHPROGRESS_H
#define ALLOCAB_BENCHPROGRESS_H

#include "front/engine/engine.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Where a bench is. */
struct bench_progress {
	const struct bench_config *c;
	const cJSON *rounds;     /* the document's rounds array so far */
	unsigned done, measured; /* rounds finished this session; of them, measured (not warm-up) */
	unsigned done0;          /* --resume: the rounds the file held; rounds are numbered after them */
	int64_t measured_ns;     /* summed wall time of the measured rounds, as if each had run the
	                            cells that still run (adaptive allocation) */
	double elapsed_s;        /* since the bench started */
	unsigned owed;           /* measured rounds the budget was extended to and not yet run
	                            (engine_need_check): the time left covers them */
};

/* Writes the progress text into line (len bytes, cut when longer), the rounds numbered as in the
 * file (a resumed bench's first round is done0 + 1): "round 3/10 (warm-up), run 4/8, 0:12
 * elapsed, ~1:02 left | sum of medians, CPU: system 324 ms, ...": the CPU time where the bench
 * compares it (config.time cpu or auto), else "wall:". run 0: the round just finished ("round
 * 3/10 done"); the time left only once a round has finished, the medians only once a measured
 * round has. */
void bench_progress_text(const struct bench_progress *p, size_t run, size_t nruns, char *line,
                         size_t len);

#endif
