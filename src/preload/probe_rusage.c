/* probe_rusage.c - the work a process has done, in the probe's records (probe.h;
 * docs/results-format.md, "allocab-probe/1"): its CPU time and the counting library's totals in
 * every record, and getrusage(RUSAGE_SELF) when the process exits, every thread's, as "rusage". */
#include "preload/probe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static long long tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
}

void probe_work_json(char *out, size_t len, enum probe_counts c, int split)
{
	size_t (*fmt)(char *, size_t) =
	    c == PROBE_COUNTS_NONE
	        ? NULL
	        : (size_t(*)(char *, size_t))dlsym(RTLD_DEFAULT, c == PROBE_COUNTS_TRY
	                                                             ? "allocab_count_json_try"
	                                                             : "allocab_count_json");
	static const char key[] = ",\"counts\":";
	struct timespec ts;
	struct rusage ru;
	size_t k = 0, n;
	char num[96];

	out[0] = '\0';
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) {
		snprintf(num, sizeof num, ",\"cpu_ns\":%lld",
		         (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
		probe_put(out, len, &k, num);
	}
	/* every thread of the process, user and system apart (the CPU clock holds their sum) */
	if (split && getrusage(RUSAGE_SELF, &ru) == 0) {
		snprintf(num, sizeof num, ",\"user_ns\":%lld,\"sys_ns\":%lld", tv_ns(ru.ru_utime),
		         tv_ns(ru.ru_stime));
		probe_put(out, len, &k, num);
	}
	if (fmt && k + sizeof key < len) {
		memcpy(out + k, key, sizeof key - 1);
		if ((n = fmt(out + k + sizeof key - 1, len - k - sizeof key + 1)) > 0)
			k += sizeof key - 1 + n;
	}
	out[k < len ? k : len - 1] = '\0';
}

void probe_rusage_json(char *out, size_t len, size_t *k)
{
	struct rusage ru;
	int n;

	if (*k >= len || getrusage(RUSAGE_SELF, &ru) != 0)
		return;
	n = snprintf(out + *k, len - *k,
	             ",\"rusage\":{\"minflt\":%ld,\"majflt\":%ld,\"nvcsw\":%ld,\"nivcsw\":%ld,"
	             "\"user_ns\":%lld,\"sys_ns\":%lld}",
	             ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw, tv_ns(ru.ru_utime),
	             tv_ns(ru.ru_stime));
	if (n > 0 && (size_t)n < len - *k)
		*k += (size_t)n;
	else
		out[*k] = '\0';
}
