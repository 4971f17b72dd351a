/* test_jsonstream.c - the streaming reader (common/jsonstream.h) against the whole-file one
 * (common/jsonload.h): the same elements in order, the same other members, the same refusals with
 * the same messages, across the 1 MiB window's boundaries and beyond its size; files are
 * anonymous memory files (tests/memfile.h). */
#include "check.h"
#include "memfile.h"
#include "common/jsonload.h"
#include "common/jsonstrict.h"
#include "common/jsonstream.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static const char *const no_before[] = {NULL};

/* A growing text. */
struct buf {
	char *p;
	size_t n, cap;
};

static void add(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->n + n + 1)
			c *= 2;
		char *np = realloc(b->p, c);
		if (!np)
			abort();
		b->p = np;
		b->cap = c;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void adds(struct buf *b, const char *s)
{
	add(b, s, strlen(s));
}

static void addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	add(b, tmp, (size_t)k);
}

/* Same types, keys, strings, bit-identical numbers, children in order. */
static int same_json(const cJSON *a, const cJSON *b)
{
	const cJSON *x, *y;

	if (!a || !b)
		return a == b;
	if ((a->type & 0xff) != (b->type & 0xff) || !a->string != !b->string ||
	    (a->string && strcmp(a->string, b->string) != 0))
		return 0;
	if (cJSON_IsString(a) && strcmp(a->valuestring, b->valuestring) != 0)
		return 0;
	if (cJSON_IsNumber(a) && memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) != 0)
		return 0;
	for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
		if (!same_json(x, y))
			return 0;
	return !x && !y;
}

/* The outcome of reading a file one way or the other. */
struct outcome {
	int ok;
	enum jl_why why;
	char err[1024];
	size_t nelem;
	int has_array;
};

static const char *const *g_before = no_before;

/* Two refusals say the same: equal, or both "not JSON (parse error at byte N)", whatever N (the
 * whole file's syntax errors are placed where cJSON stopped, the stream's grammar places its own
 * between the top-level members and the elements exactly). */
static int same_message(const char *a, const char *b)
{
	static const char pe[] = "not JSON (parse error at byte ";
	const char *x = strstr(a, pe), *y = strstr(b, pe);

	if (strcmp(a, b) == 0)
		return 1;
	return x && y && x - a == y - b && strncmp(a, b, (size_t)(x - a)) == 0;
}
static int g_whole = 1; /* 0: the stream alone (whole-file agreement checked elsewhere) */

/* Streams path (key "rounds", g_before) and reads it whole, and says how they differ (a static
 * text), or NULL when they agree: both accept with the same elements in order and the same other
 * members (each before-member already in js_head at open), or both refuse with the same message
 * (same_message) and the same kind of failure. Every js_next after the last returns the same again. */
static const char *differ(const char *path, struct outcome *st)
{
	static char why[2200];
	struct outcome wh = {0};
	enum jl_why w = JL_OK;
	cJSON *whole = g_whole ? jl_load(path, &w, wh.err, sizeof wh.err) : NULL, *arr = NULL, *e;
	struct js_stream *s;
	const cJSON *elem;
	int rc = -1;

	memset(st, 0, sizeof *st);
	wh.ok = whole != NULL;
	wh.why = w;
	if (cJSON_IsObject(whole) &&
	    cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(whole, "rounds")))
		arr = cJSON_DetachItemFromObjectCaseSensitive(whole, "rounds");
	s = js_open(path, "rounds", g_before, &st->why, st->err, sizeof st->err);
	e = arr ? arr->child : NULL;
	if (s) {
		st->has_array = js_has_array(s);
		for (size_t i = 0; g_before[i] && whole; i++)
			if (cJSON_GetObjectItemCaseSensitive(whole, g_before[i]) &&
			    !cJSON_GetObjectItemCaseSensitive(js_head(s), g_before[i])) {
				snprintf(why, sizeof why, "'%s' not in js_head at open",
				         g_before[i]);
				goto out;
			}
		while ((rc = js_next(s, &elem, &st->why, st->err, sizeof st->err)) == 1) {
			if (whole && !same_json(elem, e)) {
				snprintf(why, sizeof why, "element %zu differs", st->nelem);
				goto out;
			}
			e = e ? e->next : NULL;
			st->nelem++;
		}
		for (int k = 0; k < 2; k++) {
			char again[1024] = "";
			enum jl_why w2;
			if (js_next(s, &elem, &w2, again, sizeof again) != rc ||
			    (rc < 0 && (strcmp(again, st->err) != 0 || w2 != st->why))) {
				snprintf(why, sizeof why,
				         "js_next after %d did not return the same", rc);
				goto out;
			}
		}
		st->ok = rc == 0;
	}
	if (!g_whole) {
		js_close(s);
		return NULL;
	}
	if (st->ok != wh.ok) {
		snprintf(why, sizeof why, "stream %s (%s), whole %s (%s)",
		         st->ok ? "accepts" : "refuses", st->err, wh.ok ? "accepts" : "refuses",
		         wh.err);
		goto out;
	}
	if (!st->ok) {
		if (!same_message(st->err, wh.err) || st->why != wh.why) {
			snprintf(why, sizeof why,
			         "messages differ: stream '%s' (%d), whole '%s' (%d)", st->err,
			         st->why, wh.err, wh.why);
			goto out;
		}
	} else if (e || !same_json(js_head(s), whole) || st->has_array != (arr != NULL)) {
		snprintf(why, sizeof why, "%s", e ? "elements missing" : "heads differ");
		goto out;
	}
	js_close(s);
	cJSON_Delete(whole);
	cJSON_Delete(arr);
	return NULL;
