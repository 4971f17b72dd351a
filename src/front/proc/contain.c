/* contain.c - a run's cgroup and the proc connector (contain.h). */
#include "front/proc/contain.h"
#include "front/proc/cgtree.h"
#include "front/proc/pstate.h"
#include "front/proc/proc.h"
#include "front/proc/ptrack.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bytes the connector socket may queue: a run's events are drained as they come, this only
 * absorbs a burst of the machine's. */
#define RCVBUF (16 << 20)

static int hook(const char *var)
{
	const char *v = getenv(var);

	return v && strcmp(v, "1") == 0;
}

static void add_why(struct contain *c, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(c->why);

	snprintf(c->why + n, sizeof c->why - n, "%s", n ? "; " : "");
	n = strlen(c->why);
	snprintf(c->why + n, sizeof c->why - n, fmt, a, b);
}

/* ---- the run's tree of processes (thread-group ids) ---- */

static int tree_has(const struct contain *c, long id)
{
	return u64map_get(&c->tree, (uint64_t)id) != NULL;
}

static void tree_add(struct contain *c, long id)
{
	contain_tree_add(c, id);
}

static void tree_del(struct contain *c, long id)
{
	u64map_take(&c->tree, (uint64_t)id, NULL);
}

/* id's leader thread ended. So does one a thread's exec replaced (the thread takes the id), or
 * one that called pthread_exit: a later exec or fork of id brings it back (tree_lives). */
static void tree_ended(struct contain *c, long id)
{
	if (tree_has(c, id) && u64map_put(&c->ended, (uint64_t)id, 0) < 0)
		c->lost = 1;
	tree_del(c, id);
}

static int tree_lives(struct contain *c, long id)
{
	if (!tree_has(c, id) && u64map_take(&c->ended, (uint64_t)id, NULL))
		tree_add(c, id);
	return tree_has(c, id);
}

/* ---- execs ---- */

static const char *intern(struct contain *c, const char *exe)
{
	for (size_t i = c->nexes; i-- > 0;)
		if (strcmp(c->exes[i], exe) == 0)
			return c->exes[i];
	if (c->nexes == c->exes_cap) {
		size_t cap = c->exes_cap ? 2 * c->exes_cap : 16;
		char **nv = realloc(c->exes, cap * sizeof *nv);

		if (!nv)
			return NULL;
		c->exes = nv;
		c->exes_cap = cap;
	}
	if (!(c->exes[c->nexes] = strdup(exe)))
		return NULL;
	return c->exes[c->nexes++];
}

static void add_exec(struct contain *c, long pid)
{
	char path[64], exe[4096];
	ssize_t n;
	const char *e;

	if (c->nexecs == CONTAIN_MAX_EXECS) {
		c->execs_truncated = 1;
		return;
	}
	if (c->nexecs == c->execs_cap) {
		size_t cap = c->execs_cap ? 2 * c->execs_cap : 64;
		struct contain_exec *nv = realloc(c->execs, cap * sizeof *nv);

		if (!nv) {
			c->execs_truncated = 1;
			return;
		}
		c->execs = nv;
		c->execs_cap = cap;
	}
	snprintf(path, sizeof path, "/proc/%ld/exe", pid);
	n = readlink(path, exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = '\0';
	if (n <= 0)
		snprintf(exe, sizeof exe, "?");
	if (!(e = intern(c, exe))) {
		c->execs_truncated = 1;
		return;
	}
	c->execs[c->nexecs++] =
	    (struct contain_exec){.pid = pid, .nspid = ptrack_nspid(pid), .exe = e};
}

/* ---- the proc connector ---- */

static int connector_send(int fd, enum proc_cn_mcast_op op)
{
	char buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof op)] __attribute__((aligned(8)));
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct cn_msg *cn = NLMSG_DATA(nh);

	memset(buf, 0, sizeof buf);
	nh->nlmsg_len = NLMSG_LENGTH(sizeof *cn + sizeof op);
	nh->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof op;
	memcpy(cn->data, &op, sizeof op);
	return send(fd, nh, nh->nlmsg_len, 0) == (ssize_t)nh->nlmsg_len ? 0 : -1;
}

/* One event of the connector; *ack is set to the error of a PROC_EVENT_NONE (the listen's
 * answer). */
static void on_event(struct contain *c, const struct proc_event *ev, int *ack)
{
	switch (ev->what) {
	case PROC_EVENT_NONE:
		if (ack)
			*ack = (int)ev->event_data.ack.err;
		break;
	case PROC_EVENT_FORK: {
		long parent = ev->event_data.fork.parent_tgid, child = ev->event_data.fork.child_tgid;

		/* CLONE_PARENT makes a child of the run a child of this process, which starts no
		 * other process while a run runs. */
		if (child != parent) /* not a thread: the id names a new process now */
			u64map_take(&c->ended, (uint64_t)child, NULL);
		if (child != c->self && (tree_lives(c, parent) || (parent == c->self && c->tree.n)))
			tree_add(c, child);
		break;
	}
	case PROC_EVENT_EXEC:
		if (tree_lives(c, ev->event_data.exec.process_tgid))
			add_exec(c, ev->event_data.exec.process_tgid);
		break;
	case PROC_EVENT_EXIT:
		if (ev->event_data.exit.process_pid == ev->event_data.exit.process_tgid &&
		    ev->event_data.exit.process_tgid != c->self)
			tree_ended(c, ev->event_data.exit.process_tgid);
		break;
	default:
		break;
	}
}

