/* jsonstrict.c - strict JSON (jsonstrict.h): the scan of a value's tokens, and the first error of
 * a text that fails it; the span's tree is built by jsonbuild.c. */
#include "common/jsonstrict.h"

#include "common/utf8.h"

#include <math.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Token classes of a byte between tokens. */
enum { C_OTHER, C_WS, C_OPEN, C_CLOSE, C_SEP, C_QUOTE, C_NUM, C_LIT, C_BIN };

static const unsigned char cls[256] = {
    [0x00 ... 0x08] = C_BIN, ['\t'] = C_WS,    ['\n'] = C_WS,    [0x0b ... 0x0c] = C_BIN,
    ['\r'] = C_WS,           [0x0e ... 0x1f] = C_BIN, [' '] = C_WS,   ['{'] = C_OPEN,
    ['['] = C_OPEN,          ['}'] = C_CLOSE, [']'] = C_CLOSE,  [','] = C_SEP,
    [':'] = C_SEP,           ['"'] = C_QUOTE, ['-'] = C_NUM,    ['0' ... '9'] = C_NUM,
    ['t'] = C_LIT,           ['f'] = C_LIT,   ['n'] = C_LIT,    [0x7f] = C_BIN,
};

/* Bytes a string holds as they are: not a quote, backslash, control character, DEL or non-ASCII. */
static const unsigned char plain[256] = {
    [0x20 ... 0x21] = 1, /* '"' is 0x22 */
    [0x23 ... 0x5b] = 1, /* '\\' is 0x5c */
    [0x5d ... 0x7e] = 1,
};

/* Offset of the first byte at or after i, before n, that a string does not hold as it is. */
static size_t plain_run(const unsigned char *s, size_t i, size_t n)
{
#if defined(__SSE2__)
	const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'),
	              ctl = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);

	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)),
		                            _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl),
		                                         _mm_cmpeq_epi8(v, del)));
		/* the high bit of a byte: not ASCII */
		unsigned m = (unsigned)(_mm_movemask_epi8(stop) | _mm_movemask_epi8(v));
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	while (i < n && plain[s[i]])
		i++;
	return i;
}

struct scan {
	const unsigned char *s;
	size_t n, i;
	size_t *nodes, max_nodes;
	unsigned depth, base; /* containers open in this value; containers around it */
	uint64_t object[(JST_MAX_DEPTH + 64) / 64]; /* bit d: the container at depth d is one */
	struct jst_result *r;
};

static int is_binary(unsigned char c)
{
	return cls[c] == C_BIN;
}

static int stop(struct scan *x, enum jst_status st, size_t at)
{
	x->r->status = st;
	x->r->at = at;
	return -1;
}

static int broken(struct scan *x, size_t at, const char *rule)
{
	snprintf(x->r->rule, sizeof x->r->rule, "%s", rule);
	return stop(x, JST_RULE, at);
}

static int count(struct scan *x)
{
	return ++*x->nodes > x->max_nodes ? stop(x, JST_TOO_MANY, x->i) : 0;
}

static int is_digit(size_t i, const struct scan *x)
{
	return i < x->n && x->s[i] >= '0' && x->s[i] <= '9';
}

static size_t digits(const struct scan *x, size_t i)
{
	while (is_digit(i, x))
		i++;
	return i;
}

