/* benchrun.c - the bench engine: rounds of every (arm, workload) pair in a freshly shuffled order,
 * one padded process per run, the allocab-bench/1 document rewritten atomically after every round
 * (each round printed once: benchtext.c),
 * progress on stderr (its text: benchprogress.c), the sequential gate: judged after every
 * round from --min-rounds on with the intervals of its plan, which the document records
 * (docs/methodology.md, "Sequential decisions"), and adaptive allocation (the cells that still
 * run: benchalloc.c). Format: docs/results-format.md. */
#include "common/atomicio.h"
#include "front/run/benchalloc.h"
#include "front/run/benchdoc.h"
#include "front/run/benchprog.h"
#include "front/run/benchprogress.h"
#include "front/run/duet.h"
#include "front/run/phaserun.h"
#include "front/run/run.h"
#include "common/errmsg.h"
#include "front/gate/gate.h"
#include "common/prng.h"
#include "common/status.h"
#include "front/run/runner.h"
#include "front/run/telemetry.h"
#include "common/utf8.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAD_SEED_XOR 0x5ad5ad5ad5ad5ad5ULL

struct engine {
	const struct bench_config *c;
	const struct bench_runner *rn;
	const volatile sig_atomic_t *stop;
	cJSON *doc, *rounds;
	struct benchdoc_text text; /* the rounds of doc, each printed once */
	struct rf_builder *tables; /* --gate, allocation: the rounds of doc as compare reads them */
	struct prng order, pad;
	int64_t t_start;
	int64_t measured_ns; /* summed wall time of the measured rounds, each scaled to all cells */
	double share;        /* of a whole round's time, what the cells still running take */
	unsigned done, measured;
	struct bench_result *res;
	int progress_shown;
	int cpu[2];          /* --duet: the two CPUs */
	long status_off;     /* where the top-level status value starts in the written files */
	uint64_t running_on; /* bit i: out_paths[i] holds a version whose status is "running" */
	unsigned long nrun;  /* runs started, for unique probe file names */
	struct bench_cells cells; /* which arm x workload cells still run */
	struct stats_seq_plan plan; /* --gate: planned 0 until fixed */
	unsigned looks;             /* gate checks after rounds */
	unsigned long nmarks;      /* command runs started, for unique marks file names */
	char marks_dir[PATH_MAX];  /* commands mode: the runs' phase marks files ("" none) */
	struct phase_names phases; /* the phase names every ok command run must mark */
};

static int64_t now_ns(const struct engine *e)
{
	return e->rn->now_ns(e->rn->ctx);
}

static int real_run(void *ctx, const struct runner_spec *spec, struct runner_result *r, char *err,
                    size_t errlen)
{
	(void)ctx;
	return runner_run(spec, r, err, errlen);
}

static int64_t real_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const struct bench_runner bench_real_runner = {.run = real_run, .now_ns = real_now_ns};

static int doc_write(struct engine *e, const char *status, char *err, size_t errlen)
{
	char now[32];
	long at;
	int rc = 0;

	benchdoc_utc_now(now);
	benchdoc_set_string(e->doc, "updated_utc", now);
	benchdoc_set_string(e->doc, "status", status);
	for (size_t i = 0; rc == 0 && i < e->c->nout; i++) {
		rc = benchdoc_text_write(e->doc, &e->text, e->c->out_paths[i], &at, err, errlen);
		if (rc == 0 && i < 64) {
			e->running_on &= ~((uint64_t)1 << i);
			if (at >= 0 && strcmp(status, "running") == 0) {
				e->running_on |= (uint64_t)1 << i;
				e->status_off = at;
			}
		}
	}
	return rc;
}

/* When even the aborted document cannot be written (the disk is full), turns the "running" of
 * the versions on disk into "aborted" in place: same length, no new block needed. When that too
 * fails (a read-only file system), says in err which file still says "running". */
