/* record_map.c - the recorder's address -> object id map (record.h): 64 shards, each an
 * open-addressing table with backward-shift deletion behind its own spinlock. */
#include "preload/record.h"

#include <sys/mman.h>

#define NSHARDS 64

struct slot {
	uintptr_t key;
	uint64_t id;
};

struct shard {
	atomic_int lock;
	size_t cap, used;
	struct slot *tab;
} __attribute__((aligned(64)));

static struct shard shards[NSHARDS];

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int shard_grow(struct shard *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 1024;
	struct slot *nt = rec_map_pages(ncap * sizeof *nt);

	if (!nt)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->tab[i].key)
			continue;
		size_t j = mix64(s->tab[i].key) & (ncap - 1);
		while (nt[j].key)
			j = (j + 1) & (ncap - 1);
		nt[j] = s->tab[i];
	}
	if (s->tab)
		munmap(s->tab, s->cap * sizeof *s->tab);
	s->tab = nt;
	s->cap = ncap;
	return 0;
}

void rec_map_insert(const void *p, uint64_t id)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = mix64(key);
	struct shard *s = &shards[h >> 58];
	size_t j;

	rec_spin_lock(&s->lock);
	if ((s->used + 1) * 10 > s->cap * 7 && shard_grow(s) != 0) {
		rec_spin_unlock(&s->lock);
		return;
	}
	for (j = h & (s->cap - 1); s->tab[j].key && s->tab[j].key != key;
	     j = (j + 1) & (s->cap - 1))
		;
	if (!s->tab[j].key)
		s->used++;
	s->tab[j] = (struct slot){key, id};
	rec_spin_unlock(&s->lock);
}

uint64_t rec_map_remove(const void *p)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = mix64(key), id = 0;
	struct shard *s = &shards[h >> 58];
	size_t mask, i, j;

	rec_spin_lock(&s->lock);
	if (!s->cap)
		goto out;
	mask = s->cap - 1;
	for (i = h & mask; s->tab[i].key && s->tab[i].key != key; i = (i + 1) & mask)
		;
	if (!s->tab[i].key)
		goto out;
	id = s->tab[i].id;
	s->used--;
	for (j = (i + 1) & mask; s->tab[j].key; j = (j + 1) & mask) {
		size_t home = mix64(s->tab[j].key) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->tab[i] = s->tab[j];
			i = j;
		}
	}
	s->tab[i].key = 0;
out:
	rec_spin_unlock(&s->lock);
	return id;
}

void rec_map_reset(void)
{
	for (int k = 0; k < NSHARDS; k++) {
		if (shards[k].tab)
			munmap(shards[k].tab, shards[k].cap * sizeof(struct slot));
		shards[k] = (struct shard){0};
	}
}
