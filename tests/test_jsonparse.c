/* test_jsonparse.c - allocab's strict JSON parser (common/jsonparse.h): the trees of valid texts
 * against cJSON_Parse's, in heap and pool mode; every refusal of its stricter grammar with its
 * status and offset; every prefix and many one-byte corruptions of the valid texts; and every
 * parse reads its span from the end of a page followed by an inaccessible one, so a byte read
 * beyond text[n) faults. Leaks on failure paths are ASan's to report (make test). */
#include "check.h"
#include "common/jsonparse.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* text[0..n) copied to the end of readable pages followed by a PROT_NONE page. */
struct guarded {
	char *map;
	size_t len;
	const char *text;
};

static int guard(struct guarded *g, const char *text, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (n + page - 1) / page * page;

	if (data == 0)
		data = page;
	g->len = data + page;
	g->map = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		return -1;
	if (mprotect(g->map + data, page, PROT_NONE) != 0) {
		munmap(g->map, g->len);
		return -1;
	}
	memcpy(g->map + data - n, text, n);
	g->text = g->map + data - n;
	return 0;
}

static void unguard(struct guarded *g)
{
	munmap(g->map, g->len);
}

/* jp_parse of text[0..n) placed before a guard page. */
static cJSON *parse_n(const char *text, size_t n, struct jp_pool *pool, size_t max_nodes,
                      size_t *nodes, struct jp_result *r)
{
	struct guarded g;
	size_t count = 0;
	cJSON *v;

	if (guard(&g, text, n) != 0) {
		r->status = JP_NOMEM;
		return NULL;
	}
	v = jp_parse(g.text, n, pool, nodes ? nodes : &count, max_nodes, r);
	unguard(&g);
	return v;
}

static cJSON *parse(const char *text, struct jp_pool *pool, struct jp_result *r)
{
	return parse_n(text, strlen(text), pool, SIZE_MAX, NULL, r);
}

/* text with its control characters escaped, for a check's name (one of two buffers). */
static const char *shown(const char *text)
{
	static char bufs[2][256];
	static int k;
	char *b = bufs[k ^= 1];
	size_t o = 0;

	for (; *text && o + 5 < sizeof bufs[0]; text++)
		o += (size_t)snprintf(b + o, sizeof bufs[0] - o,
		                      (unsigned char)*text < 0x20 || *text == 0x7f ? "\\x%02x"
		                                                                   : "%c",
		                      (unsigned char)*text);
	b[o] = '\0';
	return b;
}

/* Same types, keys, strings, bit-identical numbers and valueints, links in both directions. */
static int same_tree(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if ((a->type & 0xff) != (b->type & 0xff) || !a->string != !b->string ||
	    (a->string && strcmp(a->string, b->string) != 0))
		return 0;
	if (cJSON_IsString(a) && strcmp(a->valuestring, b->valuestring) != 0)
		return 0;
	if (cJSON_IsNumber(a) && (memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) != 0 ||
	                          a->valueint != b->valueint))
		return 0;
	if (a->valueint != b->valueint)
		return 0;
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next) {
		if (!same_tree(x, y) || (x->next && x->next->prev != x))
			return 0;
		if (!x->next && a->child->prev != x)
			return 0;
	}
	return !x && !y;
}

/* Our tree equals cJSON's: cJSON_Compare, the same compact text, and same_tree. */
static int equal_to_cjson(const cJSON *ours, const cJSON *theirs)
{
	char *p = cJSON_PrintUnformatted(ours), *q = cJSON_PrintUnformatted(theirs);
	cJSON *copy = cJSON_Duplicate(theirs, 1);
	/* cJSON_Compare holds no infinity and no duplicate key equal, not even to a copy */
	int same = p && q && strcmp(p, q) == 0 &&
	           (cJSON_Compare(ours, theirs, 1) || !cJSON_Compare(copy, theirs, 1)) &&
	           same_tree(ours, theirs);

	cJSON_Delete(copy);
	free(p);
	free(q);
	return same;
}

