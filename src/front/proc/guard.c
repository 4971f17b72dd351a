/* guard.c - the bench's guard (guard.h). */
#include "front/proc/guard.h"
#include "front/proc/pstate.h"
#include "front/proc/proc.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define WHO "bench"

static pid_t guard;
static int tried;

/* What the bench tells its guard, in a page both map: the CLOCK_MONOTONIC time past which a stopped
 * bench is resumed (0: no run runs), and whether it was. */
struct page {
	volatile int64_t resume_after_ns;
	volatile sig_atomic_t resumed;
};
static struct page *page;
static int64_t tended_ns;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether pid is stopped by a signal (state T; a tracing stop is t). */
static int stopped(pid_t pid)
{
	return pstate_of(pid) == 'T';
}

/* A bench stopped by a signal past its run's time limit is resumed (a program of the same user
 * can stop its tracer; the terminal's stop is honoured until then). */
static void resume_if_stopped(pid_t bench)
{
	int64_t after = page ? page->resume_after_ns : 0;

	if (after && now_ns() > after && stopped(bench) && kill(bench, SIGCONT) == 0)
		page->resumed = 1;
}

static void guard_main(pid_t bench)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t wake;

	setsid();
	prctl(PR_SET_NAME, "allocab-guard");
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
	}
	/* nothing of the bench's is held open but stderr: not its results file, nor a pipe a
	 * caller reads to its end */
	if (close_range(3, ~0u, 0) != 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	sigemptyset(&wake);
	sigaddset(&wake, SIGUSR1);
	while (getppid() == bench) {
		sigtimedwait(&wake, NULL, &(struct timespec){.tv_nsec = 250000000});
		resume_if_stopped(bench);
	}
	sweep_leftovers(stderr, WHO, bench);
	_exit(0);
}

pid_t guard_ensure(void)
{
	pid_t bench = getpid();
	sigset_t all, old;

	if (tried)
		return guard;
	tried = 1;
	sweep_leftovers(stderr, WHO, 0);
	sweep_own();
	page = mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		page = NULL;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	fflush(NULL);
	if ((guard = fork()) < 0) {
		guard = 0;
		sigprocmask(SIG_SETMASK, &old, NULL);
		errmsg_print(stderr, WHO,
		             "warning: cannot start the guard that kills the runs if "
		             "the bench is killed: %s",
		             strerror(errno));
		return 0;
	}
	if (guard == 0)
		guard_main(bench); /* every signal stays blocked but SIGUSR1 in its wait */
	sigprocmask(SIG_SETMASK, &old, NULL);
	return guard;
}

void guard_run(int64_t resume_after_ns)
{
	if (page && getpid() == sweep_owner()) {
		page->resumed = 0;
		page->resume_after_ns = resume_after_ns;
	}
}

int guard_run_end(void)
{
	int resumed;

	if (!page || getpid() != sweep_owner())
		return 0;
	page->resume_after_ns = 0;
	resumed = page->resumed;
	page->resumed = 0;
	return resumed;
}

void guard_tend(void)
{
	int64_t now = now_ns();

	if (guard > 0 && now - tended_ns > 1000000000) {
		tended_ns = now;
		if (stopped(guard))
			kill(guard, SIGCONT);
	}
}

int guard_stopped(pid_t pid)
{
	return stopped(pid);
}

pid_t guard_pid(void)
{
	return guard;
}
