/* benchengine.h - private to the bench engine: struct engine, the state of one bench, and the
 * calls between the engine's files. Stated once here, not at each function:
 *
 * - Ownership. struct engine is the bench's state from engine_start to its end; it owns the
 *   document (doc, whose "rounds" array is rounds), the file's head as last written (disk), the
 *   outputs, the tables and the cells, and engine_free releases them. The config (c), the runner
 *   (rn), the stop flag and the result (res) are the caller's: read them, fill res. A round's own
 *   state is a struct engine_round, made by its plan and handed forward from stage to stage; once
 *   its evidence is recorded, its round object belongs to doc. Besides the stages' files,
 *   benchpair.c (a pair's runs: it counts them in res, numbers them by nrun and nmarks, draws
 *   their order and padding from order and pad) and benchresume.c (which fills doc, the
 *   counters, the plan and the cells from the file a bench continues) use struct engine.
 * - A round is a straight path, one call per stage, in this order (benchrun.c's loop):
 *     1. the plan            engine_round_plan      benchround.c  the pairs in a shuffled order,
 *                                                                  the round object's head
 *     2. the runs            engine_round_runs      benchround.c  each pair's runs (benchpair.c)
 *     3. the evidence        engine_round_evidence  benchround.c  the runs into doc, the tables,
 *                                                                  the cells and the counters
 *     4. the judgement       engine_judge_round     benchjudge.c  proof, the rounds rule, phases,
 *                                                                  allocation, the gate: a verdict
 *     5. the round's line    engine_round_line      benchwrite.c  the round appended to every
 *                                                                  output, its progress line
 *     6. the decisions       engine_decide          benchjudge.c  stop (a status) or run another
 *   Before the first round engine_start (benchrun.c) makes the state and engine_decide is asked
 *   with no round; after the last, engine_end (benchend.c) writes the closing append, or
 *   engine_abort (benchend.c) after a fatal error.
 * - Time. A round's clock (wall_ns, and the measured time the budget reads) spans its runs
 *   (with the progress line before each on a terminal): its bookkeeping (the plan, the
 *   evidence with the tables, the judgement, the writes) is outside it.
 * - Errors. A stage returns ST_OK, or ST_FAIL (out of memory, a write) or ST_USAGE (what the
 *   user asked cannot be done), with one line in err; the loop then aborts the bench. Runs return
 *   1 finished, 0 stopped, -1 fatal, with *fatal.
 * - Calls go from benchrun.c down to the stages and from a stage to the files it names, never
 *   back up. */
#ifndef ALLOCAB_BENCHENGINE_H
#define ALLOCAB_BENCHENGINE_H

#include "common/jsonstrict.h"
#include "front/engine/benchalloc.h"
#include "front/engine/benchdoc.h"
#include "front/engine/benchsolo.h"
#include "front/engine/phaserun.h"
#include "front/engine/engine.h"
#include "front/gate/gate.h"
#include "common/atomicio.h"
#include "common/prng.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

