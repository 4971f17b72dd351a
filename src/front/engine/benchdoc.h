/* benchdoc.h - building an allocab-bench/2 document, shared by the bench engine: its head
 * (benchdoc.c) and its run objects (benchdocrun.c). */
#ifndef ALLOCAB_BENCHDOC_H
#define ALLOCAB_BENCHDOC_H

#include "front/engine/engine.h"
#include "front/proc/proc.h"
#include "front/stats/stats.h"

#include <cjson/cJSON.h>

/* Run statuses, in the order of bench_run_status_name. */
enum run_status { RS_OK, RS_FAILED, RS_UNVERIFIED, RS_CRASHED, RS_TIMEOUT, RS_INVALID, RS_COUNT };
_Static_assert(RS_COUNT == BENCH_NSTATUS, "engine.h counts the run statuses");

/* The machine's facts into doc's "facts" as member when (facts_record; keep as there): measured
 * with the real runner, a stand-in runner's own (bench_runner.facts) or none. */
void benchdoc_facts(const struct bench_config *c, cJSON *doc, const char *when, int keep);
/* A copy of doc without its rounds (the file's head), the rounds left where they are in doc;
 * NULL when out of memory. */
cJSON *benchdoc_head_copy(cJSON *doc);

/* Records the sequential gate's plan in config.sequential (docs/results-format.md): what compare
 * and gate read back to judge the rounds the way the bench looked at them. */
void benchdoc_set_plan(cJSON *d, const struct stats_seq_plan *p);
/* Records the gate's last judgement as the top-level "gate_decision": its outcome, the measured
 * rounds and looks it was made after, and its lines (text, one line each). */
void benchdoc_set_decision(cJSON *d, const char *outcome, unsigned rounds, unsigned looks,
                           const char *text);

/* The run object of a finished process (r->end is not RUNNER_STOPPED): status, exit, signal,
 * stderr tail, process figures, telemetry (tel[0] before, tel[1] after) and, for a driver, its
 * record when stdout holds one. Writes the status to *st. The caller owns the object. */
cJSON *benchdoc_run(const struct bench_arm *a, const struct bench_workload *w, size_t pad,
                    const struct runner_result *r, const struct telemetry_sample tel[2],
                    enum run_status *st);

/* Adds the probe's judgement of a probed run to its run object: "probe" (summary, taken over;
 * may be NULL) and, when the proof failed and the run was ok or failed, status "unverified"
 * with the one-line "reason" and the stderr tail. Updates *st. */
void benchdoc_apply_probe(cJSON *run, int verified, const char *reason, cJSON *summary,
                          const char *tail, enum run_status *st);

/* The time a run shows in the bench's progress line, in ns: record.regimes.steady_ns for a driver
 * that measured the steady state, else the median over reps of record.reps[].phases.total.wall_ns,
 * process.wall_ns for a command; NAN unless the run is ok. */
double benchdoc_run_time(const cJSON *run);

#endif
