/* benchend.c - the end of a bench (benchengine.h): its closing append with the status it ended
 * with, or after a fatal error the file marked "aborted"; what the result says of the file; the
 * engine's state freed. */
#include "front/engine/benchengine.h"
#include "front/engine/benchprogress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the file keeps, in the result. */
static void abort_kept(struct engine *e)
{
	e->res->status = "aborted";
	e->res->rounds_done = e->kept;
	e->res->measured = e->kept_measured;
}

void engine_free(struct engine *e)
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

/* The closing append with status, the result filled; *doc (unless NULL) takes the document. */
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
	rc = engine_sync(e, status, 1, 0, err, errlen) == 0 ? ST_OK : ST_FAIL;
	if (rc != ST_OK) {
		abort_kept(e);
		engine_note_left_running(e, err, errlen);
	} else {
		engine_progress_written(e);
	}
	if (rc == ST_OK && doc) {
		*doc = e->doc;
		e->doc = NULL;
	}
	engine_free(e);
	return rc;
}

enum status engine_end(struct engine *e, const char *status, cJSON **doc, char *err,
                       size_t errlen)
{
	benchdoc_set_string(e->doc, "status", status);
	benchdoc_facts(e->c, e->doc, "end", 0);
	if (e->c->gate && strcmp(status, "interrupted") != 0 && strcmp(status, "aborted") != 0 &&
	    engine_gate_final(e, err, errlen) < 0)
		return engine_abort(e, ST_USAGE, err, errlen);
	return finish(e, status, doc, err, errlen);
}

/* The status_reason says whether a continuation may resume the file (a write that failed:
 * docs/methodology.md, "Resuming a bench"); err keeps the reason, with a note when a file is
 * left "running". */
enum status engine_abort(struct engine *e, enum status status, char *err, size_t errlen)
{
	int write_failed = e->write_failed;
	char ignored[256];

	if (e->progress_shown)
		fprintf(stderr, "\r\033[K");
	if (e->done > e->done0) {
		benchdoc_set_string(e->doc, "status_reason", write_failed ? "write" : "error");
		if (engine_sync(e, "aborted", 1, write_failed, ignored, sizeof ignored) != 0)
			engine_note_left_running(e, err, errlen);
	}
	abort_kept(e);
	e->res->resumable = write_failed && e->kept_measured > e->measured0 &&
	                    !(e->outs_open && e->outs[0].lost);
	engine_free(e);
	return status;
}
