/* telemetry.h - what else was happening on the machine around a run: CPU time stolen by the
 * hypervisor (/proc/stat), the 1-minute load average and the tasks runnable at that moment
 * (/proc/loadavg). Recorded per run so that
 * compare can flag rounds disturbed from outside (docs/methodology.md, "Noise telemetry and
 * drift"). The parsers are pure for testing.
 */
#ifndef ALLOCAB_TELEMETRY_H
#define ALLOCAB_TELEMETRY_H

#include <stdint.h>

struct telemetry_sample {
	int have_steal, have_load, have_runnable;
	uint64_t steal_ticks; /* aggregate "cpu" line, USER_HZ ticks summed over all CPUs */
	double loadavg_1m;
	unsigned runnable; /* tasks runnable or running now, the reader included (field 4, R of R/T) */
};

/* Parses the text of /proc/stat: the steal column (8th value) of the aggregate "cpu " line.
 * Returns 0, or -1 if the line or the column is missing (kernels before 2.6.11). */
int telemetry_parse_steal(const char *proc_stat, uint64_t *steal);
/* Parses the text of /proc/loadavg: its first field. Returns 0 or -1. */
int telemetry_parse_loadavg(const char *proc_loadavg, double *load1);
/* Parses the text of /proc/loadavg: R of its fourth field "R/T" (runnable scheduling entities,
 * the reading process included; at least 1). Returns 0 or -1. */
int telemetry_parse_runnable(const char *proc_loadavg, unsigned *runnable);

/* Reads both files now; facts that cannot be read are left unset (have_* = 0). */
void telemetry_sample(struct telemetry_sample *t);

#endif