static void mark_aborted(struct engine *e, char *err, size_t errlen)
{
	char ignored[256];
	const char *left = NULL;
	size_t k;

	for (size_t i = 0; i < e->c->nout && i < 64; i++)
		if ((e->running_on & ((uint64_t)1 << i)) &&
		    atomic_patch(e->c->out_paths[i], e->status_off, "running", "aborted", 7,
		                 ignored, sizeof ignored) != 0 &&
		    !left)
			left = e->c->out_paths[i];
	e->running_on = 0;
	k = strlen(err);
	if (left && k + 1 < errlen)
		snprintf(err + k, errlen - k,
		         "; %s still says status 'running': nothing could be written to it", left);
}

/* The argv of one driver run; strings point into c except the two numbers in num. */
static char **driver_argv(const struct bench_config *c, const struct bench_arm *a,
                          const struct bench_workload *w, char num[2][24])
{
	size_t n = 0;
	char **v = calloc(14 + 2 * w->nparams + 2 * a->nconfig, sizeof *v);

	if (!v)
		return NULL;
	snprintf(num[0], 24, "%llu", (unsigned long long)c->seed);
	snprintf(num[1], 24, "%u", c->reps);
	v[n++] = a->path;
	v[n++] = "run";
	v[n++] = w->name;
	v[n++] = "--scale";
	v[n++] = (char *)c->scale;
	v[n++] = "--seed";
	v[n++] = num[0];
	if (c->reps) {
		v[n++] = "--reps";
		v[n++] = num[1];
	}
	if (c->time == RF_POLICY_CPU || (c->time == RF_POLICY_AUTO && w->single_threaded)) {
		v[n++] = "--steady-time";
		v[n++] = "cpu";
	}
	for (size_t i = 0; i < w->nparams; i++) {
		v[n++] = "--param";
		v[n++] = w->params[i];
	}
	for (size_t i = 0; i < a->nconfig; i++) {
		v[n++] = "--config";
		v[n++] = a->config[i];
	}
	v[n++] = "--out";
	v[n++] = "-";
	return v;
}

/* Last line of a stderr tail, for a one-line message. */
static const char *last_line(const char *tail)
{
	const char *nl = strrchr(tail, '\n');

	return nl ? nl + 1 : tail;
}

/* A probed run whose processes were not tracked (ptrace refused for it alone) makes the document's
 * config.process_tracking say so. */
static void note_tracking(struct engine *e, const cJSON *run)
{
	cJSON *config = cJSON_GetObjectItemCaseSensitive(e->doc, "config");
	const char *doc =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(config, "process_tracking"));
	const char *got = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(run, "probe"), "tracking"));

	if (got && doc && strcmp(doc, "ptrace") == 0 && strcmp(got, "ptrace") != 0)
		benchdoc_set_string(config, "process_tracking", got);
}

/* The run object of a finished process, counted; NULL with *fatal ST_USAGE when a driver rejected
 * its arguments in the first round. */
static cJSON *judge_run(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                        size_t pad, const struct runner_result *r,
                        const struct telemetry_sample tel[2], const struct bench_probe_run *pr,
                        struct phaserun *ph, int *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	enum run_status st;
	cJSON *run = benchdoc_run(c, a, w, pad, r, tel, &st);

	if (pr) {
		bench_probe_finish(a, pr, r, run, &st);
		note_tracking(e, run);
	}
	if (ph)
		phaserun_finish(ph, &e->phases, run, &st);
	if (c->mode == BENCH_DRIVERS && e->done == 0 && r->end == RUNNER_EXITED &&
	    r->exit_code == 2) {
		*fatal = ST_USAGE;
		errmsg_fail(err, errlen, "allocab-%s rejected the arguments: %s", a->name,
		            r->tail_len ? last_line(r->tail) : "(no message)");
		cJSON_Delete(run);
		return NULL;
	}
	if (st != RS_OK) {
		e->res->failed++;
		e->res->by_status[st]++;
	}
	return run;
}

/* Runs one pair. Returns the run object, or NULL when stopped (*fatal 0) or on a fatal error
 * (*fatal ST_FAIL runtime, ST_USAGE driver usage error; err set). */
