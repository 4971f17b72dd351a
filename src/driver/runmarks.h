/* runmarks.h - the phases a workload's input marks (workload.h, struct wl_marks), rep by rep: the
 * span times from the stamps run() wrote, their regimes by their place and whether they settled
 * by the steady-state rule (common/steady.h, steady_spans), and the record's phase_marks
 * (docs/results-format.md). The spans of rep 0, the cold rep, are the phase's regimes; every rep
 * keeps its own cold and steady times beside them (docs/workloads.md, replay, "Marked phases").
 * Everything here runs outside the timed region. */
#ifndef ALLOCAB_RUNMARKS_H
#define ALLOCAB_RUNMARKS_H

#include "common/steady.h"
#include "driver/workload.h"

#include <cjson/cJSON.h>
#include <stdint.h>

/* One phase in one rep: its first span, the mean of its steady spans (-1: none), settled. */
struct runmarks_rep {
	int64_t cold_ns, steady_ns;
	int settled; /* 1, 0, or -1 for a phase of one span */
};

/* What the record says of the phases, copied at init: the workload's state, which the names and
 * counts point into, is torn down before the record is built. */
struct runmarks_desc {
	size_t nphases, nuntimed;
	size_t nspans[WL_MAX_MARKED], skipped[WL_MAX_MARKED];
	char name[WL_MAX_MARKED][65], untimed[WL_MAX_MARKED][65], why[WL_MAX_MARKED][160];
	uint64_t *calls; /* malloc'd, per timed span */
};

struct runmarks {
	const struct wl_marks *m;  /* the workload's, read by runmarks_rep only */
	struct runmarks_desc d;
	struct steady_rule rule;   /* the run's rule */
	int cpu;                   /* the rule judges CPU times (the run's --steady-time cpu) */
	size_t nspans;             /* timed spans over all phases */
	int64_t *first;            /* rep 0's span times, phase after phase */
	int64_t *first_cpu;        /* their CPU times (m->cpu_stamp), NULL without */
	int64_t *t;                /* the last rep's span times */
	int64_t *tc;               /* their CPU times, NULL without */
	/* per phase: rep 0's settled was judged on its CPU times (cpu, and every span has one) */
	unsigned char cpu_judged[WL_MAX_MARKED];
	enum steady_regime *g;     /* rep 0's span regimes */
	enum steady_regime *scratch;
	struct runmarks_rep *rep;  /* [rep * m->nphases + phase] */
	int maxreps, nreps;
};

/* Prepares r for up to maxreps reps of m under rule (m may say nothing: then r is inert); cpu:
 * whether settled is judged on the spans' CPU times, as the run's own (its time compared), when
 * m stamps the CPU clock and every span of the phase has CPU time, else on their wall times.
 * Returns 0, or -1 when out of memory. */
int runmarks_init(struct runmarks *r, const struct wl_marks *m, const struct steady_rule *rule,
                  int cpu, int maxreps);

/* After rep k (0, 1, ... in order): its span times from m->stamp, their regimes and times. */
void runmarks_rep(struct runmarks *r, int k);

/* Adds "phase_marks" (when a phase is timed) and "phase_marks_untimed" (when a marked phase is
 * not) to root; reads nothing of the workload. Returns 0, or -1 when out of memory. */
int runmarks_json(cJSON *root, const struct runmarks *r);

void runmarks_free(struct runmarks *r);

#endif
