/* test_jsonstrict.c - strict JSON through cJSON (common/jsonstrict.h) and well-formed UTF-8
 * (common/utf8.h): the trees of valid texts against cJSON_Parse's, from malloc and from an arena;
 * every refusal with its status and offset (the texts the hand-written parser before it refused,
 * and what cJSON 1.7.15 lets through: numbers outside JSON's grammar or range, raw control
 * characters, \u0000, lone surrogates, invalid UTF-8, blanks other than JSON's four, repeated
 * member names, nesting); every prefix and many one-byte corruptions of the valid texts; and
 * every parse reads its span from the end of a page followed by an inaccessible one, so a byte
 * read beyond text[n) faults. Leaks on failure paths are ASan's to report (make test). */
#include "check.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"

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

/* jst_parse of text[0..n) placed before a guard page. */
static cJSON *parse_n(const char *text, size_t n, struct jst_arena *pool, size_t max_nodes,
                      size_t *nodes, struct jst_result *r)
{
	struct guarded g;
	size_t count = 0;
	cJSON *v;

	if (guard(&g, text, n) != 0) {
		r->status = JST_NOMEM;
		return NULL;
	}
	v = jst_parse(g.text, n, 0, pool, nodes ? nodes : &count, max_nodes, r);
	unguard(&g);
	return v;
}

static cJSON *parse(const char *text, struct jst_arena *pool, struct jst_result *r)
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

/* Same types, names, strings, bit-identical numbers and valueints, links in both directions. */
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
    "1e-400",
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
    "123456789012345678901234567890123456789012345678901234567890123",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "true",
    "false",
    "null",
    "\"\"",
    "\"plain text\"",
    "\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"",
    "\"\\u0041\\u00e9\\u20ac\\uFFFD\\u0001\\u007f\"",
    "\"\\ud83d\\ude00 \\uD834\\uDD1E \\udbff\\udfff \\ud800\\udc00\"",
    "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
    "\"\xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xef\xbf\xbf \xf0\x90\x80\x80 "
    "\xf4\x8f\xbf\xbf\"",
    "\"a/b\\\\c\\\"d\"",
    "[]",
    "{}",
    " [ ] ",
    "\t\r\n{\t\r\n}\t\r\n",
    "[1,2,3]",
    "[[[[[]]]],[[]],[]]",
    "{\"a\":{\"b\":{\"c\":[1,{\"d\":null}]}}}",
    "{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":3},{\"a\":4}]}",
    "{\"\":\"\",\"\\u00e9\\n\":\"k\"}",
    "[true,false,null,\"x\",-1.5e-7,{},[]]",
    "{\"schema\": \"allocab-bench/1\", \"rounds\": [{\"index\": 0, \"runs\": []}],"
    " \"n\": [0, -0, 1e-2, 12345678901234567]}",
    " { \"k\" : [ 1 , 2 ] , \"l\" : { } } ",
};

#define NVALID (sizeof valid / sizeof *valid)

static void test_differential(void)
{
	struct jst_arena pool = {0};

	for (size_t i = 0; i < NVALID; i++) {
		cJSON *theirs = cJSON_ParseWithOpts(valid[i], NULL, 1), *heap, *pooled;
		struct jst_result r, rp;
		size_t nodes = 0;
		heap = parse_n(valid[i], strlen(valid[i]), NULL, SIZE_MAX, &nodes, &r);
		CHECK(theirs && heap && r.status == JST_OK &&
		          jst_skip_ws(valid[i], strlen(valid[i]), r.at) == strlen(valid[i]) &&
		          equal_to_cjson(heap, theirs),
		      "heap tree equals cJSON's: %s", shown(valid[i]));
		pooled = parse(valid[i], &pool, &rp);
		CHECK(pooled && rp.status == JST_OK && rp.at == r.at &&
		          equal_to_cjson(pooled, theirs),
		      "arena tree equals cJSON's: %s", shown(valid[i]));
		cJSON_Delete(theirs);
		cJSON_Delete(heap);
		if (i % 7 == 0)
			jst_arena_reset(&pool);
	}
	jst_arena_free(&pool);
	CHECK(pool.chunks == NULL && pool.used == 0, "jst_arena_free empties the arena");
}