static cJSON *run_pair(struct engine *e, const struct bench_arm *a, const struct bench_workload *w,
                       int *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	char num[2][24], *sh_argv[] = {"sh", "-c", a->command, NULL};
	char **argv = c->mode == BENCH_DRIVERS ? driver_argv(c, a, w, num) : sh_argv;
	size_t pad = (size_t)prng_below(&e->pad, (uint64_t)c->pad_max + 1);
	struct runner_spec spec = {
	    .path = c->mode == BENCH_DRIVERS ? a->path : "/bin/sh",
	    .argv = argv,
	    .pad_bytes = pad,
	    .timeout_s = c->timeout_s,
	    .grace_s = c->grace_s,
	    .capture_stdout = c->mode == BENCH_DRIVERS,
	    .stop = e->stop,
	};
	struct runner_result r;
	struct telemetry_sample tel[2];
	struct bench_probe_run *pr = NULL;
	struct phaserun ph = {.set = NULL};
	cJSON *run = NULL;

	*fatal = ST_OK;
	if (!argv || (bench_arm_probed(a) && !(pr = malloc(sizeof *pr)))) {
		*fatal = ST_FAIL;
		errmsg_fail(err, errlen, "out of memory");
		if (argv != sh_argv)
			free(argv);
		return NULL;
	}
	if (pr && bench_probe_prepare(c, a, e->nrun++, pr, err, errlen) != 0) {
		*fatal = ST_FAIL;
		free(pr);
		return NULL;
	}
	spec.env_set = pr ? pr->set : a->env;
	if (c->mode == BENCH_COMMANDS &&
	    phaserun_prepare(e->marks_dir, e->nmarks++, spec.env_set, &ph, err, errlen) != 0) {
		*fatal = ST_FAIL;
		if (pr)
			unlink(pr->file);
		free(pr);
		return NULL;
	}
	spec.env_set = c->mode == BENCH_COMMANDS ? ph.set : spec.env_set;
	spec.track = pr != NULL;
	telemetry_sample(&tel[0]);
	ph.lo = phaserun_clock();
	if (e->rn->run(e->rn->ctx, &spec, &r, err, errlen) != 0) {
		*fatal = ST_FAIL;
	} else if (r.end != RUNNER_STOPPED) {
		ph.hi = phaserun_clock();
		telemetry_sample(&tel[1]);
		run = judge_run(e, a, w, pad, &r, tel, pr,
		                c->mode == BENCH_COMMANDS ? &ph : NULL, fatal, err, errlen);
	}
	if (pr && !run)
		unlink(pr->file);
	if (c->mode == BENCH_COMMANDS && ph.set)
		phaserun_finish(&ph, &e->phases, NULL, NULL);
	free(pr);
	runner_result_free(&r);
	if (argv != sh_argv)
		free(argv);
	return run;
}

/* --duet: both arms run workload w at once, arm i on CPU cpu[(i + swap) % 2], where swap is drawn
 * for each round from the shuffle seed (duet_round_swap); which of the two is started first is
 * drawn per pair, like the order of a sequential round. Adds the two run objects (with their
 * "cpu"), first started first, to runs. Returns 1 when both finished, 0 when stopped, -1 on a fatal
 * error (*fatal ST_FAIL or ST_USAGE). */
