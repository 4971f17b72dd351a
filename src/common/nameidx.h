/* nameidx.h - a sorted index over names stored in an array of structs (or of char *), so that
 * readers find repeats and look names up in O(n log n) and O(log n) whatever a file holds. */
#ifndef ALLOCAB_NAMEIDX_H
#define ALLOCAB_NAMEIDX_H

#include <stddef.h>

struct nameidx {
	const char *base; /* element i's name is *(char **)(base + i * elem + off) */
	size_t n, elem, off;
	size_t *order; /* element indices sorted by name; NULL until built */
};

/* Indexes the n names of the array at base (elements of elem bytes, name pointer at offset off;
 * every name non-NULL). The array must not move while the index is used. Returns 0, or -1 when
 * memory ran out. */
int nameidx_build(struct nameidx *x, const void *base, size_t n, size_t elem, size_t off);
/* The element index of a name listed twice (its second place in array order), or -1. */
long nameidx_repeat(const struct nameidx *x);
/* The element index of name, or -1. */
long nameidx_find(const struct nameidx *x, const char *name);
void nameidx_free(struct nameidx *x);

#endif
