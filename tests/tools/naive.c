/* naive.c - the naive analysis `make validate` holds allocab against (scripts/validate.sh): two
 * unpaired samples of run times, the ratio of their means and Welch's t test, as a one-shot `time`
 * script or hyperfine with its t-test script would report them. Not used by allocab itself.
 * Usage: naive A B [ALPHA]   where A and B are each either a text file of times (one number a
 * line) or RESULTS.json:ARM:WORKLOAD (the measured ok runs of that arm in an allocab-bench/1 file).
 * Prints one line: ratio=mean_B/mean_A, t, df, p and verdict=different|same at ALPHA (0.05). */
#include "front/results/results.h"
#include "front/stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAIVE_MAX 100000

static int from_text(const char *path, double *x, size_t *n)
{
	FILE *f = fopen(path, "r");
	double v;

	if (!f)
		return -1;
	*n = 0;
	while (*n < NAIVE_MAX && fscanf(f, "%lf", &v) == 1)
		x[(*n)++] = v;
	fclose(f);
	return 0;
}

/* RESULTS.json:ARM:WORKLOAD */
static int from_results(const char *spec, double *x, size_t *n)
{
	char *path = strdup(spec), *arm, *wl, err[512];
	struct rf_doc *d;
	int a, w, rc = -1;

	if (!path || !(wl = strrchr(path, ':')))
		goto out;
	*wl++ = '\0';
	if (!(arm = strrchr(path, ':')))
		goto out;
	*arm++ = '\0';
	if (rf_load(path, &d, err, sizeof err) != 0) {
		fprintf(stderr, "naive: %s\n", err);
		goto out;
	}
	a = rf_arm(d, arm);
	w = rf_workload(d, wl);
	*n = 0;
	for (size_t r = 0; a >= 0 && w >= 0 && r < d->nrounds && *n < NAIVE_MAX; r++) {
		const struct rf_run *run = rf_run(d, r, (size_t)a, (size_t)w);
		int p = rf_phase(&d->wl[w], "total");

		if (run->present && run->ok && p >= 0)
			x[(*n)++] = rf_time(run, (size_t)p);
	}
	rc = a >= 0 && w >= 0 ? 0 : -1;
	rf_free(d);
out:
	free(path);
	return rc;
}

static int load(const char *spec, double *x, size_t *n)
{
	return strstr(spec, ".json:") ? from_results(spec, x, n) : from_text(spec, x, n);
}

int main(int argc, char **argv)
{
	static double a[NAIVE_MAX], b[NAIVE_MAX];
	double alpha = argc > 3 ? atof(argv[3]) : 0.05, t, df, p;
	size_t na = 0, nb = 0;

	if (argc < 3 || argc > 4 || !(alpha > 0 && alpha < 1)) {
		fprintf(
		    stderr,
		    "usage: naive A B [ALPHA]  (A, B: file of times or RESULTS:ARM:WORKLOAD)\n");
		return 2;
	}
	for (int i = 1; i <= 2; i++) {
		errno = 0;
		if (load(argv[i], i == 1 ? a : b, i == 1 ? &na : &nb) != 0) {
			fprintf(stderr, "naive: cannot read %s: %s\n", argv[i],
			        errno ? strerror(errno) : "no such arm or workload");
			return 2;
		}
	}
	if (stats_welch(a, na, b, nb, &t, &df, &p) != 0) {
		fprintf(stderr, "naive: need at least 2 finite times on each side (%zu, %zu)\n", na,
		        nb);
		return 2;
	}
	printf(
	    "n_a=%zu n_b=%zu mean_a=%.6g mean_b=%.6g ratio=%.6f t=%.4f df=%.2f p=%.6g verdict=%s\n",
	    na, nb, stats_mean(a, na), stats_mean(b, nb), stats_mean(b, nb) / stats_mean(a, na), t,
	    df, p, p < alpha ? "different" : "same");
	return 0;
}