static const char *const valid[] = {
    "0",
    "-0",
    "-0.0",
    "-0e0",
    "1",
    "-1",
    "7.25",
    "1e5",
    "1E5",
    "1e+5",
    "1e-5",
    "1.5E+300",
    "-2.5e-3",
    "1e308",
    "1.7976931348623157e308",
    "2.2250738585072014e-308",
    "4.9e-324",
    "0.1",
    "0.30000000000000004",
    "123456789012345",
    "-123456789012345",
    "999999999999999",
    "1234567890123456",
    "9007199254740993",
    "-9007199254740993",
    "12345678901234567890",
    "123456789012345678901234567890",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "1e400",
    "-1e400",
    "true",
    "false",
    "null",
    "\"\"",
    "\"plain text\"",
    "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
    "\"\\u0041\\u00e9\\u20ac\\uFFFD\\u0001\\u007f\"",
    "\"\\ud83d\\ude00 \\uD834\\uDD1E \\udbff\\udfff \\ud800\\udc00\"",
    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
    "\"a/b\\\\c\\\"d\"",
    "[]",
    "{}",
    " [ ] ",
    "\t\r\n{\t\r\n}\t\r\n",
    "[1,2,3]",
    "[[[[[]]]],[[]],[]]",
    "{\"a\":{\"b\":{\"c\":[1,{\"d\":null}]}}}",
    "{\"a\":1,\"a\":2,\"b\":3,\"a\":4}",
    "{\"\":\"\",\"\\u00e9\\n\":\"k\"}",
    "[true,false,null,\"x\",-1.5e-7,{},[]]",
    "{\"schema\": \"allocab-bench/1\", \"rounds\": [{\"index\": 0, \"runs\": []}],"
    " \"n\": [0, -0, 1e-2, 12345678901234567]}",
    " { \"k\" : [ 1 , 2 ] , \"l\" : { } } ",
};

#define NVALID (sizeof valid / sizeof *valid)

static void test_differential(void)
{
	struct jp_pool pool = {0};

	for (size_t i = 0; i < NVALID; i++) {
		cJSON *theirs = cJSON_ParseWithOpts(valid[i], NULL, 1), *heap, *pooled;
		struct jp_result r, rp;
		size_t nodes = 0;
		heap = parse_n(valid[i], strlen(valid[i]), NULL, SIZE_MAX, &nodes, &r);
		CHECK(theirs && heap && r.status == JP_OK &&
		          jp_skip_ws(valid[i], strlen(valid[i]), r.at) == strlen(valid[i]) &&
		          equal_to_cjson(heap, theirs),
		      "heap tree equals cJSON's: %s", shown(valid[i]));
		pooled = parse(valid[i], &pool, &rp);
		CHECK(pooled && rp.status == JP_OK && rp.at == r.at &&
		          equal_to_cjson(pooled, theirs),
		      "pool tree equals cJSON's: %s", shown(valid[i]));
		cJSON_Delete(theirs);
		cJSON_Delete(heap);
		if (i % 7 == 0)
			jp_pool_reset(&pool);
	}
	jp_pool_free(&pool);
	CHECK(pool.chunks == NULL && pool.used == 0, "jp_pool_free empties the pool");
}

static void test_values(void)
{
	struct jp_result r;
	cJSON *v;

	v = parse("\"\\ud83d\\ude00\"", NULL, &r);
	CHECK(v && strcmp(v->valuestring, "\xf0\x9f\x98\x80") == 0, "a surrogate pair is UTF-8");
	cJSON_Delete(v);
	v = parse("\"\\u00e9\\u0800\\u07ff\\uffff\"", NULL, &r);
	CHECK(v && strcmp(v->valuestring, "\xc3\xa9\xe0\xa0\x80\xdf\xbf\xef\xbf\xbf") == 0,
	      "2- and 3-byte UTF-8 boundaries");
	cJSON_Delete(v);
	v = parse("-0", NULL, &r);
	CHECK(v && v->valuedouble == 0 && signbit(v->valuedouble), "-0 is negative zero");
	cJSON_Delete(v);
	v = parse("{\"a\":1,\"a\":2}", NULL, &r);
	CHECK(v && cJSON_GetObjectItemCaseSensitive(v, "a")->valueint == 1 &&
	          cJSON_GetArraySize(v) == 2,
	      "duplicate keys: both kept, the first found");
	cJSON_Delete(v);

	char digits[400];
	memset(digits, '9', sizeof digits - 1);
	digits[sizeof digits - 1] = '\0';
	digits[0] = '1';
	v = parse(digits, NULL, &r);
	CHECK(v && r.status == JP_OK && r.at == strlen(digits) &&
	          v->valuedouble == strtod(digits, NULL) && v->valueint == INT_MAX,
	      "a 399-digit number (longer than cJSON reads) through strtod");
	cJSON_Delete(v);
	memcpy(digits, "0.", 2);
	v = parse(digits, NULL, &r);
	CHECK(v && v->valuedouble == strtod(digits, NULL), "a 397-digit fraction");
	cJSON_Delete(v);
}