out:
	js_close(s);
	cJSON_Delete(whole);
	cJSON_Delete(arr);
	return why;
}

/* Element k of the generated arrays: every kind of value, sizes from 1 to ~200 bytes. */
static void element(struct buf *b, size_t k)
{
	static const char *const seps[] = {",", ", ", ",\n", " ,\t", "\r\n,"};

	if (k)
		adds(b, seps[k % 5]);
	switch (k % 7) {
	case 0:
		addf(b, "%lld", (long long)(k * 7919) - 100000);
		break;
	case 1:
		addf(b, "\"s%zu\\u00e9\\ud83d\\ude00\\\"\\\\\\n%.*s\"", k, (int)(k % 60),
		     "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxy"
		     "z");
		break;
	case 2:
		addf(b, "{\"i\":%zu,\"v\":[%zu,-0.5,true,null,\"x\"],\"o\":{\"d\":%zu.25e-3}}", k,
		     k, k);
		break;
	case 3:
		adds(b, k % 3 == 0 ? "true" : k % 3 == 1 ? "false" : "null");
		break;
	case 4:
		addf(b, "[[%zu],[],{}]", k);
		break;
	case 5:
		addf(b, "-%zu.%zue%d", k, k % 97, (int)(k % 40) - 20);
		break;
	default:
		addf(b, "%zu%s", k * 1000003, k % 2 ? "" : "e+2");
		break;
	}
}

/* A document: `pre` members, "rounds" with n elements, `post` members. */
static void document(struct buf *b, const char *pre, size_t n, const char *post)
{
	adds(b, "{");
	adds(b, pre);
	adds(b, "\"rounds\" : [");
	for (size_t k = 0; k < n; k++)
		element(b, k);
	adds(b, "]");
	adds(b, post);
	adds(b, "}\n");
}

static struct mfile mf;

static void check_text(const char *name, const char *text, size_t n, struct outcome *st)
{
	const char *d;

	if (mf_set(&mf, text, n) != 0) {
		CHECK(0, "%s: memfd write", name);
		return;
	}
	d = differ(mf.path, st);
	CHECK(!d, "%s: %s%s%s", name, g_whole ? "stream and whole file agree" : "streamed",
	      d ? ": " : "", d ? d : "");
}

