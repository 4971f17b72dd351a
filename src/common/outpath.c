/* outpath.c - what an output path names, decided before anything is written (atomicio.h,
 * atomic_target; docs/results-format.md, "Writing files"). */
#include "common/atomicio.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define PROC_MAGIC 0x9fa0 /* PROC_SUPER_MAGIC */
#define MAX_HOPS 40

static int refuse(char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	errno = EINVAL;
	return -1;
}

/* The directory part of path into dir ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == path)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* The descriptor number a magic link names: path is a link in /proc/PID/fd or
 * /proc/PID/task/TID/fd. Returns the number, -1 when path is no such link, -2 when PID is
 * another process. */
static long magic_fd(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX], *end;
	const char *base = strrchr(path, '/'), *rest;
	struct statfs fs;
	long n, pid;

	dir_of(path, dir, sizeof dir);
	if (!base || statfs(dir, &fs) != 0 || fs.f_type != PROC_MAGIC || !realpath(dir, real) ||
	    strncmp(real, "/proc/", 6) != 0)
		return -1;
	n = strtol(base + 1, &end, 10);
	if (end == base + 1 || *end || n < 0)
		return -1;
	pid = strtol(real + 6, &end, 10);
	if (end == real + 6)
		return -1;
	rest = end;
	if (strncmp(rest, "/task/", 6) == 0) {
		strtol(rest + 6, &end, 10);
		if (end == rest + 6)
			return -1;
		rest = end;
	}
	if (strcmp(rest, "/fd") != 0)
		return -1;
	return pid == (long)getpid() ? n : -2;
}

/* Follows path's chain of symbolic links, link by link, until a magic link (its descriptor in
 * *fd, or -2 for another process's) or a path that is not a link. Returns 0, or -1 when the chain
 * is too long. */
static int follow(const char *path, long *fd)
{
	char cur[PATH_MAX], next[PATH_MAX], dir[PATH_MAX];
	struct stat st;

	*fd = -1;
	snprintf(cur, sizeof cur, "%s", path);
	for (int hop = 0; hop < MAX_HOPS; hop++) {
		ssize_t k;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return 0;
		if ((*fd = magic_fd(cur)) != -1)
			return 0;
		if ((k = readlink(cur, next, sizeof next - 1)) < 0)
			return 0;
		next[k] = '\0';
		if (next[0] == '/') {
			snprintf(cur, sizeof cur, "%s", next);
			continue;
		}
		dir_of(cur, dir, sizeof dir);
		if ((size_t)snprintf(cur, sizeof cur, "%s/%s", dir, next) >= sizeof cur)
			return -1;
	}
	return -1;
}

/* A character device written in place: /dev/null, /dev/zero, /dev/full (writes discarded or
 * refused) or a terminal (tty, console, pty). */
static int harmless_chr(dev_t rdev)
{
	unsigned ma = major(rdev), mi = minor(rdev);

	return (ma == 1 && (mi == 3 || mi == 5 || mi == 7)) || ma == 4 || (ma == 5 && mi <= 1) ||
	       (ma >= 136 && ma <= 143);
}

/* What the existing thing at path (links followed) is: AT_IN_PLACE, AT_REPLACE (a regular file,
 * a directory or nothing), or -1 with the reason. */
static int by_type(const char *path, const char *shown, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return AT_REPLACE;
	if (S_ISFIFO(st.st_mode) || (S_ISCHR(st.st_mode) && harmless_chr(st.st_rdev)))
		return AT_IN_PLACE;
	return refuse(err, errlen, shown,
	              S_ISBLK(st.st_mode)   ? "a block device: -o writes a file, a FIFO, a terminal "
	                                      "or /dev/null, never a device"
	              : S_ISSOCK(st.st_mode) ? "a socket: -o writes a file, a FIFO, a terminal or "
	                                       "/dev/null"
	                                     : "a device: -o writes a file, a FIFO, a terminal or "
	                                       "/dev/null, never another device");
}

/* Whether a file replacing path's last component would be created in /dev, /proc or /sys. */
static int system_dir(const char *path)
{
	char dir[PATH_MAX], real[PATH_MAX];

	dir_of(path, dir, sizeof dir);
	if (!realpath(dir, real))
		return 0;
	return strcmp(real, "/dev") == 0 || strcmp(real, "/proc") == 0 ||
	       strncmp(real, "/proc/", 6) == 0 || strcmp(real, "/sys") == 0 ||
	       strncmp(real, "/sys/", 5) == 0;
}

int atomic_target(const char *path, int *fd, char *err, size_t errlen)
{
	long n;
	int kind;

	*fd = -1;
	if (strcmp(path, "-") == 0) {
		*fd = STDOUT_FILENO;
		return AT_DESCRIPTOR;
	}
	if (follow(path, &n) != 0) {
		errno = ELOOP;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (n == -2)
		return refuse(err, errlen, path, "a descriptor of another process: not a file to write");
	if (n == STDOUT_FILENO || n == STDERR_FILENO) {
		*fd = (int)n;
		return AT_DESCRIPTOR;
	}
	if ((kind = by_type(path, path, err, errlen)) != AT_REPLACE)
		return kind;
	if (n >= 0)
		return refuse(err, errlen, path,
		              "a descriptor open on a file, not a file allocab can write: name the "
		              "file, or -o - for standard output");
	if (system_dir(path))
		return refuse(err, errlen, path,
		              "allocab creates and replaces no file in /dev, /proc or /sys");
	return AT_REPLACE;
}