struct bad {
	const char *text;
	size_t n; /* 0: strlen */
	enum jp_status status;
	size_t at; /* SIZE_MAX: anywhere inside the text */
};

static const struct bad bads[] = {
    {"01", 0, JP_OK, 1},
    {"[01]", 0, JP_SYNTAX, 2},
    {"-01", 0, JP_OK, 2},
    {"+1", 0, JP_SYNTAX, 0},
    {"[+1]", 0, JP_SYNTAX, 1},
    {"1.", 0, JP_SHORT, 2},
    {"[1.]", 0, JP_SYNTAX, 3},
    {"1.e5", 0, JP_SYNTAX, 2},
    {".5", 0, JP_SYNTAX, 0},
    {"[.5]", 0, JP_SYNTAX, 1},
    {"-", 0, JP_SHORT, 1},
    {"[-]", 0, JP_SYNTAX, 2},
    {"-a", 0, JP_SYNTAX, 1},
    {"--1", 0, JP_SYNTAX, 1},
    {"0x10", 0, JP_OK, 1},
    {"[0x10]", 0, JP_SYNTAX, 2},
    {"1e", 0, JP_SHORT, 2},
    {"[1e]", 0, JP_SYNTAX, 3},
    {"1e+", 0, JP_SHORT, 3},
    {"[1e-]", 0, JP_SYNTAX, 4},
    {"[1e5.0]", 0, JP_SYNTAX, 4},
    {"NaN", 0, JP_SYNTAX, 0},
    {"Infinity", 0, JP_SYNTAX, 0},
    {"-Infinity", 0, JP_SYNTAX, 1},
    {"'a'", 0, JP_SYNTAX, 0},
    {"\"a\tb\"", 0, JP_SYNTAX, 2},
    {"\"a\nb\"", 0, JP_SYNTAX, 2},
    {"\"a\rb\"", 0, JP_SYNTAX, 2},
    {"\"a\x01"
     "b\"",
     0, JP_BINARY, 2},
    {"\"a\x1f\"", 0, JP_BINARY, 2},
    {"\"a\x7f\"", 0, JP_BINARY, 2},
    {"\"a\0b\"", 5, JP_BINARY, 2},
    {"\"\\u0000\"", 0, JP_SYNTAX, 1},
    {"\"a\\u0000b\"", 0, JP_SYNTAX, 2},
    {"\"\\ud800\"", 0, JP_SYNTAX, 1},
    {"\"\\ud800x\"", 0, JP_SYNTAX, 1},
    {"\"\\ud800\\u0041\"", 0, JP_SYNTAX, 1},
    {"\"\\ud800\\ud800\"", 0, JP_SYNTAX, 1},
    {"\"\\ud800\\n\"", 0, JP_SYNTAX, 1},
    {"\"\\udc00\"", 0, JP_SYNTAX, 1},
    {"\"\\udfff\\ud800\"", 0, JP_SYNTAX, 1},
    {"\"\\x41\"", 0, JP_SYNTAX, 2},
    {"\"\\U0041\"", 0, JP_SYNTAX, 2},
    {"\"\\'\"", 0, JP_SYNTAX, 2},
    {"\"\\u12g4\"", 0, JP_SYNTAX, 1},
    {"\"\\u12\"", 0, JP_SYNTAX, 1},
    {"\"\\u\"", 0, JP_SYNTAX, 1},
    {"[\"ok\",\"\\u12g4\"]", 0, JP_SYNTAX, 7},
    {"{\"k\\u0000\":1}", 0, JP_SYNTAX, 3},
    {"\"\\\t\"", 0, JP_SYNTAX, 2},
    {"\"\\\x01\"", 0, JP_BINARY, 2},
    {"\"abc", 0, JP_SHORT, 4},
    {"\"ab\\", 0, JP_SHORT, 4},
    {"\"ab\\\"", 0, JP_SHORT, 5},
    {"\"\\u12", 0, JP_SHORT, 5},
    {"\"\\ud83d", 0, JP_SHORT, 7},
    {"\"\\ud83d\\ude0", 0, JP_SHORT, 12},
    {"[", 0, JP_SHORT, 1},
    {"[1,2", 0, JP_SHORT, 4},
    {"[1,2,", 0, JP_SHORT, 5},
    {"[1,2 ", 0, JP_SHORT, 5},
    {"{", 0, JP_SHORT, 1},
    {"{\"a\"", 0, JP_SHORT, 4},
    {"{\"a\":", 0, JP_SHORT, 5},
    {"{\"a\":1", 0, JP_SHORT, 6},
    {"{\"a\":1,", 0, JP_SHORT, 7},
    {"{\"a\":[{\"b\":[", 0, JP_SHORT, 12},
    {"tru", 0, JP_SHORT, 3},
    {"fals", 0, JP_SHORT, 4},
    {"nul", 0, JP_SHORT, 3},
    {"[tr", 0, JP_SHORT, 3},
    {"", 0, JP_SHORT, 0},
    {" \t\r\n", 0, JP_SHORT, 4},
    {"[1,]", 0, JP_SYNTAX, 3},
    {"[,1]", 0, JP_SYNTAX, 1},
    {"[1,,2]", 0, JP_SYNTAX, 3},
    {"[1 2]", 0, JP_SYNTAX, 3},
    {"[1:2]", 0, JP_SYNTAX, 2},
    {"{\"a\":1,}", 0, JP_SYNTAX, 7},
    {"{,}", 0, JP_SYNTAX, 1},
    {"{a:1}", 0, JP_SYNTAX, 1},
    {"{\"a\" 1}", 0, JP_SYNTAX, 5},
    {"{\"a\":1 \"b\":2}", 0, JP_SYNTAX, 7},
    {"{\"a\",1}", 0, JP_SYNTAX, 4},
    {"{1:1}", 0, JP_SYNTAX, 1},
    {"[}", 0, JP_SYNTAX, 1},
    {"{]", 0, JP_SYNTAX, 1},
    {"truex", 0, JP_OK, 4},
    {"[truex]", 0, JP_SYNTAX, 5},
    {"[True]", 0, JP_SYNTAX, 1},
    {"nulL", 0, JP_SYNTAX, 3},
    {"\x01", 0, JP_BINARY, 0},
    {"\0", 1, JP_BINARY, 0},
    {"[\x7f]", 0, JP_BINARY, 1},
    {"[1,\x02]", 0, JP_BINARY, 3},
    {"\xef\xbb\xbf[]", 0, JP_SYNTAX, 0},
    {"{\"a\":1}\x01", 0, JP_OK, 7},
    {"[1] [2]", 0, JP_OK, 3},
    {"\f[]", 0, JP_BINARY, 0},
    {"\v1", 0, JP_BINARY, 0},
};