static void test_big(void)
{
	struct buf b = {0};
	struct outcome st;
	size_t n;

	document(&b, "\"schema\":\"x\", \"pre\": {\"a\":[1,2,3]}, ", 100000,
	         ", \"post\": [\"after\", 1e5], \"z\": null");
	n = b.n;
	check_text("a 2.6 MiB file of 100000 small elements", b.p, n, &st);
	CHECK(b.n > 5 * MIB / 2 && st.ok && st.nelem == 100000 && st.has_array,
	      "all 100000 elements arrive (%zu bytes, %zu elements)", b.n, st.nelem);

	const char *const before[] = {"schema", "post", "z", NULL};
	g_before = before;
	check_text("'post' and 'z' wanted before the rounds: first pass, then streaming", b.p, n,
	           &st);
	CHECK(st.ok && st.nelem == 100000, "the same 100000 elements after the first pass");
	g_before = no_before;

	/* an error after the first window, every byte offset counted from the file's start */
	size_t at = 2 * MIB + 12345;
	char *q = at < b.n ? memchr(b.p + at, '"', b.n - at) : NULL, keep;
	q = q ? memchr(q + 1, '"', (size_t)(b.p + b.n - q - 1)) : NULL;
	if (q) {
		char want[128];
		keep = q[-1];
		q[-1] = '\x01';
		check_text("a control byte at 2 MiB", b.p, n, &st);
		snprintf(want, sizeof want, "binary data: byte 0x01 at offset %zu)",
		         (size_t)(q - 1 - b.p));
		CHECK(!st.ok && strstr(st.err, want), "its offset from the file's start: %s",
		      st.err);
		g_before = before;
		g_whole = 0;
		check_text("a control byte at 2 MiB, found in the first pass", b.p, n, &st);
		CHECK(!st.ok && strstr(st.err, want), "refused at open: %s", st.err);
		g_before = no_before;
		char *x = b.p + MIB + MIB / 2;
		while (*x != ',')
			x++;
		*x = ':';
		check_text("a syntax error at 1.5 MiB, a control byte at 2 MiB", b.p, n, &st);
		CHECK(!st.ok && strstr(st.err, want),
		      "the control byte is named, as the whole-file reader names it: %s", st.err);
		*x = ',';
		q[-1] = keep;
	}
	check_text("cut inside an element at 2 MiB", b.p, 2 * MIB, &st);
	CHECK(!st.ok && strstr(st.err, "truncated JSON (ends at byte 2097152)"), "%s", st.err);
	check_text("cut after the array", b.p, (size_t)(strstr(b.p + n - 200, "]") - b.p + 1), &st);
	CHECK(!st.ok && strstr(st.err, "truncated JSON"), "%s", st.err);
	adds(&b, "  x");
	check_text("garbage after the object", b.p, b.n, &st);
	char want[64];
	snprintf(want, sizeof want, "not JSON (parse error at byte %zu)", b.n - 1);
	CHECK(!st.ok && strstr(st.err, want), "%s", st.err);
	g_whole = 1;
	free(b.p);
}

/* Streams path (key "rounds", no before-members) and checks it against want, the document it
 * holds but for the length of its member "pad": elements in order, then the other members.
 * Returns a difference or NULL. */
static const char *stream_is(const char *path, const cJSON *want, size_t pad, size_t *nelem)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(want, "rounds"), *e = arr->child, *got;
	char err[512];
	enum jl_why why;
	struct js_stream *s = js_open(path, "rounds", NULL, &why, err, sizeof err);
	const char *d = NULL;
	int rc = -1;

	*nelem = 0;
	while (s && (rc = js_next(s, &got, &why, err, sizeof err)) == 1 && !d) {
		if (!same_json(got, e))
			d = "an element differs";
		e = e ? e->next : NULL;
		++*nelem;
	}
	if (!d && (rc != 0 || e))
		d = rc != 0 ? "refused" : "elements missing";
	for (const cJSON *m = want->child, *h = s ? js_head(s)->child : NULL; !d && m;
	     m = m->next) {
		if (m == arr)
			continue;
		if (strcmp(m->string, "pad") == 0
		        ? !cJSON_IsString(h) || strcmp(h->string, "pad") != 0 ||
		              strlen(h->valuestring) != pad
		        : !same_json(m, h))
			d = "members differ";
		h = h ? h->next : NULL;
	}
	js_close(s);
	return d;
}

/* The 1 MiB window ends at every offset of a stretch of tokens: before, inside and after the key,
 * inside numbers, strings, escapes, literals, between elements, in the members after. */
