/* test_u64map.c - the u64 map (common/u64map.h): insert, replace, grow, lookup, removal with
 * backward shift against a reference model, the zero key, iteration, and adversarial key sets
 * (keys that differ only in their high bits, only in their low bits, aligned addresses) whose
 * probe runs must stay short. */
#include "check.h"
#include "common/prng.h"
#include "common/u64map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The longest run of occupied slots (cyclic): what a probe may have to walk. */
static size_t longest_run(const struct u64map *m)
{
	size_t best = 0, run = 0;

	for (size_t k = 0; k < 2 * m->cap; k++) {
		run = m->s[k % m->cap].key ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best < m->cap ? best : m->cap;
}

static void test_basic(void)
{
	struct u64map m = {0};
	uint64_t v = 0;

	CHECK(u64map_get(&m, 5) == NULL, "empty map: a lookup finds nothing");
	CHECK(u64map_take(&m, 5, &v) == 0, "empty map: a removal finds nothing");
	CHECK(u64map_put(&m, 5, 50) == 0 && m.n == 1, "put adds a key");
	CHECK(u64map_put(&m, 5, 51) == 1 && m.n == 1, "put of a held key replaces its value");
	CHECK(u64map_get(&m, 5) && *u64map_get(&m, 5) == 51, "get returns the replaced value");
	CHECK(u64map_put(&m, 0, 7) == 0 && m.n == 2, "key 0 is a key like any other");
	CHECK(u64map_get(&m, 0) && *u64map_get(&m, 0) == 7, "key 0 is found");
	CHECK(u64map_put(&m, UINT64_MAX, 9) == 0 && *u64map_get(&m, UINT64_MAX) == 9,
	      "key 2^64-1 is found");
	CHECK(u64map_take(&m, 0, &v) == 1 && v == 7 && !u64map_get(&m, 0) && m.n == 2,
	      "key 0 is removed with its value");
	CHECK(u64map_take(&m, 5, NULL) == 1 && !u64map_get(&m, 5) && m.n == 1,
	      "a removal without a value pointer");
	u64map_free(&m);
	CHECK(m.cap == 0 && m.n == 0 && !u64map_get(&m, UINT64_MAX), "free leaves an empty map");
}

static void test_grow(void)
{
	struct u64map m = {0};
	size_t caps = 0, last = 0;
	int ok = 1;

	for (uint64_t k = 1; k <= 100000; k++) {
		if (u64map_put(&m, k, k * 3) != 0)
			ok = 0;
		if (m.cap != last) {
			caps++;
			last = m.cap;
		}
		if (m.n * 10 > m.cap * 7)
			ok = 0;
	}
	CHECK(ok, "100000 puts: each added, the load never above 7/10");
	CHECK(caps >= 10 && m.cap == 262144, "the table doubled as it grew (%zu sizes, cap %zu)",
	      caps, m.cap);
	ok = 1;
	for (uint64_t k = 1; k <= 100000; k++)
		ok &= u64map_get(&m, k) && *u64map_get(&m, k) == k * 3;
	CHECK(ok, "every key is found with its value after growing");
	CHECK(!u64map_get(&m, 100001) && !u64map_get(&m, 0), "absent keys are not found");
	u64map_free(&m);
	CHECK(u64map_reserve(&m, 1000) == 0 && m.cap == 2048, "reserve(1000) makes 2048 slots");
	last = m.cap;
	for (uint64_t k = 1; k <= 1000; k++)
		u64map_put(&m, k << 20, k);
	CHECK(m.cap == last, "1000 puts after reserve(1000) do not grow");
	u64map_free(&m);
}

/* n keys of the family f(i); the probe runs of the table they make. */
static size_t run_of(uint64_t (*f)(uint64_t), size_t n, int *found)
{
	struct u64map m = {0};
	size_t r;

	*found = 1;
	for (size_t i = 0; i < n; i++)
		u64map_put(&m, f(i), i);
	for (size_t i = 0; i < n; i++)
		*found &= u64map_get(&m, f(i)) && *u64map_get(&m, f(i)) == i;
	r = longest_run(&m);
	u64map_free(&m);
	return r;
}

static uint64_t high_bits(uint64_t i)
{
	return (i + 1) << 44;
}
static uint64_t low_bits(uint64_t i)
{
	return 0x5a5a000000000000ULL | i;
}
static uint64_t pages(uint64_t i)
{
	return 0x7f3a12000000ULL + (i << 12);
}
static uint64_t granules(uint64_t i)
{
	return 0x55d0c0de0010ULL + (i << 4);
}
static uint64_t huge(uint64_t i)
{
	return (i + 1) << 30;
}

static void test_adversarial(void)
{
	static const struct {
		const char *what;
		uint64_t (*f)(uint64_t);
		size_t n;
	} fam[] = {
	    {"keys differing only in bits 44-63", high_bits, 1u << 20},
	    {"keys differing only in their low bits", low_bits, 1u << 17},
	    {"page-aligned addresses", pages, 1u << 17},
	    {"16-byte granule addresses", granules, 1u << 17},
	    {"1 GiB-aligned addresses", huge, 1u << 17},
	};

	for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++) {
		int found;
		size_t r = run_of(fam[k].f, fam[k].n, &found);

		CHECK(found, "%s: all %zu found", fam[k].what, fam[k].n);
		/* A good mixer at load <= 0.7 makes runs of a few dozen; a table indexed by the low
		 * bits of a Fibonacci multiply, or by the keys' own bits, makes runs of thousands.
		 */
		CHECK(r < 200, "%s: longest probe run %zu < 200", fam[k].what, r);
	}
}

/* Random puts and removals over a small key space (many collisions and shifts), checked against
 * a direct array after every step. */
static void test_model(void)
{
	enum { SPACE = 3000, STEPS = 200000 };
	static uint64_t val[SPACE];
	static unsigned char held[SPACE];
	struct u64map m = {0};
	struct prng r;
	size_t n = 0, bad = 0, seen = 0, pos = 0;
	uint64_t key, v;

	prng_seed(&r, 11);
	for (int s = 0; s < STEPS; s++) {
		size_t i = prng_below(&r, SPACE);
		uint64_t k = (uint64_t)i << 52 | (i & 7); /* 0 included */

		if (prng_below(&r, 3)) {
			uint64_t nv = prng_next(&r);
			int got = u64map_put(&m, k, nv);
			bad += got != held[i];
			n += !held[i];
			held[i] = 1;
			val[i] = nv;
		} else {
			int got = u64map_take(&m, k, &v);
			bad += got != held[i] || (got && v != val[i]);
			n -= held[i];
			held[i] = 0;
		}
		if (s % 1000 == 0)
			for (size_t j = 0; j < SPACE; j++) {
				const uint64_t *p = u64map_get(&m, (uint64_t)j << 52 | (j & 7));
				bad += held[j] ? !p || *p != val[j] : p != NULL;
			}
	}
	CHECK(bad == 0 && m.n == n,
	      "200000 random puts and removals agree with a model (%zu wrong)", bad);
	while (u64map_next(&m, &pos, &key, &v)) {
		size_t i = (size_t)(key >> 52);
		seen++;
		bad += i >= SPACE || !held[i] || val[i] != v;
	}
	CHECK(bad == 0 && seen == n, "the walk visits each held key once (%zu of %zu)", seen, n);
	u64map_free(&m);
}

int main(void)
{
	test_basic();
	test_grow();
	test_adversarial();
	test_model();
	return CHECK_DONE();
}
