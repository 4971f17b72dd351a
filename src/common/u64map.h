/* u64map.h - the one map from 64-bit keys to 64-bit values: open addressing with linear probing
 * and backward-shift deletion (no tombstones), every key allowed (0 included), the home slot
 * taken from the high bits of splitmix64's finaliser of the key, so keys that differ only in
 * their low bits (aligned addresses) or only in their high bits (ids, pids) spread alike. The
 * table grows by doubling past a load of 7/10. Not thread-safe. */
#ifndef ALLOCAB_U64MAP_H
#define ALLOCAB_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map_slot {
	uint64_t key, val;
};

/* Zero-initialised ({0}) is an empty map. */
struct u64map {
	struct u64map_slot *s; /* cap slots; key 0 marks an empty one */
	size_t cap, n;         /* n: keys held, the zero key included */
	int shift;             /* 64 - log2(cap) */
	int has_zero;          /* key 0 is held, with zero_val */
	uint64_t zero_val;
};

/* splitmix64's finaliser: a bijection of 64-bit words whose every output bit depends on every
 * input bit. */
static inline uint64_t u64map_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Makes room for n keys without growing again. Returns 0, or -1 when out of memory (m is then
 * unchanged). */
int u64map_reserve(struct u64map *m, size_t n);

/* Maps key to val. Returns 1 when key was held (its value replaced), 0 when it was added, or -1
 * when out of memory (m is then unchanged). */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);

/* The value key maps to, or NULL when it is not held; valid until m next changes. */
uint64_t *u64map_get(const struct u64map *m, uint64_t key);

/* Removes key. Returns 1 with its value in *val (val may be NULL), or 0 when it is not held. */
int u64map_take(struct u64map *m, uint64_t key, uint64_t *val);

/* Walks the keys in no particular order: start with *pos = 0; returns 1 with the next key and
 * value, or 0 at the end. The map must not change during the walk. */
int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

/* Starts loading key's home slot into the cache (for a caller that knows its next key early). */
void u64map_prefetch(const struct u64map *m, uint64_t key);

/* Frees the slots; m is then an empty map again. */
void u64map_free(struct u64map *m);

#endif
