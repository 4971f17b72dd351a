/* jemalloc.c - jemalloc from Debian's libjemalloc.so.2, built without a symbol prefix, so its
 * malloc replaces glibc's. Statistics through mallctl after advancing "epoch" to refresh them.
 * Options are jemalloc's opt.* settings: MALLOC_CONF at start (jemalloc reads it when it
 * initialises, before main), read back where jemalloc shows their effect: arenas.narenas (without
 * the huge-allocation arena), arenas.*_decay_ms, arenas.tcache_max, background_thread; opt.NAME
 * where jemalloc adjusts the option itself (percpu_arena) or only keeps the request (thp,
 * metadata_thp: proof "requested", docs/tuning.md). */
#include "driver/backend.h"

#include <jemalloc/jemalloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

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

/* How mallctl returns the value (backend_option.id); JE_NARENAS: arenas.narenas less the arena
 * jemalloc adds for huge allocations when opt.oversize_threshold is not 0. */
enum { JE_UNSIGNED, JE_SSIZE, JE_BOOL, JE_SIZE, JE_STRING, JE_NARENAS };

#define je_bool   "false,true"
#define je_thp    "default,always,never"
#define je_mthp   "disabled,auto,always"
#define je_percpu "disabled,percpu,phycpu"

#define JE_OPT(nm, t, u, lo, hi, d, kind, k, text)                                                 \
	{                                                                                          \
		.name = nm, .type = t, .unit = u, .min = lo, .max = hi, .def = d, .help = text,    \
		.source = "opt." nm, .env = nm, .apply = BACKEND_APPLY_ENV,                        \
		.proof = BACKEND_PROOF_READ, .id = kind, .key = k                                  \
	}
#define JE_ENUM(nm, ch, n, d, kind, k, pr, text)                                                   \
	{                                                                                          \
		.name = nm, .type = BACKEND_OPT_ENUM, .unit = "", .min = 0, .max = n - 1,          \
		.def = d, .choices = ch, .help = text, .source = "opt." nm, .env = nm,             \
		.apply = BACKEND_APPLY_ENV, .proof = pr, .id = kind, .key = k                      \
	}

static const struct backend_option jemalloc_options[] = {
    {.name = "narenas",
     .type = BACKEND_OPT_INT,
     .unit = "count",
     .min = 1,
     .max = 4096,
     .def_text = "4 x CPUs",
     .help = "arenas threads are spread over",
     .source = "opt.narenas",
     .env = "narenas",
     .apply = BACKEND_APPLY_ENV,
     .proof = BACKEND_PROOF_READ,
     .id = JE_NARENAS,
     .key = "arenas.narenas"},
    JE_OPT("dirty_decay_ms", BACKEND_OPT_INT, "ms", -1, 3600000, 10000, JE_SSIZE,
           "arenas.dirty_decay_ms",
           "time for unused dirty pages to be purged (-1: never, 0: at once)"),
    JE_OPT("muzzy_decay_ms", BACKEND_OPT_INT, "ms", -1, 3600000, 0, JE_SSIZE,
           "arenas.muzzy_decay_ms",
           "time for muzzy (lazily purged) pages to be returned (-1: never)"),
    JE_ENUM("background_thread", je_bool, 2, 0, JE_BOOL, "background_thread", BACKEND_PROOF_READ,
            "purge from background threads"),
    JE_OPT("tcache_max", BACKEND_OPT_BYTES, "bytes", 0, 8 << 20, 32 << 10, JE_SIZE,
           "arenas.tcache_max",
           "largest size class kept in the per-thread caches (rounded up to a size class)"),
    JE_ENUM("thp", je_thp, 3, 0, JE_STRING, "opt.thp", BACKEND_PROOF_REQUESTED,
            "transparent huge pages for the heap (madvise)"),
    JE_ENUM("metadata_thp", je_mthp, 3, 0, JE_STRING, "opt.metadata_thp", BACKEND_PROOF_REQUESTED,
            "transparent huge pages for jemalloc's metadata"),
    JE_ENUM("percpu_arena", je_percpu, 3, 0, JE_STRING, "opt.percpu_arena", BACKEND_PROOF_READ,
            "one arena per CPU (percpu) or per physical core (phycpu), chosen by the CPU"),
};

/* The automatic arenas jemalloc runs: arenas.narenas counts the arena it adds for allocations
 * above opt.oversize_threshold too (its requested narenas above 4094 are cut to 4094). */
static int jemalloc_narenas(unsigned *out)
{
	size_t sz = sizeof *out, zs = sizeof(size_t), oversize = 0;

	if (mallctl("arenas.narenas", out, &sz, NULL, 0) != 0)
		return -1;
	if (mallctl("opt.oversize_threshold", &oversize, &zs, NULL, 0) == 0 && oversize && *out)
		(*out)--;
	return 0;
}

static enum backend_read jemalloc_read(const struct backend_option *o,
                                       const struct backend_setting *cfg, size_t ncfg,
                                       int64_t *value, char *err, size_t errlen)
{
	union {
		unsigned u;
		ssize_t ss;
		bool b;
		size_t z;
		const char *s;
	} v;
	size_t sz = o->id == JE_UNSIGNED ? sizeof v.u
	            : o->id == JE_SSIZE  ? sizeof v.ss
	            : o->id == JE_BOOL   ? sizeof v.b
	            : o->id == JE_SIZE   ? sizeof v.z
	                                 : sizeof v.s;

	(void)cfg, (void)ncfg;
	if (o->id == JE_NARENAS ? jemalloc_narenas(&v.u) != 0
	                        : mallctl(o->key, &v, &sz, NULL, 0) != 0) {
		snprintf(err, errlen, "mallctl(\"%s\") failed", o->key);
		return BACKEND_READ_FAIL;
	}
	switch (o->id) {
	case JE_UNSIGNED:
	case JE_NARENAS:
		*value = v.u;
		break;
	case JE_SSIZE:
		*value = v.ss;
		break;
	case JE_BOOL:
		*value = v.b;
		break;
	case JE_SIZE:
		*value = (int64_t)v.z;
		break;
	default:
		if ((*value = backend_choice_index(o, v.s)) < 0) {
			snprintf(err, errlen, "%s is '%s'", o->key, v.s);
			return BACKEND_READ_FAIL;
		}
	}
	return BACKEND_READ_VALUE;
}

static int jemalloc_probe(const struct backend_option *o, char *buf, size_t len)
{
	static const char *const kind[] = {"je_unsigned", "je_ssize",  "je_bool",
	                                   "je_size",     "je_string", "je_narenas"};

	snprintf(buf, len, "%s:%s", kind[o->id], o->key);
	return 0;
}

const struct backend_ops backend = {
    .name = "jemalloc",
    .library = "libjemalloc.so.",
    .version = jemalloc_version,
    .counters = jemalloc_counters,
    .options = jemalloc_options,
    .noptions = sizeof jemalloc_options / sizeof jemalloc_options[0],
    .env_var = "MALLOC_CONF",
    .env_assign = ':',
    .env_sep = ',',
    .config_read = jemalloc_read,
    .config_probe = jemalloc_probe,
};