static void test_window_sweep(void)
{
	static const char tail[] =
	    " , \"rounds\" : [ 7,-1.5e+10 ,\"s\\u00e9\\ud83d\\ude00\\\"x\" , true,null ,"
	    "{\"a\":[1,2],\"b\":{}} ,0, 123456789012345678 ,[[]] ] , \"post\": -12345.5e-2 }  \n";
	size_t len = sizeof tail - 1, bad = 0, total = 0, nelem;
	char *text = malloc(MIB + len + 16);
	cJSON *want;

	if (!text)
		return;
	memcpy(text, "{\"pad\":\"\"", 9);
	memcpy(text + 9, tail, len);
	want = cJSON_ParseWithLength(text, 9 + len);
	memset(text + 8, 'x', MIB);
	if (mf_set(&mf, text, MIB) != 0)
		return free(text), cJSON_Delete(want);
	for (size_t s = 0; s <= len + 2; s++) {
		/* {"pad":"xxx...x" then tail, its byte s at offset 1 MiB: only the end changes */
		size_t pad = MIB - s - 9, n = 9 + pad + len;
		text[8 + pad] = '"';
		memcpy(text + 9 + pad, tail, len);
		nelem = 0;
		const char *d = !want ? "cJSON"
		                : pwrite(mf.fd, text + 8 + pad, len + 1, (off_t)(8 + pad)) !=
		                            (ssize_t)(len + 1) ||
		                        ftruncate(mf.fd, (off_t)n) != 0
		                    ? "memfd"
		                    : stream_is(mf.path, want, pad, &nelem);
		total++;
		if ((d || nelem != 9) && bad++ < 5)
			printf("# window ends at byte %zu of the tail: %s (%zu elements)\n", s,
			       d ? d : "-", nelem);
	}
	cJSON_Delete(want);
	CHECK(bad == 0, "the window's end at each of %zu offsets: all 9 elements, the same members",
	      total);
	free(text);
}

/* Values larger than the window: an element, a member before the array, a member after it. */
static void test_large_values(void)
{
	struct buf b = {0};
	struct outcome st;

	adds(&b, "{\"big_head\":\"");
	for (size_t i = 0; i < 5 * MIB / 4; i++)
		adds(&b, i % 64 ? "h" : "\\n");
	adds(&b, "\",\"rounds\":[1,\"");
	for (size_t i = 0; i < 9 * MIB / 4; i++)
		add(&b, "e", 1);
	adds(&b, "\",{");
	for (size_t i = 0; i < 20000; i++)
		addf(&b, "%s\"k%zu_%.60s\":%zu", i ? "," : "", i,
		     "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk", i);
	adds(&b, "},2],\"big_tail\":[\"");
	for (size_t i = 0; i < 5 * MIB / 4; i++)
		add(&b, "t", 1);
	adds(&b, "\"]}");
	check_text("elements and members larger than the window", b.p, b.n, &st);
	CHECK(st.ok && st.nelem == 4, "4 elements, two of them over 1 MiB (%zu bytes in all)", b.n);
	const char *const before[] = {"big_tail", NULL};
	g_before = before;
	check_text("a member over 1 MiB after the array, wanted before it", b.p, b.n, &st);
	CHECK(st.ok && st.nelem == 4, "the 4 elements again after the first pass");
	g_before = no_before;
	free(b.p);
}

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

/* Under ALLOCAB_MAX_INPUT=1k (128 values): the members but the array count as jl_parse counts
 * them (keys are no values), so a file without rounds is refused by both or neither; with
 * rounds, each element counts apart, so the stream never refuses what the whole file passes. */
static void test_node_limit(void)
{
	struct buf b = {0};
	struct outcome st;
	char name[96];

	setenv(JL_MAX_ENV, "1k", 1);
	for (size_t k = 120; k <= 130; k++) {
		for (int rounds = 0; rounds < 2; rounds++) {
			b.n = 0;
			adds(&b, rounds ? "{\"rounds\":[[0,0],0],\"a\":[" : "{\"a\":[");
			for (size_t i = 0; i < k; i++)
				adds(&b, i ? ",0" : "0");
			adds(&b, "],\"b\":0}");
			snprintf(name, sizeof name, "%zu values in a member%s", k + 3,
			         rounds ? ", 5 in rounds" : "");
			g_whole = !rounds;
			check_text(name, b.p, b.n, &st);
			if (rounds) {
				enum jl_why w;
				char err[512];
				cJSON *v = jl_load(mf.path, &w, err, sizeof err);
				CHECK(st.ok || !v,
				      "%s: the stream refuses no file the whole-file reader "
				      "passes (%s)",
				      name, st.err);
				cJSON_Delete(v);
			}
		}
	}
	g_whole = 1;
	unsetenv(JL_MAX_ENV);
	free(b.p);
}

