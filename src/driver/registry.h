/* registry.h - the workloads every driver carries (registry.c): the concrete tables of
 * workloads/ and the list in `list` order. Adding a workload: its file, a line here and one in
 * registry.c (docs/workloads.md, "Adding a workload"). */
#ifndef ALLOCAB_REGISTRY_H
#define ALLOCAB_REGISTRY_H

#include "driver/workload.h"

extern const struct workload wl_parquet_load;
extern const struct workload wl_feature_extract;
extern const struct workload wl_batch_prep;
extern const struct workload wl_checkpoint_write;
extern const struct workload wl_pipeline;
extern const struct workload wl_replay;

/* NULL-terminated registry of every workload, in `list` order. */
extern const struct workload *const wl_registry[];

#endif
