/* jsonstream.c - a top-level object read member by member through a window of the file, one
 * member's array element at a time (jsonstream.h). Each value is scanned and built by
 * common/jsonstrict.h once the window holds it whole; what is written here is only the grammar
 * of the top-level object and of the streamed array around those values. */
#include "common/jsonstream.h"

#include "common/errmsg.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JS_WINDOW ((size_t)1 << 20)

enum js_state { JS_ARRAY, JS_DONE, JS_FAILED };

struct js_stream {
	int fd;
	char *name;
	size_t cap, size; /* input cap; the file's size when it was opened */
	char *buf;
	size_t bufsize, lo, hi; /* unread text: buf[lo..hi) */
	size_t base;            /* file offset of buf[0] */
	int eof;
	const char *key;
	cJSON *head;
	size_t head_nodes;
	struct jst_arena arena; /* the element js_next returned last */
	size_t nelem;           /* elements read in this pass */
	size_t array_at;        /* file offset just after the array's '[' */
	int key_seen;           /* the member `key` was read (an array or not) */
	int has_array;          /* key's array was found */
	int tail_read;          /* the members after the array were read in a first pass */
	enum js_state state;
	enum jl_why why;
	char err[512];
};

static int fail(struct js_stream *s, enum jl_why why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct js_stream *s, enum jl_why why, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(s->err, sizeof s->err, "%s: %s", s->name, what);
	s->why = why;
	s->state = JS_FAILED;
	return -1;
}

/* The file offset of the first byte that is not text from buf[0] on, or SIZE_MAX, into *byte:
 * in the window, else in the rest of the file (up to the cap), read through the window, which a
 * failed stream no longer needs. jl_parse names such a byte wherever it is in the file. */
static size_t first_binary(struct js_stream *s, unsigned char *byte)
{
	size_t bin = jst_first_binary(s->buf, s->hi);

	while (bin == s->hi && !s->eof && s->base + s->hi <= s->cap) {
		ssize_t r = read(s->fd, s->buf, s->bufsize);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return SIZE_MAX;
		s->base += s->hi;
		s->lo = 0;
		s->hi = (size_t)r;
		bin = jst_first_binary(s->buf, s->hi);
	}
	if (bin == s->hi)
		return SIZE_MAX;
	*byte = (unsigned char)s->buf[bin];
	return s->base + bin;
}

/* A parse failure r, r->at counted from buf[lo] (or SIZE_MAX), in jl_parse's words. */
static int fail_parse(struct js_stream *s, struct jst_result r)
{
	size_t size, bin = SIZE_MAX;
	unsigned char byte = 0;

	if (r.status == JST_SYNTAX && s->lo + r.at >= s->hi && s->eof)
		r.status = JST_SHORT;
	if (r.at != SIZE_MAX)
		r.at += s->base + s->lo;
	size = s->eof ? s->base + s->hi : s->size;
	if (r.status != JST_NOMEM && r.status != JST_TOO_MANY)
		bin = first_binary(s, &byte);
	jl_parse_error(s->name, &r, bin, byte, size, s->cap, s->err, sizeof s->err);
	s->why = errno == ENOMEM ? JL_NOMEM : JL_BAD;
	s->state = JS_FAILED;
	return -1;
}

static int fail_syntax(struct js_stream *s)
{
	return fail_parse(s, (struct jst_result){.status = JST_SYNTAX, .at = 0});
}

/* A member name the top-level object holds twice. */
static int fail_twice(struct js_stream *s, const char *name)
{
	struct jst_result r = {.status = JST_RULE, .at = SIZE_MAX};
	char shown[64];

	snprintf(r.rule, sizeof r.rule, "member '%s' appears twice in one object",
	         utf8_quote(shown, sizeof shown, name));
	return fail_parse(s, r);
}

/* The top-level members read so far have distinct names. */
static int head_unique(struct js_stream *s)
{
	struct jst_result r;

	if (!cJSON_IsObject(s->head) || jst_unique_keys(s->head, &r) == 0)
		return 0;
	return fail_parse(s, r);
}