/* Nesting counts from the file's top, as in the whole file: 1000 deep in all, the object and the
 * array included, passes; 1001 does not, in an element or in another member. */
static void test_depth(void)
{
	struct buf b = {0};
	struct outcome st;
	char name[64];

	for (unsigned depth = JST_MAX_DEPTH - 2; depth <= JST_MAX_DEPTH + 1; depth++) {
		for (int member = 0; member < 2; member++) {
			unsigned inner = depth - 1 - !member; /* below the object (and the array) */
			b.n = 0;
			adds(&b, member ? "{\"rounds\":[],\"a\":" : "{\"a\":0,\"rounds\":[0,");
			for (unsigned i = 0; i < inner; i++)
				adds(&b, "[");
			for (unsigned i = 0; i < inner; i++)
				adds(&b, "]");
			adds(&b, member ? "}" : "]}");
			snprintf(name, sizeof name, "nesting %u deep in %s", depth,
			         member ? "a member" : "an element");
			check_text(name, b.p, b.n, &st);
			CHECK(st.ok == (depth <= JST_MAX_DEPTH), "%s: %s", name,
			      st.ok ? "accepted" : st.err);
		}
	}
	free(b.p);
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

#if !defined(__SANITIZE_ADDRESS__)
static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}
#endif

/* Runs of 3 MiB of blanks wherever JSON allows them: skipped through the window, never held. */
static void test_blank_runs(void)
{
#if defined(__SANITIZE_ADDRESS__)
	printf("ok - # SKIP blank runs: no heap figures under AddressSanitizer\n");
#else
	static const char *const parts[] = {"{", "\"a\"", ":", "1",  ",", "\"rounds\"", ":",
	                                    "[", "1",     ",", "2",  ",", "[3]",        "]",
	                                    ",", "\"b\"", ":", "{}", "}", NULL};
	struct buf b = {0};
	struct js_stream *s;
	size_t base, peak = 0, n = 0;
	enum jl_why why;
	const cJSON *e;
	char err[512], *blanks = malloc(3 * MIB);
	int rc = -1;

	if (!blanks)
		return;
	for (size_t i = 0; parts[i]; i++) {
		adds(&b, parts[i]);
		memset(blanks, i % 2 ? ' ' : '\n', 3 * MIB);
		add(&b, blanks, 3 * MIB);
	}
	free(blanks);
	if (mf_set(&mf, b.p, b.n) != 0)
		return;
	free(b.p);
	base = heap_in_use();
	s = js_open(mf.path, "rounds", NULL, &why, err, sizeof err);
	while (s && (rc = js_next(s, &e, &why, err, sizeof err)) == 1) {
		n++;
		if (heap_in_use() > base + peak)
			peak = heap_in_use() - base;
	}
	CHECK(rc == 0 && n == 3 && cJSON_GetArraySize(js_head(s)) == 2,
	      "a 57 MiB file of blank runs: 3 elements, 2 members");
	CHECK(peak < 2 * MIB, "the window does not grow to hold blanks (%zu KiB in use)",
	      peak >> 10);
	js_close(s);
#endif
}

