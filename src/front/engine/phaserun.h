/* phaserun.h - the phases a command run marks itself (marks/marks.h; docs/programs.md,
 * "Phases your program marks"): the marks file and its variable for every run of a command arm,
 * and the judgement of what the program wrote there, folded into the run object as
 * "phase_marks" (docs/results-format.md). Private to the run module. */
#ifndef ALLOCAB_PHASERUN_H
#define ALLOCAB_PHASERUN_H

#include "marks/marks.h"
#include "front/engine/benchdoc.h"

#include <limits.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* The phase names of the bench's first ok run: every later ok run must mark the same ones. */
struct phase_names {
	int known;
	size_t n;
	char name[PHASEMARK_MAX_PHASES][PHASEMARK_MAX_NAME + 1];
};

/* One run's marks file and environment. */
struct phaserun {
	char file[PATH_MAX];
	char var[PATH_MAX + 32]; /* ALLOCAB_PHASE_FILE=file */
	char **set;              /* runner_spec.env_set: the given variables, then var (malloc'd) */
	int64_t lo, hi;          /* CLOCK_MONOTONIC just before the run started and after it ended */
	/* the regimes are judged on the spans' CPU times when every span has one (the bench
	 * compares CPU time: docs/programs.md, "Which time"), else on their wall times */
	int cpu_rule;
};

/* CLOCK_MONOTONIC in ns: the clock the marks are read against, whatever clock the engine uses. */
int64_t phaserun_clock(void);

/* Creates the private directory of the marks files under $TMPDIR or /tmp into dir. Returns 0, or
 * -1 with err. */
int phaserun_dir(char dir[PATH_MAX], char *err, size_t errlen);

/* Creates the empty marks file number n in dir and p->set: base (NULL-terminated, may be NULL)
 * followed by ALLOCAB_PHASE_FILE. Returns 0, or -1 with err (p then holds nothing to free). */
int phaserun_prepare(const char *dir, unsigned long n, char *const *base, struct phaserun *p,
                     char *err, size_t errlen);

/* Judges the marks of a finished run when *st is RS_OK: adds "phase_marks" to run (null when the
 * program marked nothing), or makes the run invalid with the reason "phase marks: ..." (a
 * malformed file, spans that hold more CPU time than the kernel counted for the run (its
 * "process" and "containment", already in run), or phase names other than those of ref, the first
 * ok run's, which an ok run sets). Then removes the file and frees p->set. With run NULL (the run
 * never finished) only cleans up. */
void phaserun_finish(struct phaserun *p, struct phase_names *ref, cJSON *run,
                     enum run_status *st);

#endif
