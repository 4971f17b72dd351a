/* dumpable.c - not dumpable while tracing (dumpable.h). */
#include "front/proc/dumpable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int dumpable_parent(int ready[2])
{
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1 ? 0 : pipe2(ready, O_CLOEXEC);
}

void dumpable_child(int hold_fd, int ready_fd)
{
	char buf[4096];
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	while (dir >= 0 && (n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0)
		for (long off = 0; off < n;) {
			const struct dirent64 *d = (const void *)(buf + off);
			int fd = atoi(d->d_name), fl = fd > 2 ? fcntl(fd, F_GETFD) : -1;

			off += d->d_reclen;
			if (fl >= 0 && (fl & FD_CLOEXEC) && fd != dir && fd != hold_fd &&
			    fd != ready_fd)
				close(fd);
		}
	if (dir >= 0)
		close(dir);
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	close(ready_fd);
}

void dumpable_wait(int ready[2])
{
	if (ready[1] < 0)
		return;
	close(ready[1]);
	ready[1] = -1;
	while (read(ready[0], &(char){0}, 1) < 0 && errno == EINTR)
		;
}
