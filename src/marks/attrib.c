/* attrib.c - the phases a recorded command marked in its marks file (marks.h, rk_attribute), each
 * span given to the process image that made it and converted to that image's time base
 * (docs/trace-format.md, "What is recorded"). A span belongs to the image of its writer's pid whose
 * lifetime holds it (the images of one pid, an exec chain, follow each other in time); a span
 * written without a pid belongs to the one image whose lifetime holds it, and to none when several
 * or none do. Times: a mark is the writer's CLOCK_MONOTONIC reading, an image's events are ns since
 * its stream started, and the process block holds CLOCK_MONOTONIC at that start, so a span's time
 * in the trace is its mark minus that start. */
#include "marks/marks.h"

#include <stdlib.h>
#include <string.h>

/* The image that made span [b, e) of pid (0: unknown), or -1: the only image of that pid whose
 * lifetime holds it; without a pid, the only image whose lifetime holds it. */
static long image_of(const struct rk_image *img, size_t n, uint64_t pid, uint64_t b, uint64_t e)
{
	long found = -1;

	for (size_t i = 0; i < n; i++) {
		if ((pid && img[i].pid != pid) || b < img[i].start_ns || e > img[i].end_ns)
			continue;
		if (found >= 0)
			return -1;
		found = (long)i;
	}
	return found;
}

/* Span j of phase p: its begin and end in CLOCK_MONOTONIC ns. */
static void span_of(const struct phasemark_phase *p, size_t j, uint64_t *b, uint64_t *e)
{
	*b = (uint64_t)p->at[j];
	*e = (uint64_t)(p->at[j] + p->ns[j]);
}

static int by_begin(const void *a, const void *b)
{
	const struct trace_span *x = a, *y = b;

	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/* Sorts the spans [first, *at) of out->all by their begin and drops those that begin before the
 * one kept before them ended; *at becomes the end of those kept. */
static void order_spans(struct trace_marks *out, size_t first, size_t *at, struct rk_left *left)
{
	size_t k = first;

	qsort(out->all + first, *at - first, sizeof *out->all, by_begin);
	for (size_t j = first; j < *at; j++) {
		if (k > first && out->all[j].begin_ns < out->all[k - 1].end_ns) {
			left->overlapping++;
			continue;
		}
		out->all[k++] = out->all[j];
	}
	*at = k;
}

/* Fills out[i] from the spans whose image (who[k], k counting the spans of s in order) is i. */
static int build(const struct phasemark_set *s, const struct rk_image *img, const long *who,
                 size_t i, struct trace_marks *out, struct rk_left *left)
{
	size_t k = 0, total = 0, at = 0;

	for (size_t t = 0; t < s->nspans; t++)
		total += who[t] == (long)i;
	if (!total)
		return 0;
	if (!(out->all = malloc(total * sizeof *out->all)))
		return -1;
	for (size_t p = 0; p < s->nphases; p++) {
		const struct phasemark_phase *ph = &s->phase[p];
		size_t first = at;
		for (size_t j = 0; j < ph->n; j++, k++) {
			uint64_t b, e;
			if (who[k] != (long)i)
				continue;
			span_of(ph, j, &b, &e);
			out->all[at++] = (struct trace_span){b - img[i].start_ns, e - img[i].start_ns};
		}
		order_spans(out, first, &at, left);
		if (at == first)
			continue;
		strcpy(out->phase[out->nphases].name, ph->name);
		out->phase[out->nphases++].n = at - first;
	}
	out->nspans = at;
	for (size_t p = 0, a = 0; p < out->nphases; a += out->phase[p++].n)
		out->phase[p].span = out->all + a;
	return 0;
}

int rk_attribute(const struct phasemark_set *s, const struct rk_image *img, size_t n,
                 struct trace_marks *out, struct rk_left *left)
{
	long *who = malloc((s->nspans ? s->nspans : 1) * sizeof *who);
	size_t k = 0;

	memset(left, 0, sizeof *left);
	for (size_t i = 0; i < n; i++)
		memset(&out[i], 0, sizeof out[i]);
	if (!who)
		return -1;
	for (size_t p = 0; p < s->nphases; p++)
		for (size_t j = 0; j < s->phase[p].n; j++, k++) {
			uint64_t b, e, pid = s->phase[p].pid[j];
			span_of(&s->phase[p], j, &b, &e);
			who[k] = image_of(img, n, pid, b, e);
			left->spans++;
			if (who[k] >= 0)
				continue;
			if (pid) {
				left->no_image++;
				left->pid = pid;
			} else {
				left->without_pid++;
			}
		}
	for (size_t i = 0; i < n; i++)
		if (build(s, img, who, i, &out[i], left) != 0) {
			for (size_t j = 0; j <= i; j++)
				trace_marks_free(&out[j]);
			free(who);
			return -1;
		}
	free(who);
	return 0;
}