static const char *status_name(enum jp_status s)
{
	static const char *const names[] = {"OK", "SYNTAX", "BINARY", "SHORT", "TOO_MANY", "NOMEM"};

	return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

static void test_strict(void)
{
	for (size_t i = 0; i < sizeof bads / sizeof *bads; i++) {
		const struct bad *b = &bads[i];
		size_t n = b->n ? b->n : strlen(b->text);
		for (int mode = 0; mode < 2; mode++) {
			struct jp_pool pool = {0};
			struct jp_result r;
			cJSON *v = parse_n(b->text, n, mode ? &pool : NULL, SIZE_MAX, NULL, &r);
			int at_ok = b->at == SIZE_MAX ? r.at < n : r.at == b->at;
			CHECK((v != NULL) == (b->status == JP_OK) && r.status == b->status && at_ok,
			      "%s: text #%zu (%zu bytes) gives %s at %zu, want %s at %s",
			      mode ? "pool" : "heap", i, n, status_name(r.status), r.at,
			      status_name(b->status), b->at == SIZE_MAX ? "any" : "exact");
			if (!mode)
				cJSON_Delete(v);
			jp_pool_free(&pool);
		}
	}
}

/* Nesting of `depth` arrays (or objects {"a":...}) around 0. */
static char *nested(unsigned depth, int object, size_t *n)
{
	size_t unit = object ? 5 : 1, len = depth * (unit + 1) + 1;
	char *s = malloc(len + 1), *p = s;

	for (unsigned d = 0; s && d < depth; d++) {
		memcpy(p, object ? "{\"a\":" : "[", unit);
		p += unit;
	}
	if (s) {
		*p++ = '0';
		memset(p, object ? '}' : ']', depth);
		p[depth] = '\0';
	}
	*n = len;
	return s;
}

static void test_depth(void)
{
	for (int object = 0; object < 2; object++) {
		for (int mode = 0; mode < 2; mode++) {
			struct jp_pool pool = {0};
			struct jp_result r;
			size_t n;
			char *s = nested(JP_MAX_DEPTH, object, &n);
			cJSON *v =
			    s ? parse_n(s, n, mode ? &pool : NULL, SIZE_MAX, NULL, &r) : NULL;
			CHECK(v && r.status == JP_OK && r.at == n,
			      "%s nested %d deep: accepted (%s)", object ? "objects" : "arrays",
			      JP_MAX_DEPTH, mode ? "pool" : "heap");
			if (!mode)
				cJSON_Delete(v);
			free(s);
			s = nested(JP_MAX_DEPTH + 1, object, &n);
			v = s ? parse_n(s, n, mode ? &pool : NULL, SIZE_MAX, NULL, &r) : NULL;
			CHECK(!v && r.status == JP_SYNTAX &&
			          r.at == (size_t)JP_MAX_DEPTH * (object ? 5 : 1),
			      "%s nested %d deep: refused at the innermost bracket (%s at %zu)",
			      object ? "objects" : "arrays", JP_MAX_DEPTH + 1,
			      status_name(r.status), r.at);
			free(s);
			jp_pool_free(&pool);
		}
	}
}

/* jp_parse_nested: the limit counts the containers the value sits in. */
static void test_depth_nested(void)
{
	size_t n;
	char *s = nested(JP_MAX_DEPTH - 2, 0, &n);
	struct guarded g;
	struct jp_result r;
	size_t nodes = 0;
	cJSON *v;

	if (!s || guard(&g, s, n) != 0)
		return free(s);
	v = jp_parse_nested(g.text, n, 2, NULL, &nodes, SIZE_MAX, &r);
	CHECK(v && r.status == JP_OK, "%d arrays inside 2 containers: accepted", JP_MAX_DEPTH - 2);
	cJSON_Delete(v);
	v = jp_parse_nested(g.text, n, 3, NULL, &nodes, SIZE_MAX, &r);
	CHECK(!v && r.status == JP_SYNTAX && r.at == JP_MAX_DEPTH - 3,
	      "%d arrays inside 3 containers: refused at the innermost bracket (at %zu)",
	      JP_MAX_DEPTH - 2, r.at);
	v = jp_parse_nested(g.text, n, JP_MAX_DEPTH, NULL, &nodes, SIZE_MAX, &r);
	CHECK(!v && r.status == JP_SYNTAX && r.at == 0, "any array at JP_MAX_DEPTH: refused");
	v = jp_parse_nested("7", 1, JP_MAX_DEPTH, NULL, &nodes, SIZE_MAX, &r);
	CHECK(v && v->valuedouble == 7, "a scalar at JP_MAX_DEPTH: accepted");
	cJSON_Delete(v);
	unguard(&g);
	free(s);
}

static void test_max_nodes(void)
{
	const char *text = "{\"a\":[1,\"x\",null],\"b\":{}}"; /* 6 nodes */
	size_t n = strlen(text);

	for (int mode = 0; mode < 2; mode++) {
		struct jp_pool pool = {0}, *p = mode ? &pool : NULL;
		struct jp_result r;
		size_t nodes = 0;
		cJSON *v = parse_n(text, n, p, 6, &nodes, &r);
		CHECK(v && r.status == JP_OK && nodes == 6,
		      "6 nodes with max_nodes 6: accepted (%s)", mode ? "pool" : "heap");
		if (!mode)
			cJSON_Delete(v);
		nodes = 0;
		v = parse_n(text, n, p, 5, &nodes, &r);
		CHECK(!v && r.status == JP_TOO_MANY,
		      "6 nodes with max_nodes 5: JP_TOO_MANY (%s, %s)", mode ? "pool" : "heap",
		      status_name(r.status));
		nodes = 4;
		v = parse_n(text, n, p, 10, &nodes, &r);
		CHECK(v && nodes == 10, "the count adds to *nodes: 4 + 6 = 10 is at the limit");
		if (!mode)
			cJSON_Delete(v);
		nodes = 5;
		v = parse_n(text, n, p, 10, &nodes, &r);
		CHECK(!v && r.status == JP_TOO_MANY, "5 + 6 over 10: JP_TOO_MANY");
		for (size_t max = 0; max < 6; max++) {
			nodes = 0;
			v = parse_n(text, n, p, max, &nodes, &r);
			CHECK(!v && r.status == JP_TOO_MANY && r.at <= n,
			      "max_nodes %zu: JP_TOO_MANY (%s)", max, mode ? "pool" : "heap");
		}
		jp_pool_free(&pool);
	}
}

/* A prefix of a longer buffer: the parser stops at n, and a value cut there is JP_SHORT. */
static void test_span(void)
{
	static const struct {
		const char *text;
		size_t n;
		double want; /* NAN: not a number */
		enum jp_status st;
	} spans[] = {
	    {"12345", 3, 123, JP_OK},          {"-0.5e1x", 6, -5, JP_OK},
	    {"1e10", 3, 1e1, JP_OK},           {"1234567890123456789", 16, 1234567890123456, JP_OK},
	    {"[1,2]junk", 5, NAN, JP_OK},      {"\"abc\"", 3, NAN, JP_SHORT},
	    {"truefalse", 4, NAN, JP_OK},      {"true", 3, NAN, JP_SHORT},
	    {"[1,2]", 4, NAN, JP_SHORT},       {"{\"a\":12}", 7, NAN, JP_SHORT},
	    {"\"\\u00e9\"", 6, NAN, JP_SHORT}, {"1.5", 2, NAN, JP_SHORT},
	};
	for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
		struct jp_result r;
		cJSON *v = parse_n(spans[i].text, spans[i].n, NULL, SIZE_MAX, NULL, &r);
		int num_ok = isnan(spans[i].want) || (v && v->valuedouble == spans[i].want);
		CHECK(r.status == spans[i].st && (v != NULL) == (spans[i].st == JP_OK) && num_ok &&
		          r.at == spans[i].n,
		      "'%s' read to %zu only: %s at %zu", spans[i].text, spans[i].n,
		      status_name(r.status), r.at);
		cJSON_Delete(v);
	}
}

