/* registry.c - the list of workloads every driver carries (registry.h). Adding one: its file and
 * a line here and in registry.h (docs/workloads.md, "Adding a workload"). */
#include "driver/registry.h"

#include <string.h>

const struct workload *const wl_registry[] = {
    &wl_parquet_load, &wl_feature_extract, &wl_batch_prep, &wl_checkpoint_write,
    &wl_pipeline,     &wl_replay,          NULL,
};

const char *const wl_flag_names[WL_FLAG_COUNT] = {"single_threaded", "show_phases", "needs_input"};

const struct workload *wl_find(const struct workload *const *registry, const char *name)
{
	for (const struct workload *const *w = registry; *w; w++)
		if (strcmp((*w)->name, name) == 0)
			return *w;
	return NULL;
}
