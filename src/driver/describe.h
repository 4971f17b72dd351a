/* describe.h - a driver's self-description behind `list` and `info` (docs/results-format.md,
 * "allocab-list/1 and allocab-info/1"). Every function takes the backend table as an argument,
 * so the unit tests link without an allocator. */
#ifndef ALLOCAB_DESCRIBE_H
#define ALLOCAB_DESCRIBE_H

#include "driver/backend.h"
#include "driver/proof.h"

#include <cjson/cJSON.h>

/* The allocab-list/1 document: b's options, then every registered workload with its phases,
 * flags and parameters. The caller owns it; NULL when memory ran out. */
cJSON *describe_list_json(const struct backend_ops *b);
/* The same as text on stdout: per workload its phases and a parameter table, then b's options. */
void describe_list_text(const struct backend_ops *b);
/* The allocab-info/1 document: tool, b's allocator (version, or null when NULL; library and the
 * proof pr), its counters, options in force, machine fingerprint. The caller owns it; NULL when
 * memory ran out. */
cJSON *describe_info_json(const struct backend_ops *b, const struct proof *pr, const char *version);
/* doc (from describe_info_json, which proved b's allocator) as text on stdout. */
void describe_info_text(const struct backend_ops *b, const cJSON *doc);

#endif
