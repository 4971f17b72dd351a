/* benchalloc.h - the engine's side of adaptive allocation (benchalloc.c; engine.h, struct
 * bench_alloc): which arm x workload cells a round runs, what a round records of those that
 * left, and how long the next round should take with the cells that are left. */
#ifndef ALLOCAB_BENCHALLOC_H
#define ALLOCAB_BENCHALLOC_H

#include "front/engine/engine.h"

#include <cjson/cJSON.h>
#include <stddef.h>

struct bench_cells {
	size_t n;            /* arms x workloads; cell a * nwl + w */
	unsigned char *need; /* 1: the cell still runs */
	double *ns;          /* per cell: summed process wall time of its measured runs */
	size_t *runs;        /* per cell: how many runs that sum holds */
};

/* Every cell of c needed, nothing measured. Returns 0, or -1 out of memory. */
int bench_cells_init(struct bench_cells *s, const struct bench_config *c);
void bench_cells_free(struct bench_cells *s);

/* The cells still needed. */
size_t bench_cells_needed(const struct bench_cells *s);

/* A round's end in the cells: "left": [{"arm": A, "workload": W}, ...] added to round, in cell
 * order, when a cell has left; when the round is measured, the process wall times of its runs
 * (run objects of c's arms and workloads) added to their cells. Returns 0, or -1 out of memory
 * (nothing accounted). */
int bench_cells_round(struct bench_cells *s, const struct bench_config *c, cJSON *round,
                      const cJSON *runs, int measured);

/* --resume: the measured runs of rounds (a document's, of c's arms and workloads) accounted, and
 * the cells its last round lists under "left" no longer needed. */
void bench_cells_restore(struct bench_cells *s, const struct bench_config *c, const cJSON *rounds);

/* The share of a whole round's time that a round of the needed cells takes, from each cell's
 * mean run time (a cell without a measured run counts as the mean of the others); 1 when no run
 * was measured yet. */
double bench_cells_share(const struct bench_cells *s);

/* Asks c->alloc with the rounds tables holds and clears the cells it lets go (in a duet, a
 * workload's two cells only together). Returns 0, or -1 with err. */
int bench_cells_update(struct bench_cells *s, const struct bench_config *c,
                       struct rf_builder *tables, char *err, size_t errlen);

#endif