/* jl_open and jl_parse_error, the pieces the stream shares with jl_load. */
static void test_jl_pieces(void)
{
	struct jst_result r = {.status = JST_SYNTAX, .at = 7};
	size_t size = 0, cap = 0;
	char err[512];
	int fd;

	if (mf_set(&mf, "{\"rounds\":[]}", 13) != 0)
		return;
	fd = jl_open(mf.path, &size, &cap, err, sizeof err);
	CHECK(fd >= 0 && size == 13 && cap == JL_DEFAULT_MAX_BYTES,
	      "jl_open: a descriptor, the size, the default cap");
	if (fd >= 0)
		close(fd);
	setenv(JL_MAX_ENV, "1k", 1);
	if (mf_set(&mf, "", 0) == 0 && ftruncate(mf.fd, 1025) == 0) {
		errno = 0;
		fd = jl_open(mf.path, &size, &cap, err, sizeof err);
		CHECK(fd < 0 && errno == EFBIG && cap == 1024 &&
		          strstr(err, "1024-byte input limit"),
		      "jl_open: 1025 bytes over a 1k cap, EFBIG: %s", err);
	}
	unsetenv(JL_MAX_ENV);
	CHECK(jl_parse_error("f", &r, SIZE_MAX, 0, 9, 64, err, sizeof err) == -1 &&
	          errno == EINVAL && strcmp(err, "f: not JSON (parse error at byte 7)") == 0,
	      "jl_parse_error: syntax: %s", err);
	CHECK(jl_parse_error("f", &r, 3, 0x1f, 9, 64, err, sizeof err) == -1 &&
	          strcmp(err, "f: not JSON (binary data: byte 0x1f at offset 3)") == 0,
	      "jl_parse_error: a binary byte comes first: %s", err);
	r.status = JST_SHORT;
	CHECK(jl_parse_error("f", &r, SIZE_MAX, 0, 9, 64, err, sizeof err) == -1 &&
	          strcmp(err, "f: truncated JSON (ends at byte 9)") == 0,
	      "jl_parse_error: short: %s", err);
	r.status = JST_TOO_MANY;
	CHECK(jl_parse_error("f", &r, 3, 1, 9, 64, err, sizeof err) == -1 &&
	          strstr(err, "f: more than 8 JSON values, the limit for a 64-byte input limit"),
	      "jl_parse_error: too many, before a binary byte: %s", err);
	r.status = JST_NOMEM;
	CHECK(jl_parse_error("f", &r, SIZE_MAX, 0, 9, 64, err, sizeof err) == -1 &&
	          errno == ENOMEM && strcmp(err, "f: out of memory") == 0,
	      "jl_parse_error: out of memory, ENOMEM");
}

static void test_files(void)
{
	char dir[] = "/tmp/allocab-js.XXXXXX", path[128], err[512];
	enum jl_why why;
	struct js_stream *s;
	struct buf b = {0};
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof path, "%s/fifo", dir);
	if (mkfifo(path, 0600) == 0) {
		s = js_open(path, "rounds", NULL, &why, err, sizeof err);
		CHECK(!s && why == JL_BAD && strstr(err, "a FIFO, not a regular file: refused"),
		      "a FIFO refused without blocking: %s", err);
		unlink(path);
	}
	s = js_open(path, "rounds", NULL, &why, err, sizeof err);
	CHECK(!s && why == JL_MISSING, "a missing file: JL_MISSING (%s)", err);
	s = js_open(dir, "rounds", NULL, &why, err, sizeof err);
	CHECK(!s && why == JL_BAD && strstr(err, "a directory"), "a directory: %s", err);
	s = js_open("/dev/zero", "rounds", NULL, &why, err, sizeof err);
	CHECK(!s && why == JL_BAD && strstr(err, "a character device"), "/dev/zero: %s", err);
	s = js_open("", "rounds", NULL, &why, err, sizeof err);
	CHECK(!s && why == JL_MISSING, "an empty name: %s", err);

	document(&b, "", 400, "");
	snprintf(path, sizeof path, "%s/f.json", dir);
	if ((f = fopen(path, "w"))) {
		fwrite(b.p, 1, b.n, f);
		fclose(f);
	}
	setenv(JL_MAX_ENV, "4k", 1);
	s = js_open(path, "rounds", NULL, &why, err, sizeof err);
	CHECK(!s && why == JL_BAD && strstr(err, "larger than the 4096-byte input limit"),
	      "a file over ALLOCAB_MAX_INPUT refused at open: %s", err);
	setenv(JL_MAX_ENV, "nope", 1);
	s = js_open(path, "rounds", NULL, &why, err, sizeof err);
	CHECK(!s && why == JL_BAD && strstr(err, "ALLOCAB_MAX_INPUT 'nope'"), "a malformed cap: %s",
	      err);
	unsetenv(JL_MAX_ENV);
	s = js_open(path, "rounds", NULL, &why, err, sizeof err);
	CHECK(s != NULL, "the same file under the default cap");
	js_close(s);
	unlink(path);
	rmdir(dir);
	free(b.p);
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
	if (mf_open(&mf) < 0) {
		CHECK(0, "memfd_create");
		return CHECK_DONE();
	}
	test_small();
	test_head();
	test_twice();
	test_depth();
	test_node_limit();
	test_mutations();
	test_window_sweep();
	test_big();
	test_large_values();
	test_blank_runs();
	test_jl_pieces();
	test_files();
	close(mf.fd);
	return CHECK_DONE();
}
