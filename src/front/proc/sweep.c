/* sweep.c - what a dead bench left (proc.h, "Leftovers"): the cgroups of its runs, which carry the
 * bench's pid and their maker's in their names, and its temporary directories, which carry its
 * pid; a later bench kills and removes them and names each. */
#include "front/proc/cgtree.h"
#include "front/proc/guard.h"
#include "front/proc/pstate.h"
#include "front/proc/proc.h"

#include "common/errmsg.h"
#include "common/rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static pid_t owner;

void sweep_own(void)
{
	owner = getpid();
}

pid_t sweep_owner(void)
{
	return owner > 0 ? owner : getpid();
}

const char *sweep_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

int sweep_claim(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether no process has this pid (in this PID namespace), or only its zombie. */
static int gone(long pid)
{
	int state;

	if (pid <= 0)
		return 0;
	if (kill((pid_t)pid, 0) != 0)
		return errno == ESRCH;
	state = pstate_of((pid_t)pid);
	return state == 'Z' || state == 'X';
}

/* Whether name is "PREFIX<pid>.<rest>" of a bench that is gone; with two, "PREFIX<a>.<b>.<n>"
 * where either is gone. only: the one dead bench whose leftovers are wanted (the guard's, which
 * knows it is dead while its zombie lasts). */
static int dead_name(const char *name, const char *prefix, int two, pid_t only, long *pid)
{
	size_t n = strlen(prefix);
	char *end;
	long a, b;

	if (strncmp(name, prefix, n) != 0)
		return 0;
	a = strtol(name + n, &end, 10);
	if (end == name + n || *end != '.' || a <= 0)
		return 0;
	*pid = a;
	if (only)
		return a == only;
	if (gone(a))
		return 1;
	if (!two)
		return 0;
	b = strtol(end + 1, &end, 10);
	if (b > 0 && *end == '.' && gone(b)) {
		*pid = b;
		return 1;
	}
	return 0;
}

/* The cgroups under this process's own of the dead (only) or of any dead process (0). */
static size_t sweep_cgroups(FILE *msgs, const char *who, pid_t only)
{
	char mnt[4096], own[4096], base[8300], path[8600];
	size_t done = 0, left;
	struct dirent *e;
	long pid;
	DIR *d;

	if (cgtree_mount(mnt, sizeof mnt) != 0 || cgtree_own(own, sizeof own) != 0)
		return 0;
	snprintf(base, sizeof base, "%s%s", mnt, own);
	if (!(d = opendir(base)))
		return 0;
	while ((e = readdir(d))) {
		int busy;

		if (!dead_name(e->d_name, SWEEP_CGROUP_PREFIX, 1, only, &pid))
			continue;
		snprintf(path, sizeof path, "%s/%s", base, e->d_name);
		if (!only && rmtree_claimed(path))
			continue;
		busy = cgtree_populated(path);
		if (cgtree_remove(path, cgtree_now() + 2, NULL, NULL, &left) != 0)
			errmsg_print(stderr, who,
			             "warning: cannot remove the cgroup %s, left by allocab "
			             "pid %ld, which died (%zu cgroups left): %s",
			             path, pid, left, strerror(errno));
		else if (msgs)
			errmsg_print(msgs, who,
			             "removed the cgroup %s, left by allocab pid %ld, which "
			             "died%s",
			             path, pid, busy ? "; killed the processes still in it" : "");
		done++;
	}
	closedir(d);
	return done;
}

static size_t sweep_dirs(FILE *msgs, const char *who, pid_t only)
{
	static const char *const prefixes[] = {SWEEP_PROBE_PREFIX, SWEEP_PHASES_PREFIX, NULL};
	const char *tmp = sweep_tmpdir();
	char path[PATH_MAX + 256], what[160];
	size_t done = 0;
	struct dirent *e;
	struct stat st;
	long pid;
	DIR *d;

	if (!(d = opendir(tmp)))
		return 0;
	while ((e = readdir(d))) {
		struct rmtree_count c = {0};
		size_t i = 0;

		while (prefixes[i] && !dead_name(e->d_name, prefixes[i], 0, only, &pid))
			i++;
		snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
		if (!prefixes[i] || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || (!only && rmtree_claimed(path)))
			continue;
		if (rmtree_remove(path, &c) != 0)
			errmsg_print(stderr, who,
			             "warning: cannot remove %s, left by allocab pid %ld, "
			             "which died: %s",
			             path, pid, strerror(errno));
		else if (msgs)
			errmsg_print(msgs, who,
			             "removed %s, left by allocab pid %ld, which died: %s", path,
			             pid, rmtree_describe(&c, what, sizeof what));
		done++;
	}
	closedir(d);
	return done;
}

size_t sweep_leftovers(FILE *msgs, const char *who, pid_t only)
{
	return sweep_cgroups(msgs, who, only) + sweep_dirs(msgs, who, only);
}
