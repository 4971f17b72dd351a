/* prng.c - xoshiro256** (Blackman & Vigna, 2018) with splitmix64 seeding. */
#include "common/prng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void prng_seed(struct prng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t prng_next(struct prng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t prng_below(struct prng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)prng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t threshold = -n % n;
		while (low < threshold) {
			m = (unsigned __int128)prng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

int64_t prng_range(struct prng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;

	if (span == 0)
		return (int64_t)prng_next(r);
	return lo + (int64_t)prng_below(r, span);
}

double prng_double(struct prng *r)
{
	return (double)(prng_next(r) >> 11) * 0x1.0p-53;
}

double prng_normal(struct prng *r)
{
	double u1 = 1.0 - prng_double(r);
	double u2 = prng_double(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void prng_shuffle(struct prng *r, uint32_t *idx, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)prng_below(r, i);
		uint32_t t = idx[i - 1];
		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}
