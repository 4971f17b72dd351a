/* benchwrite.c - the bench engine's writes of its document (benchengine.h, "The round's line"):
 * each output brought up to the document, as the rounds end (the round's line, and an update line
 * when the head changed) and once more at the end (the closing append). Format:
 * docs/results-format.md, "allocab-bench/2". */
#include "common/atomicio.h"
#include "common/utf8.h"
#include "front/engine/benchengine.h"
#include "front/engine/benchprogress.h"
#include "common/errmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The room kept beyond each output's end for its closing line (atomicio.h, append_write). */
#define CLOSING_ROOM 4096

/* The text of one append: whole lines. */
struct lines {
	char *buf;
	size_t len, cap;
};

/* line + "\n" onto b (well-formed UTF-8, as every line: common/utf8.h). */
static int add_line(struct lines *b, const cJSON *v)
{
	char *text = utf8_fix(jst_print(v, 0));
	size_t n = text ? strlen(text) : 0;

	if (!text)
		return -1;
	if (b->len + n + 2 > b->cap) {
		size_t c = (b->len + n + 2) * 2;
		char *p = realloc(b->buf, c);
		if (!p) {
			free(text);
			return -1;
		}
		b->buf = p;
		b->cap = c;
	}
	memcpy(b->buf + b->len, text, n);
	b->buf[b->len + n] = '\n';
	b->len += n + 1;
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

	*nomem = !up ||
	         !cJSON_AddItemToObject(
	             up, "updated_utc",
	             cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(doc, "updated_utc"), 1));
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
static int add_header(struct lines *b, cJSON *doc)
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
	rc = add_line(b, doc);
	if (rounds)
		cJSON_AddItemToObject(doc, "rounds", rounds);
	return rc;
}

/* The document's status (and its session's) and time of update, the images the runs of rounds
 * [e->written, to) exec'd. */
static void stamp(struct engine *e, const char *status, unsigned to)
{
	cJSON *sessions = cJSON_GetObjectItemCaseSensitive(e->doc, "sessions");
	char now[32];

	benchdoc_utc_now(now);
	bench_images_note(e->doc, e->rounds, e->written, to);
	benchdoc_set_string(e->doc, "updated_utc", now);
	benchdoc_set_string(e->doc, "status", status);
	if (sessions)
		benchdoc_set_string(cJSON_GetArrayItem(sessions, cJSON_GetArraySize(sessions) - 1),
		                    "status", status);
}

/* The lines that bring the outputs up to round to: a new file's header line (fresh), the rounds
 * from e->written and, when the head changed, an update line. Returns 0, or -1 out of memory. */
static int sync_lines(struct engine *e, int fresh, unsigned to, struct lines *b)
{
	int nomem = 0;
	cJSON *up;

	if (fresh && !e->disk && add_header(b, e->doc) != 0)
		nomem = 1;
	if (fresh && !e->disk && !nomem && !(e->disk = benchdoc_head_copy(e->doc)))
		nomem = 1;
	if (fresh && e->disk)
		cJSON_DeleteItemFromObjectCaseSensitive(e->disk, "rounds");
	for (unsigned i = e->written; !nomem && i < to; i++)
		nomem = add_line(b, cJSON_GetArrayItem(e->rounds, (int)i)) != 0;
	up = nomem ? NULL : head_update(e->disk, e->doc, &nomem);
	if (up && add_line(b, up) != 0)
		nomem = 1;
	cJSON_Delete(up);
	return nomem ? -1 : 0;
}

/* b appended to every output: a new file created (or a resumed one reopened at the length kept)
 * the first time (fresh), into the room kept for the closing line when closing. Returns 0, or
 * non-zero at the first output that failed (err set). */
static int sync_outs(struct engine *e, const struct lines *b, int fresh, int closing, char *err,
                     size_t errlen)
{
	const struct bench_config *c = e->c;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < c->nout; i++) {
		struct append_out *o = &e->outs[i];
		if (!fresh)
			rc = b->len ? append_write(o, b->buf, b->len, CLOSING_ROOM, closing, err, errlen)
			            : 0;
		else if (c->resume && c->resume_keep >= 0)
			rc = append_reopen(o, c->out_paths[i], c->resume_keep, CLOSING_ROOM, err, errlen) ||
			     append_write(o, b->buf, b->len, CLOSING_ROOM, closing, err, errlen);
		else
			rc = append_create(o, c->out_paths[i], b->buf, b->len, CLOSING_ROOM, err, errlen);
		if (fresh && rc == 0)
			e->outs_open = (unsigned)i + 1;
	}
	return rc;
}

int engine_sync(struct engine *e, const char *status, int closing, int no_rounds, char *err,
                size_t errlen)
{
	struct lines b = {NULL, 0, 0};
	int rc, fresh = !e->outs_open;
	unsigned to = no_rounds ? e->written : e->done;

	stamp(e, status, to);
	if (sync_lines(e, fresh, to, &b) != 0) {
		free(b.buf);
		e->write_failed = 1;
		return errmsg_fail(err, errlen, "out of memory");
	}
	rc = sync_outs(e, &b, fresh, closing, err, errlen);
	free(b.buf);
	if (rc != 0) {
		e->write_failed = 1;
		return rc;
	}
	e->written = to;
	cJSON_Delete(e->disk);
	if (!(e->disk = benchdoc_head_copy(e->doc)))
		return errmsg_fail(err, errlen, "out of memory");
	if (!no_rounds) {
		e->kept = e->done;
		e->kept_measured = e->measured;
	}
	return 0;
}

enum status engine_round_line(struct engine *e, const struct engine_round *r, char *err,
                              size_t errlen)
{
	if (r->verdict)
		return ST_OK;
	if (engine_sync(e, "running", 0, 0, err, errlen) != 0)
		return ST_FAIL;
	engine_progress_written(e);
	return ST_OK;
}

void engine_note_left_running(const struct engine *e, char *err, size_t errlen)
{
	size_t k = strlen(err);

	if (e->outs_open && !e->outs[0].lost && k + 1 < errlen)
		snprintf(err + k, errlen - k,
		         "; %s still says status 'running': nothing could be written to it",
		         e->c->out_paths[0]);
}
