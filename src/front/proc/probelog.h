/* probelog.h - the records of build/liballocab-probe.so (src/preload/probe.c) for one run: reading
 * the per-run record file, judging whether every process the run started ran on the expected
 * allocator (against the images the process tracker saw, front/run/ptrack.h, when it could attach),
 * and the summary a results document keeps (probesum.c). Record and summary formats:
 * docs/results-format.md ("Probe records"). */
#ifndef ALLOCAB_PROBELOG_H
#define ALLOCAB_PROBELOG_H

#include <stddef.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

struct ptrack;
struct contain;

/* Most bytes of a record file read (probelog_max_bytes); more makes the run unverified. A process
 * writes a start, an exec and an exit record of 1 to 2 KiB each as a rule, longer with long paths
 * and preload lists: 16 KiB per process the tracker counted, on top of 8 MiB, keeps any honest
 * run within the limit, and the whole is capped at 1/32 of physical memory (the parsed records
 * take several times the text) but never below 8 MiB. docs/programs.md, "Limits". */
#define PROBELOG_MAX_BYTES         (8u << 20)
#define PROBELOG_BYTES_PER_PROCESS (16u << 10)
size_t probelog_max_bytes(size_t processes);

/* What a run's processes must show. Extensible: zero-initialise and set what applies. */
struct probe_expect {
	const char *allocator; /* known allocator name (common/allocknown.h), or NULL */
	const char *object;    /* realpath of the object that must serve malloc, or NULL: any object
	                          of `allocator` (one of the two is set) */
	int exe_counts;        /* an executable defining the allocator itself is proof (--expect) */
	/* The bench's own shell (--cmd arms): its first image and its fork children are exempt from
	 * the allocator check, and some other image must report. 0: none. */
	pid_t launcher;
	const char *launcher_exe; /* realpath of that shell */
	/* A configured arm: every exec'ed image that does not exec again must end with an exit
	 * record holding the read-back ("configuration unchecked" otherwise). */
	int configured;
};

struct probe_verdict {
	int verified;
	/* the reason is one no later run can change (docs/programs.md, "Failing loudly"): preload
	 * failed, static executable, setuid program, program links its own allocator, other
	 * allocator serves malloc */
	int deterministic;
	char reason[768];  /* one line when !verified */
	char tracking[64]; /* how the run's processes were known: ptrack_describe */
	int tracked;       /* the tracker saw every process: processes and threads are its counts */
	size_t processes; /* tracked: processes the run started; else distinct pids that reported */
	size_t threads;   /* tracked: threads the run started; else 0 */
	size_t images;    /* process images that reported (start and fork records) */
	size_t records;
};

/* Reads the JSON lines of path into a cJSON array (*out, the caller deletes it); lines that are
 * not allocab-probe/1 objects with distinct member names are skipped and counted in *bad (a
 * bench then calls the run unverified: the probe writes whole lines, one write each). Each
 * record's valuedouble (unused by cJSON for an object) holds the byte offset of its line in the
 * file. Returns 0, or -1 with a reason in err (not a regular file, unreadable or over max
 * bytes: probelog_max_bytes). The path is opened O_NOFOLLOW | O_NONBLOCK and read within the
 * limit. */
int probelog_read(const char *path, size_t max, cJSON **out, size_t *bad, char *err,
                  size_t errlen);
/* The same from an open descriptor (read with pread from offset 0; not closed). */
int probelog_read_fd(int fd, const char *name, size_t max, cJSON **out, size_t *bad, char *err,
                     size_t errlen);

/* Judges the records of one run whose first process was top, against e; tail is the run's stderr
 * tail (for the dynamic linker's "cannot be preloaded" line) or NULL; track is what the process
 * tracker saw (NULL or refused: the probe's own exec and spawn records are all there is); cn what
 * containment saw (NULL: none). Every image the tracker saw must have sent a start record written
 * after its exec; every exec the connector saw must have been tracked (or, untracked, have
 * reported); a tracked run accepts records of its own processes only. Fills *v. The reasons, in
 * this priority: "preload failed: ...", "static executable ...", "setuid program ...",
 * "... escaped process tracking (CLONE_UNTRACED)", containment failures, "... sent no probe
 * report", records of processes the run did not start, "program links its own allocator (...)",
 * "other allocator serves malloc: ...", "second allocator loaded: ...", "configuration not in
 * force: KEY=V read back W ..." (an exit record's "config" read-back), "configuration unchecked:
 * ...". */
void probelog_judge(const cJSON *records, const struct probe_expect *e, pid_t top, const char *tail,
                    const struct ptrack *track, const struct contain *cn,
                    struct probe_verdict *v);

/* The "probe" object of a run in the results document (docs/results-format.md): the verdict, how
 * processes were tracked, the counts of processes, threads, images and records, the total calls
 * with --count-calls, and at most PROBELOG_LISTED images (the ones that did the most work always
 * among them) with pid, ppid, exe, allocator, version, object, exe_allocator, CPU time, calls and
 * the "config" read-back of its exit record. e marks the launcher as probelog_judge does (may be
 * NULL). NULL when memory ran out. */
#define PROBELOG_LISTED 64
cJSON *probelog_summary(const cJSON *records, const struct probe_expect *e,
                        const struct probe_verdict *v);

#endif
