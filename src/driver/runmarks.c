/* runmarks.c - the phases a workload's input marks, rep by rep, and their record (runmarks.h). */
#include "driver/runmarks.h"

#include "driver/runrec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int runmarks_init(struct runmarks *r, const struct wl_marks *m, const struct steady_rule *rule,
                  int cpu, int maxreps)
{
	size_t n = 0;

	memset(r, 0, sizeof *r);
	r->m = m;
	r->rule = *rule;
	r->cpu = cpu;
	r->maxreps = maxreps;
	r->d.nphases = m->nphases;
	r->d.nuntimed = m->nuntimed;
	for (size_t p = 0; p < m->nphases; p++) {
		n += r->d.nspans[p] = m->nspans[p];
		r->d.skipped[p] = m->skipped[p];
		snprintf(r->d.name[p], sizeof r->d.name[p], "%s", m->name[p]);
	}
	for (size_t p = 0; p < m->nuntimed; p++) {
		snprintf(r->d.untimed[p], sizeof r->d.untimed[p], "%s", m->untimed[p]);
		snprintf(r->d.why[p], sizeof r->d.why[p], "%s", m->why[p]);
	}
	r->nspans = n;
	if (!m->nphases)
		return 0;
	if (!(r->d.calls = malloc(n * sizeof *r->d.calls)))
		return -1;
	memcpy(r->d.calls, m->calls, n * sizeof *r->d.calls);
	r->first = malloc(n * sizeof *r->first);
	if (m->cpu_stamp && (!(r->first_cpu = malloc(n * sizeof *r->first_cpu)) ||
	                     !(r->tc = malloc(n * sizeof *r->tc))))
		return -1;
	r->t = malloc(n * sizeof *r->t);
	r->g = malloc(n * sizeof *r->g);
	r->scratch = malloc(n * sizeof *r->scratch);
	r->rep = calloc((size_t)maxreps * m->nphases, sizeof *r->rep);
	return r->first && r->t && r->g && r->scratch && r->rep ? 0 : -1;
}

void runmarks_free(struct runmarks *r)
{
	free(r->d.calls);
	free(r->first);
	free(r->first_cpu);
	free(r->t);
	free(r->tc);
	free(r->g);
	free(r->scratch);
	free(r->rep);
	memset(r, 0, sizeof *r);
}

void runmarks_rep(struct runmarks *r, int k)
{
	const struct wl_marks *m = r->m;
	size_t at = 0;
	double mean;

	if (!m->nphases || k >= r->maxreps)
		return;
	for (size_t i = 0; i < r->nspans; i++) {
		int64_t d = m->stamp[m->bound[2 * i + 1]] - m->stamp[m->bound[2 * i]];
		r->t[i] = d > 0 ? d : 1;
		if (r->tc)
			r->tc[i] = m->cpu_stamp[m->bound[2 * i + 1]] - m->cpu_stamp[m->bound[2 * i]];
	}
	for (size_t p = 0; p < m->nphases; at += m->nspans[p++]) {
		enum steady_regime *g = k == 0 ? r->g + at : r->scratch;
		struct runmarks_rep *q = &r->rep[(size_t)k * m->nphases + p];
		int cpu = r->cpu && r->tc;
		for (size_t i = at; cpu && i < at + m->nspans[p]; i++)
			cpu = r->tc[i] > 0;
		q->settled = steady_spans(cpu ? r->tc + at : r->t + at, m->nspans[p], &r->rule, g);
		if (k == 0)
			r->cpu_judged[p] = (unsigned char)cpu;
		q->cold_ns = r->t[at];
		mean = steady_spans_mean(r->t + at, g, m->nspans[p]);
		q->steady_ns = isnan(mean) ? -1 : llround(mean);
	}
	if (k == 0)
		memcpy(r->first, r->t, r->nspans * sizeof *r->t);
	for (size_t i = 0; k == 0 && r->first_cpu && i < r->nspans; i++) {
		int64_t d = m->cpu_stamp[m->bound[2 * i + 1]] - m->cpu_stamp[m->bound[2 * i]];
		r->first_cpu[i] = d > 0 ? d : 0;
	}
	r->nreps = k + 1;
}

/* An exact integer, or null for a negative one (none). */
static cJSON *int_or_null(int64_t v)
{
	return v < 0 ? cJSON_CreateNull() : runrec_int(v);
}

