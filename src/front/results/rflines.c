/* rflines.c - reading an allocab-bench/2 file (JSON Lines: a header line, a line per round,
 * update lines; docs/results-format.md, "allocab-bench/2"): every line strict JSON
 * (common/jsonstrict.h) under jl_load's size and value limits, offsets counted from the file's
 * start, and a torn last line (no newline at its end, or JSON cut short) set aside and reported.
 * The file is read through a buffer as long as its longest line: the header and update lines (the
 * head the rounds are judged under), and with them the round lines one at a time while the
 * header alone says how they are read; else a second time, for the round lines. */
#include "front/results/rfload.h"

#include "common/errmsg.h"
#include "common/jsonload.h"
#include "common/jsonstrict.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCHEMA_MEMBER "{\"schema\":\""
#define SNIFF_BYTES 128 /* the schema member and a schema name of up to 100 bytes */

/* What text (n bytes, the start of the file at path) says of its schema: 1 when it begins as an
 * allocab-bench/2 header line does ({"schema":"allocab-bench/2"); 0 when it does not begin with
 * that compact schema member or names allocab-bench/1 there (the document's reader judges it);
 * -1 with the schema it names in err when that is another one, whatever follows (the
 * docs/results-format.md rule: a reader refuses a schema it does not know). */
static int sniff(const char *path, const char *text, size_t n, char *err, size_t errlen)
{
	size_t k = strlen(SCHEMA_MEMBER), e = k;
	int len;

	if (n < k || memcmp(text, SCHEMA_MEMBER, k) != 0)
		return 0;
	while (e < n && text[e] != '"' && text[e] != '\\' && text[e] >= 0x20 && text[e] < 0x7f)
		e++;
	if ((e < n && text[e] != '"') || (e == n && n < SNIFF_BYTES))
		return 0; /* an escape, a byte or an end the document's reader reports */
	len = (int)(e - k);
	if (e < n && (size_t)len == strlen(RF_SCHEMA2) && memcmp(text + k, RF_SCHEMA2, len) == 0)
		return 1;
	if (e < n && (size_t)len == strlen(RF_SCHEMA1) && memcmp(text + k, RF_SCHEMA1, len) == 0)
		return 0;
	return errmsg_fail(err, errlen, "%s: schema '%.*s' is not %s or %s", path,
	                   len > 100 ? 100 : len, text + k, RF_SCHEMA2, RF_SCHEMA1);
}

/* The depth, in the equivalent allocab-bench/1 document, of a line's value: a round sits in the
 * rounds array of the top-level object. */
#define ROUND_DEPTH 2

/* A line's kind by its first member name: 'r' round ("index"), 'u' update ("updated_utc"), 0
 * neither. */
static int line_kind(const char *s, size_t n)
{
	size_t i = jst_skip_ws(s, n, 0);

	if (i >= n || s[i] != '{')
		return 0;
	i = jst_skip_ws(s, n, i + 1);
	if (n - i >= 7 && memcmp(s + i, "\"index\"", 7) == 0)
		return 'r';
	if (n - i >= 13 && memcmp(s + i, "\"updated_utc\"", 13) == 0)
		return 'u';
	return 0;
}

/* A line of the file as next_line finds it: t[0..len) (its newline excluded) at offset at. */
struct line {
	const char *t;
	size_t len, at;
};

/* The depth of line ln's value in the equivalent allocab-bench/1 document: the header (the line
 * at offset 0) and an update line are the top-level object; any other line is read as a round. */
static unsigned line_depth(const struct line *ln)
{
	return ln->at > 0 && line_kind(ln->t, ln->len) != 'u' ? ROUND_DEPTH : 0;
}

/* Parses line ln into arena, or from malloc when arena is NULL: 0 with *v, -1 with the message
 * in err, or 1 when the JSON is cut short (JST_SHORT) and the caller may call it torn. */
static int parse_line(struct rl_lines *s, const struct line *ln, struct jst_arena *arena, cJSON **v,
                      char *err, size_t errlen)
{
	const char *t = ln->t;
	size_t n = ln->len, at = ln->at, bin = jst_first_binary(t, n);
	struct jst_result r;

	*v = NULL;
	if (jst_skip_ws(t, n, 0) >= n && bin == n)
		return errmsg_fail(err, errlen, "%s: empty line at byte %zu", s->path, at);
	*v = jst_parse(t, n, line_depth(ln), arena, &s->nodes, s->cap / JL_BYTES_PER_NODE, &r);
	if (*v && (r.at = jst_skip_ws(t, n, r.at)) == n)
		return 0;
	if (*v) {
		if (!arena)
			cJSON_Delete(*v);
		*v = NULL;
		r.status = JST_SYNTAX;
	}
	if (r.status == JST_SHORT && bin == n)
		return 1;
	if (r.at != SIZE_MAX)
		r.at += at;
	jl_parse_error(s->path, &r, bin < n && r.status != JST_NOMEM ? at + bin : SIZE_MAX,
	               bin < n ? (unsigned char)t[bin] : 0, s->size, s->cap, err, errlen);
	if (r.status == JST_NOMEM)
		s->nomem = 1;
	return -1;
}

