/* benchprog.h - the program side of `allocab bench` (benchprog.c): --program arms, one per
 * allocator, preloading the library front/proc/proc.h resolves; --expect on --cmd arms; the
 * probe's files and environment for every run of a probed arm, and its judgement (proc.h)
 * folded into the run object; and the final check that every arm has a verified successful run.
 * docs/programs.md describes the behaviour. */
#ifndef ALLOCAB_BENCHPROG_H
#define ALLOCAB_BENCHPROG_H

#include "front/engine/benchdoc.h"
#include "front/engine/engine.h"
#include "front/proc/proc.h"

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

/* Whether runs of a are probed (it has an expected allocator or object). */
int bench_arm_probed(const struct bench_arm *a);

/* The record file and environment of one probed run. */
struct bench_probe_run {
	char file[PATH_MAX];
	int fd; /* the bench's own descriptor of file, which the judgement reads */
	dev_t dev;
	ino_t ino;
	char vars[4][PATH_MAX + 64];
	char preload[3 * PATH_MAX + 16];
	char *set[64]; /* runner_spec.env_set */
};

/* Creates the empty record file number n and the variables of a run of a in p: program arms get
 * LD_PRELOAD=[count:]allocator:probe, --cmd arms [count:]probe (their command sets its own
 * LD_PRELOAD; the probe's exec wrappers put themselves back), plus a->env. Returns 0, or -1 with
 * err. */
int bench_probe_prepare(const struct bench_config *c, const struct bench_arm *a, unsigned long n,
                        struct bench_probe_run *p, char *err, size_t errlen);

/* Reads and judges the records of a finished run r of a into a JSON object, {"verified": BOOL,
 * "reason": TEXT, "summary": the probe's summary or null}, for bench_probe_apply; closes and
 * removes the file. The records are read from the bench's own descriptor, never through a path
 * the program may have replaced: a replaced file makes the run unverified. Made where r's
 * tracking evidence is (in a duet, its helper: front/proc/proc.h). NULL when memory ran out. */
cJSON *bench_probe_verdict(const struct bench_arm *a, struct bench_probe_run *p,
                           const struct runner_result *r);
/* Applies a verdict of bench_probe_verdict (NULL: lost, the run unverified) to the run object:
 * "probe" (its summary, taken over) and, when the proof failed, the run unverified
 * (benchdoc_apply_probe). */
void bench_probe_apply(cJSON *verdict, cJSON *run, const char *tail, enum run_status *st);

/* Closes and removes the record file of a run that was not judged. */
void bench_probe_discard(struct bench_probe_run *p);

#endif
