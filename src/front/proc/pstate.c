/* pstate.c - a process's state letter (pstate.h). */
#include "front/proc/pstate.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int pstate_of(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? (unsigned char)p[2] : 0;
}
