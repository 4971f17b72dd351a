/* test_jsonstrict_limits.c - the limits of strict JSON through cJSON (common/jsonstrict.h):
 * nesting depth, from the text's top and inside containers, the count of values (max_nodes), and
 * the arena (chunks, reuse, reset, free). Every parse reads its span before an inaccessible page
 * (tests/unit/jstguard.h). Leaks on failure paths are ASan's to report (make test). */
#include "check.h"
#include "jstguard.h"
#include "common/jsonstrict.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	int parsed = 0, emptied = 0;
	for (int k = 0; k < 50; k++) {
		w = parse_n(s, big + 2, &pool, SIZE_MAX, NULL, &r);
		if (!w || strlen(w->valuestring) != big || w->valuestring[big - 1] != 'q')
			break;
		parsed++;
		jst_arena_reset(&pool);
		emptied += pool.chunks && pool.used == 0 && r.status == JST_OK;
	}
	CHECK(parsed == 50 && emptied == 50,
	      "50 parses of 300 KiB reusing one arena: %d of 50 parsed, %d resets kept an empty chunk",
	      parsed, emptied);
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

int main(void)
{
	test_depth();
	test_depth_nested();
	test_max_nodes();
	test_arena();
	return CHECK_DONE();
}
