/* benchrun.c - the bench engine's loop: rounds of every (arm, workload) pair in a freshly
 * shuffled order (the runs: benchpair.c), each round appended to the allocab-bench/2 file once
 * it ends (doc_sync), progress on stderr (its text: benchprogress.c), and after every round what
 * benchjudge.c judges: the budget, adaptive allocation and the sequential gate
 * (docs/methodology.md, "Sequential decisions"). With --resume the loop starts from the file's
 * rounds (benchresume.c). Format: docs/results-format.md. */
#include "common/atomicio.h"
#include "common/utf8.h"
#include "front/engine/benchengine.h"
#include "front/engine/benchprog.h"
#include "front/engine/benchprogress.h"
#include "front/proc/proc.h"
#include "common/errmsg.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAD_SEED_XOR 0x5ad5ad5ad5ad5ad5ULL

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

/* The room kept beyond each output's end for its closing line (atomicio.h, append_write). */
#define CLOSING_ROOM 4096

/* line + "\n" onto *buf (well-formed UTF-8, as every line: common/utf8.h). */
static int add_line(char **buf, size_t *len, size_t *cap, const cJSON *v)
{
	char *text = utf8_fix(jst_print(v, 0));
	size_t n = text ? strlen(text) : 0;

	if (!text)
		return -1;
	if (*len + n + 2 > *cap) {
		size_t c = (*len + n + 2) * 2;
		char *b = realloc(*buf, c);
		if (!b) {
			free(text);
			return -1;
		}
		*buf = b;
		*cap = c;
	}
	memcpy(*buf + *len, text, n);
	(*buf)[*len + n] = '\n';
	*len += n + 1;
	free(text);
	return 0;
}

/* Whether an update must carry member m of the head (differs from what the file states). */
static int differs(const cJSON *disk, const cJSON *m)
{
	const cJSON *was = cJSON_GetObjectItemCaseSensitive(disk, m->string);

	return !was || !cJSON_Compare(was, m, 1);
}

/* The update line that brings the file's head (disk) to the document's: the members that differ,
 * config and facts member by member (docs/results-format.md, "allocab-bench/2"); NULL when
 * nothing differs or memory ran out (*nomem). */
static cJSON *head_update(const cJSON *disk, const cJSON *doc, int *nomem)
{
	cJSON *up = cJSON_CreateObject(), *m, *x, *sub;
	int any = 0;

	*nomem = !up || !cJSON_AddItemToObject(up, "updated_utc", cJSON_Duplicate(
	                                                cJSON_GetObjectItemCaseSensitive(doc, "updated_utc"), 1));
	for (m = doc->child; !*nomem && m; m = m->next) {
		const cJSON *was = cJSON_GetObjectItemCaseSensitive(disk, m->string);

		if (strcmp(m->string, "rounds") == 0 || strcmp(m->string, "updated_utc") == 0 ||
		    !differs(disk, m))
			continue;
		any = 1;
		if ((strcmp(m->string, "config") == 0 || strcmp(m->string, "facts") == 0) &&
		    cJSON_IsObject(m) && cJSON_IsObject(was)) {
			if (!(sub = cJSON_AddObjectToObject(up, m->string)))
				*nomem = 1;
			for (x = m->child; !*nomem && x; x = x->next)
				if (differs(was, x) &&
				    !cJSON_AddItemToObject(sub, x->string, cJSON_Duplicate(x, 1)))
					*nomem = 1;
		} else if (!cJSON_AddItemToObject(up, m->string, cJSON_Duplicate(m, 1))) {
			*nomem = 1;
		}
	}
	if (any && !*nomem)
		return up;
	cJSON_Delete(up);
	return NULL;
}

/* The head line of a new file: the document without its rounds, schema first. */
static int add_header(char **buf, size_t *len, size_t *cap, cJSON *doc)
{
	cJSON *rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds"), *schema;
	int rc;

	benchdoc_set_string(doc, "schema", RF_SCHEMA2);
	schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	if (schema && schema != doc->child) {
		cJSON_DetachItemViaPointer(doc, schema);
		cJSON_InsertItemInArray(doc, 0, schema);
	}
	if (rounds)
		cJSON_DetachItemViaPointer(doc, rounds);
	rc = add_line(buf, len, cap, doc);
	if (rounds)
		cJSON_AddItemToObject(doc, "rounds", rounds);
	return rc;
}

