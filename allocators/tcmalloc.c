/* tcmalloc.c - gperftools' tcmalloc_minimal (no heap profiler) from Debian's
 * libtcmalloc_minimal.so.4. Counters are MallocExtension numeric properties. */
#include "driver/backend.h"

#include <gperftools/malloc_extension_c.h>
#include <gperftools/tcmalloc.h>
#include <stdio.h>

static int tcmalloc_version(char *buf, size_t len)
{
	int major = 0, minor = 0;
	const char *patch = NULL;

	tc_version(&major, &minor, &patch);
	snprintf(buf, len, "%d.%d%s", major, minor, patch ? patch : "");
	return 0;
}

static const char *const props[][2] = {
    {"allocated_bytes", "generic.current_allocated_bytes"},
    {"heap_bytes", "generic.heap_size"},
    {"resident_bytes", "generic.total_physical_bytes"},
    {"pageheap_free_bytes", "tcmalloc.pageheap_free_bytes"},
    {"pageheap_unmapped_bytes", "tcmalloc.pageheap_unmapped_bytes"},
    {"central_cache_free_bytes", "tcmalloc.central_cache_free_bytes"},
    {"transfer_cache_free_bytes", "tcmalloc.transfer_cache_free_bytes"},
    {"thread_cache_free_bytes", "tcmalloc.current_total_thread_cache_bytes"},
};

static size_t tcmalloc_counters(struct backend_counter *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof props / sizeof props[0] && n < cap; i++) {
		size_t v;
		if (MallocExtension_GetNumericProperty(props[i][1], &v))
			out[n++] = (struct backend_counter){props[i][0], (int64_t)v};
	}
	return n;
}

const struct backend_ops backend = {
    .name = "tcmalloc",
    .library = "libtcmalloc_minimal.so.",
    .version = tcmalloc_version,
    .counters = tcmalloc_counters,
};