/* More of the file into the window, growing it when one value fills it. */
static int fill(struct js_stream *s)
{
	ssize_t r;

	if (s->lo > 0) {
		memmove(s->buf, s->buf + s->lo, s->hi - s->lo);
		s->base += s->lo;
		s->hi -= s->lo;
		s->lo = 0;
	}
	if (s->hi == s->bufsize) {
		size_t grow = s->bufsize > s->cap / 2 ? s->cap + 1 : s->bufsize * 2;
		char *nb = grow > s->bufsize ? realloc(s->buf, grow) : NULL;
		if (!nb)
			return fail(s, JL_NOMEM, "out of memory");
		s->buf = nb;
		s->bufsize = grow;
	}
	do
		r = read(s->fd, s->buf + s->hi, s->bufsize - s->hi);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return fail(s, JL_BAD, "%s", strerror(errno));
	s->eof = r == 0;
	s->hi += (size_t)r;
	if (s->base + s->hi > s->cap)
		return fail(s, JL_BAD, "larger than the %zu-byte input limit (set %s to raise it)",
		            s->cap, JL_MAX_ENV);
	return 0;
}

/* The next byte after whitespace into *c: 1, or 0 at the end of the file, or -1. */
static int peek(struct js_stream *s, char *c)
{
	for (;;) {
		s->lo = jst_skip_ws(s->buf, s->hi, s->lo);
		if (s->lo < s->hi) {
			*c = s->buf[s->lo];
			return 1;
		}
		if (s->eof)
			return 0;
		if (fill(s) != 0)
			return -1;
	}
}

/* The next byte, which must be there. */
static int next_byte(struct js_stream *s, char *c)
{
	int rc = peek(s, c);

	return rc > 0 ? 0 : rc == 0 ? fail_syntax(s) : -1;
}

/* One value at the window's start, `depth` arrays and objects deep in the file, read on until the
 * window holds it whole; into arena, or malloc'd when arena is NULL. */
static cJSON *parse_value(struct js_stream *s, unsigned depth, struct jst_arena *arena,
                          size_t *nodes)
{
	for (;;) {
		struct jst_result r;
		size_t n0 = *nodes, avail = s->hi - s->lo;
		const char *text = s->buf + s->lo;
		int rc = jst_scan(text, avail, depth, nodes, s->cap / JL_BYTES_PER_NODE, &r);
		if (rc == 0 && (r.at < avail || s->eof)) {
			cJSON *v = jst_build(text, r.at, arena, &r);
			if (!v)
				return fail_parse(s, r), NULL;
			s->lo += r.at;
			return v;
		}
		if (rc != 0 && (r.status != JST_SHORT || s->eof)) {
			jst_earliest(text, avail, &r);
			return fail_parse(s, r), NULL;
		}
		*nodes = n0;
		if (fill(s) != 0)
			return NULL;
	}
}

/* After the top-level value: nothing but whitespace, and no member name twice. */
static int end_of_file(struct js_stream *s)
{
	char c;
	int rc = peek(s, &c);

	if (rc != 0)
		return rc < 0 ? -1 : fail_syntax(s);
	if (head_unique(s) != 0)
		return -1;
	s->state = JS_DONE;
	return 0;
}

/* One member "name": value; returns 1 when it is the streamed array (left open), else 0. */
static int member(struct js_stream *s)
{
	cJSON *k, *v;
	size_t key_nodes = 0; /* a name is no value: jl_parse does not count it */
	char c;
	int rc = -1;

	if (next_byte(s, &c) != 0)
		return -1;
	if (c != '"')
		return fail_syntax(s);
	if (!(k = parse_value(s, 1, NULL, &key_nodes)))
		return -1;
	if (next_byte(s, &c) != 0)
		goto out;
	if (c != ':') {
		fail_syntax(s);
		goto out;
	}
	s->lo++;
	if (next_byte(s, &c) != 0)
		goto out;
	if (strcmp(k->valuestring, s->key) == 0) {
		if (s->key_seen) {
			fail_twice(s, s->key);
			goto out;
		}
		s->key_seen = 1;
		if (c == '[') {
			s->lo++;
			s->has_array = 1;
			s->array_at = s->base + s->lo;
			rc = 1;
			goto out;
		}
	}
	if (!(v = parse_value(s, 1, NULL, &s->head_nodes)))
		goto out;
	if (cJSON_AddItemToObject(s->head, k->valuestring, v)) {
		rc = 0;
	} else {
		cJSON_Delete(v);
		fail(s, JL_NOMEM, "out of memory");
	}
out:
	cJSON_Delete(k);
	return rc;
}

/* Members up to the streamed array (1) or the object's end, then the file's (0). `first`: no
 * member was read yet. */
static int members(struct js_stream *s, int first)
{
	for (;;) {
		char c;
		int rc;
		if (next_byte(s, &c) != 0)
			return -1;
		if (c == '}') {
			s->lo++;
			return end_of_file(s);
		}
		if (!first && c != ',')
			return fail_syntax(s);
		s->lo += !first;
		first = 0;
		if ((rc = member(s)) != 0)
			return rc;
	}
}

