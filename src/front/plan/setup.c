/* setup.c - what `allocab bench` and `allocab calibrate` need before the engine runs, besides
 * drivers (drivers.c), workloads (workloads.c) and names (the engine's names.c): output directory checks, the
 * default shuffle seed, and the signals that stop a bench (front/plan/plan.h). */
#include "front/plan/plan.h"

#include "common/errmsg.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

const volatile sig_atomic_t *bench_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return &stop_requested;
}

uint64_t bench_clock_seed(void)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	x ^= (uint64_t)getpid() << 32;
	x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ULL;
	return (x ^ (x >> 29)) & BENCH_SEED_MAX;
}

int bench_dir_writable(const char *dir, const char *what, char *err, size_t errlen)
{
	char probe[4096 + 32];
	int fd;

	snprintf(probe, sizeof probe, "%s/.allocab-probe.XXXXXX", dir);
	if ((fd = mkstemp(probe)) < 0)
		return errmsg_fail(err, errlen, "cannot write %s: %s", what, strerror(errno));
	close(fd);
	unlink(probe);
	return 0;
}
