/* trackmode.h - how the processes of probed runs were known, one row per mode (docs/programs.md,
 * "Process tracking"; docs/results-format.md, config.process_tracking and a run's
 * probe.tracking). The writers of the recorded text and its readers ask this table, never the
 * text: a mode is a row with its recorded text and capability flags. */
#ifndef ALLOCAB_TRACKMODE_H
#define ALLOCAB_TRACKMODE_H

#include <stddef.h>

enum trackmode {
	TRACKMODE_PTRACE,         /* ptrace: every process tracked, escapes excluded */
	TRACKMODE_PTRACE_ESCAPES, /* "ptrace, escapes not excluded (WHY)": no proc connector */
	TRACKMODE_PROBE_ONLY,     /* "probe only (WHY)": ptrace refused, the probe's records alone */
};

/* Every process of a run is known and none can escape: the one mode nothing warns about, and
 * the stronger of two a continued file keeps the weaker of. */
#define TRACKMODE_EVERY_PROCESS 1u

/* The recorded text of mode m into buf ("TEXT" or "TEXT (why)"; a mode without a reason ignores
 * why); returns buf. */
const char *trackmode_text(enum trackmode m, const char *why, char *buf, size_t len);

/* Whether a recorded text is of a mode with every flag of flags (flags 0: of any mode): 0 for
 * NULL or a text no row writes (an unknown mode promises nothing). */
int trackmode_has(const char *recorded, unsigned flags);

#endif