/* Members of an update line over the head: config and facts merged member by member, every
 * other member replaced (schema and rounds may not change). */
static int merge(struct rl_lines *s, cJSON *up, size_t at, char *err, size_t errlen)
{
	cJSON *m;

	while ((m = up->child)) {
		cJSON *old = cJSON_GetObjectItemCaseSensitive(s->head, m->string), *x;

		cJSON_DetachItemViaPointer(up, m);
		if (strcmp(m->string, "schema") == 0 || strcmp(m->string, "rounds") == 0) {
			errmsg_fail(err, errlen, "%s: the update line at byte %zu sets '%s'", s->path,
			            at, m->string);
			cJSON_Delete(m);
			return -1;
		}
		if ((strcmp(m->string, "config") == 0 || strcmp(m->string, "facts") == 0) &&
		    cJSON_IsObject(old) && cJSON_IsObject(m)) {
			while ((x = m->child)) {
				cJSON *was = cJSON_GetObjectItemCaseSensitive(old, x->string);

				cJSON_DetachItemViaPointer(m, x);
				if (was)
					cJSON_ReplaceItemViaPointer(old, was, x);
				else
					cJSON_AddItemToObject(old, x->string, x);
			}
			cJSON_Delete(m);
		} else if (old) {
			cJSON_ReplaceItemViaPointer(s->head, old, m);
		} else {
			cJSON_AddItemToObject(s->head, m->string, m);
		}
	}
	return 0;
}

/* The next line of the file: 1 with *ln (valid until the next call); 2 the same for a last line
 * without a newline; 0 at the end; -1 with err (a read error, or more bytes than the size cap).
 * The buffer grows to the longest line. */
static int next_line(struct rl_lines *s, struct line *ln, char *err, size_t errlen)
{
	for (;;) {
		char *nl = s->buf ? memchr(s->buf + s->bpos, '\n', s->blen - s->bpos) : NULL;
		ssize_t r;

		if (nl) {
			ln->t = s->buf + s->bpos;
			ln->len = (size_t)(nl - ln->t);
			ln->at = s->foff + s->bpos;
			s->bpos += ln->len + 1;
			return 1;
		}
		if (s->bpos > 0) {
			memmove(s->buf, s->buf + s->bpos, s->blen - s->bpos);
			s->foff += s->bpos;
			s->blen -= s->bpos;
			s->bpos = 0;
		}
		if (s->blen == s->bufcap) {
			size_t c = s->bufcap ? 2 * s->bufcap : (size_t)1 << 20;
			char *b = c <= 2 * (s->cap + 1) ? realloc(s->buf, c) : NULL;
			if (!b) {
				s->nomem = 1;
				errno = ENOMEM;
				return errmsg_fail(err, errlen, "%s: out of memory", s->path);
			}
			s->buf = b;
			s->bufcap = c;
		}
		r = read(s->fd, s->buf + s->blen, s->bufcap - s->blen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errmsg_fail(err, errlen, "%s: %s", s->path, strerror(errno));
		if (s->foff + s->blen + (size_t)r > s->cap) {
			errno = EFBIG;
			return errmsg_fail(err, errlen, "%s: grew past the %zu-byte input limit while it "
			                   "was read (set %s to raise it)", s->path, s->cap, JL_MAX_ENV);
		}
		if (r == 0) {
			if (!s->blen)
				return 0;
			*ln = (struct line){s->buf, s->blen, s->foff};
			s->bpos = s->blen;
			return 2;
		}
		s->blen += (size_t)r;
	}
}

static void drop_live(struct rl_lines *s)
{
	if (!s->live)
		return;
	s->live = NULL;
	s->reread = 1;
	s->nodes -= s->live_nodes;
	s->live_nodes = 0;
}

/* Whether update line up sets a member of config other than sequential: one that may change how
 * the rounds are read. */
static int moves_config(const cJSON *up)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(up, "config"), *m;

	if (!cfg)
		return 0;
	if (!cJSON_IsObject(cfg))
		return 1;
	cJSON_ArrayForEach(m, cfg)
	{
		if (strcmp(m->string, "sequential") != 0)
			return 1;
	}
	return 0;
}