struct engine {
	const struct bench_config *c;
	const struct bench_runner *rn;
	const volatile sig_atomic_t *stop;
	cJSON *doc, *rounds;
	/* the outputs (c->nout; the first outs_open of them written), the rounds of doc they hold,
	 * and the head their lines state (doc without rounds, as last written) */
	struct append_out *outs;
	unsigned outs_open, written;
	cJSON *disk;
	struct rf_builder *tables; /* --gate, allocation: the rounds of doc as compare reads them */
	struct prng order, pad;
	int64_t t_start;
	int64_t measured_ns; /* summed wall time of the measured rounds, each scaled to all cells */
	double share;        /* of a whole round's time, what the cells still running take */
	unsigned done, measured; /* rounds in doc, warm-up included; of them, measured */
	/* --resume: the rounds and measured rounds of the file; this session's rounds come after
	 * them, and --rounds, --budget, --warmup and --min-rounds count this session's alone */
	unsigned done0, measured0;
	struct bench_result *res;
	int progress_shown;
	int cpu[2];          /* --duet: the two CPUs */
	unsigned long nrun;  /* runs started, for unique probe file names */
	struct bench_cells cells;   /* which arm x workload cells still run */
	struct stats_seq_plan plan; /* --gate, allocation: planned 0 until fixed */
	unsigned looks;             /* gate checks after rounds */
	unsigned long nmarks;       /* command runs started, for unique marks file names */
	char marks_dir[PATH_MAX];   /* commands mode: the runs' phase marks files ("" none) */
	struct arm_phase_names phases; /* the phase names every ok command run must mark */
	/* the rounds (and of them measured) that every output holds on disk, the rounds whose
	 * progress line was printed (a round is "done" once written), and whether a write of the
	 * document failed */
	unsigned kept, kept_measured, shown;
	int write_failed;
	/* the rounds rule counted again after this session's first round (engine_need_check): the
	 * measured rounds in all a verdict needs, and of them those this session runs whatever
	 * the budget (0: the budget decides) */
	unsigned need_total, need_session;
	int phases_named; /* the phases --primary and the gate name were found (engine_phases_named) */
};

static inline int64_t engine_now(const struct engine *e)
{
	return e->rn->now_ns(e->rn->ctx);
}

/* Whether the round after e->done is a warm-up round of this session. */
static inline int engine_warming(const struct engine *e)
{
	return e->done - e->done0 < e->c->warmup;
}

/* One round on its way through the stages (the plan makes it, each stage reads what the one
 * before left). */
struct engine_round {
	int warmup;       /* a warm-up round of this session */
	size_t npairs;    /* pairs in order: arm x workload cells, a duet's workloads */
	uint32_t *order;  /* the pairs in this round's order (freed once the runs end) */
	cJSON *round;     /* the round object: r's until the evidence adds it to doc */
	cJSON *runs;      /* its runs, as they finish (the round's from the evidence on) */
	int64_t t0, t1;   /* the runner's clock before the first run and after the last */
	const char *verdict; /* the judgement: NULL go on, "aborted" (proof), "decided" */
};

/* benchround.c: stages 1 to 3. */

/* The plan of round e->done: the pairs of c (a duet's: its workloads) in an order drawn from
 * e->order, the round object with its index, warm-up, start time and placement. ST_OK or
 * ST_FAIL (out of memory, err set; r holds nothing). */
enum status engine_round_plan(struct engine *e, struct engine_round *r, char *err, size_t errlen);
/* The runs of the pairs whose cells still run, in r's order (the progress line before each on a
 * terminal), into r->runs; r->t0 and r->t1 around them. Returns 1 when all finished; 0 when
 * stopped, -1 on a fatal error (*fatal ST_FAIL or ST_USAGE), both with r freed. */
int engine_round_runs(struct engine *e, struct engine_round *r, enum status *fatal, char *err,
                      size_t errlen);
/* The finished round into the document (its wall_ns, runs and the cells that left), the tables,
 * the cells' times and the counters. ST_OK or ST_FAIL (err set). */
enum status engine_round_evidence(struct engine *e, struct engine_round *r, char *err,
                                  size_t errlen);

/* benchjudge.c: stages 4 and 6, and the gate's judgements before the first round and at the
 * end. */

/* The judgement of the round just recorded, into r->verdict: after this session's first round an
 * arm whose proof can never hold aborts it (bench_report_hopeless), and the rounds rule is
 * checked against the budget (docs/methodology.md, "Multiplicity"); then the phases --primary and
 * the gate name, adaptive allocation and the gate's look. ST_OK, or ST_USAGE with err. */
enum status engine_judge_round(struct engine *e, struct engine_round *r, char *err,
                               size_t errlen);
/* Why the bench stops before another round (its status: r's verdict, "interrupted",
 * "complete", "budget"), or NULL to run one. r is NULL before the first round. A continuation
 * past an extendable plan takes its next stage here. */
const char *engine_decide(struct engine *e, const struct engine_round *r);
/* Before the first round: the gate judged on the empty document, which refuses unknown arms and
 * workloads; its phase is left to the judgement of the rounds. Returns 0, or -1 (err set). */
