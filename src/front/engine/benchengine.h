/* benchengine.h - private to the bench engine (benchrun.c, its loop; benchpair.c, the runs of one
 * pair; benchjudge.c, the budget, the plan, adaptive allocation and the gate; benchresume.c, a
 * bench continued from its file): the engine's state and the calls between its files. Calls go
 * from benchrun.c down to the others, never back. */
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

/* benchjudge.c: after this session's first round, the rounds rule on the comparisons compare
 * will make (with the phases a program marked in that round counted) against the rounds the
 * budget holds at that round's time: extends the budget to them (need_extends) or says on
 * stderr that this budget cannot decide, and by how much. */
void engine_need_check(struct engine *e);
/* Whether the budget forbids another measured round of this session. */
int engine_budget_spent(const struct engine *e);
/* Fixes the plan of the sequential decisions at the first look (once) and records it. */
void engine_fix_plan(struct engine *e);
/* An extendable plan (share > 0) whose horizon the measured rounds reached: its next stage
 * (stats_seq_extend), recorded; nothing otherwise. */
void engine_plan_advance(struct engine *e);
/* Adaptive allocation after a measured round: asks which cells still run. Returns 1 when none
 * does (every comparison is decided), 0 otherwise, -1 on an error (err set). */
int engine_allocate(struct engine *e, char *err, size_t errlen);
/* Before the first round: the gate judged on the empty document, which refuses unknown arms and
 * workloads; its phase is left to engine_phases_named. Returns 0, or -1 (err set). */
int engine_gate_precheck(struct engine *e, char *err, size_t errlen);
/* After each round until it holds: the phase --primary names and the gate's --phase must be
 * timed by some workload (a program's marks, a driver's record) once every such workload has had
 * an ok run. Returns 0 (found, or not known yet), or -1 with the reason in err. */
int engine_phases_named(struct engine *e, char *err, size_t errlen);
/* The same, the verdict recorded in the document and the result. */
int engine_gate_check(struct engine *e, FILE *out, char *err, size_t errlen);
/* The final judgement: its lines to stdout and, with the rounds and looks, into the document. */
int engine_gate_final(struct engine *e, char *err, size_t errlen);

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
/* For --resume: ST_OK when every image the file's config.images lists is the same file now
 * (path, size and hash: exeid_same), and every arm's executable is identified somewhere (its
 * command's, or images the runs exec'd); else ST_USAGE with one line in err naming the first
 * image that changed or is gone, or the arm whose executable nothing identifies. */
enum status bench_images_same(const char *path, const cJSON *file_cfg, const cJSON *fresh_cfg,
                              char *err, size_t errlen);

#endif
