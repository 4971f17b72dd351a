/* runwait.c - the runner's wait (runner.h): the signals caught while a run lasts, the child's
 * pipes read as they come, its time limit and stop, its end reaped with its rusage, and what it
 * leaves behind. The parent waits in ppoll with SIGCHLD and the stop signals unblocked, so it
 * neither polls nor races. */
#include "front/proc/runner.h"
#include "front/proc/contain.h"
#include "front/proc/guard.h"
#include "front/proc/orphans.h"
#include "front/proc/ptrack.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_sigchld(int sig)
{
	(void)sig;
}

/* RUNNER_FORWARD_SIGNALS: the signals caught, and the child they are passed on to while it runs
 * (0: none). They are blocked outside ppoll, so the handler runs only there. */
static const int forwarded[RUNNER_NFORWARDED] = {SIGINT, SIGTERM, SIGHUP};
static volatile sig_atomic_t fwd_caught;
static volatile pid_t fwd_pid;

static void on_forward(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	fwd_caught = sig;
	if (fwd_pid > 0 && si->si_code <= 0)
		kill(fwd_pid, sig);
}

void runner_catch_signals(struct run *u)
{
	struct sigaction sa = {.sa_handler = on_sigchld},
	                 fa = {.sa_sigaction = on_forward, .sa_flags = SA_SIGINFO};
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &u->old);
	u->waitmask = u->old;
	sigdelset(&u->waitmask, SIGCHLD);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &u->old_sa);
	sigemptyset(&fa.sa_mask);
	fwd_caught = 0;
	fwd_pid = 0;
	for (size_t i = 0; u->fwd && i < RUNNER_NFORWARDED; i++)
		sigaction(forwarded[i], &fa, &u->old_fa[i]);
}

void runner_forward_to(pid_t pid)
{
	fwd_pid = pid;
}

void runner_restore_signals(struct run *u)
{
	fwd_pid = 0;
	u->r->signal = fwd_caught;
	for (size_t i = 0; u->fwd && i < RUNNER_NFORWARDED; i++)
		sigaction(forwarded[i], &u->old_fa[i], NULL);
	sigaction(SIGCHLD, &u->old_sa, NULL);
	sigprocmask(SIG_SETMASK, &u->old, NULL);
}