/* Every proper prefix of a valid text is JP_SHORT at its end, or a complete value (a number, or
 * one before trailing blanks); in both modes, with nothing read beyond the prefix. */
static void test_prefixes(void)
{
	struct jp_pool pool = {0};
	size_t bad = 0, tried = 0;

	for (size_t i = 0; i < NVALID; i++) {
		size_t len = strlen(valid[i]);
		for (size_t n = 0; n < len; n++) {
			for (int mode = 0; mode < 2; mode++) {
				struct jp_result r;
				cJSON *v =
				    parse_n(valid[i], n, mode ? &pool : NULL, SIZE_MAX, NULL, &r);
				tried++;
				if (v ? r.status != JP_OK || r.at > n
				      : r.status != JP_SHORT || r.at != n) {
					if (bad++ < 5)
						printf("# prefix %zu of '%s': %s at %zu\n", n,
						       shown(valid[i]), status_name(r.status),
						       r.at);
				}
				if (!mode)
					cJSON_Delete(v);
				jp_pool_reset(&pool);
			}
		}
	}
	jp_pool_free(&pool);
	CHECK(bad == 0, "%zu prefixes of valid texts: JP_SHORT at their end or complete values",
	      tried);
}

/* One byte of a valid text replaced: never a crash or leak; whatever is accepted whole is
 * accepted by cJSON_Parse with the same tree (the parser is the stricter). */
