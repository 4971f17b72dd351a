/* jsonstream.c - a top-level object read member by member through a window of the file, one
 * member's array element at a time (jsonstream.h). The array's elements are read and parsed ahead
 * by a producer thread, in batches of about JS_BATCH_TEXT bytes of text, each into its own pool:
 * the caller's thread checks one batch while the next is parsed. The producer owns the file, the
 * window and the parser state from js_open's end until it publishes its last batch; the members
 * after the array go into `tail`, which the caller's thread moves into `head` at the end. */
#include "common/jsonstream.h"

#include "common/errmsg.h"
#include "common/jsonparse.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JS_WINDOW     ((size_t)1 << 20)
#define JS_BATCH_TEXT ((size_t)1 << 20)
#define JS_NBATCH     3 /* the caller's batch and up to two parsed ahead */

/* Elements parsed together, valid until the batch is given back. */
struct js_batch {
	struct jp_pool pool;
	const cJSON **elem;
	size_t n, cap, next; /* elements, their room, the next one to hand out */
	int last; /* none follows: the array ended (and the file was read) or reading failed */
};

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
	cJSON *tail; /* the members after the array, while the producer reads them */
	cJSON *into; /* where member() adds: head, or tail */
	size_t head_nodes;
	struct jp_pool pool; /* the elements of read_tail_first's pass */
	/* the producer: a thread, or js_next itself when none could be started */
	pthread_t thread;
	int streaming; /* the producer has the array: only batches tell the caller about it */
	int threaded, stop, merged;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct js_batch batch[JS_NBATCH];
	size_t produced, released; /* batches published and given back, counted from 0 */
	struct js_batch *cur;      /* the caller's batch, NULL before the first */
	size_t nelem;              /* elements returned in this pass */
	size_t array_at;           /* file offset just after the array's '[' */
	int key_seen;              /* the member `key` was read (an array or not) */
	int has_array;             /* key's array was found */
	int tail_read;             /* the members after the array were read in a first pass */
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
	size_t bin = jp_first_binary(s->buf, s->hi);

	while (bin == s->hi && !s->eof && s->base + s->hi <= s->cap) {
		ssize_t r = read(s->fd, s->buf, s->bufsize);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return SIZE_MAX;
		s->base += s->hi;
		s->lo = 0;
		s->hi = (size_t)r;
		bin = jp_first_binary(s->buf, s->hi);
	}
	if (bin == s->hi)
		return SIZE_MAX;
	*byte = (unsigned char)s->buf[bin];
	return s->base + bin;
}

/* A parse failure r, r->at counted from buf[lo], in jl_parse's words. */
static int fail_parse(struct js_stream *s, struct jp_result r)
{
	size_t size, bin = SIZE_MAX;
	unsigned char byte = 0;

	if (r.status == JP_SYNTAX && s->lo + r.at >= s->hi && s->eof)
		r.status = JP_SHORT;
	r.at += s->base + s->lo;
	size = s->eof ? s->base + s->hi : s->size;
	if (r.status != JP_NOMEM && r.status != JP_TOO_MANY)
		bin = first_binary(s, &byte);
	jl_parse_error(s->name, &r, bin, byte, size, s->cap, s->err, sizeof s->err);
	s->why = errno == ENOMEM ? JL_NOMEM : JL_BAD;
	s->state = JS_FAILED;
	return -1;
}

