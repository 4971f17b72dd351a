/* containmode.c - the table of containment modes (docs/programs.md, "Containment"): the text a
 * run's containment.mechanism and config.containment.mechanism record, one row per combination
 * of the two parts, with what each promises as flags. The code asks the flags, never the text. */
#include "front/proc/proc.h"
#include "front/proc/contain.h"

#include <stddef.h>
#include <string.h>

struct containmode_row {
	const char *text;
	unsigned flags; /* CONTAINMODE_* */
};

static const struct containmode_row modes[] = {
	{"cgroup+proc-connector", CONTAINMODE_CGROUP | CONTAINMODE_SEES_ESCAPES},
	{"cgroup", CONTAINMODE_CGROUP},
	{"proc-connector", CONTAINMODE_SEES_ESCAPES},
	{"none", 0},
};

#define NMODES (sizeof modes / sizeof modes[0])

const char *containmode_text(unsigned flags)
{
	for (size_t i = 0; i < NMODES; i++)
		if (modes[i].flags == flags)
			return modes[i].text;
	return "none";
}

int containmode_has(const char *recorded, unsigned flags)
{
	for (size_t i = 0; recorded && i < NMODES; i++)
		if (strcmp(recorded, modes[i].text) == 0)
			return (modes[i].flags & flags) == flags;
	return 0;
}
