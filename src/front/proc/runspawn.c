/* runspawn.c - the runner's start of a run (runner.h): the child's environment, its pipes, the
 * fork, the child's side up to its exec, and the tracker and containment attached before it
 * execs. */
#include "front/proc/runner.h"
#include "front/proc/contain.h"
#include "front/proc/dumpable.h"
#include "front/proc/ptrack.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

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

/* Before the fork: the environment, the pipes, and containment. 0, or -1 with err. */
static int prepare(struct run *u, char *err, size_t errlen)
{
	const struct runner_spec *spec = u->spec;

	if (!(u->env = child_env(!(spec->flags & RUNNER_NO_PAD), spec->pad_bytes, spec->env_set,
	                         &u->padvar)))
		return errmsg_fail(err, errlen, "out of memory");
	if ((!u->fg && (pipe2(u->out, O_CLOEXEC) < 0 || pipe2(u->errp, O_CLOEXEC) < 0)) ||
	    ((spec->track || spec->contain) && pipe2(u->hold, O_CLOEXEC) < 0))
		return errmsg_fail(err, errlen, "pipe: %s", strerror(errno));
	if (spec->track && dumpable_parent(u->ready) != 0)
		return errmsg_fail(err, errlen, "pipe: %s", strerror(errno));
	if (spec->contain && !(u->r->contain = contain_open(spec->track)))
		return errmsg_fail(err, errlen, "out of memory");
	return 0;
}

/* After the fork: the child in its group and cgroup, tracked, let go to its exec; the parent's
 * ends of its pipes made the sinks'. 0, or -1 with err (the child killed and reaped). */
static int attach(struct run *u, char *err, size_t errlen)
{
	struct runner_result *r = u->r;
	pid_t pid = u->pid;

	dumpable_wait(u->ready);
	r->pid = (long)pid;
	runner_forward_to(u->fwd ? pid : 0);
	if (!u->fg)
		setpgid(pid, pid);
	contain_enter(r->contain, pid);
	if (u->spec->track && !(r->track = ptrack_start(pid, u->spec->probe_file))) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return errmsg_fail(err, errlen, "out of memory");
	}
	if (u->hold[1] >= 0) {
		close(u->hold[1]);
		u->hold[1] = -1;
	}
	if (!u->fg) {
		close(u->out[1]);
		close(u->errp[1]);
		u->out[1] = u->errp[1] = -1;
		fcntl(u->out[0], F_SETFL, O_NONBLOCK);
		fcntl(u->errp[0], F_SETFL, O_NONBLOCK);
		u->sinks[0].fd = u->out[0];
		u->sinks[1].fd = u->errp[0];
		u->out[0] = u->errp[0] = -1;
	}
	return 0;
}

int runner_spawn(struct run *u, char *err, size_t errlen)
{
	if (prepare(u, err, errlen) != 0)
		return -1;
	if (u->fg)
		fflush(NULL);
	u->t0 = runner_now_ns();
	if ((u->pid = fork()) < 0)
		return errmsg_fail(err, errlen, "fork: %s", strerror(errno));
	if (u->pid == 0) {
		if (u->hold[1] >= 0)
			close(u->hold[1]);
		if (u->ready[0] >= 0)
			close(u->ready[0]);
		child_exec(u->spec, u->env, (int[4]){u->out[1], u->errp[1], u->hold[0], u->ready[1]},
		           &u->old, u->parent);
	}
	return attach(u, err, errlen);
}
