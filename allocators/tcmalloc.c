/* tcmalloc.c - gperftools' tcmalloc_minimal (no heap profiler) from Debian's
 * libtcmalloc_minimal.so.4. Counters are MallocExtension numeric properties. Options: the
 * numeric properties that can be set, set before the first rep and read back; and the release
 * rate, which only the environment sets (TCMALLOC_RELEASE_RATE) and no C interface reads. */
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

static const struct backend_option tcmalloc_options[] = {
    {.name = "max_total_thread_cache_bytes",
     .type = BACKEND_OPT_BYTES,
     .unit = "bytes",
     .min = 512 << 10,
     .max = 1 << 30,
     .def = 32 << 20,
     .help = "bound on the free memory held in all thread caches together",
     .source = "tcmalloc.max_total_thread_cache_bytes",
     .env = "TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_READ,
     .key = "tcmalloc.max_total_thread_cache_bytes"},
    {.name = "aggressive_decommit",
     .type = BACKEND_OPT_INT,
     .unit = "0/1",
     .min = 0,
     .max = 1,
     .def = 0,
     .help = "return free spans to the system as soon as they are freed",
     .source = "tcmalloc.aggressive_memory_decommit",
     .env = "TCMALLOC_AGGRESSIVE_DECOMMIT",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_READ,
     .key = "tcmalloc.aggressive_memory_decommit"},
    {.name = "heap_limit_mb",
     .type = BACKEND_OPT_INT,
     .unit = "MiB",
     .min = 0,
     .max = 1 << 30,
     .def = 0,
     .help = "heap size above which allocations fail (0: no limit)",
     .source = "tcmalloc.heap_limit_mb",
     .env = "TCMALLOC_HEAP_LIMIT_MB",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_READ,
     .key = "tcmalloc.heap_limit_mb"},
    {.name = "release_rate",
     .type = BACKEND_OPT_INT,
     .unit = "rate",
     .min = 0,
     .max = 100,
     .def = 1,
     .help = "how fast free pages are returned to the system (0: never; integers here)",
     .source = "TCMALLOC_RELEASE_RATE",
     .env = "TCMALLOC_RELEASE_RATE",
     .apply = BACKEND_APPLY_ENV,
     .proof = BACKEND_PROOF_ENV},
};

static int tcmalloc_apply(const struct backend_setting *s, char *err, size_t errlen)
{
	if (MallocExtension_SetNumericProperty(s->opt->key, (size_t)s->value))
		return 0;
	snprintf(err, errlen, "MallocExtension_SetNumericProperty(\"%s\") refused", s->opt->key);
	return -1;
}

static enum backend_read tcmalloc_read(const struct backend_option *o,
                                       const struct backend_setting *cfg, size_t ncfg,
                                       int64_t *value, char *err, size_t errlen)
{
	size_t v;

	(void)cfg, (void)ncfg;
	if (!o->key[0])
		return BACKEND_READ_NONE;
	if (!MallocExtension_GetNumericProperty(o->key, &v)) {
		snprintf(err, errlen, "MallocExtension_GetNumericProperty(\"%s\") failed", o->key);
		return BACKEND_READ_FAIL;
	}
	*value = (int64_t)v;
	return BACKEND_READ_VALUE;
}

static int tcmalloc_probe(const struct backend_option *o, char *buf, size_t len)
{
	if (!o->key[0])
		return -1;
	snprintf(buf, len, "tc:%s", o->key);
	return 0;
}

const struct backend_ops backend = {
    .name = "tcmalloc",
    .library = "libtcmalloc_minimal.so.",
    .version = tcmalloc_version,
    .counters = tcmalloc_counters,
    .options = tcmalloc_options,
    .noptions = sizeof tcmalloc_options / sizeof tcmalloc_options[0],
    .config_apply = tcmalloc_apply,
    .config_read = tcmalloc_read,
    .config_probe = tcmalloc_probe,
};
