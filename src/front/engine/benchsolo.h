/* benchsolo.h - private to the bench engine: the solo anchor rounds of a shared-CPU bench
 * (--one-cpu, --duet; docs/methodology.md, "Runs on one CPU", "Solo anchor rounds") and the
 * threads a run started there. benchround.c marks each round's placement; benchpair.c runs a solo
 * round's workload one arm after the other and checks the threads of every run. Calls go from
 * those files to this one, never back. */
#ifndef ALLOCAB_BENCHSOLO_H
#define ALLOCAB_BENCHSOLO_H

#include "common/status.h"

#include <cjson/cJSON.h>
#include <stddef.h>

struct engine;
struct bench_workload;

/* The most measured rounds in one block of solo draws (one round in round(1 / share) runs solo). */
#define BENCHSOLO_MAX_BLOCK 1000

/* Whether round e->done runs its arms one after the other: never without c->duet or with a
 * share of 0; in a warm-up, the session's first round; from the first measured round on, one
 * round in every block of k = round(1 / solo_share) measured rounds, its place in the block
 * drawn from the shuffle seed and the block's number (a continuation draws the same). */
int benchsolo_round(const struct engine *e);
/* Adds "placement": "solo" or "shared" to round in a shared-CPU bench; nothing otherwise. */
void benchsolo_mark(const struct engine *e, cJSON *round);
/* The threads of the runs of runs from index from on: a run with a probe.thread_count above 0
 * in a --one-cpu bench (its threads would take turns on one CPU) is refused unless
 * c->threads_ok: returns -1 with *fatal ST_USAGE and the reason in err (naming a program whose
 * solo runs start threads its shared runs do not); else 0. */
int benchsolo_threads(struct engine *e, const cJSON *runs, int from, enum status *fatal, char *err,
                      size_t errlen);

#endif
