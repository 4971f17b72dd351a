/* bench_stats.c - times the Hodges-Lehmann methods of stats.c on large samples (not a test; `make
 * bench-stats`). Usage: bench_stats [N [STEP]]: N values (default 1000000), normal with a small
 * shift, rounded to multiples of STEP if given (ties).
 * Prints the wall and CPU seconds of each call and the process's peak RSS so far. */
#include "common/prng.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void start(double t[2])
{
	t[0] = clock_s(CLOCK_MONOTONIC);
	t[1] = clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static double peak_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024;
}

static void show(const char *what, size_t n, const double t[2], int rc,
                 const struct stats_interval *ci)
{
	printf("%-23s n=%zu  %.3f s (cpu %.3f s)  rc %d  est %.9g [%.9g, %.9g] level %.6f  peak "
	       "RSS %.1f MB\n",
	       what, n, clock_s(CLOCK_MONOTONIC) - t[0], clock_s(CLOCK_PROCESS_CPUTIME_ID) - t[1],
	       rc, ci->est, ci->lo, ci->hi, ci->level, peak_mb());
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	double step = argc > 2 ? strtod(argv[2], NULL) : 0;
	double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y), t[2];
	struct stats_interval ci = {0};
	struct prng r;
	int rc;

	if (!x || !y || n == 0)
		return 1;
	prng_seed(&r, 42);
	for (size_t i = 0; i < n; i++) {
		x[i] = 0.01 + 0.05 * prng_normal(&r);
		y[i] = 0.02 + 0.05 * prng_normal(&r);
		if (step > 0) {
			x[i] = step * round(x[i] / step);
			y[i] = step * round(y[i] / step);
		}
	}
	start(t);
	rc = stats_hl_interval(x, n, 0.95, &ci);
	show("stats_hl_interval", n, t, rc, &ci);
	start(t);
	rc = stats_hl_estimate(x, n, &ci.est);
	ci.lo = ci.hi = ci.level = 0;
	show("stats_hl_estimate", n, t, rc, &ci);
	start(t);
	rc = stats_hl_shift_interval(x, n, y, n, 0.95, &ci);
	show("stats_hl_shift_interval", n, t, rc, &ci);
	free(x);
	free(y);
	return rc ? 1 : 0;
}
