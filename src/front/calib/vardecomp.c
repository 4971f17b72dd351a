/* vardecomp.c - where the variance of a bench's times comes from (docs/methodology.md, "Where
 * the variance is"): a nested random-effects split of log rep times into rep to rep within a
 * process, and process to process, the latter split again by the lag-1 autocovariance of the
 * process means in the order the processes ran into what consecutive processes share (the
 * machine's moment) and what is specific to one process. */
#include "front/calib/calib.h"

#include <math.h>
#include <stdlib.h>

/* Per process: its mean and rep count; sums of the within-process residuals. */
struct vd_sums {
	double ss_within, lag_num, lag_den;
	size_t df_within, nobs;
	double inv_k; /* sum over processes of 1 / reps */
};

static int process_means(const struct calib_var_input *in, double *m, struct vd_sums *s)
{
	for (size_t p = 0; p < in->nproc; p++) {
		const double *y = in->y + in->start[p];
		size_t k = in->start[p + 1] - in->start[p];
		double sum = 0;

		if (k == 0 || in->cell[p] >= in->ncells)
			return -1;
		for (size_t j = 0; j < k; j++) {
			if (!isfinite(y[j]))
				return -1;
			sum += y[j];
		}
		m[p] = sum / (double)k;
		for (size_t j = 0; j < k; j++) {
			double e = y[j] - m[p];

			s->ss_within += e * e;
			s->lag_den += e * e;
			if (j > 0)
				s->lag_num += e * (y[j - 1] - m[p]);
		}
		s->df_within += k - 1;
		s->nobs += k;
		s->inv_k += 1.0 / (double)k;
	}
	return 0;
}

/* m[p] minus the mean of its cell's process means; returns the cells that hold a process. */
static size_t center_by_cell(const struct calib_var_input *in, double *m)
{
	double *sum = calloc(in->ncells, sizeof *sum);
	size_t *n = calloc(in->ncells, sizeof *n), used = 0;

	if (!sum || !n) {
		free(sum);
		free(n);
		return 0;
	}
	for (size_t p = 0; p < in->nproc; p++) {
		sum[in->cell[p]] += m[p];
		used += n[in->cell[p]]++ == 0;
	}
	for (size_t p = 0; p < in->nproc; p++)
		m[p] -= sum[in->cell[p]] / (double)n[in->cell[p]];
	free(sum);
	free(n);
	return used;
}

int calib_vardecomp(const struct calib_var_input *in, struct calib_var *out)
{
	struct vd_sums s = {0};
	double *m, ss = 0, lag = 0;
	size_t cells;

	if (in->nproc < 3 || in->ncells == 0 || !(m = malloc(in->nproc * sizeof *m)))
		return -1;
	if (process_means(in, m, &s) != 0 || s.df_within == 0 ||
	    (cells = center_by_cell(in, m)) == 0 || cells + 1 >= in->nproc) {
		free(m);
		return -1;
	}
	for (size_t p = 0; p < in->nproc; p++) {
		ss += m[p] * m[p];
		if (p > 0)
			lag += m[p] * m[p - 1];
	}
	free(m);
	out->nproc = in->nproc;
	out->nobs = s.nobs;
	out->reps = (double)in->nproc / s.inv_k;
	out->within = s.ss_within / (double)s.df_within;
	out->rep_rho = s.lag_den > 0 ? s.lag_num / s.lag_den : NAN;
	out->between = fmax(0, ss / (double)(in->nproc - cells) - out->within / out->reps);
	out->moment = fmin(out->between, fmax(0, lag / (double)(in->nproc - 1)));
	out->process = out->between - out->moment;
	return 0;
}

double calib_var_sample(const struct calib_var *v, double reps)
{
	return v->between + v->within / reps;
}

double calib_var_best_reps(const struct calib_var *v, double process_s, double rep_s)
{
	if (!(v->between > 0) || !(rep_s > 0) || !(process_s >= 0))
		return INFINITY;
	return sqrt(v->within * process_s / (v->between * rep_s));
}
