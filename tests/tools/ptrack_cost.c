/* ptrack_cost.c - what process tracking (front/proc/ptrack.h) costs a run: runs `/bin/sh -c
 * COMMAND` through the bench's runner ROUNDS times tracked and ROUNDS times untracked, in pairs
 * whose order alternates, and prints per mode the median wall time, the median CPU time of the
 * run (user + system of the processes, from wait4) and of the tracer (this process, from
 * getrusage), then the medians of the paired differences and the processes and threads the
 * tracker counted. No probe is loaded: this is the tracker's cost alone, with the run's
 * containment (front/proc/contain.h; PTRACK_COST_UNCONTAINED=1 in the environment: without it). The figures in
 * docs/programs.md ("Process tracking") come from it. Usage: ptrack_cost ROUNDS COMMAND */
#include "front/proc/ptrack.h"
#include "front/proc/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

enum { WALL, RUN_CPU, TRACER_CPU, NFIG };

static const char *const fig_names[NFIG] = {"wall", "run CPU", "tracer CPU"};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double *s = malloc((size_t)n * sizeof *s), m;

	if (!s)
		return 0;
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

static double self_cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* One run: its figures in ms into fig[]. Returns 0, or -1 when it failed. */
static int once(const char *cmd, int track, double fig[NFIG], size_t *procs, size_t *threads)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL}, err[256];
	struct runner_spec s = {
	    .path = "/bin/sh",
	    .argv = argv,
	    .timeout_s = 600,
	    .grace_s = 2,
	    .track = track,
	    .contain = track && !getenv("PTRACK_COST_UNCONTAINED")};
	struct runner_result r;
	double self0 = self_cpu_ms();

	if (runner_run(&s, &r, err, sizeof err) != 0) {
		fprintf(stderr, "ptrack_cost: %s\n", err);
		return -1;
	}
	fig[TRACER_CPU] = self_cpu_ms() - self0;
	fig[WALL] = (double)r.wall_ns / 1e6;
	fig[RUN_CPU] = (double)(r.user_ns + r.sys_ns) / 1e6;
	if (r.end != RUNNER_EXITED || r.exit_code) {
		fprintf(stderr,
		        "ptrack_cost: the command failed (%s: end %d, exit %d, signal %d: %s)\n",
		        track ? "tracked" : "untracked", (int)r.end, r.exit_code, r.term_signal,
		        r.tail);
		runner_result_free(&r);
		return -1;
	}
	if (r.track && r.track->mode == PTRACK_TRACED) {
		*procs = r.track->processes;
		*threads = r.track->threads;
	}
	runner_result_free(&r);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc == 3 ? atoi(argv[1]) : 0;
	double *v[2][NFIG], *d[NFIG];
	size_t procs = 0, threads = 0;

	if (n < 1) {
		fprintf(stderr, "usage: ptrack_cost ROUNDS COMMAND\n");
		return 2;
	}
	for (int f = 0; f < NFIG; f++)
		if (!(v[0][f] = calloc((size_t)n, sizeof(double))) ||
		    !(v[1][f] = calloc((size_t)n, sizeof(double))) ||
		    !(d[f] = calloc((size_t)n, sizeof(double))))
			return 1;
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < 2; k++) {
			int track = k == i % 2;
			double fig[NFIG];

			if (once(argv[2], track, fig, &procs, &threads) != 0)
				return 1;
			for (int f = 0; f < NFIG; f++)
				v[track][f][i] = fig[f];
		}
		for (int f = 0; f < NFIG; f++)
			d[f][i] = v[1][f][i] - v[0][f][i];
	}
	printf(
	    "rounds %d, processes %zu, threads %zu (medians; difference = tracked - untracked)\n",
	    n, procs, threads);
	for (int f = 0; f < NFIG; f++) {
		double dm = median(d[f], n);

		printf("%-10s tracked %9.2f ms  untracked %9.2f ms  difference %+8.2f ms",
		       fig_names[f], median(v[1][f], n), median(v[0][f], n), dm);
		if (procs)
			printf("  (%+.1f us per process)", 1000 * dm / (double)procs);
		printf("\n");
	}
	return 0;
}
