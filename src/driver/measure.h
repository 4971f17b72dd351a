/* measure.h - the timed loop of a driver's run (driver.c sets it up, runrec.h writes what it
 * measured), and what a run reads of its process around the loop. */
#ifndef ALLOCAB_MEASURE_H
#define ALLOCAB_MEASURE_H

#include "driver/params.h"
#include "driver/runmarks.h"
#include "driver/runrec.h"
#include "driver/workload.h"

#include <stdint.h>

/* One run's reps: what they run and where their times go. */
struct measure {
	const struct run_opts *o;          /* the workload and the cap on reps, o->reps */
	const struct runrec_reps_how *how; /* fixed or automatic, and the steady-state rule */
	struct wl_ctx *ctx;                /* the workload's, after its setup() */
	struct runrec_rep *reps;           /* o->reps of them */
	double *after;                     /* o->reps: the judged times after the cold rep */
	struct runmarks *marks;            /* the phases the input marks, told of each rep */
	int nreps;                         /* out: the reps made */
};

/* Runs the reps: nothing but run() and the clock reads between the stamps; results go into the
 * preallocated reps. A getrusage on either side of the stamps gives the rep's resource counts
 * without adding to its time. After each rep, outside the stamps: the resident set, and in
 * automatic mode whether the steady-state rule holds (then it stops) or a cap is reached.
 * Sets m->nreps to the reps made. Returns 0, or -1 with m->ctx->err set by the workload. */
int measure_reps(struct measure *m);

/* Resident bytes from /proc/self/statm, read without allocating; -1 if unreadable. */
int64_t measure_resident_bytes(void);

/* The machine's physical memory in bytes (UINT64_MAX when unknown). */
uint64_t measure_physical_memory(void);

#endif