/* Whether a number is finite: cJSON's strtod of its text (at most JST_MAX_NUMBER bytes). */
static int finite_number(const unsigned char *s, size_t len)
{
	char tmp[JST_MAX_NUMBER + 1];

	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return isfinite(strtod(tmp, NULL));
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at x->i, not followed by a byte cJSON would
 * read as part of it. */
static int number(struct scan *x)
{
	size_t from = x->i, i = from + (x->s[from] == '-');
	int exp = 0;

	if (i >= x->n)
		return stop(x, JST_SHORT, x->n);
	if (x->s[i] == '0')
		i++;
	else if (is_digit(i, x))
		i = digits(x, i);
	else
		return stop(x, JST_SYNTAX, i);
	if (i < x->n && x->s[i] == '.') {
		if (++i >= x->n)
			return stop(x, JST_SHORT, x->n);
		if (!is_digit(i, x))
			return stop(x, JST_SYNTAX, i);
		i = digits(x, i);
	}
	if (i < x->n && (x->s[i] == 'e' || x->s[i] == 'E')) {
		exp = 1;
		if (++i < x->n && (x->s[i] == '+' || x->s[i] == '-'))
			i++;
		if (i >= x->n)
			return stop(x, JST_SHORT, x->n);
		if (!is_digit(i, x))
			return stop(x, JST_SYNTAX, i);
		i = digits(x, i);
	}
	if (i < x->n && (cls[x->s[i]] == C_NUM || x->s[i] == '.' || x->s[i] == 'e' ||
	                 x->s[i] == 'E' || x->s[i] == '+'))
		return stop(x, JST_SYNTAX, i);
	if (i - from > JST_MAX_NUMBER)
		return broken(x, from, "a number longer than 63 characters");
	if (exp && !finite_number(x->s + from, i - from))
		return broken(x, from, "a number out of range");
	x->i = i;
	return 0;
}

static int literal(struct scan *x)
{
	const char *w = x->s[x->i] == 't' ? "true" : x->s[x->i] == 'f' ? "false" : "null";

	for (; *w; w++, x->i++) {
		if (x->i >= x->n)
			return stop(x, JST_SHORT, x->n);
		if (x->s[x->i] != (unsigned char)*w)
			return stop(x, JST_SYNTAX, x->i);
	}
	return 0;
}

/* The four hex digits at i into *v: 0, 1 when the text ends first, -1 when one is no hex digit. */
static int hex4(const struct scan *x, size_t i, unsigned *v)
{
	*v = 0;
	for (size_t k = i; k < i + 4; k++) {
		unsigned char c = k < x->n ? x->s[k] : 0;
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
		             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
		             : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
		                                    : 16;
		if (k >= x->n)
			return 1;
		if (d == 16)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* The \u escape whose backslash is at i (a surrogate pair taken whole); its length, or -1. */
static int escape_u(struct scan *x, size_t i)
{
	unsigned hi, lo;
	int rc = hex4(x, i + 2, &hi);

	if (rc != 0)
		return rc > 0 ? stop(x, JST_SHORT, x->n) : stop(x, JST_SYNTAX, i);
	if (hi == 0)
		return broken(x, i, "\\u0000 in a string");
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return broken(x, i, "a lone surrogate in a string");
	if (hi < 0xd800 || hi > 0xdbff)
		return 6;
	for (size_t k = i + 6; k < i + 8; k++) {
		if (k >= x->n)
			return stop(x, JST_SHORT, x->n);
		if (x->s[k] != (k == i + 6 ? '\\' : 'u'))
			return broken(x, i, "a lone surrogate in a string");
	}
	if ((rc = hex4(x, i + 8, &lo)) != 0)
		return rc > 0 ? stop(x, JST_SHORT, x->n) : stop(x, JST_SYNTAX, i);
	if (lo < 0xdc00 || lo > 0xdfff)
		return broken(x, i, "a lone surrogate in a string");
	return 12;
}

/* The escape whose backslash is at i: its length, or -1. */
static int escape(struct scan *x, size_t i)
{
	if (i + 1 >= x->n)
		return stop(x, JST_SHORT, x->n);
	switch (x->s[i + 1]) {
	case '"':
	case '\\':
	case '/':
	case 'b':
	case 'f':
	case 'n':
	case 'r':
	case 't':
		return 2;
	case 'u':
		return escape_u(x, i);
	default:
		return stop(x, is_binary(x->s[i + 1]) ? JST_BINARY : JST_SYNTAX, i + 1);
	}
}

/* The string whose quote is at x->i; x->i goes past its closing quote. */
static int string(struct scan *x)
{
	const unsigned char *s = x->s;
	size_t i = x->i + 1, n = x->n;

	for (;;) {
		unsigned char c;
		int k;
		if ((i = plain_run(s, i, n)) >= n)
			return stop(x, JST_SHORT, n);
		c = s[i];
		if (c == '"') {
			x->i = i + 1;
			return 0;
		}
		if (c == '\\')
			k = escape(x, i);
		else if (c >= 0x80)
			k = utf8_seq(s + i, n - i);
		else if (c == '\t' || c == '\n' || c == '\r')
			return broken(x, i, "a tab, CR or LF unescaped in a string");
		else
			return stop(x, JST_BINARY, i);
		if (c >= 0x80 && k <= 0)
			return k < 0 ? stop(x, JST_SHORT, n) : broken(x, i, "invalid UTF-8");
		if (k < 0)
			return -1;
		i += (size_t)k;
	}
}

/* Whether the string that ends at x->i names a member: a colon follows. */
static int is_key(const struct scan *x)
{
	const unsigned char *s = x->s;
	size_t j = x->i, n = x->n;

	while (j < n && cls[s[j]] == C_WS)
		j++;
	return j < n && s[j] == ':';
}

/* One token at x->i. */
static int token(struct scan *x)
{
	switch (cls[x->s[x->i]]) {
	case C_WS:
		x->i++;
		return 0;
	case C_OPEN:
		if (x->base + ++x->depth > JST_MAX_DEPTH)
			return broken(x, x->i, "nesting deeper than 1000");
		if (x->s[x->i] == '{')
			x->object[x->depth / 64] |= (uint64_t)1 << x->depth % 64;
		else
			x->object[x->depth / 64] &= ~((uint64_t)1 << x->depth % 64);
		if (count(x) != 0)
			return -1;
		x->i++;
		return 0;
	case C_CLOSE:
		if (x->depth == 0 ||
		    (x->s[x->i] == '}') != (x->object[x->depth / 64] >> x->depth % 64 & 1))
			return stop(x, JST_SYNTAX, x->i);
		x->depth--;
		x->i++;
		return 0;
	case C_SEP:
		if (x->depth == 0)
			return stop(x, JST_SYNTAX, x->i);
		x->i++;
		return 0;
	case C_QUOTE:
		return string(x) != 0 || (!is_key(x) && count(x) != 0) ? -1 : 0;
	case C_NUM:
		return number(x) != 0 || count(x) != 0 ? -1 : 0;
	case C_LIT:
		return literal(x) != 0 || count(x) != 0 ? -1 : 0;
	case C_BIN:
		return stop(x, JST_BINARY, x->i);
	default:
		return stop(x, JST_SYNTAX, x->i);
	}
}

int jst_scan(const char *text, size_t n, unsigned depth, size_t *nodes, size_t max_nodes,
             struct jst_result *r)
{
	struct scan x = {.s = (const unsigned char *)text,
	                 .n = n,
	                 .nodes = nodes,
	                 .max_nodes = max_nodes,
	                 .base = depth,
	                 .r = r};

	r->status = JST_OK;
	r->rule[0] = '\0';
	x.i = jst_skip_ws(text, n, 0);
	do {
		r->tok = x.i;
		if (x.i >= n)
			return stop(&x, JST_SHORT, n);
		if (token(&x) != 0)
			return -1;
	} while (x.depth > 0);
	r->at = x.i;
	return 0;
}

void jst_earliest(const char *text, size_t n, struct jst_result *r)
{
	size_t tok = r->tok, len = tok + (tok < n ? 2 : 0);
	const char *stopped = NULL;
	char *copy;
	cJSON *v;

	if (r->status == JST_NOMEM || r->status == JST_TOO_MANY || tok == 0 ||
	    !(copy = malloc(len + 1)))
		return;
	/* the text before the token; an empty string in the token's place, which stands wherever a
	 * value or a member name may; a blank, where cJSON stops when the text has run out */
	memcpy(copy, text, tok);
	memcpy(copy + tok, "\"\" ", len + 1 - tok);
	v = cJSON_ParseWithLengthOpts(copy, len + 1, &stopped, 0);
	if (!v && stopped && (size_t)(stopped - copy) < len) {
		r->status = JST_SYNTAX;
		r->at = (size_t)(stopped - copy) < tok ? (size_t)(stopped - copy) : tok;
	}
	cJSON_Delete(v);
	free(copy);
}

cJSON *jst_parse(const char *text, size_t n, unsigned depth, struct jst_arena *arena,
                 size_t *nodes, size_t max_nodes, struct jst_result *r)
{
	if (jst_scan(text, n, depth, nodes, max_nodes, r) == 0)
		return jst_build(text, r->at, arena, r);
	jst_earliest(text, n, r);
	return NULL;
}

size_t jst_skip_ws(const char *text, size_t n, size_t i)
{
	while (i < n && cls[(unsigned char)text[i]] == C_WS)
		i++;
	return i;
}

size_t jst_first_binary(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

#if defined(__SSE2__)
	const __m128i ctl = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f);

	/* a block with no control character and no DEL has no binary byte; one with any (a tab,
	 * say) is looked at byte by byte */
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i any = _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl),
		                           _mm_cmpeq_epi8(v, del));
		if (_mm_movemask_epi8(any))
			for (size_t j = i; j < i + 16; j++)
				if (is_binary(s[j]))
					return j;
	}
#endif
	for (; i < n; i++)
		if (is_binary(s[i]))
			return i;
	return n;
}
