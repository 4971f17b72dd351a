/* telemetry.c - /proc/stat steal ticks and /proc/loadavg (load, runnable tasks), read around each
 * run of a bench. */
#include "front/proc/proc.h"
#include "front/proc/telemetry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int telemetry_parse_steal(const char *proc_stat, uint64_t *steal)
{
	const char *p = proc_stat;

	while (p && strncmp(p, "cpu ", 4) != 0) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return -1;
	p += 4;
	for (int col = 1; col <= 8; col++) {
		char *end;
		unsigned long long v;

		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno)
			return -1;
		if (col == 8) {
			*steal = v;
			return 0;
		}
		p = end;
	}
	return -1;
}

int telemetry_parse_loadavg(const char *proc_loadavg, double *load1)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(proc_loadavg, &end);
	if (end == proc_loadavg || errno || v < 0 || (*end != ' ' && *end != '\0' && *end != '\n'))
		return -1;
	*load1 = v;
	return 0;
}

int telemetry_parse_runnable(const char *proc_loadavg, unsigned *runnable)
{
	const char *p = proc_loadavg;
	unsigned long v;
	char *end;

	for (int field = 1; field < 4; field++) {
		p += strcspn(p, " \n");
		if (*p != ' ')
			return -1;
		p += strspn(p, " ");
	}
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || *end != '/' || v < 1 || v > 1000000)
		return -1;
	*runnable = (unsigned)v;
	return 0;
}

/* Reads a small /proc file into buf (NUL-terminated); -1 on failure. */
static int read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t k;

	if (fd < 0)
		return -1;
	while (len + 1 < size && (k = read(fd, buf + len, size - 1 - len)) != 0) {
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			close(fd);
			return -1;
		}
		len += (size_t)k;
	}
	close(fd);
	buf[len] = '\0';
	return 0;
}

void telemetry_sample(struct telemetry_sample *t)
{
	char buf[4096]; /* the aggregate cpu line comes first */

	memset(t, 0, sizeof *t);
	if (read_small("/proc/stat", buf, sizeof buf) == 0)
		t->have_steal = telemetry_parse_steal(buf, &t->steal_ticks) == 0;
	if (read_small("/proc/loadavg", buf, sizeof buf) == 0) {
		t->have_load = telemetry_parse_loadavg(buf, &t->loadavg_1m) == 0;
		t->have_runnable = telemetry_parse_runnable(buf, &t->runnable) == 0;
	}
}
