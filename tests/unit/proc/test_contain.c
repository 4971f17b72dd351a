/* test_contain.c - the proc connector's datagrams as the kernel lays them out (the event at
 * offset 36, misaligned for its 8-byte members: the ASan+UBSan twin of this test stops at a
 * misaligned read), short and overlong messages skipped; and the removal of a tree of
 * directories deeper than PATH_MAX with one descriptor open, as a run's nested cgroups are
 * removed (cgtree_remove on plain directories: no cgroup.kill there, nothing to kill).
 * (hostile-4 reproducer ubsan-connector-misaligned) */
#include "check.h"
#include "front/proc/cgtree.h"
#include "front/proc/contain.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Appends one connector message of event ev (claimed length cnlen) at *off of buf. */
static void put(char *buf, size_t *off, const struct proc_event *ev, size_t cnlen)
{
	struct nlmsghdr nh = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof *ev),
	                      .nlmsg_type = NLMSG_DONE};
	struct cn_msg cn = {.id = {.idx = CN_IDX_PROC, .val = CN_VAL_PROC}, .len = (__u16)cnlen};

	memcpy(buf + *off, &nh, sizeof nh);
	memcpy(buf + *off + NLMSG_HDRLEN, &cn, sizeof cn);
	memcpy(buf + *off + NLMSG_HDRLEN + sizeof cn, ev, sizeof *ev);
	*off += NLMSG_ALIGN(nh.nlmsg_len);
}

static void test_datagram(void)
{
	static char buf[4096] __attribute__((aligned(8)));
	struct contain c = {.nl = -1, .self = 1};
	struct proc_event ev;
	size_t off = 0;
	int ack = -1;

	contain_enter(&c, 1000);
	memset(&ev, 0, sizeof ev);
	ev.what = PROC_EVENT_NONE;
	put(buf, &off, &ev, sizeof ev);
	ev.what = PROC_EVENT_FORK;
	ev.event_data.fork.parent_pid = ev.event_data.fork.parent_tgid = 1000;
	ev.event_data.fork.child_pid = ev.event_data.fork.child_tgid = 2000;
	put(buf, &off, &ev, sizeof ev);
	ev.event_data.fork.child_pid = ev.event_data.fork.child_tgid = 3000;
	put(buf, &off, &ev, sizeof ev + 4096); /* says more than the message holds */
	ev.event_data.fork.child_pid = ev.event_data.fork.child_tgid = 4000;
	put(buf, &off, &ev, 4); /* too short for an event */
	CHECK(((uintptr_t)(buf + NLMSG_HDRLEN + sizeof(struct cn_msg)) % 8) != 0,
	      "the first event lies misaligned, as the kernel sends it");
	contain_datagram(&c, buf, off, &ack);
	CHECK(ack == 0, "the listen's answer is read (ack %d)", ack);
	CHECK(u64map_get(&c.tree, 2000) != NULL, "a fork of the run's process joins its tree");
	CHECK(!u64map_get(&c.tree, 3000) && !u64map_get(&c.tree, 4000),
	      "an overlong and a short message are skipped");
	off = 0;
	memset(&ev, 0, sizeof ev);
	ev.what = PROC_EVENT_EXIT;
	ev.event_data.exit.process_pid = ev.event_data.exit.process_tgid = 2000;
	put(buf + 4, &off, &ev, sizeof ev);
	contain_datagram(&c, buf + 4, off, NULL);
	CHECK(u64map_get(&c.tree, 2000) == NULL, "an exit leaves the tree (datagram at +4)");
	{
		/* a last message whose length is not a multiple of 4, in a buffer of exactly its
		 * length: the walk must stop there, not run past the end (ASan) */
		size_t n = NLMSG_LENGTH(sizeof(struct cn_msg) + sizeof ev) + 1;
		char *exact = malloc(n);
		struct nlmsghdr nh;

		off = 0;
		ev.what = PROC_EVENT_FORK;
		ev.event_data.fork.parent_tgid = 1000;
		ev.event_data.fork.child_tgid = 5000;
		put(buf, &off, &ev, sizeof ev);
		memcpy(&nh, buf, sizeof nh);
		nh.nlmsg_len = (__u32)n;
		memcpy(buf, &nh, sizeof nh);
		memcpy(exact, buf, n);
		contain_datagram(&c, exact, n, NULL);
		CHECK(u64map_get(&c.tree, 5000) != NULL, "a last message of odd length is read, "
		                                         "and the walk ends at the buffer's end");
		free(exact);
	}
	u64map_free(&c.tree);
	u64map_free(&c.ended);
	free(c.forks);
}

static void test_deep_tree(void)
{
	char top[PATH_MAX], name[201];
	const char *tmp = getenv("TMPDIR");
	size_t left = 9, made = 0;
	int fd, ok = 1;

	snprintf(top, sizeof top, "%s/cgtree.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(top)) {
		SKIP("deep tree", "cannot create a directory");
		return;
	}
	memset(name, 'd', 200);
	name[200] = '\0';
	fd = open(top, O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < 40 && ok; i++) { /* 40 x 201 bytes: twice PATH_MAX */
		int next;

		ok = mkdirat(fd, name, 0700) == 0 && (next = openat(fd, name, O_RDONLY)) >= 0;
		if (ok && i % 3 == 0)
			mkdirat(fd, "side", 0700);
		close(fd);
		fd = ok ? next : -1;
		made += ok;
	}
	if (fd >= 0)
		close(fd);
	CHECK(made == 40, "40 levels of 200-byte names made");
	CHECK(cgtree_remove(top, cgtree_now() + 20, NULL, NULL, &left) == 0 && left == 0,
	      "removed depth first, deeper than PATH_MAX (left %zu: %s)", left, strerror(errno));
	CHECK(access(top, F_OK) != 0, "the top is gone");
}

int main(void)
{
	test_datagram();
	test_deep_tree();
	return CHECK_DONE();
}
