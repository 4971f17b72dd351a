/* noise.h - runs disturbed from outside the benchmark: a run whose involuntary context switches,
 * stolen CPU time or load average lie beyond what this very bench shows as normal for the machine
 * is flagged, so that a reader can see which rounds to distrust. Flags never remove data:
 * dropping rounds after looking at them would bias the estimate. Also the warnings about the
 * documents: a different machine or allocator environment moves numbers as much as an allocator.
 * Method: docs/methodology.md, "Noise telemetry and drift". */
#ifndef ALLOCAB_NOISE_H
#define ALLOCAB_NOISE_H

#include "front/analysis/resfile.h"

#include <stddef.h>

#define NOISE_FENCE_IQR 3.0 /* flagged: value > max(Q3 + 3 IQR of the values above 0, floor) */

struct noise_flag {
	const struct rf_doc *doc;
	size_t pos;         /* position among the document's measured rounds */
	size_t round;       /* the round's index */
	size_t arm, wl;     /* indices into the document */
	const char *metric; /* static name, e.g. "loadavg_1m" */
	double value, threshold;
};

/* Appends a flag to *flags (grown with realloc, owned by the caller) for every ok measured run of
 * doc whose telemetry lies beyond the bench's normal: Q3 + NOISE_FENCE_IQR x IQR of the values
 * above 0 (how much there is when there is any) over the ok runs of all arms of the same workload
 * for context switches, of every workload for the machine-wide steal and load average, and at
 * least the metric's floor (the floor alone with fewer than 4 such values; nothing with fewer
 * than 4 runs). Returns 0, or -1 when memory ran out (*flags still valid). */
int noise_flag_spikes(const struct rf_doc *doc, struct noise_flag **flags, size_t *nflags);
/* Whether run (pos, arm, wl) of doc carries a flag. */
int noise_spiked(const struct noise_flag *flags, size_t nflags, const struct rf_doc *doc,
                 size_t pos, size_t arm, size_t wl);
/* Appends to *warn (grown with realloc; lines malloc'd, owned by the caller) what a reader must
 * know about the documents themselves: a bench that did not end as asked (statuses other than
 * complete, budget and decided), allocator-steering environment
 * variables, and when b is not NULL a machine fingerprint or environment that differs from a's.
 * Returns 0, or -1 when memory ran out. */
int noise_doc_warnings(const struct rf_doc *a, const struct rf_doc *b, char ***warn, size_t *nwarn);
/* Appends one formatted line to *warn (as noise_doc_warnings). Returns 0, or -1 (memory). */
int noise_warnf(char ***warn, size_t *nwarn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
