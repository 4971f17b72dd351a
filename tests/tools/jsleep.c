/* jsleep.c - a synthetic command for `make validate` (scripts/validate.sh): sleeps MS
 * milliseconds times exp(SD x Z), Z standard normal, drawn from the kernel's random bytes, so
 * that two arms running it are identical programs with log-normal jitter of sd SD.
 * Usage: jsleep MS SD */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

int main(int argc, char **argv)
{
	uint64_t u[2];
	double ms, sd, z, s;
	struct timespec ts;

	if (argc != 3 || !((ms = strtod(argv[1], NULL)) > 0) || !((sd = strtod(argv[2], NULL)) >= 0) ||
	    getrandom(u, sizeof u, 0) != (ssize_t)sizeof u) {
		fprintf(stderr, "usage: jsleep MS SD\n");
		return 2;
	}
	z = sqrt(-2 * log(((double)(u[0] >> 11) + 1) / 9007199254740993.0)) *
	    cos(2 * M_PI * (double)(u[1] >> 11) / 9007199254740992.0);
	s = ms * exp(sd * z) / 1000;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return 0;
}
