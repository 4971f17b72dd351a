/* jsonparse.c - a recursive-descent parser of strict JSON into cJSON nodes (jsonparse.h). */
#include "common/jsonparse.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JP_CHUNK_MIN ((size_t)64 << 10)

struct jp_chunk {
	struct jp_chunk *next;
	size_t size; /* bytes of data[] */
	max_align_t data[];
};

struct jp {
	const char *s;
	size_t n, i;
	struct jp_pool *pool;
	size_t *nodes, max_nodes;
	unsigned depth;
	enum jp_status st;
};

/* A new chunk for at least need bytes, twice the last one's size. */
static void *pool_grow(struct jp_pool *p, size_t need)
{
	struct jp_chunk *c = p->chunks;
	size_t sz = c && c->size * 2 > JP_CHUNK_MIN ? c->size * 2 : JP_CHUNK_MIN;

	if (sz < need)
		sz = need;
	if (!(c = malloc(sizeof *c + sz)))
		return NULL;
	c->size = sz;
	c->next = p->chunks;
	p->chunks = c;
	p->used = need;
	return c->data;
}

static inline void *pool_alloc(struct jp_pool *p, size_t size)
{
	struct jp_chunk *c = p->chunks;
	size_t need = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);

	if (!c || c->size - p->used < need)
		return pool_grow(p, need);
	p->used += need;
	return (char *)c->data + p->used - need;
}

void jp_pool_reset(struct jp_pool *p)
{
	struct jp_chunk *keep = p->chunks, *c, *next;

	if (!keep)
		return;
	for (c = keep->next; c; c = next) {
		next = c->next;
		free(c);
	}
	keep->next = NULL;
	p->used = 0;
}

struct jp_mark jp_pool_mark(const struct jp_pool *p)
{
	return (struct jp_mark){p->chunks, p->used};
}

void jp_pool_rewind(struct jp_pool *p, struct jp_mark m)
{
	while (p->chunks != m.chunk) {
		struct jp_chunk *c = p->chunks;
		p->chunks = c->next;
		free(c);
	}
	p->used = m.used;
}

void jp_pool_free(struct jp_pool *p)
{
	jp_pool_reset(p);
	free(p->chunks);
	p->chunks = NULL;
	p->used = 0;
}

static int is_binary(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

size_t jp_first_binary(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_binary((unsigned char)text[i]))
			return i;
	return n;
}

size_t jp_skip_ws(const char *text, size_t n, size_t i)
{
	while (i < n && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
		i++;
	return i;
}

/* Stops the parse at j->i: the text ran out, a byte that is not text, or a syntax error. */
static void *stop(struct jp *j, enum jp_status st)
{
	if (j->st == JP_OK) {
		if (st == JP_SYNTAX && j->i >= j->n)
			st = JP_SHORT;
		else if (st == JP_SYNTAX && is_binary((unsigned char)j->s[j->i]))
			st = JP_BINARY;
		j->st = st;
	}
	return NULL;
}

static inline void *take(struct jp *j, size_t size)
{
	void *p = j->pool ? pool_alloc(j->pool, size) : malloc(size);

	if (!p)
		stop(j, JP_NOMEM);
	return p;
}

static void drop(struct jp *j, cJSON *c)
{
	if (c && !j->pool)
		cJSON_Delete(c);
}

static cJSON *node(struct jp *j, int type)
{
	cJSON *c;

	if (++*j->nodes > j->max_nodes)
		return stop(j, JP_TOO_MANY);
	if (!(c = take(j, sizeof *c)))
		return NULL;
	memset(c, 0, sizeof *c);
	c->type = type;
	return c;
}

static int literal(struct jp *j, const char *word, size_t len)
{
	for (size_t k = 0; k < len; k++, j->i++)
		if (j->i >= j->n || j->s[j->i] != word[k])
			return -1;
	return 0;
}

static size_t digits(struct jp *j)
{
	size_t from = j->i;

	while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
		j->i++;
	return j->i - from;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; exact integers of up to 15 digits are summed,
 * anything else goes through strtod on a terminated copy. */
static cJSON *number(struct jp *j)
{
	size_t from = j->i, nd;
	int neg = j->i < j->n && j->s[j->i] == '-', plain = 1;
	double v = 0;
	cJSON *c;

	j->i += (size_t)neg;
	if (j->i < j->n && j->s[j->i] == '0') {
		j->i++;
		nd = 1;
	} else if ((nd = digits(j)) == 0) {
		return stop(j, JP_SYNTAX);
	}
	if (j->i < j->n && j->s[j->i] == '.') {
		j->i++;
		plain = 0;
		if (digits(j) == 0)
			return stop(j, JP_SYNTAX);
	}
	if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
		j->i++;
		plain = 0;
		if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
			j->i++;
		if (digits(j) == 0)
			return stop(j, JP_SYNTAX);
	}
	if (plain && nd <= 15) {
		int64_t x = 0;
		for (size_t k = from + (size_t)neg; k < j->i; k++)
			x = x * 10 + (j->s[k] - '0');
		v = neg ? -(double)x : (double)x;
	} else {
		size_t len = j->i - from;
		char small[64], *tmp = len < sizeof small ? small : malloc(len + 1);
		if (!tmp)
			return stop(j, JP_NOMEM);
		memcpy(tmp, j->s + from, len);
		tmp[len] = '\0';
		v = strtod(tmp, NULL);
		if (tmp != small)
			free(tmp);
	}
	if (!(c = node(j, cJSON_Number)))
		return NULL;
	c->valuedouble = v;
	c->valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
	return c;
}

static int hex4(struct jp *j, unsigned *out)
{
	*out = 0;
	for (int k = 0; k < 4; k++, j->i++) {
		char c = j->i < j->n ? j->s[j->i] : 0;
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
		             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		             : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
		                                    : 16;
		if (d == 16)
			return -1;
		*out = *out << 4 | d;
	}
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | cp >> 6);
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | cp >> 12);
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | cp >> 18);
		*o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/* \uXXXX at j->i (after the backslash and u), a surrogate pair taken whole; 0 on success. */
