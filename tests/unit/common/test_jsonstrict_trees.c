/* test_jsonstrict_trees.c - the trees strict JSON through cJSON (common/jsonstrict.h) builds from
 * valid texts against cJSON_Parse's, from malloc and from an arena; the values of escapes, -0 and
 * literals; every prefix and many one-byte corruptions of the valid texts. Every parse reads its
 * span before an inaccessible page (tests/unit/jstguard.h). Leaks on failure paths are ASan's to report
 * (make test). */
#include "check.h"
#include "jstguard.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    "[100000000000000,-999999999999999,0,-0,5e0,5.0,50e-1]",
    "{\"a\\nb\":\"x\\u00e9y\",\"\\\"\":[\"\\\\\",\"\"]}",
    "{\"k0\":0,\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,"
    "\"k9\":9,\"k10\":10,\"k11\":11,\"k12\":12,\"k13\":13,\"k14\":14,\"k15\":15,\"k16\":16,"
    "\"k17\":[{\"x\":true}]}",
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

int main(void)
{
	test_differential();
	test_values();
	test_prefixes();
	test_corruptions();
	return CHECK_DONE();
}
