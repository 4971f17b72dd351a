/* statmarks.h - private to the trace module (stat.c, statmarks.c): the phases a process marked, as
 * `allocab trace info` reports them (every span with the events whose time lies within it). */
#ifndef ALLOCAB_TRACE_STATMARKS_H
#define ALLOCAB_TRACE_STATMARKS_H

#include "trace/trace.h"

/* Takes p's marks into s and counts the events of each span among ev[0..n), sorted by time.
 * Returns 0, or -1 when out of memory (s then holds no marks). */
int ts_marks_take(struct ts_proc *s, struct trace_proc_events *p, const struct trace_rec *ev,
                  size_t n);

/* Frees the marks s holds. */
void ts_marks_free(struct ts_proc *s);

/* Adds "phase_marks" to o: null, or the phases with their spans (docs/results-format.md). */
void ts_marks_json(cJSON *o, const struct ts_proc *s);

/* One line per phase: spans, time, events, the events of the first spans. */
void ts_marks_print(const struct ts_proc *s, FILE *f);

#endif
