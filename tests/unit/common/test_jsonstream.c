/* test_jsonstream.c - the streaming reader (common/jsonstream.h) against the whole-file one
 * (common/jsonload.h) on small texts (tests/unit/jsdiff.h): the same elements in order, the same other
 * members, the same refusals with the same messages; js_head as it grows, the streamed member
 * twice, and every prefix and many one-byte corruptions of a small document. */
#include "check.h"
#include "jsdiff.h"
#include "memfile.h"

#include <stdio.h>
#include <string.h>

/* A file of one text: how the stream ends (0 or -1), its message, js_head and js_has_array. */
struct small {
	const char *name, *text;
	int ok;
	const char *msg; /* NULL: any; the stream and the whole file must agree anyway */
	size_t nelem;
};

static const struct small smalls[] = {
    {"members before and after the array",
     "{\"a\":1,\"rounds\":[1,[2],{\"x\":3}],\"b\":{\"c\":[true]}}", 1, NULL, 3},
    {"empty array", "{\"rounds\":[]}", 1, NULL, 0},
    {"empty array with blanks", " { \"rounds\" : [ \n ] } ", 1, NULL, 0},
    {"no rounds member", "{\"a\":1,\"b\":[1,2]}", 1, NULL, 0},
    {"empty object", "{}", 1, NULL, 0},
    {"rounds an object", "{\"a\":1,\"rounds\":{\"x\":[1]},\"b\":2}", 1, NULL, 0},
    {"rounds a number", "{\"rounds\":5}", 1, NULL, 0},
    {"rounds null", "{\"rounds\":null}", 1, NULL, 0},
    {"top level an array", "[1,2,3]", 1, NULL, 0},
    {"top level a string", "\"rounds\"", 1, NULL, 0},
    {"top level a number", " 42 ", 1, NULL, 0},
    {"top level a number at the file's end", "42", 1, NULL, 0},
    {"top level null", "null", 1, NULL, 0},
    {"a member twice, before and after the array", "{\"a\":1,\"rounds\":[],\"a\":2}", 0,
     "not JSON (member 'a' appears twice in one object)", 0},
    {"a member twice before the array", "{\"a\":1,\"a\":2,\"rounds\":[1]}", 0,
     "not JSON (member 'a' appears twice in one object)", 0},
    {"a member twice in an element", "{\"rounds\":[{\"k\":1,\"k\":2}]}", 0,
     "not JSON (member 'k' appears twice in one object)", 0},
    {"a member twice in a member", "{\"c\":{\"k\":1,\"k\":2},\"rounds\":[]}", 0,
     "not JSON (member 'k' appears twice in one object)", 0},
    {"1e999 in an element", "{\"rounds\":[1e999]}", 0,
     "not JSON (a number out of range at byte 11)", 0},
    {"-1e999 in a member after the array", "{\"rounds\":[],\"x\":{\"s\":-1e999}}", 0,
     "not JSON (a number out of range at byte 22)", 0},
    {"invalid UTF-8 in an element", "{\"rounds\":[\"a\xff\"]}", 0,
     "not JSON (invalid UTF-8 at byte 13)", 0},
    {"an overlong form in a key", "{\"\xc0\xafx\":1,\"rounds\":[]}", 0,
     "not JSON (invalid UTF-8 at byte 2)", 0},
    {"an encoded surrogate in a member", "{\"s\":\"\xed\xa0\x80\",\"rounds\":[]}", 0,
     "not JSON (invalid UTF-8 at byte 6)", 0},
    {"empty file", "", 0, "empty file", 0},
    {"blanks only", " \n\t\r ", 0, "empty file", 0},
    {"a control byte only", " \x01", 0, "binary data: byte 0x01 at offset 1", 0},
    {"trailing garbage", "{\"rounds\":[1]} x", 0, "not JSON (parse error at byte 15)", 1},
    {"a second value", "{\"rounds\":[1]}{}", 0, "not JSON (parse error at byte 14)", 1},
    {"garbage after a non-object", "[1] 2", 0, "not JSON (parse error at byte 4)", 0},
    {"truncated in an element", "{\"rounds\":[1,{\"a\":", 0, "truncated JSON (ends at byte 18)", 1},
    {"truncated after an element", "{\"rounds\":[1,", 0, "truncated JSON (ends at byte 13)", 1},
    {"truncated after the array", "{\"rounds\":[1]", 0, "truncated JSON (ends at byte 13)", 1},
    {"truncated after a member", "{\"rounds\":[1],\"b\":2", 0, "truncated JSON (ends at byte 19)",
     1},
    {"truncated in a key", "{\"roun", 0, "truncated JSON (ends at byte 6)", 0},
    {"truncated before the colon", "{\"rounds\" ", 0, "truncated JSON (ends at byte 10)", 0},
    {"truncated after the colon", "{\"rounds\":", 0, "truncated JSON (ends at byte 10)", 0},
    {"truncated number element", "{\"rounds\":[12", 0, "truncated JSON (ends at byte 13)", 0},
    {"a control byte in an element", "{\"rounds\":[1,\"a\x02\"]}", 0,
     "binary data: byte 0x02 at offset 15", 1},
    {"a control byte after a syntax error", "{\"rounds\":[1,x,\"\x02\"]}", 0,
     "binary data: byte 0x02 at offset 16", 1},
    {"a trailing comma in the array", "{\"rounds\":[1,]}", 0, "not JSON (parse error at byte 13)",
     1},
    {"a leading comma in the array", "{\"rounds\":[,1]}", 0, "not JSON (parse error at byte 11)",
     0},
    {"two elements without a comma", "{\"rounds\":[1 2]}", 0, "not JSON (parse error at byte 13)",
     1},
    {"a trailing comma in the object", "{\"rounds\":[1],}", 0, "not JSON (parse error at byte 14)",
     1},
    {"a leading comma in the object", "{,\"rounds\":[1]}", 0, "not JSON (parse error at byte 1)",
     0},
    {"members without a comma", "{\"a\":1 \"rounds\":[1]}", 0, "not JSON (parse error at byte 7)",
     0},
    {"a key that is no string", "{rounds:[1]}", 0, "not JSON (parse error at byte 1)", 0},
    {"no colon", "{\"rounds\" [1]}", 0, "not JSON (parse error at byte 10)", 0},
    {"a bad number element", "{\"rounds\":[01]}", 0, "not JSON (parse error at byte 12)", 0},
    {"a bad escape in a key", "{\"r\\x\":1}", 0, NULL, 0},
    {"a lone surrogate in an element", "{\"rounds\":[\"\\ud800\"]}", 0, NULL, 0},
    {"array closed by a brace", "{\"rounds\":[1}", 0, "not JSON (parse error at byte 12)", 1},
    {"object closed by a bracket", "{\"rounds\":[1]]", 0, "not JSON (parse error at byte 13)", 1},
};

