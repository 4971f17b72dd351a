/* jsdiff.h - the streaming reader (common/jsonstream.h) held against the whole-file one
 * (common/jsonload.h) for the unit tests of the stream (tests/unit/common/test_jsonstream*.c): a text written
 * to an anonymous memory file (tests/unit/memfile.h), streamed with the members wanted before the array
 * (g_before) and read whole (unless g_whole is 0), and one check that both agree. */
#ifndef ALLOCAB_TEST_JSDIFF_H
#define ALLOCAB_TEST_JSDIFF_H

#include "check.h"
#include "memfile.h"
#include "common/jsonload.h"
#include "common/jsonstream.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const no_before[] = {NULL};

/* Same types, keys, strings, bit-identical numbers, children in order. */
static inline int same_json(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (!a || !b)
		return a == b;
	if ((a->type & 0xff) != (b->type & 0xff) || !a->string != !b->string ||
	    (a->string && strcmp(a->string, b->string) != 0))
		return 0;
	if (cJSON_IsString(a) && strcmp(a->valuestring, b->valuestring) != 0)
		return 0;
	if (cJSON_IsNumber(a) && memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) != 0)
		return 0;
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
		if (!same_json(x, y))
			return 0;
	return !x && !y;
}

/* The outcome of reading a file one way or the other. */
struct outcome {
	int ok;
	enum jl_why why;
	char err[1024];
	size_t nelem;
	int has_array;
};

static const char *const *g_before = no_before;

/* Two refusals say the same: equal, or both "not JSON (parse error at byte N)", whatever N (the
 * whole file's syntax errors are placed where cJSON stopped, the stream's grammar places its own
 * between the top-level members and the elements exactly). */
static inline int same_message(const char *a, const char *b)
{
	static const char pe[] = "not JSON (parse error at byte ";
	const char *x = strstr(a, pe), *y = strstr(b, pe);

	if (strcmp(a, b) == 0)
		return 1;
	return x && y && x - a == y - b && strncmp(a, b, (size_t)(x - a)) == 0;
}
static int g_whole = 1; /* 0: the stream alone (whole-file agreement checked elsewhere) */

/* Streams path (key "rounds", g_before) and reads it whole, and says how they differ (a static
 * text), or NULL when they agree: both accept with the same elements in order and the same other
 * members (each before-member already in js_head at open), or both refuse with the same message
 * (same_message) and the same kind of failure. Every js_next after the last returns the same again. */
static inline const char *differ(const char *path, struct outcome *st)
{
	static char why[2200];
	struct outcome wh = {0};
	enum jl_why w = JL_OK;
	cJSON *whole = g_whole ? jl_load(path, &w, wh.err, sizeof wh.err) : NULL, *arr = NULL, *e;
	struct js_stream *s;
	const cJSON *elem;
	int rc = -1;

	memset(st, 0, sizeof *st);
	wh.ok = whole != NULL;
	wh.why = w;
	if (cJSON_IsObject(whole) &&
	    cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(whole, "rounds")))
		arr = cJSON_DetachItemFromObjectCaseSensitive(whole, "rounds");
	s = js_open(path, "rounds", g_before, &st->why, st->err, sizeof st->err);
	e = arr ? arr->child : NULL;
	if (s) {
		st->has_array = js_has_array(s);
		for (size_t i = 0; g_before[i] && whole; i++)
			if (cJSON_GetObjectItemCaseSensitive(whole, g_before[i]) &&
			    !cJSON_GetObjectItemCaseSensitive(js_head(s), g_before[i])) {
				snprintf(why, sizeof why, "'%s' not in js_head at open",
				         g_before[i]);
				goto out;
			}
		while ((rc = js_next(s, &elem, &st->why, st->err, sizeof st->err)) == 1) {
			if (whole && !same_json(elem, e)) {
				snprintf(why, sizeof why, "element %zu differs", st->nelem);
				goto out;
			}
			e = e ? e->next : NULL;
			st->nelem++;
		}
		for (int k = 0; k < 2; k++) {
			char again[1024] = "";
			enum jl_why w2;
			if (js_next(s, &elem, &w2, again, sizeof again) != rc ||
			    (rc < 0 && (strcmp(again, st->err) != 0 || w2 != st->why))) {
				snprintf(why, sizeof why,
				         "js_next after %d did not return the same", rc);
				goto out;
			}
		}
		st->ok = rc == 0;
	}
	if (!g_whole) {
		js_close(s);
		return NULL;
	}
	if (st->ok != wh.ok) {
		snprintf(why, sizeof why, "stream %s (%s), whole %s (%s)",
		         st->ok ? "accepts" : "refuses", st->err, wh.ok ? "accepts" : "refuses",
		         wh.err);
		goto out;
	}
	if (!st->ok) {
		if (!same_message(st->err, wh.err) || st->why != wh.why) {
			snprintf(why, sizeof why,
			         "messages differ: stream '%s' (%d), whole '%s' (%d)", st->err,
			         st->why, wh.err, wh.why);
			goto out;
		}
	} else if (e || !same_json(js_head(s), whole) || st->has_array != (arr != NULL)) {
		snprintf(why, sizeof why, "%s", e ? "elements missing" : "heads differ");
		goto out;
	}
	js_close(s);
	cJSON_Delete(whole);
	cJSON_Delete(arr);
	return NULL;
out:
	js_close(s);
	cJSON_Delete(whole);
	cJSON_Delete(arr);
	return why;
}

static struct mfile mf;

static inline void check_text(const char *name, const char *text, size_t n, struct outcome *st)
{
	const char *d;

	if (mf_set(&mf, text, n) != 0) {
		CHECK(0, "%s: memfd write", name);
		return;
	}
	d = differ(mf.path, st);
	CHECK(!d, "%s: %s%s%s", name, g_whole ? "stream and whole file agree" : "streamed",
	      d ? ": " : "", d ? d : "");
}

/* The main of a stream test program: opens mf, runs tests (NULL-terminated) in order, closes mf;
 * the program's exit status (check.h). */
static inline int jsd_main(void (*const tests[])(void))
{
	if (mf_open(&mf) < 0) {
		CHECK(0, "memfd_create");
		return CHECK_DONE();
	}
	for (size_t i = 0; tests[i]; i++)
		tests[i]();
	close(mf.fd);
	return CHECK_DONE();
}

#endif
