/* probe.h - internals shared by the files of build/liballocab-probe.so (probe.c: what serves
 * malloc and the records; probe_exec.c: exec and spawn wrappers that keep the probe in the
 * environment of exec'ed programs). The library's interface is its environment and its record
 * file, documented in docs/programs.md and docs/results-format.md. */
#ifndef ALLOCAB_PROBE_H
#define ALLOCAB_PROBE_H

#include <stddef.h>
#include <sys/types.h>

/* The library is built with -fvisibility=hidden (Makefile): only what is marked with this is
 * exported, i.e. the interposed libc functions. */
#define PROBE_EXPORT __attribute__((visibility("default")))

/* The per-run record file (absolute path) the probe appends to; unset: the probe does nothing. */
#define PROBE_FILE_VAR "ALLOCAB_PROBE_FILE"
/* Set by the bench to the probe's own path, so exec'ed programs get it back in LD_PRELOAD. */
#define PROBE_LIB_VAR "ALLOCAB_PROBE_LIB"
/* With --count-calls: the counting library, kept first in LD_PRELOAD of exec'ed programs. */
#define PROBE_COUNT_VAR "ALLOCAB_COUNT_LIB"
/* Set by the bench for a configured arm: the settings to read back at exit (probe_config.c). */
#define PROBE_CONFIG_VAR "ALLOCAB_PROBE_CONFIG"
/* Before a READER in that spec: the reader returns only the library's parse of the request, so
 * the setting is recorded "requested, effect unproven" (docs/results-format.md). */
#define PROBE_REQUESTED_PREFIX "requested_"
/* The schema tag of every record. */
#define PROBE_SCHEMA "allocab-probe/1"

/* Whether the probe is active in this process (PROBE_FILE_VAR was set at start). */
int probe_active(void);

/* Appends one event record {"probe":..,"event":EVENT,"pid":..,"ppid":..,<extra>} with a single
 * write; extra is a JSON fragment ("\"path\":\"...\"") or NULL. Async-signal-safe enough for a
 * vfork child: no malloc, stack buffers only. */
void probe_event(const char *event, const char *extra);

/* Writes s as it is into buf at *k, or nothing when it does not fit below len. */
void probe_put(char *buf, size_t len, size_t *k, const char *s);

/* Writes s as a JSON string (quotes included) into buf at *k, never past len. */
void probe_json_str(char *buf, size_t len, size_t *k, const char *s);

/* The value LD_PRELOAD must have for a program exec'ed with environment value cur (NULL: unset):
 * cur with the probe appended and the counting library prepended when missing. Returns buf, or
 * NULL when nothing needs to change or buf is too small. */
const char *probe_fix_preload(const char *cur, char *buf, size_t len);

/* The probe's path and the record file path, captured at start ("" when inactive). */
const char *probe_self_path(void);
const char *probe_file_path(void);
const char *probe_count_path(void);

/* Writes the image's "exit" record (with the read-back of a configured arm): the destructor at
 * a normal exit, and the _exit wrapper (probe_exec.c). */
void probe_exit(void);

/* Which counts probe_work_json adds. */
enum probe_counts {
	PROBE_COUNTS_NONE,
	PROBE_COUNTS_TRY,  /* an exec, maybe from a vfork child: left out rather than wait for the
	                      counting library's lock */
	PROBE_COUNTS_WAIT, /* at normal exit */
};

/* probe_rusage.c: ",\"cpu_ns\":N" (the process's CPU time so far: CLOCK_PROCESS_CPUTIME_ID,
 * which an exec keeps), when split is set ",\"user_ns\":U,\"sys_ns\":S" (the same split into
 * user and system time, from getrusage(RUSAGE_SELF), which an exec keeps too; the exit record has
 * it once, in its rusage) and, when the counting library is loaded and c asks, ",\"counts\":{...}"
 * (its totals) into out (len bytes, always terminated). No malloc. */
void probe_work_json(char *out, size_t len, enum probe_counts c, int split);

/* The realpath of the object that holds p (the executable's path for the executable) into buf;
 * returns buf, or NULL when p lies in no loaded object. */
const char *probe_object_of(const void *p, char *buf, size_t len);

/* Takes the read-back spec (the value of PROBE_CONFIG_VAR, or NULL) at start: up to
 * PROBE_CONFIG_MAX items "NAME=READER:KEY:VALUE" joined by ';' (docs/results-format.md).
 * Malformed items are kept as unreadable. No allocation. */
#define PROBE_CONFIG_MAX 32
void probe_config_init(const char *spec);

/* Appends ",\"config\":{...}" to buf at *k (never past len) when a spec was given: per setting
 * the requested value and what the reader of the allocator in the object serving malloc
 * (serving: its path) reports in force, or why it is unreadable. */
void probe_config_json(char *buf, size_t len, size_t *k, const char *serving);

/* probe_rusage.c: appends ,"rusage":{minflt, majflt, nvcsw, nivcsw, user_ns, sys_ns} of the
 * process now (getrusage RUSAGE_SELF, every thread) at buf + *k, advancing *k; nothing when it
 * does not fit. */
void probe_rusage_json(char *buf, size_t len, size_t *k);

#endif