static void test_small(void)
{
	for (size_t i = 0; i < sizeof smalls / sizeof *smalls; i++) {
		const struct small *t = &smalls[i];
		struct outcome st;
		check_text(t->name, t->text, strlen(t->text), &st);
		CHECK(st.ok == t->ok && (!t->msg || strstr(st.err, t->msg)) &&
		          (!t->ok || st.nelem == t->nelem),
		      "%s: %s, %zu elements%s%s", t->name, st.ok ? "accepted" : "refused", st.nelem,
		      st.ok ? "" : ": ", st.ok ? "" : st.err);
	}
}

/* The streamed member twice: refused, as the whole-file reader refuses any name twice. */
static void test_twice(void)
{
	static const char *const texts[] = {
	    "{\"rounds\":[1],\"rounds\":[2]}",
	    "{\"rounds\":[1],\"a\":0,\"rounds\":5}",
	    "{\"rounds\":5,\"rounds\":[1]}",
	    "{\"rounds\":null,\"rounds\":null}",
	};
	const char *const before[] = {"a", NULL};

	for (int b = 0; b < 2; b++) {
		g_before = b ? before : no_before;
		for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
			struct outcome st;
			enum jl_why why;
			struct js_stream *s;
			const cJSON *e;
			int rc = -1;
			if (mf_set(&mf, texts[i], strlen(texts[i])) != 0)
				continue;
			s = js_open(mf.path, "rounds", g_before, &why, st.err, sizeof st.err);
			while (s && (rc = js_next(s, &e, &why, st.err, sizeof st.err)) == 1)
				;
			CHECK(rc == -1 && why == JL_BAD &&
			          strstr(st.err, "not JSON (member 'rounds' appears twice in one "
			                         "object)"),
			      "%s%s: %s", texts[i], b ? " (first pass)" : "", st.err);
			js_close(s);
		}
	}
	g_before = no_before;
}

