/* benchprogress.h - private to the bench engine: `allocab bench`'s progress line (engine.h,
 * "Progress", says where and how it is shown): the round, the time spent and left, and per arm
 * its median times so far. */
#ifndef ALLOCAB_BENCHPROGRESS_H
#define ALLOCAB_BENCHPROGRESS_H

#include <stddef.h>

struct engine;

/* On a terminal, before run (1-based) of the nruns of a round: the line rewritten in place, cut
 * to the terminal's width. */
void engine_progress_run(struct engine *e, size_t run, size_t nruns);
/* After the document holding the round just finished was written: its plain line ("allocab:
 * round 3/10 done, ..."), once, elsewhere than a terminal (a round is "done" once written). */
void engine_progress_written(struct engine *e);

#endif