static int sink_append(struct sink *s, const char *p, size_t n)
{
	if (s->tail) {
		/* The buffer holds 2 x limit: when it would overflow, slide the newest limit bytes
		 * down. */
		if (n >= s->limit) {
			p += n - s->limit;
			n = s->limit;
			s->len = 0;
			s->truncated = 1;
		} else if (s->len + n > 2 * s->limit) {
			memmove(s->buf, s->buf + s->len - s->limit, s->limit);
			s->len = s->limit;
			s->truncated = 1;
		}
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		return 0;
	}
	if (!s->buf)
		return 0;
	if (s->len + n > s->limit) {
		s->truncated = 1;
		n = s->limit - s->len;
	}
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 65536;
		char *nb;

		while (cap < s->len + n + 1)
			cap *= 2;
		if (!(nb = realloc(s->buf, cap)))
			return -1;
		s->buf = nb;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

/* Reads what is there; closes the fd at EOF or on error. */
static void sink_drain(struct sink *s)
{
	char chunk[16384];

	while (s->fd >= 0) {
		ssize_t k = read(s->fd, chunk, sizeof chunk);

		if (k > 0) {
			if (sink_append(s, chunk, (size_t)k) < 0)
				s->truncated = 1;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return;
		close(s->fd);
		s->fd = -1;
	}
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* How the wait ends the child at its time limit or at stop: SIGTERM to target, SIGKILL grace_s
 * later. */
struct ending {
	pid_t target; /* a foreground child shares this process's group */
	int64_t deadline, kill_at;
	int killing, killed;
};

/* One wake of the wait: the end asked for, its signals sent. Returns how long to nap, in ns:
 * SIGCHLD or a stop signal ends the nap early; the cap only bounds clock drift. */
static int64_t tend_end(struct run *u, struct ending *k)
{
	const struct runner_spec *spec = u->spec;
	int64_t now = runner_now_ns(), wake, nap;

	if (!k->killing && spec->stop && *spec->stop) {
		u->r->end = RUNNER_STOPPED;
		k->killing = 1;
	} else if (!k->killing && now >= k->deadline) {
		u->r->end = RUNNER_TIMEOUT;
		k->killing = 1;
	}
	if (k->killing && k->kill_at == INT64_MAX) {
		kill(k->target, SIGTERM);
		k->kill_at = now + (int64_t)(spec->grace_s * 1e9);
	}
	if (k->killing && !k->killed && now >= k->kill_at) {
		kill(k->target, SIGKILL);
		k->killed = 1;
	}
	wake = k->killing ? (k->killed ? now + 100000000 : k->kill_at) : k->deadline;
	nap = min64(wake - now, 1000000000);
	return nap > 0 ? nap : 0;
}

/* The tracer sees its tracee's ptrace stops whatever the flags: only an exit ends. */
static int exited(pid_t pid)
{
	siginfo_t si = {0};

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid &&
	       (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED);
}

/* Until the child has exited (not reaped): the sinks, the tracker and containment fed. */
static void wait_child(struct run *u, int64_t deadline)
{
	struct ending k = {.target = u->fg ? u->pid : -u->pid, .deadline = deadline,
	                   .kill_at = INT64_MAX};
	struct runner_result *r = u->r;

	for (;;) {
		struct pollfd pf[3] = {{.fd = u->sinks[0].fd, .events = POLLIN},
		                       {.fd = u->sinks[1].fd, .events = POLLIN},
		                       {.fd = contain_fd(r->contain), .events = POLLIN}};
		struct timespec ts;
		int64_t nap;

		ptrack_drain(r->track, u->pid);
		contain_drain(r->contain);
		guard_tend();
		if (exited(u->pid))
			break;
		nap = tend_end(u, &k);
		ts = (struct timespec){.tv_sec = nap / 1000000000, .tv_nsec = nap % 1000000000};
		if (ppoll(pf, 3, &ts, &u->waitmask) > 0) {
			sink_drain(&u->sinks[0]);
			sink_drain(&u->sinks[1]);
		}
	}
}

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

/* How the child ended and its rusage (wait4's: the process and the children it waited for). */
static void account(struct runner_result *r, int status, const struct rusage *ru)
{
	if (r->end == RUNNER_EXITED && WIFSIGNALED(status))
		r->end = RUNNER_SIGNALED;
	r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	r->user_ns = tv_ns(ru->ru_utime);
	r->sys_ns = tv_ns(ru->ru_stime);
	r->max_rss_kib = ru->ru_maxrss;
	r->minor_faults = ru->ru_minflt;
	r->major_faults = ru->ru_majflt;
	r->vol_ctx_switches = ru->ru_nvcsw;
	r->invol_ctx_switches = ru->ru_nivcsw;
}

struct step {
	struct ptrack *t;
	pid_t top;
};

/* While the cgroup empties: the tracees' stops are answered (their exit stops included). */
static void step_tracker(void *arg)
{
	struct step *s = arg;

	ptrack_drain(s->t, s->top);
}

int runner_supervise(struct run *u)
{
	const struct runner_spec *spec = u->spec;
	struct runner_result *r = u->r;
	int64_t deadline = spec->timeout_s > 0 ? u->t0 + (int64_t)(spec->timeout_s * 1e9) : INT64_MAX;
	struct rusage ru;
	int resumed, status = 0;

	if (deadline != INT64_MAX)
		guard_run(deadline + (int64_t)((spec->grace_s + 1) * 1e9));
	wait_child(u, deadline);
	r->wall_ns = runner_now_ns() - u->t0;
	ptrack_drain(r->track, u->pid); /* top's end, with its CPU clock, before wait4 reaps it */
	resumed = guard_run_end();
	contain_census(r->contain);
	if (!u->fg)
		kill(-u->pid, SIGKILL); /* leftovers of the group; the zombie still holds the id */
	while (wait4(u->pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	fwd_pid = 0;
	contain_end(r->contain, spec->grace_s, step_tracker, &(struct step){r->track, 0});
	ptrack_end(r->track, spec->grace_s);
	sink_drain(&u->sinks[0]);
	sink_drain(&u->sinks[1]);
	account(r, status, &ru);
	if (resumed)
		r->end = RUNNER_TIMEOUT;
	return resumed;
}

void runner_wait_orphans(struct run *u)
{
	int64_t until = runner_now_ns() + (int64_t)(u->spec->orphan_wait_s * 1e9), left;

	for (;;) {
		struct timespec ts;
		pid_t p = waitpid(-1, NULL, WNOHANG);

		if (p > 0)
			continue;
		/* the guard is a child that outlives the wait, and no orphan */
		if ((p < 0 && errno == ECHILD) ||
		    (p == 0 && guard_pid() && orphans_list(NULL, 0) == 0) || fwd_caught ||
		    (left = until - runner_now_ns()) <= 0)
			break;
		left = min64(left, 1000000000);
		ts = (struct timespec){.tv_sec = left / 1000000000, .tv_nsec = left % 1000000000};
		ppoll(NULL, 0, &ts, &u->waitmask);
	}
	u->r->orphans = orphans_list(u->r->orphan_names, sizeof u->r->orphan_names);
}
