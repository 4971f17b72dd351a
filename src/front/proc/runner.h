/* runner.h - internal to the runner (runner_run, proc.h): one run's state through its lifetimes,
 * each in its file, called in this order by runner.c: the signals caught while it lasts and the
 * wait for the child (runwait.c), the start of the child (runspawn.c), the wait again, what it
 * leaves running (runwait.c), and what is collected from it (runner.c). Not for other modules. */
#ifndef ALLOCAB_RUNNER_H
#define ALLOCAB_RUNNER_H

#include "front/proc/proc.h"

#include <signal.h>
#include <stdint.h>
#include <time.h>

/* A pipe from the child read as it comes: stdout (the first limit bytes kept) or the stderr tail
 * (the last limit bytes, in a 2 x limit buffer). */
struct sink {
	int fd;
	char *buf;
	size_t len, cap;
	size_t limit;
	int truncated; /* more than limit bytes arrived */
	int tail;
};

/* The signals RUNNER_FORWARD_SIGNALS catches. */
#define RUNNER_NFORWARDED 3

/* One runner_run. */
struct run {
	const struct runner_spec *spec;
	struct runner_result *r;
	int fg, fwd; /* RUNNER_FOREGROUND, RUNNER_FORWARD_SIGNALS */
	struct sink sinks[2]; /* stdout, the stderr tail */
	char tailbuf[2 * RUNNER_TAIL_MAX];
	/* the child's stdout and stderr, the hold pipe it waits on before its exec, and the pipe
	 * of dumpable.h; -1 when closed */
	int out[2], errp[2], hold[2], ready[2];
	char *padvar, **env;
	pid_t pid, parent;
	int64_t t0; /* CLOCK_MONOTONIC just before the fork */
	sigset_t old, waitmask; /* the caller's mask; the mask ppoll waits with */
	struct sigaction old_sa, old_fa[RUNNER_NFORWARDED];
};

static inline int64_t runner_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP, catches SIGCHLD (and, u->fwd, the forwarded
 * signals) until runner_restore_signals; r->signal is then the last forwarded one caught. */
void runner_catch_signals(struct run *u);
void runner_restore_signals(struct run *u);
/* The child forwarded signals are passed on to from now on (0: none). */
void runner_forward_to(pid_t pid);

/* The child started (fork, exec) with its pipes, tracker and containment: 0, or -1 with err. */
int runner_spawn(struct run *u, char *err, size_t errlen);

/* Waits for the child while feeding the sinks, the tracker and containment; enforces the time
 * limit and stop; reaps it with its rusage into u->r. Returns whether the bench was stopped by a
 * signal past the run's time limit (its guard resumed it). */
int runner_supervise(struct run *u);

/* RUNNER_WAIT_ORPHANS: reaps this process's children until none is left, the wait is over or a
 * forwarded signal was caught; r->orphans counts what still runs. */
void runner_wait_orphans(struct run *u);

/* Cleans the raw stderr tail raw[0..n-1] into out (>= n + 1 bytes) for a JSON string: drops a
 * leading partial line when the tail was cut (cut != 0) and a newline follows, drops a trailing
 * newline, and replaces bytes that are not valid UTF-8 with '?'. Returns the length written. */
size_t runner_clean_tail(const char *raw, size_t n, int cut, char *out);

#endif
