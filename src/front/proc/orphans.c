/* orphans.c - what a run left running in the background, re-parented to this process. */
#include "front/proc/orphans.h"
#include "front/proc/guard.h"
#include "front/proc/proc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int runner_adopt_orphans(char *err, size_t errlen)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
		return 0;
	snprintf(err, errlen, "%s", strerror(errno));
	return -1;
}

/* The pids of this process's children but its guard, into pids[0..cap); returns how many there
 * are. */
static size_t list_children(long *pids, size_t cap)
{
	char path[64];
	size_t n = 0;
	long pid;
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	if (!(f = fopen(path, "r")))
		return 0;
	while (fscanf(f, "%ld", &pid) == 1)
		if (pid != (long)guard_pid() && n++ < cap)
			pids[n - 1] = pid;
	fclose(f);
	return n;
}

/* "pid N NAME" for up to 3 of the n pids, into buf. */
static void name_pids(const long *pids, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < 3 && k < len; i++) {
		char path[64], comm[32] = "?";
		FILE *f;
		snprintf(path, sizeof path, "/proc/%ld/comm", pids[i]);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", comm) != 1)
				strcpy(comm, "?");
			fclose(f);
		}
		k += (size_t)snprintf(buf + k, len - k, "%spid %ld %s", i ? ", " : "", pids[i],
		                      comm);
	}
	if (n > 3 && k < len)
		snprintf(buf + k, len - k, ", ...");
}

size_t orphans_list(char *names, size_t len)
{
	long pids[4];
	size_t n = list_children(pids, 4);

	if (len)
		names[0] = '\0';
	if (n && len)
		name_pids(pids, n, names, len);
	return n;
}
