/* cgtree.c - cgroup2 directories: the mount, this process's cgroup, their small files, and the
 * removal of a run's cgroup with every cgroup made under it (cgtree.h). */
#include "front/proc/cgtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)

double cgtree_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cgtree_mount(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = 0;

	while (f && !found && fgets(line, sizeof line, f)) {
		char *dash = strstr(line, " - "), mnt[4096];

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && !strchr(mnt, '\\')) {
			snprintf(out, len, "%s", mnt);
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

int cgtree_own(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int found = 0;

	while (f && !found && fgets(line, sizeof line, f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", strcmp(line + 3, "/") == 0 ? "" : line + 3);
			found = 1;
		}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

/* text into name under the directory open at dirfd; 0 or -1 with errno. */
static int write_at(int dirfd, const char *name, const char *text)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static ssize_t read_at(int dirfd, const char *name, char *buf, size_t len)
{
	ssize_t n, k = 0;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)k + 1 < len && (n = read(fd, buf + k, len - 1 - (size_t)k)) > 0)
		k += n;
	close(fd);
	buf[k] = '\0';
	return k;
}

int cgtree_write(const char *dir, const char *name, const char *text)
{
	int fd = open(dir, DIR_FLAGS), rc, e;

	if (fd < 0)
		return -1;
	rc = write_at(fd, name, text);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

ssize_t cgtree_read(const char *dir, const char *name, char *buf, size_t len)
{
	int fd = open(dir, DIR_FLAGS);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read_at(fd, name, buf, len);
	close(fd);
	return n;
}

int cgtree_populated(const char *dir)
{
	char buf[256];
	const char *p;

	if (cgtree_read(dir, "cgroup.events", buf, sizeof buf) < 0)
		return 0;
	p = strstr(buf, "populated ");
	return p && p[10] == '1';
}

/* On entering a cgroup: thawed, and without cgroup.kill its members killed one by one. */
static void prepare(int fd, int killer)
{
	static char buf[1 << 16];

	write_at(fd, "cgroup.freeze", "0");
	if (killer || read_at(fd, "cgroup.procs", buf, sizeof buf) <= 0)
		return;
	for (char *p = buf, *end;; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (v > 0)
			kill((pid_t)v, SIGKILL);
	}
}

/* The name of a subdirectory of the directory open at fd into name; 1 when there is one. */
static int first_sub(int fd, char name[NAME_MAX + 1])
{
	int dfd = dup(fd), found = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (dfd < 0)
		return 0;
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return 0;
	}
	rewinddir(d);
	while (!found && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type == DT_DIR || (e->d_type == DT_UNKNOWN &&
		                            fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		                            S_ISDIR(st.st_mode))) {
			snprintf(name, NAME_MAX + 1, "%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/* Removes name under parent (NULL: the path name), waiting while it is busy. 0 or -1. */
static int remove_one(int parent, const char *name, double until, void (*step)(void *), void *arg)
{
	for (;;) {
		int rc = parent >= 0 ? unlinkat(parent, name, AT_REMOVEDIR) : rmdir(name);

		if (rc == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || cgtree_now() >= until)
			return -1;
		if (step)
			step(arg);
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
}

/* The descent keeps one directory open and the names of the cgroups above it: a hostile depth
 * costs time, bounded by until, never descriptors or stack. */
int cgtree_remove(const char *dir, double until, void (*step)(void *), void *arg, size_t *left)
{
	int killer = cgtree_write(dir, "cgroup.kill", "1") == 0, cur = open(dir, DIR_FLAGS), e = 0;
	char **names = NULL, sub[NAME_MAX + 1];
	size_t n = 0, cap = 0;

	*left = 0;
	if (cur < 0)
		return errno == ENOENT ? 0 : (*left = 1, -1);
	prepare(cur, killer);
	for (;;) {
		int next, par;

		if (first_sub(cur, sub)) {
			if (n == cap) {
				char **nv = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *nv);

				if (!nv)
					break;
				names = nv;
			}
			if ((next = openat(cur, sub, DIR_FLAGS)) < 0 || !(names[n] = strdup(sub))) {
				e = errno;
				if (next >= 0)
					close(next);
				break;
			}
			n++;
			close(cur);
			cur = next;
			prepare(cur, killer);
			continue;
		}
		if (n == 0)
			break;
		if ((par = openat(cur, "..", DIR_FLAGS)) < 0) {
			e = errno;
			break;
		}
		close(cur);
		cur = par;
		if (remove_one(cur, names[n - 1], until, step, arg) != 0) {
			e = errno;
			break;
		}
		free(names[--n]);
	}
	close(cur);
	if (n == 0 && remove_one(-1, dir, until, step, arg) == 0) {
		free(names);
		return 0;
	}
	e = n ? e : errno;
	*left = n + 1;
	while (n)
		free(names[--n]);
	free(names);
	errno = e;
	return -1;
}
