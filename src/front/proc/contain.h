/* contain.h - containment of one run (docs/programs.md, "Containment"): a cgroup v2 of its own,
 * which every process of the run inherits at fork whatever flags it uses, emptied (cgroup.kill) and
 * removed when the run ends, and the kernel's proc connector (netlink, CN_IDX_PROC), which reports
 * every fork and exec on the machine, CLONE_UNTRACED or not. The runner opens it before the fork
 * and puts the child in before it execs (runspawn.c), drains the connector whenever it wakes and
 * ends it after the first process was reaped (runwait.c). Tracking (ptrack.h) is the evidence of
 * which image each process ran; containment is what makes the set of processes complete. */
#ifndef ALLOCAB_CONTAIN_H
#define ALLOCAB_CONTAIN_H

#include "common/u64map.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/types.h>

/* Test hooks (docs/programs.md): set to 1, the cgroup or the connector is treated as unavailable
 * (as without root or a delegated subtree, or without CAP_NET_ADMIN). */
#define CONTAIN_NO_CGROUP_VAR    "ALLOCAB_TEST_NO_CGROUP"
#define CONTAIN_NO_CONNECTOR_VAR "ALLOCAB_TEST_NO_CONNECTOR"
/* Most execs one run keeps; more sets execs_truncated. */
#define CONTAIN_MAX_EXECS 65536
/* Most processes one run's tree keeps (forks). */
#define CONTAIN_MAX_FORKS (4 * 65536)
/* Pids of processes left behind that are listed. */
#define CONTAIN_LEFT_LISTED 8

/* An exec the connector saw in the run: the process (initial namespace), its innermost namespace
 * pid, and its image when /proc still showed it. */
struct contain_exec {
	long pid;
	long nspid;
	const char *exe; /* interned, owned; "?" when the process was gone */
};

struct contain {
	int cgroup;    /* the run ran in a cgroup of its own */
	int connector; /* the proc connector reported the run's forks and execs */
	char why[160]; /* what is missing and why, "" when both are there */
	/* results, after contain_end */
	int have_cpu;
	int64_t user_ns, sys_ns; /* cpu.stat of the cgroup: every process of the run */
	/* cpu.stat's usage once the cgroup was emptied at the end: the whole CPU time of every
	 * process while it was in the cgroup, leftovers included (the run's accounting) */
	int have_usage;
	int64_t usage_ns;
	size_t left_behind;      /* processes alive in the cgroup after the first one ended (without
	                            a cgroup: those of the connector's tree at the end), all killed */
	long left_pid[CONTAIN_LEFT_LISTED];
	char left_exe[256]; /* the image of the first of them */
	int not_emptied;    /* the cgroup still held processes when the wait ended */
	size_t strays;      /* processes of the run's tree (connector) still running outside the
	                       cgroup after it was emptied, killed then */
	int lost;           /* the connector dropped events (its buffer overflowed) */
	struct contain_exec *execs;
	size_t nexecs;
	int execs_truncated;
	/* every process the connector saw join the run's tree (the first one, forks and process
	 * clones, not threads), in order; more than CONTAIN_MAX_FORKS sets forks_truncated */
	long *forks;
	size_t nforks, forks_cap;
	int forks_truncated;
	/* internal */
	char dir[8400];
	int nl;
	int claim; /* the cgroup claimed for this process (sweep_claim), -1 */
	pid_t self;
	struct u64map tree; /* the run's tree of processes (thread-group ids; values unused) */
	/* ids of the tree whose leader thread exited: the process may live on (other threads, or a
	 * thread's exec, which takes the leader's id) until a fork outside the run reuses the id */
	struct u64map ended;
	size_t execs_cap;
	char **exes;
	size_t nexes, exes_cap;
};

/* Before the fork: creates the run's cgroup under this process's own (the cgroup2 mount from
 * /proc/self/mountinfo) and, with connector, subscribes to the proc connector. What cannot be had
 * is recorded in why. NULL only when memory ran out. */
struct contain *contain_open(int connector);

/* Takes one datagram of the proc connector (buf need not be aligned): the run's forks, execs and
 * exits, and in *ack (may be NULL) the error of a PROC_EVENT_NONE, the answer to the listen. A
 * message shorter than its header says, or than an event, is skipped. */
void contain_datagram(struct contain *c, const void *buf, size_t len, int *ack);

/* The connector's descriptor for poll (-1 without it). */
int contain_fd(const struct contain *c);

/* After the fork, before the child execs: puts pid in the cgroup (on failure the run goes on
 * without one, why says so) and makes it the root of the run's process tree. */
void contain_enter(struct contain *c, pid_t pid);

/* Takes what the connector reported, never blocking. */
void contain_drain(struct contain *c);

/* When the first process has ended (before its process group is killed): reads the cgroup's
 * cpu.stat and counts the processes still alive in it (left_behind). */
void contain_census(struct contain *c);

/* After the first process was reaped: kills what is left in the cgroup (cgroup.kill, or SIGKILL
 * of every member), waits for the cgroup to be empty for at most grace_s
 * seconds calling step(arg) meanwhile (the tracker must answer its tracees' stops), takes the
 * connector's last events and removes the cgroup. */
void contain_end(struct contain *c, double grace_s, void (*step)(void *), void *arg);

void contain_free(struct contain *c);

/* The recorded text of the containment mode with exactly these flags (proc.h, CONTAINMODE_*):
 * "cgroup+proc-connector", "cgroup", "proc-connector" or "none" (containmode.c). */
const char *containmode_text(unsigned flags);

/* The mode of c's parts, as containmode_text (NULL: "none"). */
const char *contain_mechanism(const struct contain *c);

/* Adds id to the run's tree (containfork.c); a process new to it is noted in forks. */
void contain_tree_add(struct contain *c, long id);

/* The connector's side (containnl.c): subscribes, returning the socket or -1 with why; and
 * unsubscribes and closes it (nothing without one). */
int contain_connect(struct contain *c);
void contain_disconnect(struct contain *c);

/* Whether test hook var is set to 1. */
static inline int contain_hook(const char *var)
{
	const char *v = getenv(var);

	return v && strcmp(v, "1") == 0;
}

/* Appends to c->why, "; " after what is there: fmt with a and b. */
static inline void contain_why(struct contain *c, const char *fmt, const char *a, const char *b)
{
	size_t n = strlen(c->why);

	snprintf(c->why + n, sizeof c->why - n, "%s", n ? "; " : "");
	n = strlen(c->why);
	snprintf(c->why + n, sizeof c->why - n, fmt, a, b);
}
#endif
