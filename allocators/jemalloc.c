/* jemalloc.c - jemalloc from Debian's libjemalloc.so.2, built without a symbol prefix, so its
 * malloc replaces glibc's. Statistics through mallctl after advancing "epoch" to refresh them. */
#include "driver/backend.h"

#include <jemalloc/jemalloc.h>
#include <stdio.h>

static int jemalloc_version(char *buf, size_t len)
{
	const char *v = NULL;
	size_t sz = sizeof v;

	if (mallctl("version", &v, &sz, NULL, 0) != 0 || !v) {
		snprintf(buf, len, "unknown");
		return -1;
	}
	snprintf(buf, len, "%s", v);
	return 0;
}

static const char *const stats[][2] = {
    {"allocated_bytes", "stats.allocated"}, {"active_bytes", "stats.active"},
    {"resident_bytes", "stats.resident"},   {"mapped_bytes", "stats.mapped"},
    {"retained_bytes", "stats.retained"},   {"metadata_bytes", "stats.metadata"},
};

static size_t jemalloc_counters(struct backend_counter *out, size_t cap)
{
	uint64_t epoch = 1;
	size_t sz = sizeof epoch, n = 0;

	if (mallctl("epoch", &epoch, &sz, &epoch, sz) != 0)
		return 0;
	for (size_t i = 0; i < sizeof stats / sizeof stats[0] && n < cap; i++) {
		size_t v, vsz = sizeof v;
		if (mallctl(stats[i][1], &v, &vsz, NULL, 0) == 0)
			out[n++] = (struct backend_counter){stats[i][0], (int64_t)v};
	}
	return n;
}

const struct backend_ops backend = {
    .name = "jemalloc",
    .library = "libjemalloc.so.",
    .version = jemalloc_version,
    .counters = jemalloc_counters,
};
