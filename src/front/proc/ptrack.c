/* ptrack.c - process tracking with ptrace events (ptrack.h). Each reported stop is answered at
 * once: event stops are continued, group-stops listened to, signal-delivery stops continued with
 * their signal, so a tracee behaves as it would untraced. */
#include "front/proc/ptrack.h"
#include "front/proc/ptrackrec.h"
#include "front/proc/dumpable.h"
#include "common/trackmode.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OPTIONS                                                                                    \
	(PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |     \
	 PTRACE_O_TRACEEXIT)
/* Most events one drain takes, so that a tracee that stops endlessly cannot starve the runner. */
#define DRAIN_MAX 100000

/* ---- the set of live tracees: tid -> its detach mark ---- */

/* Adds tid unmarked unless it is there. Out of memory, tid is not tracked, which only costs
 * ptrack_end a wait. */
static void live_add(struct ptrack *t, long tid)
{
	if (!u64map_get(&t->live, (uint64_t)tid))
		u64map_put(&t->live, (uint64_t)tid, 0);
}

static void live_del(struct ptrack *t, long tid)
{
	u64map_take(&t->live, (uint64_t)tid, NULL);
}

/* ---- events ---- */

/* Whether the new task id leads a thread group (a process, not a thread): tgkill with its own id
 * as the group finds it only then. */
static int leads_group(long id)
{
	return syscall(SYS_tgkill, (pid_t)id, (pid_t)id, 0) == 0 || errno == EPERM;
}

/* set as a CPU list ("0-3,6") into buf. */
static void cpu_list(const cpu_set_t *set, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < CPU_SETSIZE && k < len; i++) {
		int j = i;

		if (!CPU_ISSET(i, set))
			continue;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, set))
			j++;
		k += (size_t)snprintf(buf + k, len - k, j > i ? "%s%d-%d" : "%s%d", k ? "," : "", i,
		                      j);
		i = j;
	}
}

/* Notes tid as the first tracee whose CPU affinity is not the tracer's (ptrack.h). */
static void check_affinity(struct ptrack *t, pid_t tid)
{
	cpu_set_t set;

	if (t->affinity_tid || sched_getaffinity(tid, sizeof set, &set) != 0 ||
	    CPU_EQUAL(&set, &t->affinity))
		return;
	t->affinity_tid = (long)tid;
	cpu_list(&set, t->affinity_cpus, sizeof t->affinity_cpus);
}

static int stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_stop(struct ptrack *t, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), ev = (status >> 16) & 0xff;
	unsigned long msg = 0;

	live_add(t, tid);
	switch (ev) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg) {
			live_add(t, (long)msg);
			if (ev != PTRACE_EVENT_CLONE || leads_group((long)msg)) {
				t->processes++;
				ptrack_add_proc(t, (long)msg);
			} else
				t->threads++;
		}
		ptrace(PTRACE_CONT, tid, 0, 0);
		break;
	case PTRACE_EVENT_EXEC:
		/* A thread that execs takes over the leader's id; msg is the id it had. */
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && (long)msg != tid)
			live_del(t, (long)msg);
		ptrack_add_image(t, tid);
		check_affinity(t, tid);
		ptrace(PTRACE_CONT, tid, 0, 0);
		break;
	case PTRACE_EVENT_EXIT:
		if (leads_group((long)tid))
			ptrack_scan_maps(t, (long)tid);
		check_affinity(t, tid);
		ptrace(PTRACE_CONT, tid, 0, 0);
		break;
	case PTRACE_EVENT_STOP:
		/* A group-stop stays one until SIGCONT; else a new tracee's first stop. */
		if (stop_signal(sig))
			ptrace(PTRACE_LISTEN, tid, 0, 0);
		else
			ptrace(PTRACE_CONT, tid, 0, 0);
		break;
	default:
		ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig);
	}
}

/* Takes one reported event of any tracee other than top's exit (top 0: of any). Returns 1 when
 * one was taken, 0 when there was none, -1 when the next one is top's exit. *tid and *status
 * say what it was. A process's end is reported when its last thread has ended: its zombie's CPU
 * clock, read before it is reaped, is the whole of its CPU time. */
static int take(struct ptrack *t, pid_t top, pid_t *tid, int *status)
{
	siginfo_t si;
	int ended;

	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) != 0 ||
	    si.si_pid == 0)
		return 0;
	ended = si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED;
	if (ended && si.si_pid != top && !u64map_get(&t->procidx, (uint64_t)si.si_pid))
		ptrack_adopt(t, (long)si.si_pid);
	if (ended)
		ptrack_read_cpu(t, (long)si.si_pid, 2);
	if (si.si_pid == top && ended)
		return -1;
	*tid = si.si_pid;
	return waitpid(si.si_pid, status, WNOHANG | __WALL) == si.si_pid ? 1 : 0;
}

void ptrack_drain(struct ptrack *t, pid_t top)
{
	pid_t tid;
	int status;

	if (!t || t->mode != PTRACK_TRACED)
		return;
	for (int n = 0; n < DRAIN_MAX && take(t, top, &tid, &status) > 0; n++) {
		if (WIFSTOPPED(status))
			on_stop(t, tid, status);
		else
			live_del(t, tid);
	}
}

/* ---- start and end ---- */

struct ptrack *ptrack_start(pid_t pid, const char *probe_file)
{
	struct ptrack *t = calloc(1, sizeof *t);
	const char *refuse = getenv(PTRACK_REFUSE_VAR);

