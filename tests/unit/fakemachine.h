/* fakemachine.h - another machine for a fake runner's bench (tests/unit/fakebench.h,
 * tests/tools/mkfleet.c): this machine's fingerprint (common/fingerprint.h) with " SUFFIX" after
 * its CPU model and its id recomputed from the fields, as the reader recomputes it; with a NULL
 * SUFFIX this machine as it is. NULL when memory runs out. */
#ifndef ALLOCAB_TEST_FAKEMACHINE_H
#define ALLOCAB_TEST_FAKEMACHINE_H

#include "common/fingerprint.h"

#include <stdio.h>

static inline cJSON *fakemachine_as(const char *suffix)
{
	cJSON *m = fingerprint_json();
	const char *cpu =
	        m ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "cpu_model")) : NULL;
	char buf[512], id[17];

	if (!m || !suffix)
		return m;
	snprintf(buf, sizeof buf, "%s %s", cpu ? cpu : "CPU", suffix);
	cJSON_ReplaceItemInObjectCaseSensitive(m, "cpu_model", cJSON_CreateString(buf));
	fingerprint_id(m, id);
	cJSON_ReplaceItemInObjectCaseSensitive(m, "id", cJSON_CreateString(id));
	return m;
}

#endif
