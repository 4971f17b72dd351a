/* planint.h - private to the plan module: the steps of plan_build that live in their own files,
 * and the program arms' setup (program.c). */
#ifndef ALLOCAB_PLANINT_H
#define ALLOCAB_PLANINT_H

#include "front/plan/plan.h"

/* The first plain arm whose backend is flagged baseline, or NULL (arms.c). */
const char *plan_flagged_baseline(const struct bench_plan *s);

/* The arms, their workloads and the probe (arms.c); ST_OK, ST_USAGE or ST_FAIL with err. */
enum status plan_arms(struct bench_plan *s, struct bench_opts *o, char *err, size_t errlen);

/* The one workload setup of bench and calibrate (drivers.c): asks the first arm's driver for its
 * workloads (into s->list), and routes the -w selection (workloads, a comma list; NULL: the
 * defaults) and the --param values of s->c to s->c.wl (bench_route_workloads). Returns ST_OK, or
 * with err ST_USAGE (an unknown workload, a --param no selected workload takes) or ST_FAIL. */
enum status plan_workloads(struct bench_plan *s, const char *workloads, char *err, size_t errlen);

/* The file resumed, the outputs and the machine's lock (outputs.c); ST_OK, ST_USAGE or ST_FAIL
 * with err. */
enum status plan_outputs(struct bench_plan *s, const struct bench_opts *o, char *err,
                         size_t errlen);

/* --program: c->arms from -a (default: system and every allocator whose Debian library is
 * installed, or none when --arm is given) plus the --preload names and the --arm arms (their
 * settings checked by the backend's driver and put in the arm's env), each running o->program, with
 * its library resolved and its proof set; c->wl the one workload "command"; c->program. Arm names
 * are malloc'd (the caller frees them and c->arms); their private data is freed by
 * bench_free_proof. Returns ST_OK, ST_FAIL (runtime: the probe library is missing, memory) or
 * ST_USAGE (unknown allocator, a library that cannot be loaded, a bad --arm, fewer than two arms)
 * with a one-line reason in err (common/status.h). */
enum status bench_setup_program(struct bench_config *c, const struct bench_program_opts *o,
                                struct bench_probe_paths *pp, char *err, size_t errlen);

/* --expect NAME=ALLOCATOR: sets the proof of those --cmd arms of c (the executable's own copy of
 * the allocator counts). Returns ST_OK, ST_FAIL (memory) or ST_USAGE (unknown allocator) with
 * err. */
enum status bench_setup_expects(struct bench_config *c, const struct bench_program_opts *o,
                                char *err, size_t errlen);

/* When an arm of c is probed: finds the probe (and, with --count-calls, the counting library),
 * creates the record directory under $TMPDIR or /tmp and finds out whether processes can be
 * tracked (front/proc/ptrack.h); sets c->probe_lib, c->count_lib, c->probe_dir and
 * c->tracking. Returns ST_OK, or ST_FAIL with err (a runtime failure: no bad input here). */
enum status bench_setup_probe(struct bench_config *c, const struct bench_program_opts *o,
                              struct bench_probe_paths *pp, char *err, size_t errlen);

/* Frees every arm's private data (a driver's path; a proof, with a program's settings and
 * environment) and removes the record directory with whatever an interrupted bench left in it. */
void bench_free_proof(struct bench_config *c, struct bench_probe_paths *pp);

#endif