static void test_corruptions(void)
{
	static const char subst[] = {'\x01', '"', '\\', '}', ']', ',', ':', 'x', '0',
	                             '-',    ' ', 'e',  '.', '[', '{', 'u', '\0'};
	size_t differ = 0, tried = 0;

	for (size_t i = 0; i < NVALID; i++) {
		size_t len = strlen(valid[i]);
		char *t = malloc(len + 1);
		for (size_t k = 0; t && k < len; k++) {
			for (size_t s = 0; s < sizeof subst; s++) {
				struct jp_result r;
				cJSON *v, *theirs;
				memcpy(t, valid[i], len + 1);
				t[k] = subst[s];
				v = parse_n(t, len, NULL, SIZE_MAX, NULL, &r);
				tried++;
				if (v && jp_skip_ws(t, len, r.at) == len && !memchr(t, '\0', len)) {
					theirs = cJSON_ParseWithOpts(t, NULL, 1);
					if (!theirs || !equal_to_cjson(v, theirs)) {
						if (differ++ < 5)
							printf("# '%s' differs from cJSON\n",
							       shown(t));
					}
					cJSON_Delete(theirs);
				}
				if (!v && (r.status == JP_OK || r.at > len))
					differ++;
				cJSON_Delete(v);
			}
		}
		free(t);
	}
	CHECK(differ == 0, "%zu one-byte corruptions: accepted ones equal cJSON's trees", tried);
}