/* The round line ln, read into s->live; the live reading dropped when it cannot be. v: the line
 * already parsed (from malloc), or NULL to parse it into the arena. */
static void live_round(struct rl_lines *s, const struct line *ln, const cJSON *v)
{
	size_t nodes = s->nodes;
	char ignored[256];
	cJSON *r = NULL;

	if (!s->live)
		return;
	if (!v) {
		jst_arena_reset(&s->arena);
		if (parse_line(s, ln, &s->arena, &r, ignored, sizeof ignored) != 0) {
			s->nodes = nodes;
			s->nomem = 0;
			drop_live(s);
			return;
		}
		s->live_nodes += s->nodes - nodes;
		v = r;
	}
	if (rl_round(s->live, v) != 0)
		drop_live(s);
}

static int lines_fail(struct rl_lines *s, enum jl_why *why)
{
	*why = s->nomem || errno == ENOMEM ? JL_NOMEM : JL_BAD;
	rl_lines_close(s);
	return -1;
}

/* The header line, with s->live given its head. Returns 0, or -1 with err. */
static int open_head(struct rl_lines *s, int (*head)(struct loader *, const cJSON *), char *err,
                     size_t errlen)
{
	struct line ln;
	int k, rc;

	if ((k = next_line(s, &ln, err, errlen)) != 1) {
		if (k >= 0)
			errmsg_fail(err, errlen, "%s: the header line has no newline at its end: not "
			            "a bench file yet", s->path);
		return -1;
	}
	if ((rc = parse_line(s, &ln, NULL, &s->head, err, errlen)) != 0) {
		if (rc > 0)
			errmsg_fail(err, errlen, "%s: truncated JSON (the header line ends at byte %zu)",
			            s->path, ln.len);
		return -1;
	}
	s->first = s->end = ln.len + 1;
	if (s->live && head(s->live, s->head) != 0)
		drop_live(s);
	return 0;
}

/* A line after the header that is not a round read on the fly: an update merged into the head,
 * or the last round line, parsed whole. Returns 0, 1 when it is the torn last line, -1 with
 * err. */
static int parse_other(struct rl_lines *s, const struct line *ln, int kind, int last, char *err,
                       size_t errlen)
{
	size_t nodes = s->nodes;
	cJSON *v;
	int rc = parse_line(s, ln, NULL, &v, err, errlen);

	if (kind == 'r' && rc == 0 && s->live) {
		s->live_nodes += s->nodes - nodes;
		live_round(s, ln, v);
	} else if (kind != 'u') {
		s->nodes = nodes; /* a round's are counted when the rounds are read */
	}
	if (kind == 'u' && rc == 0 && moves_config(v))
		drop_live(s);
	if (rc > 0 && last) {
		s->torn = 2;
		return 1;
	}
	if (rc > 0)
		errmsg_fail(err, errlen, "%s: truncated JSON (the line at byte %zu)", s->path,
		            ln->at);
	if (rc == 0 && kind == 0)
		errmsg_fail(err, errlen, "%s: the line at byte %zu is neither a round (first "
		            "member \"index\") nor an update (\"updated_utc\")", s->path, ln->at);
	if (rc != 0 || kind == 0 || (kind == 'u' && merge(s, v, ln->at, err, errlen) != 0)) {
		cJSON_Delete(v);
		return -1;
	}
	cJSON_Delete(v);
	return 0;
}

int rl_lines_open(struct rl_lines *s, const char *path, const struct rl_live *live,
                  enum jl_why *why, char *err, size_t errlen)
{
	struct line ln;
	int k;

	*s = (struct rl_lines){.path = path, .fd = -1, .live = live ? live->l : NULL};
	*why = JL_OK;
	if ((s->fd = jl_open(path, &s->size, &s->cap, err, errlen)) < 0) {
		*why = errno == ENOENT ? JL_MISSING : JL_BAD;
		return -1;
	}
	if (open_head(s, live ? live->head : NULL, err, errlen) != 0)
		return lines_fail(s, why);
	while ((k = next_line(s, &ln, err, errlen)) > 0) {
		int kind, last = k == 2 || (s->bpos == s->blen && s->foff + s->blen == s->size);

		if (k == 2) {
			s->torn = 1; /* the write of the last line did not finish */
			break;
		}
		kind = line_kind(ln.t, ln.len);
		if (kind == 'r' && !last) {
			live_round(s, &ln, NULL);
		} else if ((k = parse_other(s, &ln, kind, last, err, errlen)) != 0) {
			if (k > 0)
				break;
			return lines_fail(s, why);
		}
		s->nrounds += kind == 'r';
		s->end = ln.at + ln.len + 1;
	}
	if (k < 0)
		return lines_fail(s, why);
	return 0;
}

