/* fingerprint.h - what machine and environment a measurement was taken on: CPU model, online
 * CPUs, kernel, glibc, transparent huge pages, CPU governor, and the allocator-steering environment
 * variables. Both the drivers and the front end record it; compare warns when two differ. */
#ifndef ALLOCAB_FINGERPRINT_H
#define ALLOCAB_FINGERPRINT_H

#include <cjson/cJSON.h>

/* Returns a new cJSON object the caller owns (cJSON_Delete), or NULL on allocation failure.
 * Fields: see docs/results-format.md, "machine". Unreadable facts are JSON null, never guessed. */
cJSON *fingerprint_json(void);

/* 16 hex digits identifying the hardware/OS part of a fingerprint object (cpu_model, online_cpus,
 * kernel, glibc, thp, governor; not env). Written into out (>= 17 bytes). Two objects with equal
 * ids came from machines we treat as the same. */
void fingerprint_id(const cJSON *machine, char out[17]);

#endif
