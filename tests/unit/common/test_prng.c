/* test_prng.c - the PRNG is the reproducibility contract of every workload: known outputs for
 * fixed seeds (computed independently from the published algorithms), bounds and permutations. */
#include "check.h"
#include "common/prng.h"

#include <stdint.h>
#include <string.h>

static void test_known_outputs(void)
{
	/* splitmix64 from state 0: the reference sequence published with the algorithm. */
	static const uint64_t seed0_state[4] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
	                                        0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL};
	static const uint64_t seed0_next[4] = {0x99ec5f36cb75f2b4ULL, 0xbf6e1f784956452aULL,
	                                       0x1a5f849d4933e6e0ULL, 0x6aa594f1262d2d2cULL};
	static const uint64_t seed42_next[4] = {0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL,
	                                        0xae17533239e499a1ULL, 0xecb8ad4703b360a1ULL};
	static const uint64_t seed7_below10[10] = {7, 2, 8, 9, 9, 8, 0, 1, 4, 1};
	struct prng r;
	int ok = 1;

	prng_seed(&r, 0);
	CHECK(memcmp(r.s, seed0_state, sizeof seed0_state) == 0, "seed 0: state is splitmix64(0)");
	for (int i = 0; i < 4; i++)
		ok &= prng_next(&r) == seed0_next[i];
	CHECK(ok, "seed 0: first four xoshiro256** outputs");
	prng_seed(&r, 42);
	ok = 1;
	for (int i = 0; i < 4; i++)
		ok &= prng_next(&r) == seed42_next[i];
	CHECK(ok, "seed 42: first four xoshiro256** outputs");
	prng_seed(&r, 7);
	ok = 1;
	for (int i = 0; i < 10; i++)
		ok &= prng_below(&r, 10) == seed7_below10[i];
	CHECK(ok, "seed 7: first ten prng_below(10) (Lemire)");
}

static void test_determinism(void)
{
	struct prng a, b, c;
	int same = 1, differ = 0;

	prng_seed(&a, 12345);
	prng_seed(&b, 12345);
	prng_seed(&c, 12346);
	for (int i = 0; i < 10000; i++) {
		uint64_t x = prng_next(&a);
		same &= x == prng_next(&b);
		differ += x != prng_next(&c);
	}
	CHECK(same, "same seed gives the same 10000 outputs");
	CHECK(differ > 9990, "adjacent seeds give different streams (%d of 10000 differ)", differ);
}

static void test_below_bounds(void)
{
	static const uint64_t ns[] = {1, 2, 3, 7, 1000, (1ULL << 63) + 1, UINT64_MAX};
	struct prng r;
	int ok = 1;

	prng_seed(&r, 1);
	for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
		for (int i = 0; i < 2000; i++)
			ok &= prng_below(&r, ns[k]) < ns[k];
	CHECK(ok, "prng_below(n) < n for n from 1 to 2^64-1");

	int64_t lo = INT64_MAX, hi = INT64_MIN;
	ok = 1;
	for (int i = 0; i < 5000; i++) {
		int64_t v = prng_range(&r, -3, 3);
		ok &= v >= -3 && v <= 3;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	CHECK(ok && lo == -3 && hi == 3, "prng_range(-3, 3) covers exactly [-3, 3] (%lld..%lld)",
	      (long long)lo, (long long)hi);
	CHECK(prng_range(&r, 5, 5) == 5, "prng_range(5, 5) == 5");
	int neg = 0, pos = 0;
	for (int i = 0; i < 100; i++) {
		int64_t v = prng_range(&r, INT64_MIN, INT64_MAX);
		neg += v < 0;
		pos += v > 0;
	}
	CHECK(neg > 20 && pos > 20, "prng_range over the full int64 span: %d negative, %d positive",
	      neg, pos);

	double dmin = 1, dmax = 0;
	for (int i = 0; i < 10000; i++) {
		double d = prng_double(&r);
		dmin = d < dmin ? d : dmin;
		dmax = d > dmax ? d : dmax;
	}
	CHECK(dmin >= 0 && dmax < 1 && dmin < 0.01 && dmax > 0.99, "prng_double in [0, 1) (%g..%g)",
	      dmin, dmax);
}

/* Chi-square over 10 buckets, 100000 draws, fixed seed: deterministic, so not flaky. The 0.1%
 * critical value for 9 degrees of freedom is 27.88. */
static void test_uniformity(void)
{
	int64_t count[10] = {0};
	struct prng r;
	double chi = 0;

	prng_seed(&r, 2024);
	for (int i = 0; i < 100000; i++)
		count[prng_below(&r, 10)]++;
	for (int b = 0; b < 10; b++)
		chi += (count[b] - 10000.0) * (count[b] - 10000.0) / 10000.0;
	CHECK(chi < 27.88, "prng_below(10) uniform: chi-square %.2f < 27.88", chi);

	double sum = 0, sq = 0;
	for (int i = 0; i < 100000; i++) {
		double x = prng_normal(&r);
		sum += x;
		sq += x * x;
	}
	CHECK_NEAR(sum / 100000, 0.0, 0.02, "prng_normal mean");
	CHECK_NEAR(sq / 100000, 1.0, 0.03, "prng_normal variance");
}

static void test_shuffle(void)
{
	enum { N = 1000 };
	static uint32_t a[N], b[N];
	unsigned char seen[N] = {0};
	struct prng r;
	int perm = 1, moved = 0;

	for (uint32_t i = 0; i < N; i++)
		a[i] = b[i] = i;
	prng_seed(&r, 99);
	prng_shuffle(&r, a, N);
	for (uint32_t i = 0; i < N; i++) {
		perm &= a[i] < N && !seen[a[i]];
		if (a[i] < N)
			seen[a[i]] = 1;
		moved += a[i] != i;
	}
	CHECK(perm, "shuffle is a permutation of 0..999");
	CHECK(moved > 900, "shuffle moves most elements (%d of 1000)", moved);
	prng_seed(&r, 99);
	prng_shuffle(&r, b, N);
	CHECK(memcmp(a, b, sizeof a) == 0, "shuffle is deterministic for a seed");
	uint32_t first = b[0];
	prng_shuffle(&r, b, 0);
	prng_shuffle(&r, b, 1);
	CHECK(b[0] == first, "shuffle of 0 and 1 elements changes nothing");
}

int main(void)
{
	test_known_outputs();
	test_determinism();
	test_below_bounds();
	test_uniformity();
	test_shuffle();
	return CHECK_DONE();
}
