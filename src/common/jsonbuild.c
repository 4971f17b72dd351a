/* jsonbuild.c - the trees of strict JSON (jsonstrict.h): the arena, cJSON's allocation hooks, and
 * jst_build, which builds the tree of a span jst_scan accepted itself, node for node as cJSON
 * 1.7.15's parse would (types, names, strings, numbers by the same strtod, valueint saturated,
 * the child list's prev link to its last item). A span whose grammar it does not accept is handed
 * to cJSON's parse, so that every refusal is cJSON's, at cJSON's offset. */
#include "common/jsonstrict.h"

#include "common/utf8.h"

#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JST_CHUNK_MIN ((size_t)64 << 10)
#define JST_SMALL_OBJ 16 /* members compared pairwise; more are sorted */
#define JST_EXACT_DIGITS 15 /* an integer of at most this many digits is a double exactly */

struct jst_chunk {
	struct jst_chunk *next;
	size_t size; /* bytes of data[] */
	max_align_t data[];
};

static void *arena_alloc(struct jst_arena *a, size_t size)
{
	struct jst_chunk *c = a->chunks;
	size_t need = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1), sz;

	if (c && c->size - a->used >= need) {
		a->used += need;
		return (char *)c->data + a->used - need;
	}
	sz = c && c->size * 2 > JST_CHUNK_MIN ? c->size * 2 : JST_CHUNK_MIN;
	if (sz < need)
		sz = need;
	if (!(c = malloc(sizeof *c + sz)))
		return NULL;
	c->size = sz;
	c->next = a->chunks;
	a->chunks = c;
	a->used = need;
	return c->data;
}

void jst_arena_reset(struct jst_arena *a)
{
	struct jst_chunk *keep = a->chunks, *c, *next;

	if (!keep)
		return;
	for (c = keep->next; c; c = next) {
		next = c->next;
		free(c);
	}
	keep->next = NULL;
	a->used = 0;
}

void jst_arena_free(struct jst_arena *a)
{
	jst_arena_reset(a);
	free(a->chunks);
	a->chunks = NULL;
	a->used = 0;
}

/* cJSON's allocations: during a jst_build into an arena from that arena, else malloc; a failure
 * is remembered. The state is the calling thread's, so threads may build at once. */
static _Thread_local struct jst_arena *g_arena;
static _Thread_local int g_nomem;
static pthread_once_t g_hooks_once = PTHREAD_ONCE_INIT;

static void *hook_alloc(size_t size)
{
	void *p = g_arena ? arena_alloc(g_arena, size) : malloc(size);

	g_nomem |= !p;
	return p;
}

static void hook_free(void *p)
{
	if (!g_arena)
		free(p);
}

static void install_hooks(void)
{
	cJSON_Hooks hooks = {hook_alloc, hook_free};

	cJSON_InitHooks(&hooks);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The smallest name that the n members of object o repeat, or NULL; *nomem set when memory ran
 * out. */
static const char *repeated(const cJSON *o, size_t n, int *nomem)
{
	const char *min = NULL, **names;
	const cJSON *a, *b;
	size_t k = 0;

	if (n <= JST_SMALL_OBJ) {
		for (a = o->child; a; a = a->next)
			for (b = a->next; b; b = b->next)
				if (a->string[0] == b->string[0] && strcmp(a->string, b->string) == 0 &&
				    (!min || strcmp(a->string, min) < 0))
					min = a->string;
		return min;
	}
	if (!(names = malloc(n * sizeof *names))) {
		*nomem = 1;
		return NULL;
	}
	for (a = o->child; a; a = a->next)
		names[k++] = a->string;
	qsort(names, n, sizeof *names, by_name);
	for (k = 1; k < n && !min; k++)
		if (strcmp(names[k - 1], names[k]) == 0)
			min = names[k];
	free(names);
	return min;
}

/* A repeated member name of object v (n members) into r: JST_RULE, or JST_NOMEM. */
static int repeat_rule(const cJSON *v, size_t n, struct jst_result *r)
{
	int nomem = 0;
	const char *name = n < 2 ? NULL : repeated(v, n, &nomem);
	char shown[64];

	if (!name && !nomem)
		return 0;
	r->status = nomem ? JST_NOMEM : JST_RULE;
	r->at = SIZE_MAX;
	if (!nomem)
		snprintf(r->rule, sizeof r->rule, "member '%s' appears twice in one object",
		         utf8_quote(shown, sizeof shown, name));
	return -1;
}

int jst_unique_keys(const cJSON *v, struct jst_result *r)
{
	size_t n = 0;

	for (const cJSON *c = v->child; c; c = c->next, n++)
		if (c->child && jst_unique_keys(c, r) != 0)
			return -1;
	return cJSON_IsObject(v) ? repeat_rule(v, n, r) : 0;
}

/* A build of a span jst_scan accepted. `grammar` set: a byte where the grammar wants another (the
 * span goes to cJSON); `nomem`: memory ran out; rule.status JST_RULE: the first object in
 * document order (an object after its members) that repeats a member name. */
struct build {
	const unsigned char *s;
	size_t n, i;
	struct jst_arena *arena;
	int grammar, nomem;
	struct jst_result rule;
};

static void *build_alloc(struct build *b, size_t size)
{
	void *p = b->arena ? arena_alloc(b->arena, size) : malloc(size);

	b->nomem |= !p;
	return p;
}

static void build_free(struct build *b, cJSON *v)
{
	if (v && !b->arena)
		cJSON_Delete(v);
}

static void skip_ws(struct build *b)
{
	while (b->i < b->n && (b->s[b->i] == ' ' || b->s[b->i] == '\n' || b->s[b->i] == '\r' ||
	                       b->s[b->i] == '\t'))
		b->i++;
}

static int expect(struct build *b, unsigned char c)
{
	skip_ws(b);
	if (b->i < b->n && b->s[b->i] == c) {
		b->i++;
		return 0;
	}
	b->grammar = 1;
	return -1;
}

static unsigned hex4(const unsigned char *s)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++)
		v = v << 4 | (unsigned)(s[k] <= '9' ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
	return v;
}

