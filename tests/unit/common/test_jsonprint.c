/* test_jsonprint.c - the one JSON writer (common/jsonstrict.h, jst_print): every number it
 * writes reads back through allocab's strict reader as the same double (2^53 - 1, DBL_MAX, the
 * smallest subnormal, random bit patterns), in both layouts; numbers cJSON already writes exactly
 * are written as cJSON writes them; the caller's tree is not changed. */
#include "check.h"
#include "common/jsonstrict.h"
#include "common/prng.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* d written in an array by jst_print and read back by jst_parse: 1 when it is the same double. */
static int round_trips(double d, int formatted, char *shown, size_t len)
{
	cJSON *a = cJSON_CreateArray(), *back;
	struct jst_result r;
	size_t nodes = 0;
	char *text;
	int same = 0;

	cJSON_AddItemToArray(a, cJSON_CreateNumber(d));
	text = jst_print(a, formatted);
	snprintf(shown, len, "%s", text ? text : "(null)");
	back = text ? jst_parse(text, strlen(text), 0, NULL, &nodes, 16, &r) : NULL;
	if (back && cJSON_IsNumber(back->child))
		same = memcmp(&back->child->valuedouble, &d, sizeof d) == 0 ||
		       (d == 0 && back->child->valuedouble == 0);
	cJSON_Delete(back);
	cJSON_Delete(a);
	free(text);
	return same;
}

static void test_edges(void)
{
	static const double edges[] = {9007199254740991.0, -9007199254740991.0, 9007199254740992.0,
	                               DBL_MAX, -DBL_MAX, DBL_MIN, 5e-324, 0.1, 1.0 / 3, 123.5,
	                               1e300, 4503599627370497.0, 2147483648.0, -0.0};
	char shown[128];

	for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
		for (int f = 0; f < 2; f++)
			CHECK(round_trips(edges[i], f, shown, sizeof shown),
			      "%.17g (%s) round-trips: written %s", edges[i], f ? "formatted" : "compact",
			      shown);
	round_trips(9007199254740991.0, 0, shown, sizeof shown);
	CHECK(strcmp(shown, "[9007199254740991]") == 0, "2^53 - 1 is written as an integer: %s", shown);
	round_trips(DBL_MAX, 0, shown, sizeof shown);
	CHECK(strcmp(shown, "[1.7976931348623157e+308]") == 0, "DBL_MAX in 17 digits: %s", shown);
	round_trips(0.1, 0, shown, sizeof shown);
	CHECK(strcmp(shown, "[0.1]") == 0, "0.1 is written as cJSON writes it: %s", shown);
	round_trips(1e15 + 0.5, 0, shown, sizeof shown);
	CHECK(strcmp(shown, "[1000000000000000.5]") == 0, "the shortest exact form: %s", shown);
}

static void test_random(void)
{
	struct prng g;
	char shown[128], bad[320] = "";
	int fails = 0, n = 0;

	prng_seed(&g, 41);
	for (int i = 0; i < 20000; i++) {
		uint64_t bits = prng_next(&g);
		double d;

		memcpy(&d, &bits, sizeof d);
		if (!isfinite(d))
			continue;
		n++;
		if (!round_trips(d, i & 1, shown, sizeof shown) && !fails++)
			snprintf(bad, sizeof bad, "%.17g written %s", d, shown);
	}
	CHECK(fails == 0, "%d random finite doubles round-trip (%d do not; first: %s)", n, fails,
	      bad);
	fails = 0;
	for (int i = 0; i < 20000; i++) {
		double d = (double)(prng_next(&g) >> 11); /* a clock-drawn seed: 0..2^53-1 */
		if (!round_trips(d, 0, shown, sizeof shown) && !fails++)
			snprintf(bad, sizeof bad, "%.17g written %s", d, shown);
	}
	CHECK(fails == 0, "20000 random integers below 2^53 round-trip (%d do not; first: %s)", fails,
	      bad);
}

static void test_tree_kept(void)
{
	cJSON *o = cJSON_CreateObject(), *n = cJSON_AddNumberToObject(o, "seed", 9007199254740991.0);
	char *text = jst_print(o, 1), *again;

	cJSON_AddStringToObject(o, "s", "x");
	again = jst_print(o, 0);
	CHECK(cJSON_IsNumber(n) && n->valuedouble == 9007199254740991.0,
	      "the caller's tree keeps its number node");
	CHECK(text && strstr(text, "\"seed\":\t9007199254740991") != NULL,
	      "formatted: cJSON's layout (a tab after the colon), the exact number");
	CHECK(again && strcmp(again, "{\"seed\":9007199254740991,\"s\":\"x\"}") == 0,
	      "compact: %s", again ? again : "(null)");
	free(text);
	free(again);
	cJSON_Delete(o);
}

int main(void)
{
	test_edges();
	test_random();
	test_tree_kept();
	return CHECK_DONE();
}