static void test_values(void)
{
	struct jst_result r;
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
	v = parse("1e-400", NULL, &r);
	CHECK(v && v->valuedouble == 0, "1e-400 underflows to 0: finite, accepted");
	cJSON_Delete(v);
	v = parse("[true,false,null]", NULL, &r);
	CHECK(v && cJSON_IsTrue(cJSON_GetArrayItem(v, 0)) && cJSON_IsFalse(cJSON_GetArrayItem(v, 1)) &&
	          cJSON_IsNull(cJSON_GetArrayItem(v, 2)),
	      "literals in an array");
	cJSON_Delete(v);
	v = parse_n("true", 4, NULL, SIZE_MAX, NULL, &r);
	CHECK(v && cJSON_IsTrue(v) && r.at == 4,
	      "a literal that ends the text (cJSON 1.7.15 alone wants a byte after it)");
	cJSON_Delete(v);
}

struct bad {
	const char *text;
	size_t n; /* 0: strlen */
	enum jst_status status;
	size_t at;        /* SIZE_MAX: no place (a repeated name) */
	const char *rule; /* JST_RULE: a part of the rule's text */
};

static const struct bad bads[] = {
    /* numbers outside JSON's grammar: cJSON's strtod would read most of them */
    {"01", 0, JST_SYNTAX, 1, NULL},
    {"[01]", 0, JST_SYNTAX, 2, NULL},
    {"-01", 0, JST_SYNTAX, 2, NULL},
    {"+1", 0, JST_SYNTAX, 0, NULL},
    {"[+1]", 0, JST_SYNTAX, 1, NULL},
    {"1.", 0, JST_SHORT, 2, NULL},
    {"[1.]", 0, JST_SYNTAX, 3, NULL},
    {"1.e5", 0, JST_SYNTAX, 2, NULL},
    {".5", 0, JST_SYNTAX, 0, NULL},
    {"[.5]", 0, JST_SYNTAX, 1, NULL},
    {"-", 0, JST_SHORT, 1, NULL},
    {"[-]", 0, JST_SYNTAX, 2, NULL},
    {"-a", 0, JST_SYNTAX, 1, NULL},
    {"--1", 0, JST_SYNTAX, 1, NULL},
    {"0x10", 0, JST_OK, 1, NULL},
    {"[0x10]", 0, JST_SYNTAX, 2, NULL},
    {"1e", 0, JST_SHORT, 2, NULL},
    {"[1e]", 0, JST_SYNTAX, 3, NULL},
    {"1e+", 0, JST_SHORT, 3, NULL},
    {"[1e-]", 0, JST_SYNTAX, 4, NULL},
    {"[1e5.0]", 0, JST_SYNTAX, 4, NULL},
    {"[1.5.0]", 0, JST_SYNTAX, 4, NULL},
    {"[1e5e5]", 0, JST_SYNTAX, 4, NULL},
    {"[1-2]", 0, JST_SYNTAX, 2, NULL},
    {"NaN", 0, JST_SYNTAX, 0, NULL},
    {"Infinity", 0, JST_SYNTAX, 0, NULL},
    {"-Infinity", 0, JST_SYNTAX, 1, NULL},
    /* numbers cJSON would make infinite, or cut */
    {"1e999", 0, JST_RULE, 0, "a number out of range"},
    {"[-1e400]", 0, JST_RULE, 1, "a number out of range"},
    {"{\"seed\":1E+309}", 0, JST_RULE, 8, "a number out of range"},
    {"[1234567890123456789012345678901234567890123456789012345678901234]", 0, JST_RULE, 1,
     "a number longer than 63 characters"},
    /* strings */
    {"'a'", 0, JST_SYNTAX, 0, NULL},
    {"\"a\tb\"", 0, JST_RULE, 2, "a tab, CR or LF unescaped"},
    {"\"a\nb\"", 0, JST_RULE, 2, "a tab, CR or LF unescaped"},
    {"\"a\rb\"", 0, JST_RULE, 2, "a tab, CR or LF unescaped"},
    {"\"a\x01"
     "b\"",
     0, JST_BINARY, 2, NULL},
    {"\"a\x1f\"", 0, JST_BINARY, 2, NULL},
    {"\"a\x7f\"", 0, JST_BINARY, 2, NULL},
    {"\"a\0b\"", 5, JST_BINARY, 2, NULL},
    {"\"\\u0000\"", 0, JST_RULE, 1, "\\u0000 in a string"},
    {"\"a\\u0000b\"", 0, JST_RULE, 2, "\\u0000 in a string"},
    {"{\"k\\u0000\":1}", 0, JST_RULE, 3, "\\u0000 in a string"},
    {"\"\\ud800\"", 0, JST_RULE, 1, "a lone surrogate"},
    {"\"\\ud800x\"", 0, JST_RULE, 1, "a lone surrogate"},
    {"\"\\ud800\\u0041\"", 0, JST_RULE, 1, "a lone surrogate"},
    {"\"\\ud800\\ud800\"", 0, JST_RULE, 1, "a lone surrogate"},
    {"\"\\ud800\\n\"", 0, JST_RULE, 1, "a lone surrogate"},
    {"\"\\udc00\"", 0, JST_RULE, 1, "a lone surrogate"},
    {"\"\\udfff\\ud800\"", 0, JST_RULE, 1, "a lone surrogate"},
    {"\"\\ud800\\u12g4\"", 0, JST_SYNTAX, 1, NULL},
    {"\"\\x41\"", 0, JST_SYNTAX, 2, NULL},
    {"\"\\U0041\"", 0, JST_SYNTAX, 2, NULL},
    {"\"\\'\"", 0, JST_SYNTAX, 2, NULL},
    {"\"\\u12g4\"", 0, JST_SYNTAX, 1, NULL},
    {"\"\\u12\"", 0, JST_SYNTAX, 1, NULL},
    {"\"\\u\"", 0, JST_SYNTAX, 1, NULL},
    {"[\"ok\",\"\\u12g4\"]", 0, JST_SYNTAX, 7, NULL},
    {"\"\\\t\"", 0, JST_SYNTAX, 2, NULL},
    {"\"\\\x01\"", 0, JST_BINARY, 2, NULL},
    /* bytes that are not UTF-8, in values and in names */
    {"\"\xff\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\x80\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"ab\xc3(\"", 0, JST_RULE, 3, "invalid UTF-8"},
    {"\"\xc0\xaf\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xc1\xbf\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xe0\x80\xaf\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xe0\x9f\xbf\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xed\xa0\x80\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xed\xbf\xbf\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xf0\x80\x80\xaf\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xf4\x90\x80\x80\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xf5\x80\x80\x80\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"\"\xfe\"", 0, JST_RULE, 1, "invalid UTF-8"},
    {"{\"a\xff\":1}", 0, JST_RULE, 3, "invalid UTF-8"},
    {"\"\xe2\x82", 0, JST_SHORT, 3, NULL},
    /* cut short */
    {"\"abc", 0, JST_SHORT, 4, NULL},
    {"\"ab\\", 0, JST_SHORT, 4, NULL},
    {"\"ab\\\"", 0, JST_SHORT, 5, NULL},
    {"\"\\u12", 0, JST_SHORT, 5, NULL},
    {"\"\\ud83d", 0, JST_SHORT, 7, NULL},
    {"\"\\ud83d\\", 0, JST_SHORT, 8, NULL},
    {"\"\\ud83d\\ude0", 0, JST_SHORT, 12, NULL},
    {"[", 0, JST_SHORT, 1, NULL},
    {"[1,2", 0, JST_SHORT, 4, NULL},
    {"[1,2,", 0, JST_SHORT, 5, NULL},
    {"[1,2 ", 0, JST_SHORT, 5, NULL},
    {"{", 0, JST_SHORT, 1, NULL},
    {"{\"a\"", 0, JST_SHORT, 4, NULL},
    {"{\"a\":", 0, JST_SHORT, 5, NULL},
    {"{\"a\":1", 0, JST_SHORT, 6, NULL},
    {"{\"a\":1,", 0, JST_SHORT, 7, NULL},
    {"{\"a\":[{\"b\":[", 0, JST_SHORT, 12, NULL},
    {"tru", 0, JST_SHORT, 3, NULL},
    {"fals", 0, JST_SHORT, 4, NULL},
    {"nul", 0, JST_SHORT, 3, NULL},
    {"[tr", 0, JST_SHORT, 3, NULL},
    {"", 0, JST_SHORT, 0, NULL},
    {" \t\r\n", 0, JST_SHORT, 4, NULL},
    /* the grammar, cJSON's: where it stopped (one past a name it wanted) */
    {"[1,]", 0, JST_SYNTAX, 3, NULL},
    {"[,1]", 0, JST_SYNTAX, 1, NULL},
    {"[1,,2]", 0, JST_SYNTAX, 3, NULL},
    {"[1 2]", 0, JST_SYNTAX, 3, NULL},
    {"[1:2]", 0, JST_SYNTAX, 2, NULL},
    {"{\"a\":1,}", 0, JST_SYNTAX, 7, NULL},
    {"{,}", 0, JST_SYNTAX, 2, NULL},
    {"{a:1}", 0, JST_SYNTAX, 1, NULL},
    {"{\"a\" 1}", 0, JST_SYNTAX, 5, NULL},
    {"{\"a\":1 \"b\":2}", 0, JST_SYNTAX, 7, NULL},
    {"{\"a\",1}", 0, JST_SYNTAX, 4, NULL},
    {"{1:1}", 0, JST_SYNTAX, 2, NULL},
    {"[}", 0, JST_SYNTAX, 1, NULL},
    {"{]", 0, JST_SYNTAX, 1, NULL},
    {"[[1}]", 0, JST_SYNTAX, 3, NULL},
    {"truex", 0, JST_OK, 4, NULL},
    {"[truex]", 0, JST_SYNTAX, 5, NULL},
    {"[True]", 0, JST_SYNTAX, 1, NULL},
    {"nulL", 0, JST_SYNTAX, 3, NULL},
    /* the first error in the text, though the scan stopped at a later one */
    {"[1 2", 0, JST_SYNTAX, 3, NULL},
    {"[1 \"a\xff\"]", 0, JST_SYNTAX, 3, NULL},
    {"{\"a\" 1, \"b", 0, JST_SYNTAX, 5, NULL},
    {"{\"a\":1 \"b\\u0000\":2}", 0, JST_SYNTAX, 7, NULL},
    {"[1,2}", 0, JST_SYNTAX, 4, NULL},
    /* bytes that are no text, and blanks cJSON would skip */
    {"\x01", 0, JST_BINARY, 0, NULL},
    {"\0", 1, JST_BINARY, 0, NULL},
    {"[\x7f]", 0, JST_BINARY, 1, NULL},
    {"[1,\x02]", 0, JST_BINARY, 3, NULL},
    {"[1,\f2]", 0, JST_BINARY, 3, NULL},
    {"\xef\xbb\xbf[]", 0, JST_SYNTAX, 0, NULL},
    {"{\"a\":1}\x01", 0, JST_OK, 7, NULL},
    {"[1] [2]", 0, JST_OK, 3, NULL},
    {"\f[]", 0, JST_BINARY, 0, NULL},
    {"\v1", 0, JST_BINARY, 0, NULL},
    /* a name twice in one object: the smallest such name */
    {"{\"a\":1,\"a\":2}", 0, JST_RULE, SIZE_MAX, "member 'a' appears twice in one object"},
    {"{\"b\":1,\"a\":1,\"b\":2,\"a\":2}", 0, JST_RULE, SIZE_MAX, "member 'a' appears twice"},
    {"[{\"x\":{\"k\":1,\"k\":null}}]", 0, JST_RULE, SIZE_MAX, "member 'k' appears twice"},
    {"{\"\\u00e9\":1,\"\xc3\xa9\":2}", 0, JST_RULE, SIZE_MAX, "member '\xc3\xa9' appears twice"},
    {"{\"a\\nb\":1,\"a\\nb\":2}", 0, JST_RULE, SIZE_MAX, "member 'a\\x0ab' appears twice"},
    {"{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,"
     "\"k10\":0,\"k11\":1,\"k12\":2,\"k13\":3,\"k14\":4,\"k15\":5,\"k16\":6,\"k5\":7}",
     0, JST_RULE, SIZE_MAX, "member 'k5' appears twice"},
};

static const char *status_name(enum jst_status s)
{
	static const char *const names[] = {"OK",       "SYNTAX", "BINARY", "SHORT",
	                                    "TOO_MANY", "NOMEM",  "RULE"};

	return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

static void test_strict(void)
{
	for (size_t i = 0; i < sizeof bads / sizeof *bads; i++) {
		const struct bad *b = &bads[i];
		size_t n = b->n ? b->n : strlen(b->text);
		for (int mode = 0; mode < 2; mode++) {
			struct jst_arena pool = {0};
			struct jst_result r;
			cJSON *v = parse_n(b->text, n, mode ? &pool : NULL, SIZE_MAX, NULL, &r);
			int rule_ok = !b->rule || strstr(r.rule, b->rule);
			CHECK((v != NULL) == (b->status == JST_OK) && r.status == b->status &&
			          r.at == b->at && rule_ok,
			      "%s: %s gives %s at %zu%s%s, want %s at %zu", mode ? "arena" : "heap",
			      shown(b->text), status_name(r.status), r.at,
			      r.status == JST_RULE ? ": " : "", r.status == JST_RULE ? r.rule : "",
			      status_name(b->status), b->at);
			if (!mode)
				cJSON_Delete(v);
			jst_arena_free(&pool);
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
			struct jst_arena pool = {0};
			struct jst_result r;
			size_t n;
			char *s = nested(JST_MAX_DEPTH, object, &n);
			cJSON *v =
			    s ? parse_n(s, n, mode ? &pool : NULL, SIZE_MAX, NULL, &r) : NULL;
			CHECK(v && r.status == JST_OK && r.at == n,
			      "%s nested %d deep: accepted (%s)", object ? "objects" : "arrays",
			      JST_MAX_DEPTH, mode ? "arena" : "heap");
			if (!mode)
				cJSON_Delete(v);
			free(s);
			s = nested(JST_MAX_DEPTH + 1, object, &n);
			v = s ? parse_n(s, n, mode ? &pool : NULL, SIZE_MAX, NULL, &r) : NULL;
			CHECK(!v && r.status == JST_RULE && strstr(r.rule, "nesting deeper than 1000") &&
			          r.at == (size_t)JST_MAX_DEPTH * (object ? 5 : 1),
			      "%s nested %d deep: refused at the innermost bracket (%s at %zu)",
			      object ? "objects" : "arrays", JST_MAX_DEPTH + 1,
			      status_name(r.status), r.at);
			free(s);
			jst_arena_free(&pool);
		}
	}
}

/* The depth argument: the limit counts the containers the value sits in. */
static void test_depth_nested(void)
{
	size_t n, nodes = 0;
	char *s = nested(JST_MAX_DEPTH - 2, 0, &n);
	struct guarded g;
	struct jst_result r;
	cJSON *v;

	if (!s || guard(&g, s, n) != 0)
		return free(s);
	v = jst_parse(g.text, n, 2, NULL, &nodes, SIZE_MAX, &r);
	CHECK(v && r.status == JST_OK, "%d arrays inside 2 containers: accepted", JST_MAX_DEPTH - 2);
	cJSON_Delete(v);
	v = jst_parse(g.text, n, 3, NULL, &nodes, SIZE_MAX, &r);
	CHECK(!v && r.status == JST_RULE && r.at == JST_MAX_DEPTH - 3,
	      "%d arrays inside 3 containers: refused at the innermost bracket (at %zu)",
	      JST_MAX_DEPTH - 2, r.at);
	v = jst_parse(g.text, n, JST_MAX_DEPTH, NULL, &nodes, SIZE_MAX, &r);
	CHECK(!v && r.status == JST_RULE && r.at == 0, "any array at JST_MAX_DEPTH: refused");
	v = jst_parse("7", 1, JST_MAX_DEPTH, NULL, &nodes, SIZE_MAX, &r);
	CHECK(v && v->valuedouble == 7, "a scalar at JST_MAX_DEPTH: accepted");
	cJSON_Delete(v);
	unguard(&g);
	free(s);
}

static void test_max_nodes(void)
{
	const char *text = "{\"a\":[1,\"x\",null],\"b\":{}}"; /* 6 values; names do not count */
	size_t n = strlen(text);

	for (int mode = 0; mode < 2; mode++) {
		struct jst_arena pool = {0}, *p = mode ? &pool : NULL;
		struct jst_result r;
		size_t nodes = 0;
		cJSON *v = parse_n(text, n, p, 6, &nodes, &r);
		CHECK(v && r.status == JST_OK && nodes == 6,
		      "6 values with max_nodes 6: accepted (%s)", mode ? "arena" : "heap");
		if (!mode)
			cJSON_Delete(v);
		nodes = 0;
		v = parse_n(text, n, p, 5, &nodes, &r);
		CHECK(!v && r.status == JST_TOO_MANY,
		      "6 values with max_nodes 5: JST_TOO_MANY (%s, %s)", mode ? "arena" : "heap",
		      status_name(r.status));
		nodes = 4;
		v = parse_n(text, n, p, 10, &nodes, &r);
		CHECK(v && nodes == 10, "the count adds to *nodes: 4 + 6 = 10 is at the limit");
		if (!mode)
			cJSON_Delete(v);
		nodes = 5;
		v = parse_n(text, n, p, 10, &nodes, &r);
		CHECK(!v && r.status == JST_TOO_MANY, "5 + 6 over 10: JST_TOO_MANY");
		for (size_t max = 0; max < 6; max++) {
			nodes = 0;
			v = parse_n(text, n, p, max, &nodes, &r);
			CHECK(!v && r.status == JST_TOO_MANY && r.at <= n,
			      "max_nodes %zu: JST_TOO_MANY (%s)", max, mode ? "arena" : "heap");
		}
		jst_arena_free(&pool);
	}
}

/* A prefix of a longer buffer: the scan stops at n, and a value cut there is JST_SHORT. */
static void test_span(void)
{
	static const struct {
		const char *text;
		size_t n;
		double want; /* NAN: not a number */
		enum jst_status st;
	} spans[] = {
	    {"12345", 3, 123, JST_OK},          {"-0.5e1x", 6, -5, JST_OK},
	    {"1e10", 3, 1e1, JST_OK},           {"1234567890123456789", 16, 1234567890123456, JST_OK},
	    {"[1,2]junk", 5, NAN, JST_OK},      {"\"abc\"", 3, NAN, JST_SHORT},
	    {"truefalse", 4, NAN, JST_OK},      {"true", 3, NAN, JST_SHORT},
	    {"[1,2]", 4, NAN, JST_SHORT},       {"{\"a\":12}", 7, NAN, JST_SHORT},
	    {"\"\\u00e9\"", 6, NAN, JST_SHORT}, {"1.5", 2, NAN, JST_SHORT},
	    {"\"\xe2\x82\xac\"", 3, NAN, JST_SHORT},
	};
	for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
		struct jst_result r;
		cJSON *v = parse_n(spans[i].text, spans[i].n, NULL, SIZE_MAX, NULL, &r);
		int num_ok = isnan(spans[i].want) || (v && v->valuedouble == spans[i].want);
		CHECK(r.status == spans[i].st && (v != NULL) == (spans[i].st == JST_OK) && num_ok &&
		          r.at == spans[i].n,
		      "'%s' read to %zu only: %s at %zu", shown(spans[i].text), spans[i].n,
		      status_name(r.status), r.at);
		cJSON_Delete(v);
	}
}

/* Every proper prefix of a valid text is JST_SHORT at its end, or a complete value (a number,
 * or one before trailing blanks); from malloc and from an arena, with nothing read beyond the
 * prefix. */
static void test_prefixes(void)
{
	struct jst_arena pool = {0};
	size_t bad = 0, tried = 0;

	for (size_t i = 0; i < NVALID; i++) {
		size_t len = strlen(valid[i]);
		for (size_t n = 0; n < len; n++) {
			for (int mode = 0; mode < 2; mode++) {
				struct jst_result r;
				cJSON *v =
				    parse_n(valid[i], n, mode ? &pool : NULL, SIZE_MAX, NULL, &r);
				tried++;
				if (v ? r.status != JST_OK || r.at > n
				      : r.status != JST_SHORT || r.at != n) {
					if (bad++ < 5)
						printf("# prefix %zu of '%s': %s at %zu\n", n,
						       shown(valid[i]), status_name(r.status),
						       r.at);
				}
				if (!mode)
					cJSON_Delete(v);
				jst_arena_reset(&pool);
			}
		}
	}
	jst_arena_free(&pool);
	CHECK(bad == 0, "%zu prefixes of valid texts: JST_SHORT at their end or complete values",
	      tried);
}

/* One byte of a valid text replaced: never a crash or leak; whatever is accepted whole is
 * accepted by cJSON_Parse with the same tree, and holds well-formed UTF-8. */
static void test_corruptions(void)
{
	static const char subst[] = {'\x01', '"',  '\\', '}', ']',    ',',    ':',    'x', '0',
	                             '-',    ' ',  'e',  '.', '[',    '{',    'u',    '\0', '\t',
	                             '\x7f', '\xff', '\xc3', '\xed', '\x80'};
	size_t differ = 0, tried = 0;

	for (size_t i = 0; i < NVALID; i++) {
		size_t len = strlen(valid[i]);
		char *t = malloc(len + 1);
		for (size_t k = 0; t && k < len; k++) {
			for (size_t s = 0; s < sizeof subst; s++) {
				struct jst_result r;
				cJSON *v, *theirs;
				memcpy(t, valid[i], len + 1);
				t[k] = subst[s];
				v = parse_n(t, len, NULL, SIZE_MAX, NULL, &r);
				tried++;
				if (v && jst_skip_ws(t, len, r.at) == len && !memchr(t, '\0', len)) {
					theirs = cJSON_ParseWithOpts(t, NULL, 1);
					if (!theirs || !equal_to_cjson(v, theirs) ||
					    utf8_first_bad(t, len) != len) {
						if (differ++ < 5)
							printf("# '%s' differs from cJSON\n",
							       shown(t));
					}
					cJSON_Delete(theirs);
				}
				if (!v && (r.status == JST_OK || (r.at > len && r.at != SIZE_MAX)))
					differ++;
				cJSON_Delete(v);
			}
		}
		free(t);
	}
	CHECK(differ == 0, "%zu one-byte corruptions: accepted ones equal cJSON's trees", tried);
}

static void test_arena(void)
{
	struct jst_arena pool = {0};
	struct jst_result r;
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
	jst_arena_reset(&pool);
	CHECK(pool.chunks && pool.used == 0, "reset keeps a chunk, empty");
	for (int k = 0; k < 50; k++) {
		w = parse_n(s, big + 2, &pool, SIZE_MAX, NULL, &r);
		if (!w || strlen(w->valuestring) != big)
			break;
		jst_arena_reset(&pool);
		if (k == 49)
			CHECK(1, "50 parses of 300 KiB reusing one arena");
	}
	for (int k = 0; k < 1000; k++)
		v = parse("{\"a\":[1,2,3],\"b\":\"xyz\"}", &pool, &r);
	CHECK(v && cJSON_GetArraySize(cJSON_GetObjectItem(v, "a")) == 3,
	      "1000 trees in one arena without reset");
	v = parse("{\"a\":1,\"a\":2}", &pool, &r);
	CHECK(!v && r.status == JST_RULE, "a refused tree in an arena is left to the arena");
	jst_arena_free(&pool);
	CHECK(!pool.chunks && pool.used == 0, "jst_arena_free releases every chunk");
	jst_arena_reset(&pool);
	jst_arena_free(&pool);
	CHECK(!pool.chunks, "reset and free of an empty arena");
	v = parse("{\"x\":1}", NULL, &r);
	w = cJSON_CreateObject();
	CHECK(v && w && cJSON_AddItemToObject(w, "y", v) && cJSON_GetObjectItem(w, "y"),
	      "after a parse cJSON's own hooks are back: a malloc'd tree joins another");
	cJSON_Delete(w);
	free(s);
}

static void test_helpers(void)
{
	CHECK(jst_skip_ws(" \t\r\nx", 5, 0) == 4 && jst_skip_ws("  ", 2, 0) == 2 &&
	          jst_skip_ws("\f", 1, 0) == 0 && jst_skip_ws("a b", 3, 1) == 2,
	      "jst_skip_ws: JSON's four blanks only, stops at n");
	CHECK(jst_first_binary("ab\tc\r\n\x80\xff", 8) == 8 &&
	          jst_first_binary("ab\x7f", 3) == 2 && jst_first_binary("\0", 1) == 0 &&
	          jst_first_binary("a\x1f", 2) == 1 && jst_first_binary("\x01", 0) == 0,
	      "jst_first_binary: control bytes but tab, CR, LF, and DEL; never beyond n");
}

static void test_utf8(void)
{
	static const struct {
		const char *s;
		int want;
	} seqs[] = {
	    {"a", 1},         {"\xc2\x80", 2},      {"\xdf\xbf", 2},         {"\xc1\xbf", 0},
	    {"\xe0\xa0\x80", 3}, {"\xe0\x9f\xbf", 0}, {"\xed\x9f\xbf", 3},    {"\xed\xa0\x80", 0},
	    {"\xee\x80\x80", 3}, {"\xf0\x90\x80\x80", 4}, {"\xf0\x8f\xbf\xbf", 0},
	    {"\xf4\x8f\xbf\xbf", 4}, {"\xf4\x90\x80\x80", 0}, {"\xf5\x80\x80\x80", 0},
	    {"\x80", 0},      {"\xff", 0},          {"\xe2\x82", -1},        {"\xe2(", 0},
	};
	char buf[64], *t;

	for (size_t i = 0; i < sizeof seqs / sizeof *seqs; i++)
		CHECK(utf8_seq((const unsigned char *)seqs[i].s, strlen(seqs[i].s)) == seqs[i].want,
		      "utf8_seq(%s) = %d", shown(seqs[i].s), seqs[i].want);
	t = strdup("plain \xc3\xa9");
	CHECK(t && utf8_fix(t) == t, "utf8_fix: well-formed text is returned as it is");
	free(t);
	t = utf8_fix(strdup("a\xff" "b\xed\xa0\x80" "c\xe2\x82"));
	CHECK(t && strcmp(t, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd\xef\xbf\xbd") == 0,
	      "utf8_fix: each bad byte becomes U+FFFD");
	free(t);
	CHECK(!utf8_fix(NULL), "utf8_fix(NULL) is NULL");
	CHECK(strcmp(utf8_quote(buf, sizeof buf, "a\nb\x1b[31m\xff\xc3\xa9"),
	             "a\\x0ab\\x1b[31m\\xff\xc3\xa9") == 0,
	      "utf8_quote: controls and bad bytes as \\xNN: %s", buf);
	CHECK(strlen(utf8_quote(buf, 16, "0123456789abcdefghij")) <= 15 && strstr(buf, "..."),
	      "utf8_quote: cut with ...: %s", buf);
	CHECK(strcmp(utf8_quote(buf, sizeof buf, NULL), "(null)") == 0, "utf8_quote(NULL)");
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
	test_arena();
	test_helpers();
	test_utf8();
	return CHECK_DONE();
}