int engine_gate_precheck(struct engine *e, char *err, size_t errlen);
/* The final judgement: its lines to stdout and, with the rounds and looks, into the document. */
int engine_gate_final(struct engine *e, char *err, size_t errlen);

/* benchwrite.c: stage 5 and the writes at the end. */

/* Brings every output up to the document (docs/results-format.md, "allocab-bench/2"): a new file
 * gets its header line and the rounds so far, then each output the lines of the rounds done
 * since and, when the head changed, an update line, in one append. closing: the last append of
 * the bench, into the room kept for it; with no_rounds, rounds not yet written are left out (a
 * write of them failed). Returns 0, or non-zero with err (e->write_failed set). */
int engine_sync(struct engine *e, const char *status, int closing, int no_rounds, char *err,
                size_t errlen);
/* The round's line: unless r's verdict ends the bench (the closing append then carries it), the
 * document written with status "running", then the round's progress line. ST_OK or ST_FAIL. */
enum status engine_round_line(struct engine *e, const struct engine_round *r, char *err,
                              size_t errlen);
/* When even the closing line cannot be written (the file system turned read-only), adds to err
 * which file still says "running": it has no closing line and reads as interrupted. */
void engine_note_left_running(const struct engine *e, char *err, size_t errlen);

/* benchend.c: the end. */

/* The bench ended with status: the gate's final judgement (unless interrupted or aborted), the
 * result, the closing append; *doc (unless NULL) takes the document. Frees e. */
enum status engine_end(struct engine *e, const char *status, cJSON **doc, char *err,
                       size_t errlen);
/* A fatal error (status): the file marked "aborted" when this session wrote rounds (best effort;
 * err keeps the reason), the result says what the file keeps and whether a continuation may
 * resume it. Frees e; returns status. */
enum status engine_abort(struct engine *e, enum status status, char *err, size_t errlen);
/* What engine_end and engine_abort free (the outputs closed). */
void engine_free(struct engine *e);

/* benchpair.c: one pair's run. Returns the run object, or NULL when stopped (*fatal 0) or on a
 * fatal error (*fatal ST_FAIL runtime, ST_USAGE driver usage error; err set). */
cJSON *engine_run_pair(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                       enum status *fatal, char *err, size_t errlen);
/* --duet: both arms run workload w at once, arm i on CPU cpu[(i + swap) % 2], where swap is drawn
 * for each round from the shuffle seed (duet_round_swap); which of the two is started first is
 * drawn per pair, like the order of a sequential round. --one-cpu (c->duet_shared): every arm at
 * once on CPU cpu[swap], started in a shuffled order. Each run is prepared, probed (its helper
 * judges the probe's records) and its marks read as a run alone. Adds the run objects (with the
 * CPU: "cpu", or "pinned_cpu" where "cpu" is the CPU time), first started first, to runs. Returns
 * 1 when all finished, 0 when stopped, -1 on a fatal error (*fatal ST_FAIL or ST_USAGE). */
int engine_run_duet(struct engine *e, const struct bench_workload *w, cJSON *runs,
                    enum status *fatal, char *err, size_t errlen);

/* benchresume.c: starts e from c->resume, the document of the bench continued: takes it over as
 * e->doc and fills the text of its rounds, the tables (when e needs them), the counters, the
 * plan and the cells of adaptive allocation. Returns ST_OK, or with err ST_FAIL (out of memory,
 * rounds the tables refuse) or ST_USAGE (adaptive allocation has no cell left to run). */
enum status engine_resume(struct engine *e, char *err, size_t errlen);

/* benchimages.c: the executable images a commands bench's runs exec'd, as the probe saw them
 * (docs/results-format.md, config.images). Adds to doc's config.images, unless it is null
 * (drivers), the identity of every image a run of rounds[from..to) exec'd that it does not list
 * yet (exeid_path_json). */
void bench_images_note(cJSON *doc, const cJSON *rounds, unsigned from, unsigned to);

#endif
