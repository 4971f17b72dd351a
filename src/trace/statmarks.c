/* statmarks.c - the phases a process marked, for `allocab trace info` (statmarks.h). */
#include "trace/statmarks.h"

#include <stdlib.h>
#include <string.h>

#define TS_SHOW_SPANS 8 /* spans whose events the text lists one by one */

/* The first of ev[0..n) at or after t. */
static size_t first_at(const struct trace_rec *ev, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ev[mid].ts_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ts_marks_take(struct ts_proc *s, struct trace_proc_events *p, const struct trace_rec *ev,
                  size_t n)
{
	if (!p->marks.nphases)
		return 0;
	if (!(s->span_events = malloc(p->marks.nspans * sizeof *s->span_events)))
		return -1;
	s->marks = p->marks;
	memset(&p->marks, 0, sizeof p->marks);
	for (size_t i = 0; i < s->marks.nspans; i++)
		s->span_events[i] = first_at(ev, n, s->marks.all[i].end_ns) -
		                    first_at(ev, n, s->marks.all[i].begin_ns);
	return 0;
}

void ts_marks_free(struct ts_proc *s)
{
	trace_marks_free(&s->marks);
	free(s->span_events);
	s->span_events = NULL;
}

/* The spans of phase i: its total time and events. */
static void phase_sums(const struct ts_proc *s, size_t i, uint64_t *ns, uint64_t *events)
{
	const uint64_t *e = s->span_events + (s->marks.phase[i].span - s->marks.all);

	*ns = *events = 0;
	for (size_t j = 0; j < s->marks.phase[i].n; j++) {
		*ns += s->marks.phase[i].span[j].end_ns - s->marks.phase[i].span[j].begin_ns;
		*events += e[j];
	}
}

void ts_marks_json(cJSON *o, const struct ts_proc *s)
{
	cJSON *pm, *phases;

	if (!s->marks.nphases) {
		cJSON_AddNullToObject(o, "phase_marks");
		return;
	}
	pm = cJSON_AddObjectToObject(o, "phase_marks");
	phases = cJSON_AddArrayToObject(pm, "phases");
	for (size_t i = 0; i < s->marks.nphases; i++) {
		cJSON *ph = cJSON_CreateObject(), *spans;
		const uint64_t *e = s->span_events + (s->marks.phase[i].span - s->marks.all);
		uint64_t ns, events;
		phase_sums(s, i, &ns, &events);
		cJSON_AddItemToArray(phases, ph);
		cJSON_AddStringToObject(ph, "name", s->marks.phase[i].name);
		cJSON_AddNumberToObject(ph, "wall_ns", (double)ns);
		cJSON_AddNumberToObject(ph, "events", (double)events);
		spans = cJSON_AddArrayToObject(ph, "spans");
		for (size_t j = 0; j < s->marks.phase[i].n; j++) {
			cJSON *sp = cJSON_CreateObject();
			cJSON_AddItemToArray(spans, sp);
			cJSON_AddNumberToObject(sp, "begin_ns",
			                        (double)s->marks.phase[i].span[j].begin_ns);
			cJSON_AddNumberToObject(sp, "end_ns", (double)s->marks.phase[i].span[j].end_ns);
			cJSON_AddNumberToObject(sp, "events", (double)e[j]);
		}
	}
}

void ts_marks_print(const struct ts_proc *s, FILE *f)
{
	for (size_t i = 0; i < s->marks.nphases; i++) {
		const uint64_t *e = s->span_events + (s->marks.phase[i].span - s->marks.all);
		size_t n = s->marks.phase[i].n;
		uint64_t ns, events;
		phase_sums(s, i, &ns, &events);
		fprintf(f, "  phase %s: %zu span%s, %.3f s, %llu events", s->marks.phase[i].name, n,
		        n == 1 ? "" : "s", (double)ns / 1e9, (unsigned long long)events);
		for (size_t j = 0; n > 1 && j < n && j < TS_SHOW_SPANS; j++)
			fprintf(f, "%s%llu", j ? ", " : "; per span ", (unsigned long long)e[j]);
		fprintf(f, "%s\n", n > TS_SHOW_SPANS ? ", ... (--json lists each)" : "");
	}
}
