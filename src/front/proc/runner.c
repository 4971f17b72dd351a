/* runner.c - one process, measured or in the foreground: fork/exec, pipes, timeout and kill,
 * wait4 rusage, signals passed on, orphans waited for. The parent waits in ppoll with SIGCHLD and
 * the stop signals unblocked, so it neither polls nor races. */
#include "front/proc/proc.h"
#include "front/proc/contain.h"
#include "front/proc/dumpable.h"
#include "front/proc/guard.h"
#include "front/proc/orphans.h"
#include "front/proc/ptrack.h"

#include "common/errmsg.h"
#include "common/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct sink {
	int fd;
	char *buf;
	size_t len, cap;
	size_t limit; /* bytes kept: the first (stdout) or the last (tail, in a 2 x limit buffer) */
	int truncated; /* more than limit bytes arrived */
	int tail;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

static void on_sigchld(int sig)
{
	(void)sig;
}

/* RUNNER_FORWARD_SIGNALS: the signals caught, and the child they are passed on to while it runs
 * (0: none). They are blocked outside ppoll, so the handler runs only there. */
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP};
static volatile sig_atomic_t fwd_caught;
static volatile pid_t fwd_pid;

static void on_forward(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	fwd_caught = sig;
	if (fwd_pid > 0 && si->si_code <= 0)
		kill(fwd_pid, sig);
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

/* The index in set of the entry naming the variable of entry "NAME=...", or -1. */
static long replacement(const char *entry, char *const *set)
{
	size_t n = strcspn(entry, "=");

	for (size_t i = 0; set && set[i]; i++)
		if (strncmp(set[i], entry, n) == 0 && set[i][n] == '=')
			return (long)i;
	return -1;
}

/* environ with set applied as setenv would (a variable set twice in environ keeps its first
 * place only), without any RUNNER_PAD_VAR and with RUNNER_PAD_VAR=<pad_bytes x 'p'> at the end
 * unless pad is 0. */
static char **child_env(int pad, size_t pad_bytes, char *const *set, char **padvar)
{
	size_t n = 0, k = 0, nset = 0, prefix = strlen(RUNNER_PAD_VAR "=");
	char **env, *placed = NULL;

	while (environ[n])
		n++;
	while (set && set[nset])
		nset++;
	if (!(env = calloc(n + nset + 2, sizeof *env)) || !(placed = calloc(nset + 1, 1)) ||
	    (pad && !(*padvar = malloc(prefix + pad_bytes + 1)))) {
		free(env);
		free(placed);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		long r = replacement(environ[i], set);
		if (pad && strncmp(environ[i], RUNNER_PAD_VAR "=", prefix) == 0)
			continue;
		if (r < 0)
			env[k++] = environ[i];
		else if (!placed[r]) {
			placed[r] = 1;
			env[k++] = set[r];
		}
	}
	for (size_t i = 0; i < nset; i++)
		if (!placed[i])
			env[k++] = set[i];
	free(placed);
	if (pad) {
		memcpy(*padvar, RUNNER_PAD_VAR "=", prefix);
		memset(*padvar + prefix, 'p', pad_bytes);
		(*padvar)[prefix + pad_bytes] = '\0';
		env[k++] = *padvar;
	}
	env[k] = NULL;
	return env;
}

/* fd: the child's stdout and stderr (-1 for a foreground child), hold_fd and ready_fd. hold_fd >=
 * 0: waits for EOF on it (the tracker attached) before the exec; ready_fd >= 0: dumpable_child
 * first. mask: the caller's signal mask, which a foreground child keeps; parent: this process. */
static void child_exec(const struct runner_spec *spec, char **env, const int fd[4],
                       const sigset_t *mask, pid_t parent)
{
	int out_fd = fd[0], err_fd = fd[1], hold_fd = fd[2];
	/* The first four always; a foreground child keeps the others (SIGPIPE or SIGQUIT its
	 * caller ignores stay ignored), as a shell's job would. */
	static const int reset[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT};
	int fg = spec->flags & RUNNER_FOREGROUND, e;
	size_t nreset = fg ? 4 : sizeof reset / sizeof reset[0];
	sigset_t none;

	if (!fg)
		setpgid(0, 0);
	for (size_t i = 0; i < nreset; i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, fg ? mask : &none, NULL);
	if ((spec->flags & RUNNER_DIE_WITH_PARENT) &&
	    (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent))
		_exit(128 + SIGTERM);
	if (!fg && !(spec->flags & RUNNER_DIE_WITH_PARENT) &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent))
		_exit(128 + SIGKILL);
	if (!fg) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(out_fd, 1);
		dup2(err_fd, 2);
	}
	if (fd[3] >= 0 && hold_fd >= 0)
		dumpable_child(hold_fd, fd[3]);
	while (hold_fd >= 0 && read(hold_fd, &(char){0}, 1) < 0 && errno == EINTR)
		;
	if (spec->flags & RUNNER_PATH_SEARCH)
		execvpe(spec->path, spec->argv, env);
	else
		execve(spec->path, spec->argv, env);
	e = errno;
	if (spec->exec_who)
		errmsg_print(stderr, spec->exec_who, "%s: %s", spec->path, strerror(e));
	else
		dprintf(2, "allocab: cannot execute %s: %s\n", spec->path, strerror(e));
	_exit(127);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
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

