/* mimalloc.c - Microsoft's mimalloc from Debian's libmimalloc.so.2, which overrides malloc when
 * linked. Release builds keep no allocated-bytes statistic; mi_process_info gives commit and RSS.
 * Options are the mi_option_t of 2.0.9, set through MIMALLOC_<NAME> at start (mimalloc reads
 * them when it initialises) and read back with mi_option_get, which is the value mimalloc
 * consults whenever it acts on it; except reserve_huge_os_pages, whose effect (the huge pages
 * mimalloc managed to reserve) is read from /proc/self/smaps, and large_os_pages and
 * reserve_os_memory, whose effect mimalloc does not show (proof "requested", docs/tuning.md). */
#include "common/hugetlb.h"
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

#define MI_FLAG_PROOF(nm, env_name, opt, d, pr, text)                                              \
	{                                                                                          \
		.name = nm, .type = BACKEND_OPT_INT, .unit = "0/1", .min = 0, .max = 1, .def = d,  \
		.help = text, .source = "mi_option_" nm, .env = "MIMALLOC_" env_name,              \
		.apply = BACKEND_APPLY_ENV, .proof = pr, .id = opt                                 \
	}
#define MI_FLAG(nm, env_name, opt, d, text)                                                        \
	MI_FLAG_PROOF(nm, env_name, opt, d, BACKEND_PROOF_READ, text)
#define MI_NUM(nm, env_name, opt, u, hi, d, text)                                                  \
	{                                                                                          \
		.name = nm, .type = BACKEND_OPT_INT, .unit = u, .min = 0, .max = hi, .def = d,     \
		.help = text, .source = "mi_option_" nm, .env = "MIMALLOC_" env_name,              \
		.apply = BACKEND_APPLY_ENV, .proof = BACKEND_PROOF_READ, .id = opt                 \
	}

static const struct backend_option mimalloc_options[] = {
    MI_FLAG("eager_commit", "EAGER_COMMIT", mi_option_eager_commit, 1,
            "commit whole segments when they are reserved"),
    MI_NUM("eager_commit_delay", "EAGER_COMMIT_DELAY", mi_option_eager_commit_delay, "count", 1024,
           1, "segments per thread not committed eagerly"),
    MI_FLAG_PROOF("large_os_pages", "LARGE_OS_PAGES", mi_option_large_os_pages, 0,
                  BACKEND_PROOF_REQUESTED,
                  "back segments with 2 MiB pages where the system allows (implies eager "
                  "commit)"),
    MI_NUM("reserve_huge_os_pages", "RESERVE_HUGE_OS_PAGES", mi_option_reserve_huge_os_pages,
           "count", 64, 0, "1 GiB huge pages reserved at start (read: the ones it got)"),
    {.name = "reserve_os_memory",
     .type = BACKEND_OPT_BYTES,
     .unit = "bytes",
     .min = 0,
     .max = (int64_t)64 << 30,
     .align = 1024,
     .def = 0,
     .help = "memory reserved (not committed) from the system at start",
     .source = "mi_option_reserve_os_memory (KiB)",
     .env = "MIMALLOC_RESERVE_OS_MEMORY",
     .apply = BACKEND_APPLY_ENV,
     .proof = BACKEND_PROOF_REQUESTED,
     .id = mi_option_reserve_os_memory},
    MI_FLAG("page_reset", "PAGE_RESET", mi_option_page_reset, 0,
            "reset (madvise) the memory of free pages"),
    MI_FLAG("abandoned_page_decommit", "ABANDONED_PAGE_DECOMMIT", mi_option_abandoned_page_decommit,
            0, "decommit free pages of exited threads"),
    MI_FLAG("allow_decommit", "ALLOW_DECOMMIT", mi_option_allow_decommit, 1,
            "return unused memory to the system at all"),
    MI_NUM("decommit_delay", "DECOMMIT_DELAY", mi_option_decommit_delay, "ms", 3600000, 25,
           "delay before free pages are decommitted (later versions: purge_delay)"),
    MI_NUM("segment_decommit_delay", "SEGMENT_DECOMMIT_DELAY", mi_option_segment_decommit_delay,
           "ms", 3600000, 500, "delay before free segments are decommitted"),
    MI_NUM("decommit_extend_delay", "DECOMMIT_EXTEND_DELAY", mi_option_decommit_extend_delay, "ms",
           3600000, 1, "how much each new decommit extends the delay"),
    MI_NUM("use_numa_nodes", "USE_NUMA_NODES", mi_option_use_numa_nodes, "count", 1024, 0,
           "NUMA nodes used at most (0: all there are)"),
    MI_NUM("max_segment_reclaim", "MAX_SEGMENT_RECLAIM", mi_option_max_segment_reclaim, "count",
           1000000, 8, "abandoned segments a thread reclaims per allocation"),
};

static enum backend_read mimalloc_read(const struct backend_option *o,
                                       const struct backend_setting *cfg, size_t ncfg,
                                       int64_t *value, char *err, size_t errlen)
{
	long long huge;

	(void)cfg, (void)ncfg;
	if (o->id == mi_option_reserve_huge_os_pages) {
		if ((huge = hugetlb_mapped_bytes()) < 0) {
			snprintf(err, errlen, "/proc/self/smaps is unreadable");
			return BACKEND_READ_FAIL;
		}
		*value = huge >> 30;
		return BACKEND_READ_VALUE;
	}
	*value = mi_option_get((mi_option_t)o->id);
	if (o->id == mi_option_reserve_os_memory)
		*value *= 1024;
	return BACKEND_READ_VALUE;
}

static int mimalloc_probe(const struct backend_option *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%d",
	         o->id == mi_option_reserve_os_memory       ? "mi_kib"
	         : o->id == mi_option_reserve_huge_os_pages ? "mi_huge_pages"
	                                                    : "mi",
	         o->id);
	return 0;
}

const struct backend_ops backend = {
    .name = "mimalloc",
    .library = "libmimalloc.so.",
    .version = mimalloc_version,
    .counters = mimalloc_counters,
    .options = mimalloc_options,
    .noptions = sizeof mimalloc_options / sizeof mimalloc_options[0],
    .config_read = mimalloc_read,
    .config_probe = mimalloc_probe,
};
