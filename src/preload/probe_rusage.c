/* probe_rusage.c - the process's resource counts in the probe's exit record (probe.h;
 * docs/results-format.md, "allocab-probe/1"): getrusage(RUSAGE_SELF) when the process exits,
 * every thread's, as "rusage". Kept apart from the other members of the exit record. */
#include "preload/probe.h"

#include <stdio.h>
#include <sys/resource.h>

static long long tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000LL + (long long)tv.tv_usec * 1000LL;
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
