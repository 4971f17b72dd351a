/* test_jsonstream_limits.c - the streaming reader (common/jsonstream.h) at its limits, against the
 * whole-file one (common/jsonload.h) wherever both read (tests/unit/jsdiff.h): nesting depth and the
 * count of values under ALLOCAB_MAX_INPUT, the 1 MiB window's end at every offset of a stretch of
 * tokens, files and values larger than the window, runs of blanks, what js_open refuses, and the
 * pieces the stream shares with jl_load; files are anonymous memory files (tests/unit/memfile.h). */
#include "check.h"
#include "jsdiff.h"
#include "memfile.h"
#include "common/jsonload.h"
#include "common/jsonstrict.h"
#include "common/jsonstream.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

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
	SKIP("blank runs", "no heap figures under AddressSanitizer");
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

int main(void)
{
	static void (*const tests[])(void) = {test_depth,     test_node_limit,   test_window_sweep,
	                                      test_big,       test_large_values, test_blank_runs,
	                                      test_jl_pieces, test_files,        NULL};

	return jsd_main(tests);
}