static int escape_u(struct jp *j, char **o)
{
	unsigned hi, lo;

	if (hex4(j, &hi) != 0 || hi == 0 || (hi >= 0xdc00 && hi <= 0xdfff))
		return -1;
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (j->i + 1 >= j->n || j->s[j->i] != '\\' || j->s[j->i + 1] != 'u')
			return -1;
		j->i += 2;
		if (hex4(j, &lo) != 0 || lo < 0xdc00 || lo > 0xdfff)
			return -1;
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	*o = put_utf8(*o, hi);
	return 0;
}

/* Bytes a string holds as they are: not a quote, backslash, control character or DEL. */
static const unsigned char plain[256] = {
    [0x20 ... 0x21] = 1, /* '"' is 0x22 */
    [0x23 ... 0x5b] = 1, /* '\\' is 0x5c */
    [0x5d ... 0x7e] = 1, /* DEL is 0x7f */
    [0x80 ... 0xff] = 1,
};

/* The end of the string whose text starts at from (after its quote): the offset of its closing
 * quote, *escaped set when it holds a backslash; or n with the parse stopped. */
static size_t string_end(struct jp *j, size_t from, int *escaped)
{
	size_t end = from;

	*escaped = 0;
	for (;;) {
		unsigned char c;
		while (end < j->n && plain[(unsigned char)j->s[end]])
			end++;
		if (end >= j->n) {
			j->i = j->n;
			return stop(j, JP_SHORT), j->n;
		}
		c = (unsigned char)j->s[end];
		if (c == '"')
			return end;
		if (c != '\\') {
			j->i = end;
			return stop(j, c == '\t' || c == '\n' || c == '\r' ? JP_SYNTAX : JP_BINARY),
			       j->n;
		}
		*escaped = 1;
		end += 2;
	}
}

/* The escapes of text[j->i..end) decoded into o; 0, or -1 with the parse stopped at the bad
 * escape: its backslash for a \u escape, else the character after the backslash. */
static int unescape(struct jp *j, size_t end, char *o)
{
	while (j->i < end) {
		char c = j->s[j->i++];
		size_t esc = j->i;
		if (c != '\\') {
			*o++ = c;
			continue;
		}
		c = j->s[j->i++];
		switch (c) {
		case '"':
		case '\\':
		case '/':
			*o++ = c;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (escape_u(j, &o) == 0 && j->i <= end)
				break;
			j->i = esc - 1;
			return stop(j, JP_SYNTAX), -1;
		default:
			j->i = esc;
			return stop(j, JP_SYNTAX), -1;
		}
	}
	*o = '\0';
	return 0;
}

