/* memfile.h - a regular file in memory for the reader tests: an anonymous memory file (memfd),
 * named /proc/self/fd/N so that readers open it by name like any file. */
#ifndef ALLOCAB_TEST_MEMFILE_H
#define ALLOCAB_TEST_MEMFILE_H

#include <stdio.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

struct mfile {
	int fd;
	char path[64];
};

/* Creates the file; returns its descriptor or -1. */
static int mf_open(struct mfile *f)
{
	f->fd = memfd_create("allocab-test", MFD_CLOEXEC);
	snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
	return f->fd;
}

/* Makes the file hold text[0..n) exactly; 0 or -1. */
static int mf_set(struct mfile *f, const char *text, size_t n)
{
	size_t done = 0;

	if (ftruncate(f->fd, 0) != 0)
		return -1;
	while (done < n) {
		ssize_t w = pwrite(f->fd, text + done, n - done, (off_t)done);
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

#endif