/* Brings every output up to the document (docs/results-format.md, "allocab-bench/2"): a new file
 * gets its header line and the rounds so far, then each output the lines of the rounds done
 * since and, when the head changed, an update line, in one append. closing: the last append of
 * the bench, into the room kept for it; with no_rounds, rounds not yet written are left out (a
 * write of them failed). */
static int doc_sync(struct engine *e, const char *status, int closing, int no_rounds, char *err,
                    size_t errlen)
{
	cJSON *sessions = cJSON_GetObjectItemCaseSensitive(e->doc, "sessions"), *up;
	char now[32], *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = 0, written = 0, nomem = 0, fresh = !e->outs_open;
	unsigned to = no_rounds ? e->written : e->done;

	benchdoc_utc_now(now);
	bench_images_note(e->doc, e->rounds, e->written, to);
	benchdoc_set_string(e->doc, "updated_utc", now);
	benchdoc_set_string(e->doc, "status", status);
	if (sessions)
		benchdoc_set_string(cJSON_GetArrayItem(sessions, cJSON_GetArraySize(sessions) - 1),
		                    "status", status);
	if (fresh && !e->disk && add_header(&buf, &len, &cap, e->doc) != 0)
		nomem = 1;
	if (fresh && !e->disk && !nomem && !(e->disk = benchdoc_head_copy(e->doc)))
		nomem = 1;
	if (fresh && e->disk)
		cJSON_DeleteItemFromObjectCaseSensitive(e->disk, "rounds");
	for (unsigned i = e->written; !nomem && i < to; i++)
		nomem = add_line(&buf, &len, &cap, cJSON_GetArrayItem(e->rounds, (int)i)) != 0;
	up = nomem ? NULL : head_update(e->disk, e->doc, &nomem);
	if (up && add_line(&buf, &len, &cap, up) != 0)
		nomem = 1;
	cJSON_Delete(up);
	if (nomem) {
		free(buf);
		e->write_failed = 1;
		return errmsg_fail(err, errlen, "out of memory");
	}
	for (size_t i = 0; rc == 0 && i < e->c->nout; i++) {
		struct append_out *o = &e->outs[i];
		if (!fresh)
			rc = len ? append_write(o, buf, len, CLOSING_ROOM, closing, err, errlen) : 0;
		else if (e->c->resume && e->c->resume_keep >= 0)
			rc = append_reopen(o, e->c->out_paths[i], e->c->resume_keep, CLOSING_ROOM, err,
			                   errlen) ||
			     append_write(o, buf, len, CLOSING_ROOM, closing, err, errlen);
		else
			rc = append_create(o, e->c->out_paths[i], buf, len, CLOSING_ROOM, err, errlen);
		if (fresh && rc == 0)
			e->outs_open = (unsigned)i + 1;
		written += rc == 0;
	}
	free(buf);
	if (rc != 0) {
		e->write_failed = 1;
		return rc;
	}
	e->written = to;
	cJSON_Delete(e->disk);
	if (!(e->disk = benchdoc_head_copy(e->doc)))
		return errmsg_fail(err, errlen, "out of memory");
	if (written == (int)e->c->nout && !no_rounds) {
		e->kept = e->done;
		e->kept_measured = e->measured;
	}
	return 0;
}

/* When even the closing line cannot be written (the file system turned read-only), says in err
 * which file still says "running": it has no closing line and reads as interrupted. */
static void note_left_running(struct engine *e, char *err, size_t errlen)
{
	size_t k = strlen(err);

	if (e->outs_open && !e->outs[0].lost && k + 1 < errlen)
		snprintf(err + k, errlen - k,
		         "; %s still says status 'running': nothing could be written to it",
		         e->c->out_paths[0]);
}