/* The string at j->i (its opening quote) decoded into new memory. */
static char *string(struct jp *j)
{
	size_t from = j->i + 1, end;
	int escaped;
	char *out;

	if ((end = string_end(j, from, &escaped)) >= j->n || !(out = take(j, end - from + 1)))
		return NULL;
	if (!escaped) {
		memcpy(out, j->s + from, end - from);
		out[end - from] = '\0';
	} else {
		j->i = from;
		if (unescape(j, end, out) != 0) {
			if (!j->pool)
				free(out);
			return NULL;
		}
	}
	j->i = end + 1;
	return out;
}

static cJSON *value(struct jp *j);

static void append(cJSON *parent, cJSON **tail, cJSON *item)
{
	if (*tail) {
		(*tail)->next = item;
		item->prev = *tail;
	} else {
		parent->child = item;
	}
	*tail = item;
	parent->child->prev = item;
}

/* An array or object at j->i (its opening bracket). */
static cJSON *container(struct jp *j, int object)
{
	cJSON *c, *tail = NULL;
	char close = object ? '}' : ']';

	if (j->depth >= JP_MAX_DEPTH)
		return stop(j, JP_SYNTAX);
	if (!(c = node(j, object ? cJSON_Object : cJSON_Array)))
		return NULL;
	j->depth++;
	j->i = jp_skip_ws(j->s, j->n, j->i + 1);
	if (j->i < j->n && j->s[j->i] == close) {
		j->i++;
		j->depth--;
		return c;
	}
	for (;;) {
		char *key = NULL;
		cJSON *item;
		if (object) {
			if (j->i >= j->n || j->s[j->i] != '"' || !(key = string(j)))
				break;
			j->i = jp_skip_ws(j->s, j->n, j->i);
			if (j->i >= j->n || j->s[j->i] != ':') {
				if (!j->pool)
					free(key);
				break;
			}
			j->i++;
		}
		if (!(item = value(j))) {
			if (!j->pool)
				free(key);
			break;
		}
		item->string = key;
		append(c, &tail, item);
		j->i = jp_skip_ws(j->s, j->n, j->i);
		if (j->i < j->n && j->s[j->i] == ',') {
			j->i = jp_skip_ws(j->s, j->n, j->i + 1);
			continue;
		}
		if (j->i < j->n && j->s[j->i] == close) {
			j->i++;
			j->depth--;
			return c;
		}
		break;
	}
	drop(j, c);
	return stop(j, JP_SYNTAX);
}

static cJSON *value(struct jp *j)
{
	cJSON *c = NULL;
	char *s;

	j->i = jp_skip_ws(j->s, j->n, j->i);
	if (j->i >= j->n)
		return stop(j, JP_SHORT);
	switch (j->s[j->i]) {
	case '{':
		return container(j, 1);
	case '[':
		return container(j, 0);
	case '"':
		if (!(s = string(j)))
			return NULL;
		if (!(c = node(j, cJSON_String))) {
			if (!j->pool)
				free(s);
			return NULL;
		}
		c->valuestring = s;
		return c;
	case 't':
		if (literal(j, "true", 4) == 0 && (c = node(j, cJSON_True)))
			c->valueint = 1;
		return c ? c : stop(j, JP_SYNTAX);
	case 'f':
		return literal(j, "false", 5) == 0 ? node(j, cJSON_False) : stop(j, JP_SYNTAX);
	case 'n':
		return literal(j, "null", 4) == 0 ? node(j, cJSON_NULL) : stop(j, JP_SYNTAX);
	default:
		if (j->s[j->i] == '-' || (j->s[j->i] >= '0' && j->s[j->i] <= '9'))
			return number(j);
		return stop(j, JP_SYNTAX);
	}
}

cJSON *jp_parse(const char *text, size_t n, struct jp_pool *pool, size_t *nodes, size_t max_nodes,
                struct jp_result *r)
{
	return jp_parse_nested(text, n, 0, pool, nodes, max_nodes, r);
}

cJSON *jp_parse_nested(const char *text, size_t n, unsigned depth, struct jp_pool *pool,
                       size_t *nodes, size_t max_nodes, struct jp_result *r)
{
	struct jp j = {.s = text,
	               .n = n,
	               .pool = pool,
	               .nodes = nodes,
	               .max_nodes = max_nodes,
	               .depth = depth};
	cJSON *c = value(&j);

	r->status = c ? JP_OK : j.st;
	r->at = j.i;
	if (!c && j.st == JP_OK)
		r->status = JP_SYNTAX;
	return c;
}