/* Waits for the child while feeding the sinks and the tracker; enforces timeout and stop. Returns
 * whether the bench was stopped by a signal past the run's time limit (its guard resumed it). */
static int supervise(const struct runner_spec *spec, pid_t pid, struct sink *sinks,
                      const sigset_t *waitmask, int64_t t0, struct runner_result *r)
{
	int64_t deadline = spec->timeout_s > 0 ? t0 + (int64_t)(spec->timeout_s * 1e9) : INT64_MAX;
	int64_t kill_at = INT64_MAX;
	int killing = 0, killed = 0, status = 0, fg = spec->flags & RUNNER_FOREGROUND;
	pid_t target = fg ? pid : -pid; /* a foreground child shares this process's group */
	struct rusage ru;
	int resumed;

	if (deadline != INT64_MAX)
		guard_run(deadline + (int64_t)((spec->grace_s + 1) * 1e9));
	for (;;) {
		siginfo_t si = {0};
		struct pollfd pf[3] = {{.fd = sinks[0].fd, .events = POLLIN},
		                       {.fd = sinks[1].fd, .events = POLLIN},
		                       {.fd = contain_fd(r->contain), .events = POLLIN}};
		struct timespec ts;
		int64_t now, wake, nap;

		ptrack_drain(r->track, pid);
		contain_drain(r->contain);
		guard_tend();
		/* The tracer sees its tracee's ptrace stops whatever the flags: only an exit ends.
		 */
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid &&
		    (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
		     si.si_code == CLD_DUMPED))
			break;
		now = now_ns();
		if (!killing && spec->stop && *spec->stop) {
			r->end = RUNNER_STOPPED;
			killing = 1;
		} else if (!killing && now >= deadline) {
			r->end = RUNNER_TIMEOUT;
			killing = 1;
		}
		if (killing && kill_at == INT64_MAX) {
			kill(target, SIGTERM);
			kill_at = now + (int64_t)(spec->grace_s * 1e9);
		}
		if (killing && !killed && now >= kill_at) {
			kill(target, SIGKILL);
			killed = 1;
		}
		/* SIGCHLD or a stop signal ends the nap early; the cap only bounds clock drift. */
		wake = killing ? (killed ? now + 100000000 : kill_at) : deadline;
		nap = min64(wake - now, 1000000000);
		nap = nap > 0 ? nap : 0;
		ts = (struct timespec){.tv_sec = nap / 1000000000, .tv_nsec = nap % 1000000000};
		if (ppoll(pf, 3, &ts, waitmask) > 0) {
			sink_drain(&sinks[0]);
			sink_drain(&sinks[1]);
		}
	}
	r->wall_ns = now_ns() - t0;
	ptrack_drain(r->track, pid); /* top's end, with its CPU clock, before wait4 reaps it */
	resumed = guard_run_end();
	contain_census(r->contain);
	if (!fg)
		kill(-pid, SIGKILL); /* leftovers of the group; the zombie still holds the id */
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	fwd_pid = 0;
	contain_end(r->contain, spec->grace_s, step_tracker, &(struct step){r->track, 0});
	ptrack_end(r->track, spec->grace_s);
	sink_drain(&sinks[0]);
	sink_drain(&sinks[1]);
	if (r->end == RUNNER_EXITED && WIFSIGNALED(status))
		r->end = RUNNER_SIGNALED;
	r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	r->user_ns = tv_ns(ru.ru_utime);
	r->sys_ns = tv_ns(ru.ru_stime);
	r->max_rss_kib = ru.ru_maxrss;
	r->minor_faults = ru.ru_minflt;
	r->major_faults = ru.ru_majflt;
	r->vol_ctx_switches = ru.ru_nvcsw;
	r->invol_ctx_switches = ru.ru_nivcsw;
	if (resumed)
		r->end = RUNNER_TIMEOUT;
	return resumed;
}