/* The next element into the arena: 1; 0 after the array and the rest of the file; -1. */
static int next(struct js_stream *s, const cJSON **elem)
{
	size_t nodes = 0;
	char c;

	jst_arena_reset(&s->arena);
	if (next_byte(s, &c) != 0)
		return -1;
	if (c == ']') {
		s->lo++;
		if (s->tail_read) {
			s->state = JS_DONE;
			return 0;
		}
		return members(s, 0) != 0 ? -1 : 0;
	}
	if (s->nelem > 0 && c != ',')
		return fail_syntax(s);
	if (s->nelem > 0 && (s->lo++, next_byte(s, &c) != 0))
		return -1;
	if (!(*elem = parse_value(s, 2, &s->arena, &nodes)))
		return -1;
	s->nelem++;
	return 1;
}

static int missing_before(const struct js_stream *s, const char *const *before)
{
	for (size_t i = 0; before && before[i]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(s->head, before[i]))
			return 1;
	return 0;
}

/* The members after the array first (a document that names them after it), then back to the
 * array's first element. */
static int read_tail_first(struct js_stream *s)
{
	const cJSON *e;
	int rc;

	while ((rc = next(s, &e)) == 1)
		;
	if (rc < 0)
		return -1;
	if (lseek(s->fd, (off_t)s->array_at, SEEK_SET) < 0)
		return fail(s, JL_BAD, "%s", strerror(errno));
	s->base = s->array_at;
	s->lo = s->hi = 0;
	s->eof = 0;
	s->nelem = 0;
	s->tail_read = 1;
	s->state = JS_ARRAY;
	return 0;
}

static int start(struct js_stream *s, const char *const *before)
{
	char c;
	int rc = peek(s, &c);

	if (rc == 0)
		return fail(s, JL_BAD, "empty file");
	if (rc < 0)
		return -1;
	if (c != '{') {
		if (!(s->head = parse_value(s, 0, NULL, &s->head_nodes)))
			return -1;
		return end_of_file(s);
	}
	s->lo++;
	if (!(s->head = cJSON_CreateObject()))
		return fail(s, JL_NOMEM, "out of memory");
	s->head_nodes = 1;
	if ((rc = members(s, 1)) <= 0)
		return rc;
	s->state = JS_ARRAY;
	if (head_unique(s) != 0)
		return -1;
	return missing_before(s, before) ? read_tail_first(s) : 0;
}

struct js_stream *js_open(const char *path, const char *key, const char *const *before,
                          enum jl_why *why, char *err, size_t errlen)
{
	struct js_stream *s = calloc(1, sizeof *s);

	*why = JL_NOMEM;
	if (s)
		s->fd = -1;
	if (!s || !(s->name = strdup(path))) {
		free(s);
		errmsg_fail(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	s->key = key;
	if ((s->fd = jl_open(path, &s->size, &s->cap, err, errlen)) < 0) {
		*why = errno == ENOENT ? JL_MISSING : JL_BAD;
		js_close(s);
		return NULL;
	}
	s->bufsize = s->cap + 1 < JS_WINDOW ? s->cap + 1 : JS_WINDOW;
	if (!(s->buf = malloc(s->bufsize)))
		fail(s, JL_NOMEM, "out of memory");
	else
		start(s, before);
	if (s->state == JS_FAILED) {
		*why = s->why;
		errmsg_fail(err, errlen, "%s", s->err);
		js_close(s);
		return NULL;
	}
	*why = JL_OK;
	return s;
}

const cJSON *js_head(const struct js_stream *s)
{
	return s->head;
}

int js_has_array(const struct js_stream *s)
{
	return s->has_array;
}

int js_next(struct js_stream *s, const cJSON **elem, enum jl_why *why, char *err, size_t errlen)
{
	int rc;

	if (s->state == JS_ARRAY && next(s, elem) == 1) {
		*why = JL_OK;
		return 1;
	}
	rc = s->state == JS_DONE ? 0 : -1;
	*why = rc < 0 ? s->why : JL_OK;
	if (rc < 0)
		errmsg_fail(err, errlen, "%s", s->err);
	return rc;
}

void js_close(struct js_stream *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	cJSON_Delete(s->head);
	jst_arena_free(&s->arena);
	free(s->buf);
	free(s->name);
	free(s);
}
