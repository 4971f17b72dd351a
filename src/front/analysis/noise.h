/* noise.h - runs disturbed from outside the benchmark (docs/methodology.md, "Noise telemetry and
 * drift"): a run whose involuntary context switches, stolen CPU time or load average spike far
 * above the other runs of the same workload is flagged, so that a reader can see which rounds to
 * distrust. Flags never remove data: dropping rounds after looking at them would bias the estimate.
 * Also the warnings about the documents: a different machine or allocator environment moves numbers
 * as much as an allocator. */
#ifndef ALLOCAB_NOISE_H
#define ALLOCAB_NOISE_H

#include "front/analysis/resfile.h"

#include <stddef.h>

#define NOISE_SPIKE_MADS 5.0 /* spike: value > median + max(5 MAD, the metric's floor) */

struct noise_flag {
	const struct rf_doc *doc;
	size_t pos;         /* position among the document's measured rounds */
	size_t round;       /* the round's index */
	size_t arm, wl;     /* indices into the document */
	const char *metric; /* static name, e.g. "loadavg_1m" */
	double value, threshold;
};

/* Appends a flag to *flags (grown with realloc, owned by the caller) for every ok measured run of
 * doc whose telemetry spikes; the median and MAD are taken over the ok runs of all arms of one
 * workload (at least 4 values). Returns 0, or -1 when memory ran out (*flags still valid). */
int noise_flag_spikes(const struct rf_doc *doc, struct noise_flag **flags, size_t *nflags);
/* Whether run (pos, arm, wl) of doc carries a flag. */
int noise_spiked(const struct noise_flag *flags, size_t nflags, const struct rf_doc *doc,
                 size_t pos, size_t arm, size_t wl);
/* Appends to *warn (grown with realloc; lines malloc'd, owned by the caller) what a reader must
 * know about the documents themselves: an unfinished bench, allocator-steering environment
 * variables, and when b is not NULL a machine fingerprint or environment that differs from a's.
 * Returns 0, or -1 when memory ran out. */
int noise_doc_warnings(const struct rf_doc *a, const struct rf_doc *b, char ***warn, size_t *nwarn);
/* Appends one formatted line to *warn (as noise_doc_warnings). Returns 0, or -1 (memory). */
int noise_warnf(char ***warn, size_t *nwarn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