/* The progress text of the bench so far (benchprogress.h). */
static void progress_text(struct engine *e, size_t run, size_t nruns, char *line, size_t len)
{
	const struct bench_progress p = {
	    .c = e->c,
	    .rounds = e->rounds,
	    .done = e->done - e->done0,
	    .done0 = e->done0,
	    .measured = e->measured - e->measured0,
	    .measured_ns = (int64_t)((double)e->measured_ns * bench_cells_share(&e->cells)),
	    .elapsed_s = (double)(engine_now(e) - e->t_start) / 1e9,
	    .owed = e->need_session > e->measured - e->measured0
	                ? e->need_session - (e->measured - e->measured0)
	                : 0,
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

/* Whether the pair order[i] names runs in this round: its cell has not left (in a duet, any
 * arm's cell of the workload). */
static int cell_runs(const struct engine *e, uint32_t pair)
{
	const struct bench_config *c = e->c;

	if (!c->duet)
		return e->cells.need[pair];
	for (size_t a = 0; a < c->narms; a++)
		if (e->cells.need[a * c->nwl + pair % c->nwl])
			return 1;
	return 0;
}

/* Runs round e->done. Returns 1 when finished, 0 when stopped (the round is discarded), -1 on a
 * fatal error (*fatal ST_FAIL or ST_USAGE). */
static int run_round(struct engine *e, enum status *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	size_t npairs = c->duet ? c->nwl : c->narms * c->nwl; /* a duet runs every arm at once */
	uint32_t *order = malloc(npairs * sizeof *order);
	cJSON *round = cJSON_CreateObject(), *runs = cJSON_CreateArray();
	int64_t t0 = engine_now(e);
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
	cJSON_AddBoolToObject(round, "warmup", engine_warming(e));
	cJSON_AddStringToObject(round, "started_utc", now);
	benchsolo_mark(e, round);
	for (size_t i = 0; i < npairs && rc == 1; i++) {
		const struct bench_arm *a = &c->arms[order[i] / c->nwl];
		const struct bench_workload *w = &c->wl[order[i] % c->nwl];
		cJSON *run;

		if (!cell_runs(e, order[i]))
			continue;
		if (c->progress == PROGRESS_TTY)
			progress(e, i + 1, npairs);
		if (c->duet) {
			rc = engine_run_duet(e, w, runs, fatal, err, errlen);
			continue;
		}
		run = engine_run_pair(e, a, w, fatal, err, errlen);
		if (run)
			cJSON_AddItemToArray(runs, run);
		else
			rc = *fatal != ST_OK ? -1 : 0;
	}
	free(order);
	if (rc != 1) {
		cJSON_Delete(round);
		cJSON_Delete(runs);
		return rc;
	}
	cJSON_AddNumberToObject(round, "wall_ns", (double)(engine_now(e) - t0));
	cJSON_AddItemToObject(round, "runs", runs);
	cJSON_AddItemToArray(e->rounds, round);
	if (bench_cells_record(&e->cells, c, round) != 0) {
		*fatal = ST_FAIL;
		return errmsg_fail(err, errlen, "out of memory");
	}
	if (e->tables && rf_builder_round(e->tables, round, err, errlen) != 0) {
		*fatal = ST_FAIL;
		return -1;
	}
	if (!engine_warming(e)) {
		e->measured++;
		e->measured_ns += (int64_t)((double)(engine_now(e) - t0) / e->share);
		bench_cells_account(&e->cells, c, runs);
	}
	e->done++;
	e->res->runs += (size_t)cJSON_GetArraySize(runs);
	return 1;
}

/* After the document holding the round just finished was written: its progress line ("done" only
 * once the round is on disk). */
static void round_written(struct engine *e)
{
	if (e->c->progress == PROGRESS_LINES && e->kept == e->done && e->shown < e->done) {
		progress_round_line(e);
		e->shown = e->done;
	}
}

/* What the file keeps, in the result. */
static void abort_kept(struct engine *e)
{
	e->res->status = "aborted";
	e->res->rounds_done = e->kept;
	e->res->measured = e->kept_measured;
}

/* What finish and abort_bench free. */
static void engine_free(struct engine *e)
{
	cJSON_Delete(e->doc);
	e->doc = NULL;
	cJSON_Delete(e->disk);
	e->disk = NULL;
	for (size_t i = 0; e->outs && i < e->outs_open; i++)
		append_close(&e->outs[i]);
	free(e->outs);
	e->outs = NULL;
	rf_builder_free(e->tables);
	e->tables = NULL;
	bench_cells_free(&e->cells);
}

static enum status finish(struct engine *e, const char *status, cJSON **doc, char *err,
                          size_t errlen)
{
	enum status rc;

	if (e->progress_shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	e->res->status = status;
	e->res->rounds_done = e->done;
	e->res->measured = e->measured;
	e->res->elapsed_s = (double)(engine_now(e) - e->t_start) / 1e9;
	if (strcmp(status, "aborted") == 0)
		benchdoc_set_string(e->doc, "status_reason", "proof");
	rc = doc_sync(e, status, 1, 0, err, errlen) == 0 ? ST_OK : ST_FAIL;
	if (rc != ST_OK) {
		abort_kept(e);
		note_left_running(e, err, errlen);
	} else {
		round_written(e);
	}
	if (rc == ST_OK && doc) {
		*doc = e->doc;
		e->doc = NULL;
	}
	engine_free(e);
	return rc;
}

/* A fatal error after rounds were written: mark the file "aborted" (best effort; the reason
 * already in err is what the user needs, with a note when a file is left "running"), say in the
 * result what the file keeps, and return the exit status. The status_reason says whether a
 * continuation may resume it (a write that failed: docs/methodology.md, "Resuming a bench"). */
static enum status abort_bench(struct engine *e, enum status status, char *err, size_t errlen)
{
	int write_failed = e->write_failed;
	char ignored[256];

	if (e->progress_shown)
		fprintf(stderr, "\r\033[K");
	if (e->done > e->done0) {
		benchdoc_set_string(e->doc, "status_reason", write_failed ? "write" : "error");
		if (doc_sync(e, "aborted", 1, write_failed, ignored, sizeof ignored) != 0)
			note_left_running(e, err, errlen);
	}
	abort_kept(e);
	e->res->resumable = write_failed && e->kept_measured > e->measured0 &&
	                    !(e->outs_open && e->outs[0].lost);
	engine_free(e);
	return status;
}

/* The document to start from (a new one, or the resumed file's: benchresume.c), the tables, the
 * cells, the duet's CPUs and the shuffles. Returns ST_OK, or ST_FAIL or ST_USAGE with err and e
 * freed. */
static enum status engine_start(struct engine *e, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	cJSON *resume = c->resume;
	enum status rc = ST_FAIL;

	e->disk = c->resume && c->resume_keep >= 0 ? c->resume_disk : NULL;
	if (!e->disk)
		cJSON_Delete(c->resume_disk);
	if (bench_cells_init(&e->cells, c) != 0 ||
	    !(e->outs = calloc(c->nout ? c->nout : 1, sizeof *e->outs))) {
		cJSON_Delete(resume);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	if (resume) {
		if ((rc = engine_resume(e, err, errlen)) != ST_OK)
			goto fail;
		e->written = e->disk ? e->done : 0;
	} else if (!(e->doc = benchdoc_new(c)) ||
	           !(e->rounds = cJSON_GetObjectItemCaseSensitive(e->doc, "rounds"))) {
		errmsg_fail(err, errlen, "out of memory");
		goto fail;
	} else if ((c->gate || c->alloc) &&
	           !(e->tables = rf_builder_new(e->doc, c->nout ? c->out_paths[0] : "bench", err,
	                                        errlen))) {
		goto fail;
	}
	rc = ST_USAGE;
	/* The gate judged on the document before any run catches unknown arms. */
	if (c->gate && engine_gate_precheck(e, err, errlen) != 0)
		goto fail;
	if (c->duet && ((c->narms != 2 && !c->duet_shared) || c->narms < 2 ||
	                c->narms > DUET_MAX_SIDES || !bench_all_arms(c, ARM_KIND_PAIRABLE))) {
		errmsg_fail(err, errlen, "--duet needs two arms (--one-cpu 2 to %d) of kinds that can "
		            "run at once", DUET_MAX_SIDES);
		goto fail;
	}
	if (c->duet && duet_cpus(e->cpu, c->duet_shared, err, errlen) != 0)
		goto fail;
	prng_seed(&e->order, c->shuffle_seed);
	prng_seed(&e->pad, c->shuffle_seed ^ PAD_SEED_XOR);
	return ST_OK;
fail:
	if (resume && !e->doc)
		cJSON_Delete(resume);
	engine_free(e);
	return rc;
}

/* Whether this session has run its --rounds. */
static int session_done(const struct engine *e)
{
	return !engine_warming(e) && e->c->rounds && e->measured - e->measured0 >= e->c->rounds;
}

/* Why the bench stops before another round, or NULL when it runs one. */
static const char *stop_before(struct engine *e)
{
	if (e->stop && *e->stop)
		return "interrupted";
	if (session_done(e))
		return "complete";
	if (engine_budget_spent(e))
		return "budget";
	if (engine_warming(e))
		return NULL;
	if (e->done0)
		engine_plan_advance(e); /* a continuation past an extendable plan: its next stage */
	if (e->plan.planned && e->measured >= e->plan.planned)
		return e->c->budget_s > 0 ? "budget" : "complete";
	return NULL;
}

/* After a round: why the bench stops (its status), NULL to go on, or "" on an error (*fatal and
 * err set). */
static const char *stop_after(struct engine *e, enum status *fatal, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	int rc, g;

	if (e->done == e->done0 + 1 && !session_done(e) &&
	    bench_report_hopeless(c, cJSON_GetArrayItem(e->rounds, (int)e->done0), NULL) > 0)
		return "aborted";
	if (e->done == e->done0 + 1)
		engine_need_check(e);
	*fatal = ST_USAGE;
	if (engine_phases_named(e, err, errlen) != 0 || (rc = engine_allocate(e, err, errlen)) < 0)
		return "";
	if (rc == 1)
		return "decided";
	if (c->gate && e->done - e->done0 > c->warmup && e->measured >= c->min_rounds) {
		engine_fix_plan(e);
		e->looks++;
		e->res->looks = e->looks;
		if ((g = engine_gate_check(e, NULL, err, errlen)) < 0)
			return "";
		if (g == GATE_PASS || g == GATE_FAIL)
			return "decided";
	}
	*fatal = ST_FAIL;
	if (doc_sync(e, "running", 0, 0, err, errlen) != 0)
		return "";
	round_written(e);
	return NULL;
}

static enum status run_engine(const struct bench_config *c, const volatile sig_atomic_t *stop,
                              cJSON **doc, struct bench_result *res, const char *marks_dir,
                              char *err, size_t errlen)
{
	struct engine e = {.c = c,
	                   .rn = c->runner ? c->runner : &bench_real_runner,
	                   .stop = stop,
	                   .res = res,
	                   .share = 1};
	const char *status;
	enum status fatal = ST_OK, st;
	int rc;

	snprintf(e.marks_dir, sizeof e.marks_dir, "%s", marks_dir);
	e.t_start = engine_now(&e);
	memset(res, 0, sizeof *res);
	res->gate = -1;
	if (doc)
		*doc = NULL;
	if ((st = engine_start(&e, err, errlen)) != ST_OK)
		return st;
	benchdoc_facts(c, e.doc, "start", 1);
	while (!(status = stop_before(&e))) {
		rc = run_round(&e, &fatal, err, errlen);
		if (rc < 0)
			return abort_bench(&e, fatal, err, errlen);
		if (rc == 0) {
			status = "interrupted";
			break;
		}
		if ((status = stop_after(&e, &fatal, err, errlen)) && !*status)
			return abort_bench(&e, fatal, err, errlen);
		if (status)
			break;
	}
	benchdoc_set_string(e.doc, "status", status);
	benchdoc_facts(c, e.doc, "end", 0);
	if (c->gate && strcmp(status, "interrupted") != 0 && strcmp(status, "aborted") != 0 &&
	    engine_gate_final(&e, err, errlen) < 0)
		return abort_bench(&e, ST_USAGE, err, errlen);
	return finish(&e, status, doc, err, errlen);
}

enum status bench_run(const struct bench_config *c, const volatile sig_atomic_t *stop, cJSON **doc,
                      struct bench_result *res, char *err, size_t errlen)
{
	char dir[PATH_MAX] = "";
	enum status rc;

	if (bench_any_arm(c, ARM_KIND_MARKS_PHASES) && phaserun_dir(dir, err, errlen) != 0) {
		memset(res, 0, sizeof *res);
		res->gate = -1;
		if (doc)
			*doc = NULL;
		cJSON_Delete(c->resume);
		cJSON_Delete(c->resume_disk);
		return ST_FAIL;
	}
	rc = run_engine(c, stop, doc, res, dir, err, errlen);
	if (dir[0])
		rmdir(dir);
	return rc;
}
