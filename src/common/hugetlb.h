/* hugetlb.h - how much of this process's address space is mapped with hugetlbfs pages (explicit
 * huge pages, MAP_HUGETLB), from /proc/self/smaps: the effect of mimalloc's
 * reserve_huge_os_pages, which mimalloc itself only reports on stderr (docs/tuning.md).
 * Header-only and free of allocation (a stack buffer, open/read), so that the drivers'
 * backends and the preload probe of src/preload/ read it the same way, the probe from inside a
 * program whose malloc is under test. */
#ifndef ALLOCAB_HUGETLB_H
#define ALLOCAB_HUGETLB_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line of smaps: a mapping's "Size:" is remembered, and added to *total when its
 * "KernelPageSize:" is above the base page. */
static inline void hugetlb_line_(const char *s, long long *size_kb, long long *total)
{
	if (strncmp(s, "Size:", 5) == 0)
		*size_kb = strtoll(s + 5, NULL, 10);
	else if (strncmp(s, "KernelPageSize:", 15) == 0 && strtoll(s + 15, NULL, 10) > 4)
		*total += *size_kb * 1024;
}

/* Bytes mapped with huge pages of hugetlbfs (KernelPageSize above 4 kB; transparent huge pages
 * keep 4 kB there), or -1 when /proc/self/smaps cannot be read. */
static inline long long hugetlb_mapped_bytes(void)
{
	char buf[4096];
	long long size_kb = 0, total = 0;
	size_t have = 0;
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
		char *p = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			*nl = '\0';
			hugetlb_line_(p, &size_kb, &total);
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		if (have == sizeof buf - 1)
			have = 0; /* a line longer than the buffer (a long path): not one we need */
		memmove(buf, p, have);
	}
	close(fd);
	return total;
}

#endif
