/* replay_marks.c - the phases a replayed process marked, as boundaries between segments of its
 * threads' ops (replay_load.h, struct rp_marks; docs/workloads.md, replay, "Marked phases"). */
#include "workloads/lib/replay_load.h"

#include "common/errmsg.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* How many of b[0..n) (ascending) are at or before t. */
static size_t at_or_before(const uint64_t *b, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The distinct begins and ends of m's spans, ascending, into b; returns how many. */
static size_t boundaries(const struct trace_marks *m, uint64_t *b)
{
	size_t n = 0, u = 0;

	for (size_t i = 0; i < m->nspans; i++) {
		b[n++] = m->all[i].begin_ns;
		b[n++] = m->all[i].end_ns;
	}
	qsort(b, n, sizeof *b, cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || b[u - 1] != b[i])
			b[u++] = b[i];
	return u;
}

static int add_chunk(struct rp_thread *th, uint32_t from, uint32_t seg)
{
	size_t n = th->nchunk;

	if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, ...: the array is full */
		struct rp_chunk *c = realloc(th->chunk, (n ? 2 * n : 1) * sizeof *c);
		if (!c)
			return -1;
		th->chunk = c;
	}
	th->chunk[th->nchunk++] = (struct rp_chunk){from, seg};
	return 0;
}

/* Every thread's ops by segment (an op never in a segment before its thread's previous op's), and
 * the calls of each segment into calls[0..nb]. */
static int segments(struct rp_trace *t, const uint64_t *b, size_t nb, const struct rp_events *e,
                    uint64_t *calls)
{
	const struct trace_rec *ev = e->ev;
	size_t *fill = calloc(t->nth, sizeof *fill);
	uint32_t *last = calloc(t->nth, sizeof *last);
	int rc = 0;

	if (!fill || !last)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < e->n; i++) {
		size_t th = rp_thread_index(e->tl, t->nth, ev[i].thread), k = fill[th]++;
		uint32_t s = (uint32_t)at_or_before(b, nb, ev[i].ts_ns);
		struct rp_thread *r = &t->th[th];
		if (s < last[th])
			s = last[th];
		if ((!r->nchunk || s != last[th]) && add_chunk(r, (uint32_t)k, s) != 0)
			rc = -1;
		last[th] = s;
		calls[s] += r->ops[k].op != 0;
	}
	free(fill);
	free(last);
	return rc;
}

/* Which spans of m are timed (phase after phase, into t->marks) from the calls of each segment
 * (calls[0..nb], made cumulative here). Returns the spans timed. */
static size_t pick_spans(struct rp_trace *t, const struct trace_marks *m, const uint64_t *b,
                         size_t nb, uint64_t *calls)
{
	struct rp_marks *k = &t->marks;
	size_t timed = 0;

	for (size_t s = 1; s <= nb; s++)
		calls[s] += calls[s - 1];
	for (size_t p = 0; p < m->nphases; p++) {
		size_t first = timed;
		for (size_t j = 0; j < m->phase[p].n; j++) {
			uint32_t x = (uint32_t)(at_or_before(b, nb, m->phase[p].span[j].begin_ns) - 1),
			         y = (uint32_t)(at_or_before(b, nb, m->phase[p].span[j].end_ns) - 1);
			uint64_t c = calls[y] - calls[x]; /* segments x + 1 .. y */
			if (!c && j == 0)
				break;
			if (!c) {
				k->skipped[k->nphases]++;
				continue;
			}
			k->bound[2 * timed] = x;
			k->bound[2 * timed + 1] = y;
			k->calls[timed++] = c;
		}
		if (timed == first) {
			strcpy(k->untimed[k->nuntimed], m->phase[p].name);
			k->why[k->nuntimed++] = "its first span holds no call of this process";
			k->skipped[k->nphases] = 0;
			continue;
		}
		strcpy(k->name[k->nphases], m->phase[p].name);
		k->nspans[k->nphases++] = timed - first;
	}
	return timed;
}

/* Without a phase to time, the replay passes no boundary: the segments go. */
static void drop_segments(struct rp_trace *t)
{
	for (size_t k = 0; k < t->nth; k++) {
		free(t->th[k].chunk);
		t->th[k].chunk = NULL;
		t->th[k].nchunk = 0;
	}
	t->marks.nbounds = 0;
}

int rp_marks_build(struct rp_trace *t, const struct trace_marks *m, const struct rp_events *e,
                   char *err, size_t errlen)
{
	uint64_t *b = m->nspans ? malloc(2 * m->nspans * sizeof *b) : NULL, *calls = NULL;
	struct rp_marks *k = &t->marks;
	size_t nb = 0;
	int rc = -2;

	if (!m->nspans)
		return 0;
	if (!b)
		goto out;
	nb = boundaries(m, b);
	calls = calloc(nb + 1, sizeof *calls);
	k->bound = malloc(2 * m->nspans * sizeof *k->bound);
	k->calls = malloc(m->nspans * sizeof *k->calls);
	if (!calls || !k->bound || !k->calls || segments(t, b, nb, e, calls) != 0)
		goto out;
	k->nbounds = nb;
	if (!pick_spans(t, m, b, nb, calls))
		drop_segments(t);
	rc = 0;
out:
	free(b);
	free(calls);
	if (rc)
		errmsg_fail(err, errlen, "out of memory splitting %zu events by %zu phase boundaries",
		            e->n, nb);
	return rc;
}

void rp_marks_free(struct rp_trace *t)
{
	for (size_t k = 0; t->th && k < t->nth; k++)
		free(t->th[k].chunk);
	free(t->marks.bound);
	free(t->marks.calls);
}

void rp_marks_describe(const struct rp_trace *t, const int64_t *stamp, const int64_t *cpu_stamp,
                       struct wl_marks *w)
{
	const struct rp_marks *m = &t->marks;

	memset(w, 0, sizeof *w);
	w->nphases = m->nphases;
	for (size_t p = 0; p < m->nphases; p++) {
		w->name[p] = m->name[p];
		w->nspans[p] = m->nspans[p];
		w->skipped[p] = m->skipped[p];
	}
	w->bound = m->bound;
	w->calls = m->calls;
	w->stamp = stamp;
	w->cpu_stamp = cpu_stamp;
	w->nstamps = m->nbounds;
	w->nuntimed = m->nuntimed;
	for (size_t p = 0; p < m->nuntimed; p++) {
		w->untimed[p] = m->untimed[p];
		w->why[p] = m->why[p];
	}
}
