/* contain.c - a run's containment (contain.h) through its lifetime: its cgroup made and entered,
 * counted, emptied and removed; the proc connector (containnl.c) subscribed and left. */
#include "front/proc/contain.h"
#include "front/proc/cgtree.h"
#include "front/proc/pstate.h"
#include "front/proc/proc.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the cgroup ---- */

static int cgroup_make(struct contain *c)
{
	static unsigned long serial;
	char mnt[4096], own[4096];

	if (contain_hook(CONTAIN_NO_CGROUP_VAR)) {
		contain_why(c, "cgroup: %s%s", "EACCES", " (test hook)");
		return -1;
	}
	if (cgtree_mount(mnt, sizeof mnt) != 0 || cgtree_own(own, sizeof own) != 0) {
		contain_why(c, "cgroup: %s%s", "no cgroup2 mount", "");
		return -1;
	}
	snprintf(c->dir, sizeof c->dir, "%s%s/" SWEEP_CGROUP_PREFIX "%ld.%ld.%lu", mnt, own,
	         (long)sweep_owner(), (long)getpid(), serial++);
	if (mkdir(c->dir, 0755) != 0) {
		contain_why(c, "cgroup: %s%s", strerrorname_np(errno) ?: "mkdir", "");
		c->dir[0] = '\0';
		return -1;
	}
	return 0;
}

struct contain *contain_open(int connector)
{
	struct contain *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->nl = -1;
	c->self = getpid();
	c->cgroup = cgroup_make(c) == 0;
	c->claim = c->cgroup ? sweep_claim(c->dir) : -1;
	c->connector = connector && contain_connect(c) >= 0;
	return c;
}

int contain_fd(const struct contain *c)
{
	return c ? c->nl : -1;
}

void contain_enter(struct contain *c, pid_t pid)
{
	char num[32];

	if (!c)
		return;
	contain_tree_add(c, pid);
	snprintf(num, sizeof num, "%ld\n", (long)pid);
	if (c->cgroup && cgtree_write(c->dir, "cgroup.procs", num) != 0) {
		contain_why(c, "cgroup: %s%s", strerrorname_np(errno) ?: "cgroup.procs", "");
		rmdir(c->dir);
		c->dir[0] = '\0';
		c->cgroup = 0;
	}
}

static void read_cpu(struct contain *c)
{
	char buf[1024], *p;
	long long u = -1, s = -1;

	if (cgtree_read(c->dir, "cpu.stat", buf, sizeof buf) <= 0)
		return;
	if ((p = strstr(buf, "user_usec ")))
		u = atoll(p + 10);
	if ((p = strstr(buf, "system_usec ")))
		s = atoll(p + 12);
	if (u >= 0 && s >= 0) {
		c->have_cpu = 1;
		c->user_ns = (int64_t)u * 1000;
		c->sys_ns = (int64_t)s * 1000;
	}
}

/* The usage of cpu.stat, once the cgroup is empty. */
static void read_usage(struct contain *c)
{
	char buf[1024], *p = NULL;

	if (cgtree_read(c->dir, "cpu.stat", buf, sizeof buf) > 0 && (p = strstr(buf, "usage_usec ")))
		c->have_usage = 1;
	c->usage_ns = p ? (int64_t)atoll(p + 11) * 1000 : 0;
}

/* The members of the cgroup into pids (at most n); returns how many there are. */
static size_t members(const struct contain *c, long *pids, size_t n)
{
	static char buf[1 << 16];
	size_t k = 0;

	if (cgtree_read(c->dir, "cgroup.procs", buf, sizeof buf) < 0)
		return 0;
	for (char *p = buf, *end; *p; p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (k < n)
			pids[k] = v;
		k++;
	}
	return k;
}

void contain_census(struct contain *c)
{
	char path[128], exe[256];
	ssize_t n;

	if (!c || !c->cgroup)
		return;
	read_cpu(c);
	c->left_behind = members(c, c->left_pid, CONTAIN_LEFT_LISTED);
	if (c->left_behind) {
		snprintf(path, sizeof path, "/proc/%ld/exe", c->left_pid[0]);
		n = readlink(path, exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		snprintf(c->left_exe, sizeof c->left_exe, "%s", n > 0 ? exe : "?");
	}
}

/* Whether pid runs (exists and is no zombie). */
static int running(long pid)
{
	int state = pstate_of((pid_t)pid);

	return state && state != 'Z' && state != 'X';
}

/* Processes of the run's tree still running at the end are killed: with a cgroup, ones that
 * moved themselves out of it (strays); without, ones left behind. */
static void kill_strays(struct contain *c)
{
	size_t pos = 0;
	uint64_t key, none;

	while (u64map_next(&c->tree, &pos, &key, &none)) {
		long id = (long)key;

		if (id == c->self || !running(id) || kill((pid_t)id, SIGKILL) != 0)
			continue;
		if (c->cgroup) {
			c->strays++;
		} else {
			if (c->left_behind < CONTAIN_LEFT_LISTED)
				c->left_pid[c->left_behind] = id;
			c->left_behind++;
		}
	}
}

void contain_end(struct contain *c, double grace_s, void (*step)(void *), void *arg)
{
	double until = cgtree_now() + (grace_s > 1 ? grace_s : 1);
	int killer = 1;
	size_t left;

	if (!c)
		return;
	if (c->cgroup) {
		killer = cgtree_write(c->dir, "cgroup.kill", "1") == 0;
		while (cgtree_populated(c->dir) && cgtree_now() < until) {
			if (!killer) {
				long pids[256];
				size_t k = members(c, pids, 256);

				for (size_t i = 0; i < k && i < 256; i++)
					kill((pid_t)pids[i], SIGKILL);
			}
			if (step)
				step(arg);
			contain_drain(c);
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
		}
		c->not_emptied = cgtree_populated(c->dir);
		read_usage(c);
	}
	contain_drain(c);
	if (c->connector)
		kill_strays(c);
	if (c->cgroup && cgtree_remove(c->dir, until > cgtree_now() + 0.1 ? until : cgtree_now() + 0.1,
	                               step, arg, &left) != 0)
		errmsg_print(stderr, "bench", "warning: cannot remove the run's cgroup %s (%zu "
		             "cgroups left, the run made them): %s", c->dir, left, strerror(errno));
	contain_disconnect(c);
}

void contain_free(struct contain *c)
{
	if (!c)
		return;
	if (c->claim >= 0)
		close(c->claim);
	contain_disconnect(c);
	if (c->cgroup && c->dir[0])
		rmdir(c->dir);
	for (size_t i = 0; i < c->nexes; i++)
		free(c->exes[i]);
	free(c->exes);
	free(c->execs);
	free(c->forks);
	u64map_free(&c->tree);
	u64map_free(&c->ended);
	free(c);
}

const char *contain_mechanism(const struct contain *c)
{
	if (!c)
		return containmode_text(0);
	return containmode_text((c->cgroup ? CONTAINMODE_CGROUP : 0) |
	                        (c->connector ? CONTAINMODE_SEES_ESCAPES : 0));
}

const char *contain_available(char *why, size_t len)
{
	struct contain *c = contain_open(1);
	const char *m;

	if (!c) {
		snprintf(why, len, "no memory");
		return containmode_text(0);
	}
	m = contain_mechanism(c);
	snprintf(why, len, "%s", c->why);
	contain_end(c, 0, NULL, NULL);
	contain_free(c);
	return m;
}
