/* probelog.h - the records of build/liballocab-probe.so (src/preload/probe.c) for one run: reading
 * the per-run record file, judging whether every process the run started ran on the expected
 * allocator, and the summary a results document keeps. Record and summary formats:
 * docs/results-format.md ("Probe records"). */
#ifndef ALLOCAB_PROBELOG_H
#define ALLOCAB_PROBELOG_H

#include <stddef.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

/* Most bytes of a record file read; more makes the run unverified. */
#define PROBELOG_MAX_BYTES (8u << 20)

/* What a run's processes must show. Extensible: zero-initialise and set what applies. */
struct probe_expect {
	const char *allocator; /* known allocator name (common/allocknown.h), or NULL */
	const char *object;    /* realpath of the object that must serve malloc, or NULL: any object
	                          of `allocator` (one of the two is set) */
	int exe_counts;        /* an executable defining the allocator itself is proof (--expect) */
	pid_t launcher;        /* the bench's own shell (commands): exempt with its fork children */
	const char *launcher_exe; /* realpath of that shell */
};

struct probe_verdict {
	int verified;
	char reason[768]; /* one line when !verified */
	size_t processes; /* distinct processes that reported */
	size_t records;
};

/* Reads the JSON lines of path into a cJSON array (*out, the caller deletes it); lines that are
 * not JSON objects are skipped and counted in *bad. Returns 0, or -1 with a reason in err (file
 * unreadable or over PROBELOG_MAX_BYTES). */
int probelog_read(const char *path, cJSON **out, size_t *bad, char *err, size_t errlen);

/* Judges the records of one run whose first process was top, against e; tail is the run's stderr
 * tail (for the dynamic linker's "cannot be preloaded" line) or NULL. Fills *v. The reasons, in
 * this priority: "preload failed: ...", "static executable ...", "setuid program ...", "no probe
 * report ...", "program links its own allocator (...)", "other allocator serves malloc: ...",
 * "configuration not in force: KEY=V read back W ..." (an exit record's "config" read-back). */
void probelog_judge(const cJSON *records, const struct probe_expect *e, pid_t top, const char *tail,
                    struct probe_verdict *v);

/* The "probe" object of a run in the results document: verified, reason, counts, and per process
 * (at most 64) pid, ppid, exe, allocator, version, object, exe_allocator and the call counts of
 * --count-calls and the "config" read-back of its exit record. NULL when memory ran out. */
cJSON *probelog_summary(const cJSON *records, const struct probe_verdict *v);

#endif
