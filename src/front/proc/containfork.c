/* containfork.c - the processes the proc connector saw join a run's tree (contain.h): the
 * evidence that no process of the run went unseen by the tracker (probejudge.c). */
#include "front/proc/contain.h"

#include <stdlib.h>

void contain_tree_add(struct contain *c, long id)
{
	int added = u64map_put(&c->tree, (uint64_t)id, 0);
	long *nv;

	if (added < 0)
		c->lost = 1;
	if (added != 0)
		return;
	if (c->nforks == c->forks_cap) {
		size_t cap = c->forks_cap ? 2 * c->forks_cap : 64;

		if (cap > CONTAIN_MAX_FORKS || !(nv = realloc(c->forks, cap * sizeof *nv))) {
			c->forks_truncated = 1;
			return;
		}
		c->forks = nv;
		c->forks_cap = cap;
	}
	c->forks[c->nforks++] = id;
}