static void test_pool(void)
{
	struct jp_pool pool = {0};
	struct jp_result r;
	size_t big = (size_t)300 << 10;
	char *s = malloc(big + 3);
	cJSON *v, *w;

	if (!s)
		return;
	s[0] = '"';
	memset(s + 1, 'q', big);
	s[big + 1] = '"';
	s[big + 2] = '\0';
	v = parse("[1,2]", &pool, &r);
	w = parse_n(s, big + 2, &pool, SIZE_MAX, NULL, &r);
	CHECK(v && w && strlen(w->valuestring) == big && cJSON_GetArraySize(v) == 2,
	      "a string larger than a chunk goes into a chunk of its own; earlier trees intact");
	jp_pool_reset(&pool);
	CHECK(pool.chunks && pool.used == 0, "reset keeps a chunk, empty");
	for (int k = 0; k < 50; k++) {
		w = parse_n(s, big + 2, &pool, SIZE_MAX, NULL, &r);
		if (!w || strlen(w->valuestring) != big)
			break;
		jp_pool_reset(&pool);
		if (k == 49)
			CHECK(1, "50 parses of 300 KiB reusing one pool");
	}
	for (int k = 0; k < 1000; k++)
		v = parse("{\"a\":[1,2,3],\"b\":\"xyz\"}", &pool, &r);
	CHECK(v && cJSON_GetArraySize(cJSON_GetObjectItem(v, "a")) == 3,
	      "1000 trees in one pool without reset");
	jp_pool_free(&pool);
	CHECK(!pool.chunks && pool.used == 0, "jp_pool_free releases every chunk");
	jp_pool_reset(&pool);
	jp_pool_free(&pool);
	CHECK(!pool.chunks, "reset and free of an empty pool");
	free(s);
}

static void test_helpers(void)
{
	CHECK(jp_skip_ws(" \t\r\nx", 5, 0) == 4 && jp_skip_ws("  ", 2, 0) == 2 &&
	          jp_skip_ws("\f", 1, 0) == 0 && jp_skip_ws("a b", 3, 1) == 2,
	      "jp_skip_ws: JSON's four blanks only, stops at n");
	CHECK(jp_first_binary("ab\tc\r\n\x80\xff", 8) == 8 && jp_first_binary("ab\x7f", 3) == 2 &&
	          jp_first_binary("\0", 1) == 0 && jp_first_binary("a\x1f", 2) == 1 &&
	          jp_first_binary("\x01", 0) == 0,
	      "jp_first_binary: control bytes but tab, CR, LF, and DEL; never beyond n");
}

int main(void)
{
	test_differential();
	test_values();
	test_strict();
	test_depth();
	test_depth_nested();
	test_max_nodes();
	test_span();
	test_prefixes();
	test_corruptions();
	test_pool();
	test_helpers();
	return CHECK_DONE();
}
