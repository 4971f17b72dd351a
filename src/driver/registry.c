/* registry.c - the list of workloads every driver carries. Adding one: its file and a line here. */
#include "driver/workload.h"

#include <string.h>

const struct workload *const wl_registry[] = {
    &wl_parquet_load, &wl_feature_extract, &wl_batch_prep, &wl_checkpoint_write, &wl_pipeline, &wl_replay,
    NULL,
};

const struct workload *wl_find(const struct workload *const *registry, const char *name)
{
	for (const struct workload *const *w = registry; *w; w++)
		if (strcmp((*w)->name, name) == 0)
			return *w;
	return NULL;
}
