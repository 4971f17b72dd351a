/* replay_load.c - fuzz target of the replay loader (workloads/lib/replay_load.h): a bundled trace
 * loaded for replay from memory (every process read, the one with the most events split per
 * thread, renumbered, its releases linked, split by the phases it marked and its schedule checked
 * across their boundaries, incomplete or not), then the work estimate of what was accepted, and
 * the same by its pid with incomplete streams refused and its marks left out. Built by `make
 * fuzz`; replayed over tests/fuzz/corpus/replay_load in `make test`. */
#include "workloads/lib/replay_load.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct rp_trace t;
	struct rp_cost c;
	uint64_t pid;
	struct rp_pick any = {0, RP_ALLOW_INCOMPLETE};

	if (rp_load_mem(data, size, any, &t, err, sizeof err) != 0)
		return 0;
	rp_cost(&t, &c);
	pid = t.pid;
	rp_free(&t);
	if (rp_load_mem(data, size, (struct rp_pick){pid, RP_NO_MARKS}, &t, err, sizeof err) == 0) {
		rp_cost(&t, &c);
		rp_free(&t);
	}
	return 0;
}