/* The code point of the \u escape at s (a pair of them for a surrogate pair, which jst_scan
 * checked) as UTF-8 at *out; the escape's length. */
static size_t utf16_escape(const unsigned char *s, unsigned char **out)
{
	unsigned long cp = hex4(s + 2);
	size_t len = 6;
	unsigned char *o = *out;

	if (cp >= 0xD800 && cp <= 0xDBFF) {
		cp = 0x10000 + ((cp & 0x3FF) << 10 | (hex4(s + 8) & 0x3FF));
		len = 12;
	}
	if (cp < 0x80) {
		*o++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*o++ = (unsigned char)(0xC0 | cp >> 6);
		*o++ = (unsigned char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (unsigned char)(0xE0 | cp >> 12);
		*o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (unsigned char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (unsigned char)(0xF0 | cp >> 18);
		*o++ = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
		*o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (unsigned char)(0x80 | (cp & 0x3F));
	}
	*out = o;
	return len;
}

/* The string whose quote is at b->i, unescaped, from the build's memory; b->i goes past it. */
static char *build_string(struct build *b)
{
	const unsigned char *s = b->s, *q = memchr(s + b->i + 1, '"', b->n - b->i - 1);
	size_t from = ++b->i, end = q ? (size_t)(q - s) : b->n;
	unsigned char *out, *o;

	if (q && !memchr(s + from, '\\', end - from)) {
		if (!(out = build_alloc(b, end - from + 1)))
			return NULL;
		memcpy(out, s + from, end - from);
		out[end - from] = '\0';
		b->i = end + 1;
		return (char *)out;
	}
	for (end = from; end < b->n && s[end] != '"';)
		end += s[end] == '\\' ? 2 : 1;
	if (end >= b->n || !(out = build_alloc(b, end - from + 1)))
		return b->grammar |= end >= b->n, NULL;
	o = out;
	for (size_t i = from; i < end;) {
		if (s[i] != '\\') {
			*o++ = s[i++];
			continue;
		}
		switch (s[i + 1]) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': i += utf16_escape(s + i, &o); continue;
		default: *o++ = s[i + 1]; break;
		}
		i += 2;
	}
	*o = '\0';
	b->i = end + 1;
	return (char *)out;
}

/* The number at b->i into v: an integer of at most JST_EXACT_DIGITS digits is exact as a double,
 * so it is converted directly; any other by strtod of its text with the locale's decimal point,
 * as cJSON does. */
static void build_number(struct build *b, cJSON *v)
{
	const unsigned char *s = b->s;
	size_t i = b->i, neg = s[i] == '-', k;
	uint64_t u = 0;
	double d;

	for (k = i + neg; k < b->n && s[k] >= '0' && s[k] <= '9'; k++)
		if (k - i - neg < JST_EXACT_DIGITS)
			u = u * 10 + (uint64_t)(s[k] - '0');
	if (k - i - neg <= JST_EXACT_DIGITS &&
	    (k >= b->n || (s[k] != '.' && s[k] != 'e' && s[k] != 'E'))) {
		d = neg ? -(double)u : (double)u;
	} else {
		char tmp[JST_MAX_NUMBER + 1];
		char point = localeconv()->decimal_point[0];
		size_t len = 0;

		for (k = i; k < b->n && len < JST_MAX_NUMBER && strchr("0123456789+-eE.", s[k]) &&
		            s[k]; k++)
			tmp[len++] = s[k] == '.' ? point : (char)s[k];
		tmp[len] = '\0';
		d = strtod(tmp, NULL);
	}
	b->i = k;
	v->type = cJSON_Number;
	v->valuedouble = d;
	v->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
}

static cJSON *build_value(struct build *b);

/* The items of the array or object whose bracket is at b->i into v's child list. */
static int build_items(struct build *b, cJSON *v, int object)
{
	cJSON *last = NULL, *item;
	size_t n = 0;
	char *name = NULL;

	b->i++;
	skip_ws(b);
	if (b->i < b->n && b->s[b->i] == (object ? '}' : ']')) {
		b->i++;
		return 0;
	}
	for (;;) {
		skip_ws(b);
		if (object && (b->i >= b->n || b->s[b->i] != '"' || !(name = build_string(b)) ||
		               expect(b, ':') != 0)) {
			b->grammar |= !b->nomem;
			if (name && !b->arena)
				free(name);
			return -1;
		}
		if (!(item = build_value(b))) {
			if (name && !b->arena)
				free(name);
			return -1;
		}
		item->string = name;
		name = NULL;
		if (last) {
			last->next = item;
			item->prev = last;
		} else {
			v->child = item;
		}
		last = item;
		n++;
		skip_ws(b);
		if (b->i < b->n && b->s[b->i] == ',') {
			b->i++;
			continue;
		}
		v->child->prev = last;
		if (expect(b, object ? '}' : ']') != 0)
			return -1;
		if (object && b->rule.status == JST_OK && repeat_rule(v, n, &b->rule) != 0 &&
		    b->rule.status == JST_NOMEM)
			b->nomem = 1;
		return 0;
	}
}

static cJSON *build_value(struct build *b)
{
	cJSON *v;
	unsigned char c;

	skip_ws(b);
	if (b->i >= b->n) {
		b->grammar = 1;
		return NULL;
	}
	if (!(v = build_alloc(b, sizeof *v)))
		return NULL;
	memset(v, 0, sizeof *v);
	c = b->s[b->i];
	if (c == '{' || c == '[') {
		v->type = c == '{' ? cJSON_Object : cJSON_Array;
		if (build_items(b, v, c == '{') != 0) {
			build_free(b, v);
			return NULL;
		}
	} else if (c == '"') {
		v->type = cJSON_String;
		if (!(v->valuestring = build_string(b))) {
			build_free(b, v);
			return NULL;
		}
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		build_number(b, v);
	} else if (c == 't' || c == 'f' || c == 'n') {
		size_t len = c == 'f' ? 5 : 4;
		v->type = c == 't' ? cJSON_True : c == 'f' ? cJSON_False : cJSON_NULL;
		v->valueint = c == 't';
		b->i += len;
	} else {
		b->grammar = 1;
		build_free(b, v);
		return NULL;
	}
	return v;
}

/* The tree of text[0..end) by cJSON's parse: where the build found the grammar broken. */
static cJSON *cjson_build(const char *text, size_t end, struct jst_arena *arena,
                          struct jst_result *r)
{
	size_t at = jst_skip_ws(text, end, 0);
	const char *stopped = NULL;
	cJSON *v;

	g_arena = arena;
	g_nomem = 0;
	v = cJSON_ParseWithLengthOpts(text + at, end - at, &stopped, 0);
	g_arena = NULL;
	r->status = JST_OK;
	r->at = end;
	if (v && (!stopped || stopped == text + end) && jst_unique_keys(v, r) == 0)
		return v;
	if (!v || r->status == JST_OK) {
		r->status = g_nomem ? JST_NOMEM : JST_SYNTAX;
		r->at = stopped ? (size_t)(stopped - text) : at;
	}
	if (v && !arena)
		cJSON_Delete(v);
	return NULL;
}

cJSON *jst_build(const char *text, size_t end, struct jst_arena *arena, struct jst_result *r)
{
	struct build b = {.s = (const unsigned char *)text, .n = end, .arena = arena};
	cJSON *v;

	pthread_once(&g_hooks_once, install_hooks);
	v = build_value(&b);
	if (v)
		skip_ws(&b);
	if (v && b.i != end)
		b.grammar = 1;
	if (b.grammar || (!v && !b.nomem)) {
		build_free(&b, v);
		return cjson_build(text, end, arena, r);
	}
	r->status = JST_OK;
	r->at = end;
	if (v && !b.nomem && b.rule.status == JST_OK)
		return v;
	build_free(&b, v);
	if (b.nomem) {
		r->status = JST_NOMEM;
		r->at = b.i;
	} else {
		*r = b.rule;
	}
	return NULL;
}
