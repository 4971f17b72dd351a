/* benchprog.h - the program side of `allocab bench` (benchprog.c): --program arms, one per
 * allocator, preloading the library front/run/preload.h resolves; --expect on --cmd arms; the
 * probe's files and environment for every run of a probed arm, and its judgement (probelog.h)
 * folded into the run object; and the final check that every arm has a verified successful run.
 * docs/programs.md describes the behaviour. */
#ifndef ALLOCAB_BENCHPROG_H
#define ALLOCAB_BENCHPROG_H

#include "front/run/bench.h"
#include "front/run/benchdoc.h"
#include "front/run/runner.h"

#include <limits.h>
#include <stdio.h>
#include <cjson/cJSON.h>

/* What the command line chose for the program side (front/cmd/benchopt.h fills it); strings
 * point into argv, except the names, which the option parser owns. */
struct bench_program_opts {
	const char *program;        /* --program COMMAND, or NULL */
	const char *allocators;     /* -a as given, or NULL */
	const char **preload_names; /* --preload NAME=LIB split at the first '=' */
	const char **preload_paths;
	size_t npreloads;
	const char **expect_names; /* --expect NAME=ALLOCATOR split likewise */
	const char **expect_allocs;
	size_t nexpects;
	int count_calls; /* --count-calls */
	/* --arm LABEL=BACKEND[:KEY=VALUE]...: program arms of a known allocator whose settings go
	 * into the program's environment (docs/tuning.md, "Programs") */
	const char **arm_specs;
	size_t narm_specs;
};

/* Where the probed arms' helpers are; zero-initialise, freed by bench_free_proof. */
struct bench_probe_paths {
	char probe[PATH_MAX]; /* build/liballocab-probe.so */
	char count[PATH_MAX]; /* build/liballocab-count.so (--count-calls) */
	char dir[PATH_MAX];   /* private directory of the per-run record files ("" none) */
	char tracking[64];    /* bench_config.tracking */
};

/* --program: c->arms from -a (default: system and every allocator whose Debian library is
 * installed, or none when --arm is given) plus the --preload names and the --arm arms (their
 * settings checked by the backend's driver and put in the arm's env), each running o->program, with
 * its library resolved and its proof set; c->wl the one workload "command"; c->program. Arm names
 * are malloc'd (the caller frees them and c->arms); the proof fields are freed by bench_free_proof.
 * Returns ST_OK, ST_FAIL (runtime: the probe library is missing, memory) or ST_USAGE (unknown
 * allocator, a library that cannot be loaded, a bad --arm, fewer than two arms) with a one-line
 * reason in err (common/status.h). */
int bench_setup_program(struct bench_config *c, const struct bench_program_opts *o,
                        struct bench_probe_paths *pp, char *err, size_t errlen);

/* --expect NAME=ALLOCATOR: sets the proof of those --cmd arms of c (the executable's own copy of
 * the allocator counts). Returns ST_OK, ST_FAIL (memory) or ST_USAGE (unknown allocator) with
 * err. */
int bench_setup_expects(struct bench_config *c, const struct bench_program_opts *o, char *err,
                        size_t errlen);

/* When an arm of c is probed: finds the probe (and, with --count-calls, the counting library),
 * creates the record directory under $TMPDIR or /tmp and finds out whether processes can be
 * tracked (front/run/ptrack.h); sets c->probe_lib, c->count_lib, c->probe_dir and
 * c->tracking. Returns ST_OK, or ST_FAIL with err (a runtime failure: no bad input here). */
int bench_setup_probe(struct bench_config *c, const struct bench_program_opts *o,
                      struct bench_probe_paths *pp, char *err, size_t errlen);

/* Frees the arms' proof fields (preload, version, expect_*) and removes the record directory
 * with whatever an interrupted bench left in it. */
void bench_free_proof(struct bench_config *c, struct bench_probe_paths *pp);

/* Whether runs of a are probed (it has an expected allocator or object). */
int bench_arm_probed(const struct bench_arm *a);

/* The record file and environment of one probed run. */
struct bench_probe_run {
	char file[PATH_MAX];
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

/* Reads and judges the records of a finished run r of a, adds "probe" to its run object and,
 * when the proof fails, makes it unverified (benchdoc_apply_probe); removes the file. */
void bench_probe_finish(const struct bench_arm *a, const struct bench_probe_run *p,
                        const struct runner_result *r, cJSON *run, enum run_status *st);

/* The arms of c whose every run in round (a round object of the document) is unverified for a
 * reason no later run can change (the run's probe.deterministic: preload failed, static
 * executable, setuid program, program links its own allocator, other allocator serves malloc;
 * docs/programs.md, "Failing loudly"). Writes "allocab: bench: ARM: no verified successful run:
 * unverified: REASON" for each to f (unless NULL) and returns how many. */
size_t bench_report_hopeless(const struct bench_config *c, const cJSON *round, FILE *f);

/* Writes "allocab: bench: ARM: no verified successful run: WHY" to f for every arm of c without
 * an ok run in a measured round of doc (WHY: the first failed run's reason, else its status,
 * exit or signal and last stderr line). Returns how many arms it named. */
size_t bench_report_unproven(const struct bench_config *c, const cJSON *doc, FILE *f);

#endif
