/* guard.c - the bench's guard (guard.h). */
#include "front/proc/guard.h"
#include "front/proc/proc.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define WHO "bench"

static pid_t guard;
static int tried;

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
	while (getppid() == bench)
		sigtimedwait(&wake, NULL, &(struct timespec){.tv_sec = 1});
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
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	fflush(NULL);
	if ((guard = fork()) < 0) {
		guard = 0;
		sigprocmask(SIG_SETMASK, &old, NULL);
		errmsg_print(stderr, WHO, "warning: cannot start the guard that kills the runs if "
		             "the bench is killed: %s", strerror(errno));
		return 0;
	}
	if (guard == 0)
		guard_main(bench); /* every signal stays blocked but SIGUSR1 in its wait */
	sigprocmask(SIG_SETMASK, &old, NULL);
	return guard;
}