void contain_datagram(struct contain *c, const void *buf, size_t len, int *ack)
{
	ssize_t left = len > INT32_MAX ? INT32_MAX : (ssize_t)len; /* signed: NLMSG_NEXT can pass 0 */

	for (const struct nlmsghdr *nh = buf; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
		const struct cn_msg *cn = NLMSG_DATA(nh);
		struct proc_event ev;
		size_t room = nh->nlmsg_len - NLMSG_LENGTH(0);

		/* the event sits at offset 36 of the datagram, misaligned for its 8-byte members:
		 * it is read from a copy */
		if (nh->nlmsg_type != NLMSG_DONE || room < sizeof *cn || cn->id.idx != CN_IDX_PROC ||
		    cn->len > room - sizeof *cn ||
		    cn->len < offsetof(struct proc_event, event_data))
			continue;
		memset(&ev, 0, sizeof ev);
		memcpy(&ev, cn->data, cn->len < sizeof ev ? cn->len : sizeof ev);
		on_event(c, &ev, ack);
	}
}

static void take(struct contain *c, int *ack)
{
	static char buf[65536] __attribute__((aligned(8)));

	for (;;) {
		ssize_t n = recv(c->nl, buf, sizeof buf, MSG_DONTWAIT);

		if (n > 0) {
			contain_datagram(c, buf, (size_t)n, ack);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			c->lost = 1;
			continue;
		}
		return;
	}
}

/* Subscribes; returns the socket or -1 with why. */
static int connector_open(struct contain *c)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC};
	int fd, size = RCVBUF, ack = -1;
	double until;

	if (hook(CONTAIN_NO_CONNECTOR_VAR)) {
		add_why(c, "proc connector: %s%s", "EPERM", " (test hook)");
		return -1;
	}
	if ((fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR)) < 0) {
		add_why(c, "proc connector: %s%s", strerrorname_np(errno) ?: "socket", "");
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    connector_send(fd, PROC_CN_MCAST_LISTEN) != 0) {
		add_why(c, "proc connector: %s%s", strerrorname_np(errno) ?: "bind", "");
		close(fd);
		return -1;
	}
	c->nl = fd;
	until = cgtree_now() + 2;
	while (ack < 0 && cgtree_now() < until) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};

		if (poll(&pf, 1, 100) > 0)
			take(c, &ack);
	}
	if (ack != 0) {
		add_why(c, "proc connector: %s%s",
		        ack < 0 ? "no answer" : strerrorname_np(ack) ?: "refused", "");
		close(fd);
		c->nl = -1;
		return -1;
	}
	return fd;
}

/* ---- the cgroup ---- */

static int cgroup_make(struct contain *c)
{
	static unsigned long serial;
	char mnt[4096], own[4096];

	if (hook(CONTAIN_NO_CGROUP_VAR)) {
		add_why(c, "cgroup: %s%s", "EACCES", " (test hook)");
		return -1;
	}
	if (cgtree_mount(mnt, sizeof mnt) != 0 || cgtree_own(own, sizeof own) != 0) {
		add_why(c, "cgroup: %s%s", "no cgroup2 mount", "");
		return -1;
	}
	snprintf(c->dir, sizeof c->dir, "%s%s/" SWEEP_CGROUP_PREFIX "%ld.%ld.%lu", mnt, own,
	         (long)sweep_owner(), (long)getpid(), serial++);
	if (mkdir(c->dir, 0755) != 0) {
		add_why(c, "cgroup: %s%s", strerrorname_np(errno) ?: "mkdir", "");
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
	c->connector = connector && connector_open(c) >= 0;
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
	tree_add(c, pid);
	snprintf(num, sizeof num, "%ld\n", (long)pid);
	if (c->cgroup && cgtree_write(c->dir, "cgroup.procs", num) != 0) {
		add_why(c, "cgroup: %s%s", strerrorname_np(errno) ?: "cgroup.procs", "");
		rmdir(c->dir);
		c->dir[0] = '\0';
		c->cgroup = 0;
	}
}

void contain_drain(struct contain *c)
{
	if (c && c->nl >= 0)
		take(c, NULL);
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
	if (c->nl >= 0) {
		connector_send(c->nl, PROC_CN_MCAST_IGNORE);
		close(c->nl);
		c->nl = -1;
	}
}

void contain_free(struct contain *c)
{
	if (!c)
		return;
	if (c->claim >= 0)
		close(c->claim);
	if (c->nl >= 0) {
		connector_send(c->nl, PROC_CN_MCAST_IGNORE);
		close(c->nl);
	}
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
