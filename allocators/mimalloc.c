/* mimalloc.c - Microsoft's mimalloc from Debian's libmimalloc.so.2, which overrides malloc when
 * linked. Release builds keep no allocated-bytes statistic; mi_process_info gives commit and RSS.
 */
#include "driver/backend.h"

#include <mimalloc.h>
#include <stdio.h>
#include <string.h>

/* mi_version() is major*100 + minor*10 + patch: 209 is 2.0.9. */
static int mimalloc_version(char *buf, size_t len)
{
	int v = mi_version();

	snprintf(buf, len, "%d.%d.%d", v / 100, v / 10 % 10, v % 10);
	return 0;
}

static size_t mimalloc_counters(struct backend_counter *out, size_t cap)
{
	size_t elapsed, user, sys, rss, peak_rss, commit, peak_commit, faults;

	mi_process_info(&elapsed, &user, &sys, &rss, &peak_rss, &commit, &peak_commit, &faults);
	const struct backend_counter c[] = {
	    {"committed_bytes", (int64_t)commit},
	    {"peak_committed_bytes", (int64_t)peak_commit},
	    {"peak_rss_bytes", (int64_t)peak_rss},
	};
	size_t n = cap < sizeof c / sizeof c[0] ? cap : sizeof c / sizeof c[0];

	memcpy(out, c, n * sizeof c[0]);
	return n;
}

const struct backend_ops backend = {
    .name = "mimalloc",
    .library = "libmimalloc.so.",
    .version = mimalloc_version,
    .counters = mimalloc_counters,
};
