/* rfview.c - a document's measured rounds of one placement, solo or shared (results.h,
 * rf_view_placement): what compare checks the shared rounds of a shared-CPU bench against
 * (docs/methodology.md, "Solo anchor rounds"). */
#include "front/results/results.h"

#include <stdlib.h>
#include <string.h>

struct rf_doc *rf_view_placement(const struct rf_doc *d, int solo)
{
	struct rf_doc *v = malloc(sizeof *v);
	size_t cells = d->narms * d->nwl, k = 0;

	if (!v)
		return NULL;
	*v = *d;
	v->runs = malloc((d->nrounds * cells + 1) * sizeof *v->runs);
	v->round_index = malloc((d->nrounds + 1) * sizeof *v->round_index);
	v->round_solo = calloc(d->nrounds + 1, 1);
	v->cpu_wall = NULL;
	if (!v->runs || !v->round_index || !v->round_solo) {
		rf_view_free(v);
		return NULL;
	}
	for (size_t i = 0; i < d->nrounds; i++) {
		if ((d->round_solo && d->round_solo[i]) != (solo != 0))
			continue;
		memcpy(v->runs + k * cells, d->runs + i * cells, cells * sizeof *v->runs);
		v->round_index[k] = d->round_index[i];
		v->round_solo[k] = (unsigned char)(solo != 0);
		k++;
	}
	v->nrounds = k;
	v->nsolo = solo ? k : 0;
	return v;
}

void rf_view_free(struct rf_doc *v)
{
	if (!v)
		return;
	free(v->runs);
	free(v->round_index);
	free(v->round_solo);
	free(v->cpu_wall);
	free(v);
}
