/* prng.h - the one pseudo-random generator of allocab: xoshiro256** seeded through splitmix64.
 * Deterministic for a given seed on every platform; used by workloads (data, sizes), the bench
 * (shuffled order, environment padding) and the statistics (bootstrap). Not for cryptography. */
#ifndef ALLOCAB_PRNG_H
#define ALLOCAB_PRNG_H

#include <stdint.h>

struct prng {
	uint64_t s[4];
};

/* Seeds the state from a 64-bit seed (any value, 0 included) with splitmix64. */
void prng_seed(struct prng *r, uint64_t seed);
/* Next 64 uniformly distributed bits. */
uint64_t prng_next(struct prng *r);
/* Uniform integer in [0, n); n > 0. Unbiased (Lemire's multiply-and-reject). */
uint64_t prng_below(struct prng *r, uint64_t n);
/* Uniform integer in [lo, hi], lo <= hi. */
int64_t prng_range(struct prng *r, int64_t lo, int64_t hi);
/* Uniform double in [0, 1) with 53 random bits. */
double prng_double(struct prng *r);
/* Standard normal deviate (Box-Muller, no cached second value). */
double prng_normal(struct prng *r);
/* Fisher-Yates shuffle of n indices in place. */
void prng_shuffle(struct prng *r, uint32_t *idx, uint32_t n);

#endif
