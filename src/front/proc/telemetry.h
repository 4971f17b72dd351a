/* telemetry.h - internal to proc: the parsers of telemetry_sample (proc.h), pure for testing. Not
 * for other modules. */
#ifndef ALLOCAB_TELEMETRY_H
#define ALLOCAB_TELEMETRY_H

#include <stdint.h>

/* Parses the text of /proc/stat: the steal column (8th value) of the aggregate "cpu " line.
 * Returns 0, or -1 if the line or the column is missing (kernels before 2.6.11). */
int telemetry_parse_steal(const char *proc_stat, uint64_t *steal);
/* Parses the text of /proc/loadavg: its first field. Returns 0 or -1. */
int telemetry_parse_loadavg(const char *proc_loadavg, double *load1);
/* Parses the text of /proc/loadavg: R of its fourth field "R/T" (runnable scheduling entities,
 * the reading process included; at least 1). Returns 0 or -1. */
int telemetry_parse_runnable(const char *proc_loadavg, unsigned *runnable);

#endif