static int run_duet(struct engine *e, const struct bench_workload *w, cJSON *runs, int *fatal,
                    char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	char num[2][2][24], **argv[2];
	struct runner_spec spec[2];
	struct duet_side side[2];
	size_t pad[2];
	int rc = 1, first = (int)prng_below(&e->order, 2);
	const struct bench_arm *arm[2] = {&c->arms[first], &c->arms[1 - first]};

	*fatal = ST_OK;
	for (int i = 0; i < 2; i++) {
		argv[i] = driver_argv(c, arm[i], w, num[i]);
		pad[i] = (size_t)prng_below(&e->pad, (uint64_t)c->pad_max + 1);
		spec[i] = (struct runner_spec){.path = arm[i]->path,
		                               .argv = argv[i],
		                               .pad_bytes = pad[i],
		                               .timeout_s = c->timeout_s,
		                               .grace_s = c->grace_s,
		                               .capture_stdout = 1,
		                               .stop = e->stop};
		side[i] = (struct duet_side){
		    .spec = &spec[i],
		    .cpu = e->cpu[((size_t)(arm[i] - c->arms) +
		                   (size_t)duet_round_swap(c->shuffle_seed, e->done)) %
		                  2]};
	}
	if (!argv[0] || !argv[1])
		rc = errmsg_fail(err, errlen, "out of memory");
	else if (duet_run(side, e->stop, err, errlen) != 0)
		rc = -1;
	else if (side[0].r.end == RUNNER_STOPPED || side[1].r.end == RUNNER_STOPPED)
		rc = 0;
	*fatal = rc < 0 ? ST_FAIL : ST_OK;
	for (int i = 0; rc == 1 && i < 2; i++) {
		cJSON *run = judge_run(e, arm[i], w, pad[i], &side[i].r, side[i].tel, NULL, NULL,
		                       fatal, err, errlen);

		if (!run) {
			rc = -1;
			break;
		}
		cJSON_AddNumberToObject(run, "cpu", side[i].cpu);
		cJSON_AddItemToArray(runs, run);
	}
	if (argv[0] && argv[1]) {
		runner_result_free(&side[0].r);
		runner_result_free(&side[1].r);
	}
	free(argv[0]);
	free(argv[1]);
	return rc;
}

/* The progress text of the bench so far (benchprogress.h). */
static void progress_text(struct engine *e, size_t run, size_t nruns, char *line, size_t len)
{
	const struct bench_progress p = {
	    .c = e->c,
	    .rounds = e->rounds,
	    .done = e->done,
	    .measured = e->measured,
	    .measured_ns = (int64_t)((double)e->measured_ns * bench_cells_share(&e->cells)),
	    .elapsed_s = (double)(now_ns(e) - e->t_start) / 1e9,
	};

	bench_progress_text(&p, run, nruns, line, len);
}

/* On a terminal, before each run: one line rewritten in place, cut to the terminal's width. */
static void progress(struct engine *e, size_t run, size_t nruns)
{
	char line[1024];

	progress_text(e, run, nruns, line, sizeof line);
	progress_fit(line, progress_width(2));
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	e->progress_shown = 1;
}

/* Elsewhere (a CI log, a pipe), after each round: one plain line. */
static void progress_round_line(struct engine *e)
{
	char line[1024];

	progress_text(e, 0, 0, line, sizeof line);
	fprintf(stderr, "allocab: %s\n", line);
	fflush(stderr);
}

/* Whether the pair order[i] names runs in this round: its cell has not left (in a duet, either
 * arm's cell of the workload). */
static int cell_runs(const struct engine *e, uint32_t pair)
{
	const struct bench_config *c = e->c;

	if (!c->duet)
		return e->cells.need[pair];
	return e->cells.need[pair % c->nwl] || e->cells.need[c->nwl + pair % c->nwl];
}

/* Runs round e->done. Returns 1 when finished, 0 when stopped (the round is discarded), -1 on a
 * fatal error (*fatal ST_FAIL or ST_USAGE). */