/* RUNNER_WAIT_ORPHANS: reaps this process's children until none is left, the wait is over or a
 * forwarded signal was caught; SIGCHLD ends each nap. */
static void wait_orphans(const struct runner_spec *spec, const sigset_t *waitmask,
                         struct runner_result *r)
{
	int64_t until = now_ns() + (int64_t)(spec->orphan_wait_s * 1e9), left;

	for (;;) {
		struct timespec ts;
		pid_t p = waitpid(-1, NULL, WNOHANG);

		if (p > 0)
			continue;
		/* the guard is a child that outlives the wait, and no orphan */
		if ((p < 0 && errno == ECHILD) ||
		    (p == 0 && guard_pid() && orphans_list(NULL, 0) == 0) || fwd_caught ||
		    (left = until - now_ns()) <= 0)
			break;
		left = min64(left, 1000000000);
		ts = (struct timespec){.tv_sec = left / 1000000000, .tv_nsec = left % 1000000000};
		ppoll(NULL, 0, &ts, waitmask);
	}
	r->orphans = orphans_list(r->orphan_names, sizeof r->orphan_names);
}

int runner_run(const struct runner_spec *spec, struct runner_result *r, char *err, size_t errlen)
{
	struct sink sinks[2] = {
	    {.fd = -1, .limit = RUNNER_OUT_MAX},
	    {.fd = -1, .limit = RUNNER_TAIL_MAX, .tail = 1},
	};
	char tailbuf[2 * RUNNER_TAIL_MAX];
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, hold[2] = {-1, -1}, ready[2] = {-1, -1}, rc = -1;
	char *padvar = NULL, **env = NULL;
	sigset_t block, old, waitmask;
	struct sigaction sa = {.sa_handler = on_sigchld}, old_sa,
	                 fa = {.sa_sigaction = on_forward, .sa_flags = SA_SIGINFO},
	                 old_fa[sizeof forwarded / sizeof forwarded[0]];
	int fg = spec->flags & RUNNER_FOREGROUND, fwd = spec->flags & RUNNER_FORWARD_SIGNALS;
	pid_t pid, parent = getpid();
	int64_t t0;
	int resumed;
	size_t keep;

	memset(r, 0, sizeof *r);
	r->end = RUNNER_EXITED;
	if (spec->contain)
		guard_ensure();
	sinks[1].buf = tailbuf;
	if (spec->capture_stdout && !fg && !(sinks[0].buf = malloc(sinks[0].cap = 65536))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	waitmask = old;
	sigdelset(&waitmask, SIGCHLD);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, &old_sa);
	sigemptyset(&fa.sa_mask);
	fwd_caught = 0;
	fwd_pid = 0;
	for (size_t i = 0; fwd && i < sizeof forwarded / sizeof forwarded[0]; i++)
		sigaction(forwarded[i], &fa, &old_fa[i]);

	if (spec->stop && *spec->stop) {
		r->end = RUNNER_STOPPED;
		rc = 0;
		goto out;
	}
	if (!(env = child_env(!(spec->flags & RUNNER_NO_PAD), spec->pad_bytes, spec->env_set,
	                      &padvar))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if ((!fg && (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)) ||
	    ((spec->track || spec->contain) && pipe2(hold, O_CLOEXEC) < 0)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	if (spec->track && dumpable_parent(ready) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}
	if (spec->contain && !(r->contain = contain_open(spec->track))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (fg)
		fflush(NULL);
	t0 = now_ns();
	if ((pid = fork()) < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (hold[1] >= 0)
			close(hold[1]);
		if (ready[0] >= 0)
			close(ready[0]);
		child_exec(spec, env, (int[4]){out[1], errp[1], hold[0], ready[1]}, &old, parent);
	}
	dumpable_wait(ready);
	r->pid = (long)pid;
	fwd_pid = fwd ? pid : 0;
	if (!fg)
		setpgid(pid, pid);
	contain_enter(r->contain, pid);
	if (spec->track && !(r->track = ptrack_start(pid, spec->probe_file))) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (hold[1] >= 0) {
		close(hold[1]);
		hold[1] = -1;
	}
	if (!fg) {
		close(out[1]);
		close(errp[1]);
		out[1] = errp[1] = -1;
		fcntl(out[0], F_SETFL, O_NONBLOCK);
		fcntl(errp[0], F_SETFL, O_NONBLOCK);
		sinks[0].fd = out[0];
		sinks[1].fd = errp[0];
		out[0] = errp[0] = -1;
	}
	resumed = supervise(spec, pid, sinks, &waitmask, t0, r);
	if (spec->flags & RUNNER_WAIT_ORPHANS)
		wait_orphans(spec, &waitmask, r);
	if (sinks[0].buf)
		sinks[0].buf[sinks[0].len] = '\0';
	r->out = sinks[0].buf;
	r->out_len = sinks[0].len;
	r->out_truncated = sinks[0].truncated;
	sinks[0].buf = NULL;
	keep = sinks[1].len < RUNNER_TAIL_MAX ? sinks[1].len : RUNNER_TAIL_MAX;
	r->tail_len = runner_clean_tail(tailbuf + sinks[1].len - keep, keep,
	                                sinks[1].truncated || sinks[1].len > keep, r->tail);
	if (resumed)
		r->tail_len = (size_t)snprintf(r->tail, sizeof r->tail, "%s",
		                               "allocab: the bench was stopped by a signal during the "
		                               "run and resumed by its guard past the run's time limit");
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
		if (hold[i] >= 0)
			close(hold[i]);
		if (ready[i] >= 0)
			close(ready[i]);
		if (sinks[i].fd >= 0)
			close(sinks[i].fd);
	}
	if (rc != 0) {
		contain_free(r->contain);
		r->contain = NULL;
	}
	free(sinks[0].buf);
	free(env);
	free(padvar);
	fwd_pid = 0;
	r->signal = fwd_caught;
	for (size_t i = 0; fwd && i < sizeof forwarded / sizeof forwarded[0]; i++)
		sigaction(forwarded[i], &old_fa[i], NULL);
	sigaction(SIGCHLD, &old_sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void runner_result_free(struct runner_result *r)
{
	if (!r)
		return;
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
	ptrack_free(r->track);
	r->track = NULL;
	contain_free(r->contain);
	r->contain = NULL;
}

const char *runner_signal_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
	    {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"},
	    {SIGILL, "SIGILL"},       {SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"},
	    {SIGBUS, "SIGBUS"},       {SIGFPE, "SIGFPE"},       {SIGKILL, "SIGKILL"},
	    {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},     {SIGUSR2, "SIGUSR2"},
	    {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"},
	    {SIGSTKFLT, "SIGSTKFLT"}, {SIGCHLD, "SIGCHLD"},     {SIGCONT, "SIGCONT"},
	    {SIGSTOP, "SIGSTOP"},     {SIGTSTP, "SIGTSTP"},     {SIGTTIN, "SIGTTIN"},
	    {SIGTTOU, "SIGTTOU"},     {SIGURG, "SIGURG"},       {SIGXCPU, "SIGXCPU"},
	    {SIGXFSZ, "SIGXFSZ"},     {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},
	    {SIGWINCH, "SIGWINCH"},   {SIGIO, "SIGIO"},         {SIGPWR, "SIGPWR"},
	    {SIGSYS, "SIGSYS"},
	};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	return NULL;
}

size_t runner_clean_tail(const char *raw, size_t n, int cut, char *out)
{
	const unsigned char *s = (const unsigned char *)raw;
	size_t i = 0, k = 0;

	if (cut) {
		const char *nl = memchr(raw, '\n', n);

		if (nl && (size_t)(nl - raw) + 1 < n)
			i = (size_t)(nl - raw) + 1;
		else
			while (i < n && (s[i] & 0xC0) == 0x80)
				i++;
	}
	while (n > i && (raw[n - 1] == '\n' || raw[n - 1] == '\r'))
		n--;
	while (i < n) {
		int len = s[i] ? utf8_seq(s + i, n - i) : 0;

		if (len <= 0) {
			out[k++] = '?';
			i++;
			continue;
		}
		memcpy(out + k, s + i, (size_t)len);
		k += (size_t)len;
		i += (size_t)len;
	}
	out[k] = '\0';
	return k;
}
