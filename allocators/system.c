/* system.c - glibc's malloc (ptmalloc2), the baseline: nothing is linked beyond libc, so malloc
 * must resolve into libc.so.6. Counters from mallinfo2(), which sums every arena. */
#include "driver/backend.h"

#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

static int system_version(char *buf, size_t len)
{
	snprintf(buf, len, "%s", gnu_get_libc_version());
	return 0;
}

static size_t system_counters(struct backend_counter *out, size_t cap)
{
	struct mallinfo2 mi = mallinfo2();
	const struct backend_counter c[] = {
	    {"allocated_bytes", (int64_t)(mi.uordblks + mi.hblkhd)},
	    {"arena_bytes", (int64_t)mi.arena},
	    {"mmap_bytes", (int64_t)mi.hblkhd},
	    {"free_bytes", (int64_t)mi.fordblks},
	    {"releasable_bytes", (int64_t)mi.keepcost},
	};
	size_t n = cap < sizeof c / sizeof c[0] ? cap : sizeof c / sizeof c[0];

	memcpy(out, c, n * sizeof c[0]);
	return n;
}

const struct backend_ops backend = {
    .name = "system",
    .library = "libc.so.",
    .version = system_version,
    .counters = system_counters,
};
