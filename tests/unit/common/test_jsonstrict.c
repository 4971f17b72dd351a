/* test_jsonstrict.c - what strict JSON through cJSON (common/jsonstrict.h) refuses, with its status
 * and offset: the texts the hand-written parser before it refused, and what cJSON 1.7.15 lets
 * through (numbers outside JSON's grammar or range, raw control characters, \u0000, lone
 * surrogates, invalid UTF-8, blanks other than JSON's four, repeated member names); spans cut
 * inside a longer buffer; the blank and binary scans; and well-formed UTF-8 (common/utf8.h). Every
 * parse reads its span before an inaccessible page (tests/unit/jstguard.h). Leaks on failure paths are
 * ASan's to report (make test). */
#include "check.h"
#include "jstguard.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Every length to 70 and every place of one binary byte among plain text, tabs and newlines,
 * across the blocks the scan reads at once, and before a binary byte past n. */
static void test_first_binary_blocks(void)
{
	static const char bins[] = {0x00, 0x08, 0x0b, 0x0c, 0x0e, 0x1f, 0x7f};
	char buf[80];
	int bad = 0;

	for (size_t n = 0; n <= 70; n++) {
		for (size_t i = 0; i < n; i++)
			buf[i] = i % 7 == 3 ? '\t' : i % 11 == 5 ? '\n' : i % 13 == 1 ? '\r' : 'a' + i % 26;
		buf[n] = 0x01;
		bad += jst_first_binary(buf, n) != n;
		for (size_t at = 0; at < n; at++) {
			char keep = buf[at];
			buf[at] = bins[(n + at) % sizeof bins];
			bad += jst_first_binary(buf, n) != at;
			buf[at] = keep;
		}
	}
	CHECK(bad == 0, "jst_first_binary: the first binary byte at every place of 0..70 bytes (%d wrong)",
	      bad);
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
	test_first_binary_blocks();
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

/* Two threads build trees at once, one into an arena, one from malloc (freed with cJSON_Delete):
 * every tree holds what its text says. With cJSON's hooks swapped per call, one thread's calls
 * changed where the other's tree came from (an arena's block freed by free, or a malloc'd one
 * never freed), which the ASan build of this test reports. */
static const char thread_text[] = "{\"a\":[1,2.5,\"x\",{\"b\":null}],\"c\":\"long string here\"}";

static void *build_many(void *use_arena)
{
	struct jst_arena arena = {0};
	size_t bad = 0, nodes = 0;

	for (int i = 0; i < 4000; i++) {
		struct jst_result r;
		cJSON *v;
		if (use_arena)
			jst_arena_reset(&arena);
		v = jst_parse(thread_text, sizeof thread_text - 1, 0, use_arena ? &arena : NULL,
		              &nodes, SIZE_MAX, &r);
		const cJSON *c = v ? cJSON_GetObjectItemCaseSensitive(v, "c") : NULL;
		bad += !c || !cJSON_IsString(c) || strcmp(c->valuestring, "long string here") != 0 ||
		       cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v, "a")) != 4;
		if (!use_arena)
			cJSON_Delete(v);
	}
	jst_arena_free(&arena);
	return (void *)bad;
}

static void test_threads(void)
{
	pthread_t t[2];
	void *bad[2] = {(void *)1, (void *)1};
	int started = pthread_create(&t[0], NULL, build_many, (void *)1) == 0 &&
	              pthread_create(&t[1], NULL, build_many, NULL) == 0;

	for (int i = 0; started && i < 2; i++)
		pthread_join(t[i], &bad[i]);
	CHECK(started && !bad[0] && !bad[1],
	      "two threads parse at once, into an arena and from malloc: 8,000 trees, all right");
}

int main(void)
{
	test_strict();
	test_span();
	test_helpers();
	test_utf8();
	test_threads();
	return CHECK_DONE();
}