	if (!t)
		return NULL;
	if (refuse && strcmp(refuse, "1") == 0) {
		t->mode = PTRACK_REFUSED;
		t->refused_errno = EPERM;
	} else if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)OPTIONS) != 0) {
		t->mode = PTRACK_REFUSED;
		t->refused_errno = errno;
	} else {
		t->mode = PTRACK_TRACED;
		t->top = pid;
		t->processes = 1;
		t->probe_file = probe_file;
		t->own_pidns = ptrack_pidns((long)getpid());
		if (sched_getaffinity(0, sizeof t->affinity, &t->affinity) != 0)
			t->affinity_tid = -1; /* not known: not checked */
		live_add(t, pid);
		ptrack_add_proc(t, pid);
	}
	return t;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Asks every tracee that left the process group pgid to stop, marking it to be detached. */
static void interrupt_escaped(struct ptrack *t, pid_t pgid)
{
	size_t pos = 0, ngone = 0;
	uint64_t tid, mark;
	/* Those that cannot be interrupted (gone already) leave the set after the walk. Without
	 * memory for their list they stay, which only costs ptrack_end a wait. */
	long *gone = malloc(t->live.n * sizeof *gone + 1);

	while (u64map_next(&t->live, &pos, &tid, &mark)) {
		if (getpgid((pid_t)tid) == pgid)
			continue;
		if (ptrace(PTRACE_INTERRUPT, (pid_t)tid, 0, 0) == 0) {
			*u64map_get(&t->live, tid) = 1; /* a value's change moves nothing */
			ptrack_read_cpu(t, (long)tid, 1);
		}
		else if (gone)
			gone[ngone++] = (long)tid;
	}
	for (size_t i = 0; i < ngone; i++)
		live_del(t, gone[i]);
	free(gone);
}

static int marked(const struct ptrack *t, long tid)
{
	const uint64_t *mark = u64map_get(&t->live, (uint64_t)tid);

	return mark && *mark;
}

void ptrack_end(struct ptrack *t, double grace_s)
{
	double until;
	uint64_t left, mark;
	pid_t tid;
	int status;

	if (!t || t->mode != PTRACK_TRACED || !t->live.cap)
		return;
	/* The first process led the run's process group: its id is the group's. */
	interrupt_escaped(t, t->top);
	until = now_s() + grace_s;
	while (t->live.n > 0 && now_s() < until) {
		int got = take(t, 0, &tid, &status);

		if (got == 0) {
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
			continue;
		}
		if (!WIFSTOPPED(status)) {
			live_del(t, tid);
		} else if (marked(t, tid)) {
			int ev = (status >> 16) & 0xff, sig = WSTOPSIG(status);
			ptrace(PTRACE_DETACH, tid, 0,
			       (void *)(long)(ev == 0 && !stop_signal(sig) ? sig : 0));
			live_del(t, tid);
		} else {
			on_stop(t, tid, status);
		}
	}
	for (size_t pos = 0; u64map_next(&t->live, &pos, &left, &mark);)
		ptrace(PTRACE_DETACH, (pid_t)left, 0, 0);
	/* What is still reported: exits of tracees that died before they could be interrupted, and
	 * stops of those the deadline left behind, which go on untraced. */
	for (int n = 0; n < DRAIN_MAX && take(t, 0, &tid, &status) > 0; n++)
		if (WIFSTOPPED(status))
			ptrace(PTRACE_DETACH, tid, 0, 0);
}

void ptrack_free(struct ptrack *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nexes; i++)
		free(t->exes[i]);
	free(t->exes);
	free(t->images);
	free(t->procs);
	free(t->libs);
	u64map_free(&t->live);
	u64map_free(&t->procidx);
	free(t);
}

const char *ptrack_describe(const struct ptrack *t, char *buf, size_t len)
{
	const char *name;
	char why[96];

	if (t && t->mode == PTRACK_TRACED)
		return trackmode_text(TRACKMODE_PTRACE, NULL, buf, len);
	if (!t)
		return trackmode_text(TRACKMODE_PROBE_ONLY, "not tracked", buf, len);
	name = strerrorname_np(t->refused_errno);
	snprintf(why, sizeof why, "ptrace: %s", name ? name : strerror(t->refused_errno));
	return trackmode_text(TRACKMODE_PROBE_ONLY, why, buf, len);
}

int ptrack_available(char *why, size_t len)
{
	int go[2], ready[2] = {-1, -1}, ok;
	pid_t pid;
	struct ptrack *t;

	/* a process that is no longer dumpable (dumpable.h) tries as runner_run traces */
	if (pipe2(go, O_CLOEXEC) != 0) {
		snprintf(why, len, "ptrace: not tried (pipe: %s)", strerror(errno));
		return 0;
	}
	if (prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1 && pipe2(ready, O_CLOEXEC) != 0)
		ready[0] = ready[1] = -1; /* tried as it is: refused unless privileged */
	if ((pid = fork()) == 0) {
		char c;
		close(go[1]);
		if (ready[1] >= 0) {
			close(ready[0]);
			dumpable_child(go[0], ready[1]);
		}
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(go[0]);
	dumpable_wait(ready);
	if (ready[0] >= 0)
		close(ready[0]);
	t = pid > 0 ? ptrack_start(pid, NULL) : NULL;
	ok = t && t->mode == PTRACK_TRACED;
	if (t && !ok)
		ptrack_describe(t, why, len);
	else if (!t)
		snprintf(why, len, "ptrace: not tried (%s)",
		         pid < 0 ? strerror(errno) : "no memory");
	close(go[1]);
	while (pid > 0 && waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	ptrack_free(t);
	if (!ok && t) {
		/* "probe only (ptrace: EPERM)" -> "ptrace: EPERM" */
		const char *p = strstr(why, "ptrace:");
		memmove(why, p, strlen(p) + 1);
		why[strcspn(why, ")")] = '\0';
	}
	return ok;
}