static cJSON *settled_json(int s)
{
	return s < 0 ? cJSON_CreateNull() : cJSON_CreateBool(s);
}

/* Every rep's cold and steady times and whether it settled, for phase p. */
static cJSON *reps_json(const struct runmarks *r, size_t p)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; a && k < r->nreps; k++) {
		const struct runmarks_rep *q = &r->rep[(size_t)k * r->d.nphases + p];
		cJSON *o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(a, o) ||
		    !cJSON_AddItemToObject(o, "cold_ns", runrec_int(q->cold_ns)) ||
		    !cJSON_AddItemToObject(o, "steady_ns", int_or_null(q->steady_ns)) ||
		    !cJSON_AddItemToObject(o, "settled", settled_json(q->settled)))
			return cJSON_Delete(a), NULL;
	}
	return a;
}

/* Phase p of rep 0: its spans, their regimes and what the rule made of them; the calls of each
 * span; every rep's times. at: its first span. */
static cJSON *phase_json(const struct runmarks *r, size_t p, size_t at)
{
	const struct runmarks_rep *q = &r->rep[p];
	cJSON *o = cJSON_CreateObject(), *w, *g, *c, *cpu = NULL;

	if (!o || !cJSON_AddStringToObject(o, "name", r->d.name[p]) ||
	    !(w = cJSON_AddArrayToObject(o, "wall_ns")) ||
	    !(cpu = r->first_cpu ? cJSON_AddArrayToObject(o, "cpu_ns")
	                         : cJSON_AddNullToObject(o, "cpu_ns")) ||
	    !(g = cJSON_AddArrayToObject(o, "regimes")) ||
	    !cJSON_AddItemToObject(o, "settled", settled_json(q->settled)) ||
	    !cJSON_AddStringToObject(o, "regimes_time", r->cpu_judged[p] ? "cpu" : "wall") ||
	    !cJSON_AddItemToObject(o, "cold_ns", runrec_int(q->cold_ns)) ||
	    !cJSON_AddItemToObject(o, "steady_ns", int_or_null(q->steady_ns)) ||
	    !(c = cJSON_AddArrayToObject(o, "calls")) ||
	    !cJSON_AddItemToObject(o, "skipped_spans", runrec_int((int64_t)r->d.skipped[p])) ||
	    !cJSON_AddItemToObject(o, "reps", reps_json(r, p)))
		return cJSON_Delete(o), NULL;
	for (size_t i = at; i < at + r->d.nspans[p]; i++)
		if (!cJSON_AddItemToArray(w, runrec_int(r->first[i])) ||
		    !cJSON_AddItemToArray(g, cJSON_CreateString(steady_regime_name(r->g[i]))) ||
		    !cJSON_AddItemToArray(c, runrec_int((int64_t)r->d.calls[i])) ||
		    (r->first_cpu && !cJSON_AddItemToArray(cpu, runrec_int(r->first_cpu[i]))))
			return cJSON_Delete(o), NULL;
	return o;
}

static int untimed_json(cJSON *root, const struct runmarks_desc *d)
{
	cJSON *a = cJSON_AddArrayToObject(root, "phase_marks_untimed");

	for (size_t i = 0; a && i < d->nuntimed; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(a, o) ||
		    !cJSON_AddStringToObject(o, "name", d->untimed[i]) ||
		    !cJSON_AddStringToObject(o, "reason", d->why[i]))
			return -1;
	}
	return a ? 0 : -1;
}

int runmarks_json(cJSON *root, const struct runmarks *r)
{
	cJSON *pm, *phases;
	size_t at = 0;

	if (r->d.nuntimed && untimed_json(root, &r->d) != 0)
		return -1;
	if (!r->d.nphases || !r->nreps)
		return 0;
	if (!(pm = cJSON_AddObjectToObject(root, "phase_marks")) ||
	    !(phases = cJSON_AddArrayToObject(pm, "phases")))
		return -1;
	for (size_t p = 0; p < r->d.nphases; at += r->d.nspans[p++]) {
		cJSON *o = phase_json(r, p, at);
		if (!o || !cJSON_AddItemToArray(phases, o))
			return cJSON_Delete(o), -1;
	}
	return 0;
}
