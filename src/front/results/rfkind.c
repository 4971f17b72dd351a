/* rfkind.c - what the kind of a bench's arms makes of its runs (results.h): the mode config.mode
 * names, found in the arm kinds' own table (front/arms/arms.h, struct arm_mode). Results,
 * compare, gate, fleet and export ask its facts, never the mode's name. A new kind of arm whose
 * runs are read differently brings its mode and, where its runs differ, a flag. */
#include "front/results/results.h"
#include "front/results/rfload.h"

#include <string.h>

const struct arm_mode *rf_kind_find(const char *mode)
{
	return arm_mode_find(mode);
}

const char *rf_kind_modes(char *buf, size_t len)
{
	return arm_mode_list(buf, len);
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