static int fail_syntax(struct js_stream *s)
{
	return fail_parse(s, (struct jp_result){.status = JP_SYNTAX, .at = 0});
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
		s->lo = jp_skip_ws(s->buf, s->hi, s->lo);
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
 * window holds it whole; into pool, or malloc'd when pool is NULL. */
static cJSON *parse_value(struct js_stream *s, unsigned depth, struct jp_pool *pool, size_t *nodes)
{
	struct jp_mark mark = pool ? jp_pool_mark(pool) : (struct jp_mark){0};

	for (;;) {
		struct jp_result r;
		size_t n0 = *nodes, avail = s->hi - s->lo;
		cJSON *v = jp_parse_nested(s->buf + s->lo, avail, depth, pool, nodes,
		                           s->cap / JL_BYTES_PER_NODE, &r);
		if (v && (r.at < avail || s->eof)) {
			s->lo += r.at;
			return v;
		}
		if (!v && (r.status != JP_SHORT || s->eof))
			return fail_parse(s, r), NULL;
		if (v && !pool)
			cJSON_Delete(v);
		if (pool)
			jp_pool_rewind(pool, mark);
		*nodes = n0;
		if (fill(s) != 0)
			return NULL;
	}
}

/* After the top-level value: nothing but whitespace. */
static int end_of_file(struct js_stream *s)
{
	char c;
	int rc = peek(s, &c);

	if (rc != 0)
		return rc < 0 ? -1 : fail_syntax(s);
	s->state = JS_DONE;
	return 0;
}

/* One member "name": value; returns 1 when it is the streamed array (left open), else 0. */
static int member(struct js_stream *s)
{
	cJSON *k, *v;
	size_t key_nodes = 0; /* a key is no value: jl_parse does not count it */
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
			fail(s, JL_BAD, "member '%.100s' appears twice in the top-level object",
			     s->key);
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
	if (cJSON_AddItemToObject(s->into, k->valuestring, v)) {
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

/* The next element into pool: 1; 0 after the array and the rest of the file; -1. */
static int next(struct js_stream *s, struct jp_pool *pool, const cJSON **elem)
{
	size_t nodes = 0;
	char c;

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
	if (!(*elem = parse_value(s, 2, pool, &nodes)))
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

	do
		jp_pool_reset(&s->pool);
	while ((rc = next(s, &s->pool, &e)) == 1);
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
	if (!(s->into = s->head = cJSON_CreateObject()))
		return fail(s, JL_NOMEM, "out of memory");
	s->head_nodes = 1;
	if ((rc = members(s, 1)) <= 0)
		return rc;
	s->state = JS_ARRAY;
	return missing_before(s, before) ? read_tail_first(s) : 0;
}

/* Elements into b until it holds about JS_BATCH_TEXT bytes of text, or the last of them. */
static void fill_batch(struct js_stream *s, struct js_batch *b)
{
	size_t from = s->base + s->lo;
	const cJSON *e;
	int rc;

	jp_pool_reset(&b->pool);
	b->n = b->next = 0;
	b->last = 0;
	while (s->base + s->lo - from < JS_BATCH_TEXT) {
		if ((rc = next(s, &b->pool, &e)) != 1) {
			b->last = 1;
			return;
		}
		if (b->n == b->cap) {
			size_t cap = b->cap ? 2 * b->cap : 1024;
			const cJSON **ne = realloc(b->elem, cap * sizeof *ne);
			if (!ne) {
				fail(s, JL_NOMEM, "out of memory");
				b->last = 1;
				return;
			}
			b->elem = ne;
			b->cap = cap;
		}
		b->elem[b->n++] = e;
	}
}

static void *produce(void *arg)
{
	struct js_stream *s = arg;

	for (;;) {
		struct js_batch *b;
		int last;
		pthread_mutex_lock(&s->mu);
		while (s->produced - s->released == JS_NBATCH && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		b = s->stop ? NULL : &s->batch[s->produced % JS_NBATCH];
		pthread_mutex_unlock(&s->mu);
		if (!b)
			return NULL;
		fill_batch(s, b);
		last = b->last;
		pthread_mutex_lock(&s->mu);
		s->produced++;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		if (last)
			return NULL;
	}
}

static int spawn_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	return pthread_create(t, NULL, fn, arg);
}

int (*js_spawn)(pthread_t *t, void *(*fn)(void *), void *arg) = spawn_thread;

/* Hands the producer the streamed array: a thread when one can be started. From then on only
 * the producer touches the stream's state, until the caller takes its last batch. */
static void start_producer(struct js_stream *s)
{
	if (!s->tail_read && !(s->into = s->tail = cJSON_CreateObject())) {
		fail(s, JL_NOMEM, "out of memory");
		return;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->streaming = 1;
	s->threaded = js_spawn(&s->thread, produce, s) == 0;
}

/* The caller's next batch, once the current one is given back. */
static struct js_batch *take(struct js_stream *s)
{
	struct js_batch *b;

	if (!s->threaded) {
		b = &s->batch[s->produced++ % JS_NBATCH];
		s->released = s->produced - 1;
		fill_batch(s, b);
		return b;
	}
	pthread_mutex_lock(&s->mu);
	s->released += s->cur != NULL;
	pthread_cond_broadcast(&s->cv);
	while (s->produced == s->released)
		pthread_cond_wait(&s->cv, &s->mu);
	b = &s->batch[s->released % JS_NBATCH];
	pthread_mutex_unlock(&s->mu);
	return b;
}

/* After the last batch: the members the producer read after the array, into head. */
static int finish(struct js_stream *s)
{
	if (s->state == JS_FAILED)
		return -1;
	while (!s->merged && s->tail && s->tail->child) {
		cJSON *m = cJSON_DetachItemViaPointer(s->tail, s->tail->child);
		cJSON_AddItemToArray(s->head, m);
	}
	s->merged = 1;
	return 0;
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
	if (s->state == JS_ARRAY)
		start_producer(s);
	if (!s->streaming && s->state == JS_FAILED) {
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

	if (!s->streaming) {
		rc = s->state == JS_DONE ? 0 : -1;
	} else {
		while (!s->cur || (s->cur->next == s->cur->n && !s->cur->last))
			s->cur = take(s);
		if (s->cur->next < s->cur->n) {
			*elem = s->cur->elem[s->cur->next++];
			*why = JL_OK;
			return 1;
		}
		rc = finish(s);
	}
	*why = rc < 0 ? s->why : JL_OK;
	if (rc < 0)
		errmsg_fail(err, errlen, "%s", s->err);
	return rc;
}

void js_close(struct js_stream *s)
{
	if (!s)
		return;
	if (s->threaded) {
		pthread_mutex_lock(&s->mu);
		s->stop = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
	}
	if (s->streaming) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	for (int k = 0; k < JS_NBATCH; k++) {
		jp_pool_free(&s->batch[k].pool);
		free(s->batch[k].elem);
	}
	if (s->fd >= 0)
		close(s->fd);
	cJSON_Delete(s->head);
	cJSON_Delete(s->tail);
	jp_pool_free(&s->pool);
	free(s->buf);
	free(s->name);
	free(s);
}
