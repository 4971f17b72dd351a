/* u64map.c - the u64 -> u64 map (u64map.h). */
#include "common/u64map.h"

#include <stdlib.h>

#define MIN_CAP_LOG 4

static size_t home(const struct u64map *m, uint64_t key)
{
	return (size_t)(u64map_mix(key) >> m->shift);
}

/* The slot holding key (nonzero), or the empty slot where it would go. */
static size_t find(const struct u64map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i = home(m, key);

	while (m->s[i].key && m->s[i].key != key)
		i = (i + 1) & mask;
	return i;
}

static int fits(size_t cap, size_t n)
{
	return n <= cap / 10 * 7 + cap % 10 * 7 / 10;
}

static int rehash(struct u64map *m, int lg)
{
	struct u64map n = {.cap = (size_t)1 << lg, .shift = 64 - lg};

	if (!(n.s = calloc(n.cap, sizeof *n.s)))
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->s[i].key)
			n.s[find(&n, m->s[i].key)] = m->s[i];
	free(m->s);
	m->s = n.s;
	m->cap = n.cap;
	m->shift = n.shift;
	return 0;
}

int u64map_reserve(struct u64map *m, size_t n)
{
	int lg = MIN_CAP_LOG;

	while (lg < 62 && !fits((size_t)1 << lg, n))
		lg++;
	if (!fits((size_t)1 << lg, n))
		return -1;
	return m->cap >= (size_t)1 << lg ? 0 : rehash(m, lg);
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i;

	if (!key) {
		int was = m->has_zero;

		m->n += !was;
		m->has_zero = 1;
		m->zero_val = val;
		return was;
	}
	if (!m->cap || !fits(m->cap, m->n - m->has_zero + 1)) {
		if (u64map_reserve(m, m->cap ? m->cap : 1) != 0)
			return -1;
	}
	i = find(m, key);
	if (m->s[i].key) {
		m->s[i].val = val;
		return 1;
	}
	m->s[i] = (struct u64map_slot){key, val};
	m->n++;
	return 0;
}

uint64_t *u64map_get(const struct u64map *m, uint64_t key)
{
	struct u64map_slot *s;

	if (!key)
		return m->has_zero ? (uint64_t *)&m->zero_val : NULL;
	if (!m->cap)
		return NULL;
	s = &m->s[find(m, key)];
	return s->key ? &s->val : NULL;
}

int u64map_take(struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t mask = m->cap - 1, i, j;

	if (!key) {
		if (!m->has_zero)
			return 0;
		if (val)
			*val = m->zero_val;
		m->has_zero = 0;
		m->n--;
		return 1;
	}
	if (!m->cap || !m->s[i = find(m, key)].key)
		return 0;
	if (val)
		*val = m->s[i].val;
	m->n--;
	/* Backward shift: a later key of the run moves into the hole unless its home lies
	 * (cyclically) after the hole, so no probe ever meets an empty slot before its key. */
	for (j = (i + 1) & mask; m->s[j].key; j = (j + 1) & mask) {
		size_t h = home(m, m->s[j].key);

		if (((j - h) & mask) >= ((j - i) & mask)) {
			m->s[i] = m->s[j];
			i = j;
		}
	}
	m->s[i].key = 0;
	return 1;
}

int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	if (*pos == 0 && m->has_zero) {
		*pos = 1;
		*key = 0;
		*val = m->zero_val;
		return 1;
	}
	if (*pos == 0)
		*pos = 1;
	for (; *pos <= m->cap; ++*pos)
		if (m->s[*pos - 1].key) {
			*key = m->s[*pos - 1].key;
			*val = m->s[*pos - 1].val;
			++*pos;
			return 1;
		}
	return 0;
}

void u64map_prefetch(const struct u64map *m, uint64_t key)
{
	if (m->cap)
		__builtin_prefetch(&m->s[home(m, key)], 1);
}

void u64map_free(struct u64map *m)
{
	free(m->s);
	*m = (struct u64map){0};
}
