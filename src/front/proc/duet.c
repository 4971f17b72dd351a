/* duet.c - runs at once, each pinned to its CPU (two CPUs, or one shared), one forked helper each
 * (proc.h): the helpers started on a common start, their reports read in order (duetread.c), the
 * helpers reaped. A helper (duethelper.c) runs and judges its side. The bench and its helpers are
 * not dumpable, and a report comes through an AF_UNIX socket, which open(2) of a /proc/PID/fd
 * link cannot reopen (ENXIO), so that the run cannot write into it; what the bench reads is then
 * checked against the kernel (duetcheck.h). */
#include "front/proc/duet.h"
#include "front/proc/guard.h"

#include "common/errmsg.h"
#include "common/prng.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CPU_SEED_XOR 0xc0ffee5eedc0ffeeULL

int duet_round_swap(uint64_t shuffle_seed, unsigned round)
{
	struct prng r;

	prng_seed(&r, (shuffle_seed ^ CPU_SEED_XOR) + 0x9e3779b97f4a7c15ULL * (uint64_t)round);
	return (int)(prng_next(&r) >> 63);
}

int duet_cpus(int cpu[2], int shared, char *err, size_t errlen)
{
	cpu_set_t set;
	int k = 0;

	if (sched_getaffinity(0, sizeof set, &set) != 0) {
		snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno));
		return -1;
	}
	for (int i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[k++] = i;
	if (k == 1 && shared)
		cpu[k++] = cpu[0];
	if (k < 2) {
		snprintf(err, errlen, "--duet needs two CPUs; this process may run on %d",
		         CPU_COUNT(&set));
		return -1;
	}
	return 0;
}

/* When every helper must have reported: the latest time limit and grace of the sides, and
 * DUET_REPORT_S; 0 (no end) when a side has no time limit. */
static double wait_until(const struct duet_side *side, size_t n)
{
	double most = 0;

	for (size_t i = 0; i < n; i++) {
		double t = side[i].spec->timeout_s + side[i].spec->grace_s;

		if (side[i].spec->timeout_s <= 0)
			return 0;
		most = t > most ? t : most;
	}
	return duet_mono_s() + most + DUET_REPORT_S;
}

/* Reaps the helpers; failed: kills them first (SIGKILL acts on a stopped one too), then removes
 * what their runs left (the runs themselves die with their helper: runner.c). A helper stopped
 * after its report is resumed; one not gone within DUET_REAP_S is killed. */
#define DUET_REAP_S 5
static void reap(struct duet_helpers *h, int failed)
{
	double until = duet_mono_s() + DUET_REAP_S;

	for (size_t i = 0; i < h->n; i++) {
		if (failed && h->pid[i] > 0)
			kill(h->pid[i], SIGKILL);
		if (h->fd[i] >= 0)
			close(h->fd[i]);
		while (h->pid[i] > 0) {
			pid_t w = waitpid(h->pid[i], NULL, WNOHANG);

			if (w == h->pid[i] || (w < 0 && errno != EINTR))
				break;
			if (guard_stopped(h->pid[i]))
				kill(h->pid[i], SIGCONT);
			if (duet_mono_s() > until)
				kill(h->pid[i], SIGKILL);
			nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
		}
	}
	if (failed)
		sweep_leftovers(NULL, "bench", 0);
}

/* Forks helper i of side s (duet_helper), which starts its run once go is closed. 0, or -1 with
 * err. */
static int start_helper(struct duet_side *s, struct duet_helpers *h, size_t i, const int go[2],
                        char *err, size_t errlen)
{
	pid_t self = getpid();
	int p[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) != 0)
		return errmsg_fail(err, errlen, "cannot start a duet helper: %s", strerror(errno));
	if ((h->pid[i] = fork()) < 0) {
		errmsg_fail(err, errlen, "cannot start a duet helper: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (h->pid[i] == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self)
			_exit(1); /* a helper dies with the bench */
		close(go[1]);
		close(p[0]);
		duet_helper(s, go[0], p[1]);
	}
	close(p[1]);
	h->fd[i] = p[0];
	return 0;
}

/* Every side's report read and checked in order; then whether a helper was found stopped. */
static int finish_all(struct duet_side *side, struct duet_helpers *h, int64_t t0, char *err,
                      size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; i < h->n && rc == 0; i++)
		if ((rc = duet_finish(&side[i], h, i, t0, err, errlen)) == 0 && h->expired)
			rc = errmsg_fail(err, errlen, "duet helper for CPU %d did not report within %d s "
			                 "of its run's time limit: killed", side[i].cpu, DUET_REPORT_S);
	if (rc == 0 && h->stopped)
		rc = errmsg_fail(err, errlen, "the duet helper for CPU %d (the tracer of its run) was "
		                 "stopped by a signal during the round: resumed, but its runs are no "
		                 "measurement", side[h->stopped_side].cpu);
	return rc;
}

int duet_run(struct duet_side *side, size_t n, const volatile sig_atomic_t *stop, char *err,
             size_t errlen)
{
	struct duet_helpers h = {.n = n, .stop = stop};
	int go[2], rc = 0;
	int64_t t0;

	if (n < 2 || n > DUET_MAX_SIDES) {
		snprintf(err, errlen, "runs at once: %zu sides, not 2 to %d", n, DUET_MAX_SIDES);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		memset(&side[i].r, 0, sizeof side[i].r);
		side[i].containment = side[i].judged = NULL;
		side[i].refused = NULL;
		h.pid[i] = -1;
		h.fd[i] = -1;
	}
	for (size_t i = 0; i < n; i++)
		if (side[i].spec->contain)
			guard_ensure(); /* before the helpers: theirs is the bench's */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* and so its helpers: dumpable.h */
	if (pipe2(go, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	t0 = duet_clock_ns();
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = start_helper(&side[i], &h, i, go, err, errlen);
	close(go[0]);
	close(go[1]); /* the common start: every helper reads EOF */
	h.until = wait_until(side, n);
	if (rc == 0)
		rc = finish_all(side, &h, t0, err, errlen);
	reap(&h, rc != 0);
	for (size_t i = 0; rc != 0 && i < n; i++) {
		runner_result_free(&side[i].r);
		cJSON_Delete(side[i].containment);
		cJSON_Delete(side[i].judged);
		side[i].containment = side[i].judged = NULL;
	}
	return rc;
}