static int run_round(struct engine *e, int *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	size_t npairs = c->duet ? c->nwl : c->narms * c->nwl; /* a duet runs both arms at once */
	uint32_t *order = malloc(npairs * sizeof *order);
	cJSON *round = cJSON_CreateObject(), *runs = cJSON_CreateArray();
	int64_t t0 = now_ns(e);
	char now[32];
	int rc = 1;

	if (!order || !round || !runs) {
		free(order);
		cJSON_Delete(round);
		cJSON_Delete(runs);
		*fatal = ST_FAIL;
		return errmsg_fail(err, errlen, "out of memory");
	}
	for (uint32_t i = 0; i < npairs; i++)
		order[i] = i;
	prng_shuffle(&e->order, order, (uint32_t)npairs);
	benchdoc_utc_now(now);
	cJSON_AddNumberToObject(round, "index", e->done);
	cJSON_AddBoolToObject(round, "warmup", e->done < c->warmup);
	cJSON_AddStringToObject(round, "started_utc", now);
	for (size_t i = 0; i < npairs && rc == 1; i++) {
		const struct bench_arm *a = &c->arms[order[i] / c->nwl];
		const struct bench_workload *w = &c->wl[order[i] % c->nwl];
		cJSON *run;

		if (!cell_runs(e, order[i]))
			continue;
		if (c->progress == PROGRESS_TTY)
			progress(e, i + 1, npairs);
		if (c->duet) {
			rc = run_duet(e, w, runs, fatal, err, errlen);
			continue;
		}
		run = run_pair(e, a, w, fatal, err, errlen);
		if (run)
			cJSON_AddItemToArray(runs, run);
		else
			rc = *fatal ? -1 : 0;
	}
	free(order);
	if (rc != 1) {
		cJSON_Delete(round);
		cJSON_Delete(runs);
		return rc;
	}
	cJSON_AddNumberToObject(round, "wall_ns", (double)(now_ns(e) - t0));
	cJSON_AddItemToObject(round, "runs", runs);
	cJSON_AddItemToArray(e->rounds, round);
	if (bench_cells_record(&e->cells, c, round) != 0 ||
	    benchdoc_text_add(&e->text, round) != 0) {
		*fatal = ST_FAIL;
		return errmsg_fail(err, errlen, "out of memory");
	}
	if (e->tables && rf_builder_round(e->tables, round, err, errlen) != 0) {
		*fatal = ST_FAIL;
		return -1;
	}
	if (e->done >= c->warmup) {
		e->measured++;
		e->measured_ns += (int64_t)((double)(now_ns(e) - t0) / e->share);
		bench_cells_account(&e->cells, c, runs);
	}
	e->done++;
	e->res->runs += (size_t)cJSON_GetArraySize(runs);
	if (c->progress == PROGRESS_LINES)
		progress_round_line(e);
	return 1;
}

/* Whether the budget forbids another measured round. The estimate is the mean measured round,
 * each scaled to a whole round by the share of its time the cells that ran take
 * (bench_cells_share), times that share for the cells still running. */
static int budget_spent(const struct engine *e)
{
	const struct bench_config *c = e->c;
	double elapsed, round_s;

	if (c->budget_s <= 0 || e->done < c->warmup || e->measured < c->min_rounds ||
	    e->measured == 0)
		return 0;
	elapsed = (double)(now_ns(e) - e->t_start) / 1e9;
	round_s = (double)e->measured_ns / 1e9 / e->measured * bench_cells_share(&e->cells);
	return elapsed + round_s > c->budget_s;
}

/* The plan of the sequential decisions (the gate's, adaptive allocation's), fixed at the first
 * look and recorded in the document: --rounds,
 * else the rounds done plus those the rest of the budget holds at the mean measured round time
 * (round times, not the log ratios, decide it). */
static void fix_plan(struct engine *e)
{
	const struct bench_config *c = e->c;
	double left, round_s;

	if (e->plan.planned)
		return;
	e->plan.first_look = c->min_rounds;
	if (c->rounds) {
		e->plan.planned = c->rounds;
	} else {
		left = c->budget_s - (double)(now_ns(e) - e->t_start) / 1e9;
		round_s = (double)e->measured_ns / 1e9 / (e->measured ? e->measured : 1);
		e->plan.planned = e->measured + (left > 0 && round_s > 0 ? (size_t)(left / round_s) : 0);
	}
	benchdoc_set_plan(e->doc, &e->plan);
	e->res->planned = e->plan.planned;
}

/* Adaptive allocation after a measured round: asks which cells still run. Returns 1 when none
 * does (every comparison is decided), 0 otherwise, -1 on an error (err set). */