/* The next round line at or after *at: 1 with *round (in arena, emptied first, valid until the
 * next call; the caller's from malloc when arena is NULL), 0 after the last one, -1 with err. */
static int lines_round(struct rl_lines *s, size_t *at, struct jst_arena *arena, cJSON **round,
                       char *err, size_t errlen)
{
	struct line ln;
	int k, rc;

	*round = NULL;
	if (!s->rewound) {
		if (lseek(s->fd, (off_t)*at, SEEK_SET) < 0)
			return errmsg_fail(err, errlen, "%s: %s", s->path, strerror(errno));
		s->foff = *at;
		s->blen = s->bpos = 0;
		s->rewound = 1;
	}
	while (*at < s->end && (k = next_line(s, &ln, err, errlen)) > 0) {
		*at = ln.at + ln.len + 1;
		if (line_kind(ln.t, ln.len) != 'r')
			continue;
		if (arena)
			jst_arena_reset(arena);
		rc = parse_line(s, &ln, arena, round, err, errlen);
		if (rc > 0)
			return errmsg_fail(err, errlen, "%s: truncated JSON (the line at byte %zu)",
			                   s->path, ln.at);
		return rc == 0 ? 1 : -1;
	}
	return *at < s->end ? -1 : 0;
}

/* The round lines of an allocab-bench/2 file, one at a time. */
int rl_lines_rounds(struct loader *l, struct rl_lines *ln)
{
	size_t at = ln->first;
	cJSON *jr;
	int k;

	while ((k = lines_round(ln, &at, &ln->arena, &jr, l->err, l->errlen)) == 1) {
		if (rl_round(l, jr) != 0)
			return -1;
	}
	l->nomem = ln->nomem;
	return k;
}

void rl_lines_torn(const struct rl_lines *s, char *msg, size_t len)
{
	snprintf(msg, len,
	         "%s: torn last line at byte %zu (%s): ignored; the file is read as interrupted, "
	         "with the %zu rounds before it",
	         s->path, s->end, s->torn == 1 ? "no newline at its end" : "truncated JSON",
	         s->nrounds);
}

void rl_lines_close(struct rl_lines *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	jst_arena_free(&s->arena);
	cJSON_Delete(s->head);
	*s = (struct rl_lines){.fd = -1};
}

int rf_bench_read(const char *path, cJSON **doc, struct rf_file *info, enum jl_why *why,
                  char *err, size_t errlen)
{
	struct rl_lines s;
	cJSON *rounds, *round;
	size_t at;
	int rc;

	*doc = NULL;
	memset(info, 0, sizeof *info);
	if ((rc = rf_path_is_lines(path, err, errlen)) < 0) {
		*why = JL_BAD;
		return -1;
	}
	if (!rc) {
		info->keep = -1;
		*doc = jl_load(path, why, err, errlen);
		return *doc ? 0 : -1;
	}
	if (rl_lines_open(&s, path, NULL, why, err, errlen) != 0)
		return -1;
	info->lines = 1;
	info->keep = (long)s.end;
	info->torn = s.torn;
	info->rounds = s.nrounds;
	if (s.torn)
		rl_lines_torn(&s, info->torn_msg, sizeof info->torn_msg);
	if (!(info->disk = cJSON_Duplicate(s.head, 1)) ||
	    !(rounds = cJSON_AddArrayToObject(s.head, "rounds"))) {
		*why = JL_NOMEM;
		errmsg_fail(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	for (at = s.first; (rc = lines_round(&s, &at, NULL, &round, err, errlen)) == 1;)
		cJSON_AddItemToArray(rounds, round);
	if (rc < 0) {
		*why = s.nomem ? JL_NOMEM : JL_BAD;
		goto fail;
	}
	*doc = s.head;
	s.head = NULL;
	rl_lines_close(&s);
	return 0;
fail:
	cJSON_Delete(info->disk);
	info->disk = NULL;
	rl_lines_close(&s);
	return -1;
}

int rf_path_is_lines(const char *path, char *err, size_t errlen)
{
	char buf[SNIFF_BYTES];
	size_t size, cap, got = 0;
	char ignored[256];
	int fd = jl_open(path, &size, &cap, ignored, sizeof ignored);
	ssize_t r;

	if (fd < 0)
		return 0;
	while (got < sizeof buf && (r = read(fd, buf + got, sizeof buf - got)) > 0)
		got += (size_t)r;
	close(fd);
	return sniff(path, buf, got, err, errlen);
}
