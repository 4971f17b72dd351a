/* phaserun.h - what the engine does with the phases a command run marks (docs/programs.md,
 * "Phases your program marks"): the clock the marks are read against, the private directory of
 * the marks files, and a run's marks as its kind judges them (front/arms/arms.h, marks_judge)
 * turned into the run's status, folded into the run object as "phase_marks"
 * (docs/results-format.md). Private to the engine. */
#ifndef ALLOCAB_PHASERUN_H
#define ALLOCAB_PHASERUN_H

#include "front/arms/arms.h"
#include "front/engine/benchdoc.h"

#include <limits.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* CLOCK_MONOTONIC in ns: the clock the marks are read against, whatever clock the engine uses. */
int64_t phaserun_clock(void);

/* Creates the private directory of the marks files under $TMPDIR or /tmp into dir. Returns 0, or
 * -1 with err. */
int phaserun_dir(char dir[PATH_MAX], char *err, size_t errlen);

/* Judges the marks of a finished run of kind k when *st is RS_OK (k->marks_judge): a run whose
 * marks fail is made invalid with the reason "phase marks: ...". Then removes the file and frees
 * p->set (k->marks_discard). With run NULL (the run never finished) only cleans up. */
void phaserun_finish(const struct arm_kind_ops *k, struct arm_marks_run *p,
                     struct arm_phase_names *ref, cJSON *run, enum run_status *st);

#endif
