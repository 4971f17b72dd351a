/* nameidx.c - sorted name indices (nameidx.h). */
#include "common/nameidx.h"

#include <stdlib.h>
#include <string.h>

static const char *name_at(const struct nameidx *x, size_t i)
{
	return *(char *const *)(x->base + i * x->elem + x->off);
}

/* qsort has no context argument; the index being sorted is set around the call. */
static __thread const struct nameidx *sorting;

static int by_name(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(name_at(sorting, i), name_at(sorting, j));

	return c ? c : (i > j) - (i < j);
}

int nameidx_build(struct nameidx *x, const void *base, size_t n, size_t elem, size_t off)
{
	*x = (struct nameidx){.base = base, .n = n, .elem = elem, .off = off};
	if (!(x->order = malloc((n + 1) * sizeof *x->order)))
		return -1;
	for (size_t i = 0; i < n; i++)
		x->order[i] = i;
	sorting = x;
	qsort(x->order, n, sizeof *x->order, by_name);
	sorting = NULL;
	return 0;
}

long nameidx_repeat(const struct nameidx *x)
{
	long found = -1;

	for (size_t k = 1; x->order && k < x->n; k++)
		if (strcmp(name_at(x, x->order[k - 1]), name_at(x, x->order[k])) == 0 &&
		    (found < 0 || x->order[k] < (size_t)found))
			found = (long)x->order[k];
	return found;
}

long nameidx_find(const struct nameidx *x, const char *name)
{
	size_t lo = 0, hi = x->n;

	if (!x->order) {
		for (size_t i = 0; i < x->n; i++)
			if (strcmp(name_at(x, i), name) == 0)
				return (long)i;
		return -1;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name_at(x, x->order[mid]), name);
		if (c == 0)
			return (long)x->order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void nameidx_free(struct nameidx *x)
{
	free(x->order);
	x->order = NULL;
}
