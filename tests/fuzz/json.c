/* json.c - fuzz target of allocab's JSON parser (common/jsonparse.h) against cJSON's: bytes parsed
 * by jp_parse from malloc and from a pool, and by cJSON_ParseWithLength. The parser must not read
 * past the span (the bytes are copied into a buffer of exactly their size, so ASan sees any overrun),
 * both of its modes must give the same tree, and whenever cJSON accepts the same text as one value
 * the trees must be equal (jp_parse may refuse more: it is stricter). A difference aborts. Built by
 * `make fuzz`; replayed over tests/fuzz/corpus/json in `make test`. */
#include "common/jsonparse.h"

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

/* Whether two trees print the same (cJSON_Compare calls an object with a repeated key unequal
 * to itself). */
static int same(const cJSON *a, const cJSON *b)
{
	char *x = cJSON_PrintUnformatted(a), *y = cJSON_PrintUnformatted(b);
	int eq = x && y && strcmp(x, y) == 0;

	free(x);
	free(y);
	return eq || !x || !y;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct jp_pool pool = {0};
	struct jp_result rh, rp;
	size_t nh = 0, np = 0;
	cJSON *heap, *pooled, *ref;

	if (!text)
		return 0;
	memcpy(text, data, size);
	heap = jp_parse(text, size, NULL, &nh, 1u << 20, &rh);
	pooled = jp_parse(text, size, &pool, &np, 1u << 20, &rp);
	if (!heap != !pooled || rh.status != rp.status || rh.at != rp.at || nh != np)
		differ("heap and pool parses differ");
	if (heap && !same(heap, pooled))
		differ("heap and pool trees differ");
	if (heap && rh.at > size)
		differ("parsed past the span");
	ref = cJSON_ParseWithLength(text, size);
	if (heap && ref && jp_skip_ws(text, size, rh.at) == size && !same(heap, ref))
		differ("tree differs from cJSON's");
	cJSON_Delete(ref);
	cJSON_Delete(heap);
	jp_pool_free(&pool);
	free(text);
	return 0;
}