/* js_head grows: the members before the array at open, all of them after the last element. */
static void test_head(void)
{
	const char *text = "{\"a\":1,\"rounds\":[10,20],\"b\":2,\"c\":[3]}";
	const char *const before_b[] = {"b", NULL};
	char err[512];
	enum jl_why why;
	const cJSON *e;
	struct js_stream *s;

	if (mf_set(&mf, text, strlen(text)) != 0)
		return;
	s = js_open(mf.path, "rounds", NULL, &why, err, sizeof err);
	CHECK(s && js_has_array(s) && cJSON_GetArraySize(js_head(s)) == 1 &&
	          cJSON_GetObjectItem(js_head(s), "a"),
	      "at open: the member before the array only");
	CHECK(s && js_next(s, &e, &why, err, sizeof err) == 1 && e->valueint == 10 &&
	          js_next(s, &e, &why, err, sizeof err) == 1 && e->valueint == 20 &&
	          js_next(s, &e, &why, err, sizeof err) == 0 &&
	          cJSON_GetArraySize(js_head(s)) == 3 && cJSON_GetObjectItem(js_head(s), "c"),
	      "after the last element: a, b and c");
	js_close(s);
	s = js_open(mf.path, "rounds", before_b, &why, err, sizeof err);
	CHECK(s && cJSON_GetArraySize(js_head(s)) == 3 && cJSON_GetObjectItem(js_head(s), "b") &&
	          js_next(s, &e, &why, err, sizeof err) == 1 && e->valueint == 10 &&
	          js_next(s, &e, &why, err, sizeof err) == 1 && e->valueint == 20 &&
	          js_next(s, &e, &why, err, sizeof err) == 0 && cJSON_GetArraySize(js_head(s)) == 3,
	      "'b' wanted before: all members at open, the elements after");
	js_close(s);
}

/* Every prefix (also with a member wanted before the array that comes after it) and many
 * one-byte corruptions of a small document: the stream agrees with the whole-file reader on
 * acceptance, message, elements and members. */
static void test_mutations(void)
{
	static const char doc[] =
	    "{\"schema\":\"s\", \"a\": [1, {\"b\": \"\\u00e9\"}], \"rounds\": [ {\"index\": 0, "
	    "\"x\": [1.5e3, -0]}, \"str\\\"\", 12, true, null, [], {} ], \"zz\": {\"k\": false}, "
	    "\"n\": -12.5e-1}\n";
	static const char subst[] = {'\x01', '"', '}', ']', ',', ':', '['};
	const char *const before[] = {"zz", NULL};
	size_t len = sizeof doc - 1, bad = 0, total = 0;
	char t[sizeof doc];

	for (int pass = 0; pass < 2; pass++) {
		g_before = pass ? before : no_before;
		for (size_t n = 0; n <= len; n++) {
			struct outcome st;
			const char *d = mf_set(&mf, doc, n) == 0 ? differ(mf.path, &st) : "memfd";
			total++;
			if (d && bad++ < 5)
				printf("# prefix of %zu bytes: %s\n", n, d);
		}
		for (size_t k = 0; !pass && k < len; k++) {
			for (size_t c = 0; c < sizeof subst; c++) {
				struct outcome st;
				const char *d;
				memcpy(t, doc, len);
				t[k] = subst[c];
				d = mf_set(&mf, t, len) == 0 ? differ(mf.path, &st) : "memfd";
				total++;
				if (d && bad++ < 5)
					printf("# byte %zu as 0x%02x: %s\n", k, subst[c], d);
			}
		}
	}
	g_before = no_before;
	CHECK(bad == 0, "%zu prefixes and corruptions: the stream agrees with the whole file",
	      total);
}

int main(void)
{
	static void (*const tests[])(void) = {test_small, test_head, test_twice, test_mutations,
	                                      NULL};

	return jsd_main(tests);
}