static int allocate(struct engine *e, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;

	if (!c->alloc || e->done <= c->warmup || e->measured < c->min_rounds)
		return 0;
	fix_plan(e);
	if (bench_cells_update(&e->cells, c, e->tables, err, errlen) != 0)
		return -1;
	e->share = bench_cells_share(&e->cells);
	return bench_cells_needed(&e->cells) == 0;
}

/* Evaluates the gate on the rounds so far, from the tables built as they ended (never reading the
 * document again); out gets the verdict lines when not NULL. Returns the verdict, or -1 on a gate
 * error (err set). */
static int gate_judge(struct engine *e, FILE *out, enum gate_outcome *g, char *err,
                      size_t errlen)
{
	const struct rf_doc *d = rf_builder_doc(e->tables, err, errlen);

	return d ? gate_spec_judge(e->c->gate, d, out, g, err, errlen) : -1;
}

/* The same, the verdict recorded in the document and the result. */
static int gate_check(struct engine *e, FILE *out, char *err, size_t errlen)
{
	enum gate_outcome g;

	if (gate_judge(e, out, &g, err, errlen) != 0)
		return -1;
	benchdoc_set_string(e->doc, "gate_outcome", gate_outcome_name(g));
	e->res->gate = (int)g;
	return (int)g;
}

/* The final judgement: its lines to stdout and, with the rounds and looks, into the document. */
static int gate_final(struct engine *e, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int g;

	if (!mem)
		return errmsg_fail(err, errlen, "out of memory");
	g = gate_check(e, mem, err, errlen);
	fclose(mem);
	if (g >= 0) {
		fputs(text ? text : "", stdout);
		benchdoc_set_decision(e->doc, gate_outcome_name((enum gate_outcome)g), e->measured,
		                      e->looks, text);
	}
	free(text);
	return g;
}

