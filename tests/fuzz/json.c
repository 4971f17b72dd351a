/* json.c - fuzz target of the strict JSON layer (common/jsonstrict.h): bytes parsed by jst_parse
 * from malloc and from an arena (the bytes are copied into a buffer of exactly their size, so
 * ASan sees a read past the span). Checked, a difference aborts:
 *   - both modes agree: status, offset, the same tree;
 *   - what is accepted is strict JSON by checks that share nothing with the scan: its span is
 *     well-formed UTF-8 with no control byte but tab, CR and LF, every number is finite, no
 *     object holds a name twice, nesting is at most JST_MAX_DEPTH; cJSON_ParseWithLength reads
 *     the span alone as the same tree; allocab's compact print of it (jst_print, which compares
 *     trees too, so numbers to the last bit) is accepted again as the same tree; and the span
 *     less its last byte is a value cut short (JST_SHORT at its end), unless the value is a
 *     number that still is one;
 *   - what is refused names a place inside the text: JST_SHORT at its very end, JST_BINARY at a
 *     control byte, "invalid UTF-8" at a byte that starts no well-formed sequence.
 * Built by `make fuzz`; replayed over tests/fuzz/corpus/json in `make test`. */
#include "common/jsonstrict.h"
#include "common/utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void differ(const char *what)
{
	fprintf(stderr, "json fuzz: %s\n", what);
	abort();
}

/* Whether two trees print the same. */
static int same(const cJSON *a, const cJSON *b)
{
	char *x = jst_print(a, 0), *y = jst_print(b, 0);
	int eq = x && y && strcmp(x, y) == 0;

	free(x);
	free(y);
	return eq || !x || !y;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether the object o holds a name twice: its names sorted, neighbours compared. */
static int name_twice(const cJSON *o)
{
	size_t n = (size_t)cJSON_GetArraySize(o), k = 0;
	const char **names = malloc((n ? n : 1) * sizeof *names);
	int twice = 0;

	if (!names)
		return 0;
	for (const cJSON *c = o->child; c; c = c->next)
		names[k++] = c->string;
	qsort(names, n, sizeof *names, by_name);
	for (k = 1; k < n && !twice; k++)
		twice = strcmp(names[k - 1], names[k]) == 0;
	free(names);
	return twice;
}

/* The tree's nesting (a scalar 0, an array of scalars 1), or -1 when a number is not finite or an
 * object holds a name twice. */
static int strict_tree(const cJSON *v)
{
	int depth = 0;

	if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
		return -1;
	if (cJSON_IsObject(v) && name_twice(v))
		return -1;
	for (const cJSON *c = v->child; c; c = c->next) {
		int d = strict_tree(c);
		if (d < 0)
			return -1;
		depth = d > depth ? d : depth;
	}
	return cJSON_IsArray(v) || cJSON_IsObject(v) ? depth + 1 : 0;
}

static cJSON *parse(const char *text, size_t n, struct jst_arena *arena, struct jst_result *r)
{
	size_t nodes = 0;

	return jst_parse(text, n, 0, arena, &nodes, 1u << 20, r);
}

static void check_accepted(const char *text, const cJSON *v, size_t at)
{
	char *printed = jst_print(v, 0);
	int depth = strict_tree(v);
	struct jst_result r;
	cJSON *ref, *again;

	if (utf8_first_bad(text, at) != at || jst_first_binary(text, at) != at)
		differ("accepted a span that is not UTF-8 text");
	if (depth < 0 || depth > JST_MAX_DEPTH)
		differ("accepted a non-finite number, a name twice, or nesting too deep");
	ref = cJSON_ParseWithLength(text, at);
	/* cJSON 1.7.15 alone cannot read a literal that ends its buffer */
	if (!ref && !(cJSON_IsBool(v) || cJSON_IsNull(v)))
		differ("cJSON refuses the accepted span");
	if (ref && !same(v, ref))
		differ("tree differs from cJSON's");
	cJSON_Delete(ref);
	if (printed) {
		again = parse(printed, strlen(printed), NULL, &r);
		if (!again || !same(v, again))
			differ("allocab's print of an accepted tree is refused or read differently");
		cJSON_Delete(again);
	}
	free(printed);
	if (at > 1) {
		cJSON *cut = parse(text, at - 1, NULL, &r);
		int number = cJSON_IsNumber(v);
		if (number ? !cut && r.status != JST_SHORT
		           : cut || r.status != JST_SHORT || r.at != at - 1)
			differ("the accepted value less its last byte is not a value cut short");
		cJSON_Delete(cut);
	}
}

static void check_refused(const char *text, size_t size, const struct jst_result *r)
{
	if (r->status == JST_OK)
		differ("refused with status OK");
	if (r->at != SIZE_MAX && r->at > size)
		differ("a refusal placed past the text");
	if (r->status == JST_SHORT && r->at != size)
		differ("cut short, but not at the text's end");
	if (r->status == JST_BINARY && jst_first_binary(text + r->at, size - r->at) != 0)
		differ("binary data at a byte that is text");
	if (r->status == JST_RULE && strcmp(r->rule, "invalid UTF-8") == 0 &&
	    utf8_first_bad(text + r->at, size - r->at) != 0)
		differ("invalid UTF-8 at a well-formed sequence");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct jst_arena arena = {0};
	struct jst_result rh, ra;
	cJSON *heap, *pooled;

	if (!text)
		return 0;
	memcpy(text, data, size);
	heap = parse(text, size, NULL, &rh);
	pooled = parse(text, size, &arena, &ra);
	if (!heap != !pooled || rh.status != ra.status || rh.at != ra.at)
		differ("malloc and arena parses differ");
	if (heap && !same(heap, pooled))
		differ("malloc and arena trees differ");
	if (heap)
		check_accepted(text, heap, rh.at);
	else
		check_refused(text, size, &rh);
	cJSON_Delete(heap);
	jst_arena_free(&arena);
	free(text);
	return 0;
}
