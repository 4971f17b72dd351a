/* containnl.c - the proc connector of a run's containment (contain.h): subscribed before the
 * fork, its datagrams taken whenever the runner wakes, the run's tree of processes and its execs
 * kept from them. */
#include "front/proc/contain.h"
#include "front/proc/cgtree.h"
#include "front/proc/ptrack.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bytes the connector socket may queue: a run's events are drained as they come, this only
 * absorbs a burst of the machine's. */
#define RCVBUF (16 << 20)

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

int contain_connect(struct contain *c)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC};
	int fd, size = RCVBUF, ack = -1;
	double until;

	if (contain_hook(CONTAIN_NO_CONNECTOR_VAR)) {
		contain_why(c, "proc connector: %s%s", "EPERM", " (test hook)");
		return -1;
	}
	if ((fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR)) < 0) {
		contain_why(c, "proc connector: %s%s", strerrorname_np(errno) ?: "socket", "");
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    connector_send(fd, PROC_CN_MCAST_LISTEN) != 0) {
		contain_why(c, "proc connector: %s%s", strerrorname_np(errno) ?: "bind", "");
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
		contain_why(c, "proc connector: %s%s",
		        ack < 0 ? "no answer" : strerrorname_np(ack) ?: "refused", "");
		close(fd);
		c->nl = -1;
		return -1;
	}
	return fd;
}

void contain_drain(struct contain *c)
{
	if (c && c->nl >= 0)
		take(c, NULL);
}

void contain_disconnect(struct contain *c)
{
	if (c->nl < 0)
		return;
	connector_send(c->nl, PROC_CN_MCAST_IGNORE);
	close(c->nl);
	c->nl = -1;
}
