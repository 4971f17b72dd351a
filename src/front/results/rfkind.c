/* rfkind.c - what the kind of a bench's arms makes of its runs, one row per config.mode
 * (results.h, struct rf_kind): results, compare, gate, fleet and export ask these facts, never the
 * mode's name. A new kind of arm whose runs are read differently adds a row and, where its runs
 * differ, a flag. */
#include "front/results/results.h"
#include "front/results/rfload.h"

#include <stdio.h>
#include <string.h>

static const struct rf_kind kinds[] = {
	{.mode = "drivers",
	 .runs = "driver",
	 .flags = RF_KIND_DRIVER_RECORD,
	 .fallback_baseline = "system"},
	{.mode = "commands", .runs = "command", .flags = RF_KIND_WHOLE_PROCESS},
};

#define NKINDS (sizeof kinds / sizeof kinds[0])

const struct rf_kind *rf_kind_find(const char *mode)
{
	for (size_t i = 0; mode && i < NKINDS; i++)
		if (strcmp(kinds[i].mode, mode) == 0)
			return &kinds[i];
	return NULL;
}

const char *rf_kind_modes(char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < NKINDS && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s\"%s\"",
		                      i == 0 ? "" : i + 1 == NKINDS ? " or " : ", ", kinds[i].mode);
	return buf;
}

const char *rl_fallback_baseline(const struct rf_doc *d)
{
	const char *fb = d->kind->fallback_baseline;

	/* not rf_arm: rfdoc.c asks this file's rf_kind_has, and calls go one way */
	for (size_t i = 0; fb && i < d->narms; i++)
		if (strcmp(d->arms[i], fb) == 0)
			return fb;
	return d->arms[0];
}

int rf_kind_has(const struct rf_doc *d, unsigned flags)
{
	return d->kind && (d->kind->flags & flags) == flags;
}