static int finish(struct engine *e, const char *status, cJSON **doc, char *err, size_t errlen)
{
	int rc;

	if (e->progress_shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	e->res->status = status;
	e->res->rounds_done = e->done;
	e->res->measured = e->measured;
	e->res->elapsed_s = (double)(now_ns(e) - e->t_start) / 1e9;
	rc = doc_write(e, status, err, errlen) == 0 ? ST_OK : ST_FAIL;
	if (rc != ST_OK)
		mark_aborted(e, err, errlen);
	if (rc == 0 && doc) {
		*doc = e->doc;
		e->doc = NULL;
	}
	cJSON_Delete(e->doc);
	benchdoc_text_free(&e->text);
	rf_builder_free(e->tables);
	bench_cells_free(&e->cells);
	return rc;
}

/* A fatal error after rounds were written: mark the file "aborted" (best effort; the reason
 * already in err is what the user needs, with a note when a file is left "running") and return
 * the exit status. */
static int abort_bench(struct engine *e, int status, char *err, size_t errlen)
{
	char ignored[256];

	if (e->progress_shown)
		fprintf(stderr, "\r\033[K");
	if (e->done > 0 && doc_write(e, "aborted", ignored, sizeof ignored) != 0)
		mark_aborted(e, err, errlen);
	cJSON_Delete(e->doc);
	benchdoc_text_free(&e->text);
	rf_builder_free(e->tables);
	bench_cells_free(&e->cells);
	return status;
}

static int run_engine(const struct bench_config *c, const volatile sig_atomic_t *stop, cJSON **doc,
                      struct bench_result *res, const char *marks_dir, char *err, size_t errlen)
{
	struct engine e = {.c = c,
	                   .rn = c->runner ? c->runner : &bench_real_runner,
	                   .stop = stop,
	                   .res = res,
	                   .share = 1};
	const char *status = "complete";
	int fatal = 0;

	snprintf(e.marks_dir, sizeof e.marks_dir, "%s", marks_dir);
	e.t_start = now_ns(&e);
	memset(res, 0, sizeof *res);
	res->gate = -1;
	if (doc)
		*doc = NULL;
	if (!(e.doc = benchdoc_new(c)) ||
	    !(e.rounds = cJSON_GetObjectItemCaseSensitive(e.doc, "rounds"))) {
		cJSON_Delete(e.doc);
		errmsg_fail(err, errlen, "out of memory");
		return ST_FAIL;
	}
	/* The gate judged on the empty document catches unknown arms before any run. */
	if ((c->gate || c->alloc) &&
	    !(e.tables = rf_builder_new(e.doc, c->nout ? c->out_paths[0] : "bench", err, errlen))) {
		cJSON_Delete(e.doc);
		return ST_FAIL;
	}
	if (c->gate && gate_judge(&e, NULL, &(enum gate_outcome){0}, err, errlen) != 0) {
		rf_builder_free(e.tables);
		cJSON_Delete(e.doc);
		return ST_USAGE;
	}
	if (c->duet &&
	    (c->narms != 2 || c->mode != BENCH_DRIVERS || duet_cpus(e.cpu, err, errlen))) {
		if (c->narms != 2 || c->mode != BENCH_DRIVERS)
			errmsg_fail(err, errlen, "--duet needs two driver arms");
		cJSON_Delete(e.doc);
		return ST_USAGE;
	}
	if (bench_cells_init(&e.cells, c) != 0) {
		cJSON_Delete(e.doc);
		errmsg_fail(err, errlen, "out of memory");
		return ST_FAIL;
	}
	prng_seed(&e.order, c->shuffle_seed);
	prng_seed(&e.pad, c->shuffle_seed ^ PAD_SEED_XOR);
	for (;;) {
		int rc;

		if (stop && *stop) {
			status = "interrupted";
			break;
		}
		if (e.done >= c->warmup && c->rounds && e.measured >= c->rounds)
			break;
		if (e.plan.planned && e.measured >= e.plan.planned) {
			status = "budget";
			break;
		}
		if (budget_spent(&e)) {
			status = "budget";
			break;
		}
		rc = run_round(&e, &fatal, err, errlen);
		if (rc < 0)
			return abort_bench(&e, fatal, err, errlen);
		if (rc == 0) {
			status = "interrupted";
			break;
		}
		if (e.done == 1 && !(e.done >= c->warmup && c->rounds && e.measured >= c->rounds) &&
		    bench_report_hopeless(c, cJSON_GetArrayItem(e.rounds, 0), NULL) > 0) {
			status = "aborted";
			break;
		}
		if ((rc = allocate(&e, err, errlen)) < 0)
			return abort_bench(&e, ST_USAGE, err, errlen);
		if (rc == 1) {
			status = "decided";
			break;
		}
		if (c->gate && e.done > c->warmup && e.measured >= c->min_rounds) {
			fix_plan(&e);
			e.looks++;
			e.res->looks = e.looks;
			int g = gate_check(&e, NULL, err, errlen);

			if (g < 0)
				return abort_bench(&e, ST_USAGE, err, errlen);
			if (g == GATE_PASS || g == GATE_FAIL) {
				status = "decided";
				break;
			}
		}
		if (doc_write(&e, "running", err, errlen) != 0)
			return abort_bench(&e, ST_FAIL, err, errlen);
	}
	benchdoc_set_string(e.doc, "status", status);
	if (c->gate && strcmp(status, "interrupted") != 0 && strcmp(status, "aborted") != 0 &&
	    gate_final(&e, err, errlen) < 0)
		return abort_bench(&e, ST_USAGE, err, errlen);
	return finish(&e, status, doc, err, errlen);
}

int bench_run(const struct bench_config *c, const volatile sig_atomic_t *stop, cJSON **doc,
              struct bench_result *res, char *err, size_t errlen)
{
	char dir[PATH_MAX] = "";
	int rc;

	if (c->mode == BENCH_COMMANDS && phaserun_dir(dir, err, errlen) != 0) {
		memset(res, 0, sizeof *res);
		res->gate = -1;
		if (doc)
			*doc = NULL;
		return ST_FAIL;
	}
	rc = run_engine(c, stop, doc, res, dir, err, errlen);
	if (dir[0])
		rmdir(dir);
	return rc;
}
