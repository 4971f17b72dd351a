/* vardecomp.c - where the variance of a bench is (docs/methodology.md, "Where the variance is"),
 * for `make validate` (scripts/validate.sh) and by hand. Reads the reps of every ok run of the
 * measured rounds of an allocab-bench/1 file and prints, per workload, calib_vardecomp's split of
 * the log rep times (every arm of the workload is a cell) with the sd of the paired and the
 * unpaired difference of two runs of a round, then the mean profile of the reps.
 * Usage: vardecomp [--cpu] [--from K] [--count N] [--designs] RESULTS.json
 *   --cpu      CPU time of the reps instead of wall time
 *   --from K   first rep used (0 is the cold one; default: the first rep labelled steady)
 *   --count N  reps used from there (default: all that follow)
 *   --designs  also replay shorter designs on the file's runs (a bench with --reps N): what the
 *              steady time and the cost of a run would have been had the driver stopped earlier
 *              (design_line below)
 * Output, one line per workload, then one per workload and arm:
 *   workload=W processes=P reps=K within_sd= between_sd= moment_sd= process_sd= rep_rho=
 *     paired_sd= unpaired_sd= pairs= rep_s= process_s= best_reps= persistent_fp=k/n
 *   (persistent_fp: pairs of processes of a round, arm 0 and another, whose reps paired rep by
 *   rep give a 95% signed-rank interval of the log ratio that excludes 0: what a design of one
 *   persistent process per arm, taking turns rep by rep, would conclude; a false positive when
 *   the arms are the same allocator)
 *   profile workload=W arm=A runs=N rep0=+x.x% rep1=... (mean of ln t_j minus the mean of the
 *     run's last 3 reps, over the runs with the most reps, in percent)
 * Exit 0, 1 when nothing could be decomposed, 2 on bad input. */
#include "common/jsonload.h"
#include "common/steady.h"
#include "front/calib/calib.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VD_MAX_ARMS 16
#define VD_MAX_REPS 64

struct opts {
	int cpu, designs;
	long from, count; /* -1: default */
	const char *path;
};

/* One ok run's reps as read from the file. */
struct run {
	size_t arm, round;
	size_t nreps, first_steady;
	double t[VD_MAX_REPS]; /* ln time of each rep */
	double wall_s, rep_wall_s[VD_MAX_REPS], rep_cpu_s[VD_MAX_REPS];
};

struct wl_runs {
	struct run *r;
	size_t n, cap;
};

static int name_index(const cJSON *arr, const char *s)
{
	int i = 0;
	const cJSON *e;

	cJSON_ArrayForEach(e, arr)
	{
		if (cJSON_IsString(e) && strcmp(e->valuestring, s) == 0)
			return i;
		i++;
	}
	return -1;
}

static int read_run(const cJSON *run, const struct opts *o, struct run *r)
{
	const cJSON *reps = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "record"), "reps"), *rep;
	const cJSON *pw = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "process"), "wall_ns");
	size_t j = 0;

	r->first_steady = SIZE_MAX;
	r->wall_s = cJSON_IsNumber(pw) ? pw->valuedouble / 1e9 : NAN;
	cJSON_ArrayForEach(rep, reps)
	{
		const cJSON *tot = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "phases"), "total");
		const cJSON *w = cJSON_GetObjectItem(tot, "wall_ns");
		const cJSON *c = cJSON_GetObjectItem(tot, o->cpu ? "cpu_ns" : "wall_ns");
		const cJSON *u = cJSON_GetObjectItem(tot, "cpu_ns");
		const cJSON *g = cJSON_GetObjectItem(rep, "regime");

		if (j >= VD_MAX_REPS || !cJSON_IsNumber(c) || !cJSON_IsNumber(w) ||
		    !(c->valuedouble > 0))
			return -1;
		if (r->first_steady == SIZE_MAX && cJSON_IsString(g) &&
		    strcmp(g->valuestring, "steady") == 0)
			r->first_steady = j;
		r->t[j] = log(c->valuedouble);
		r->rep_cpu_s[j] = cJSON_IsNumber(u) ? u->valuedouble / 1e9 : NAN;
		r->rep_wall_s[j++] = w->valuedouble / 1e9;
	}
	r->nreps = j;
	return j > 0 ? 0 : -1;
}

/* The reps [lo, hi) of r the options select. */
static void selected(const struct run *r, const struct opts *o, size_t *lo, size_t *hi)
{
	*lo = o->from >= 0 ? (size_t)o->from : r->first_steady;
	*hi = o->count >= 0 && *lo + (size_t)o->count < r->nreps ? *lo + (size_t)o->count
	                                                          : r->nreps;
	if (*lo > *hi)
		*lo = *hi;
}

static double mean_of(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : NAN;
}

static double var_of(const double *x, size_t n)
{
	double m = mean_of(x, n), s = 0;

	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return n > 1 ? s / (double)(n - 1) : NAN;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *x, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(x, n, sizeof *x, by_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* Paired and unpaired variance of the difference of process means between arm 0 and each other
 * arm, averaged over the arms; *pairs the rounds paired. */
static void pairing(const struct wl_runs *w, const struct opts *o, size_t narms, size_t nrounds,
                    double *paired, double *unpaired, size_t *pairs)
{
	double *m = malloc(nrounds * narms * sizeof *m), *d = malloc(nrounds * sizeof *d);
	double *a = malloc(nrounds * sizeof *a), *b = malloc(nrounds * sizeof *b);
	double vp = 0, vu = 0;
	size_t used = 0;

	*paired = *unpaired = NAN;
	*pairs = 0;
	if (!m || !d || !a || !b)
		goto out;
	for (size_t i = 0; i < nrounds * narms; i++)
		m[i] = NAN;
	for (size_t i = 0; i < w->n; i++) {
		size_t lo, hi;

		selected(&w->r[i], o, &lo, &hi);
		if (hi > lo)
			m[w->r[i].round * narms + w->r[i].arm] = mean_of(w->r[i].t + lo, hi - lo);
	}
	for (size_t c = 1; c < narms; c++) {
		size_t n = 0;

		for (size_t r = 0; r < nrounds; r++)
			if (!isnan(m[r * narms]) && !isnan(m[r * narms + c])) {
				a[n] = m[r * narms];
				b[n] = m[r * narms + c];
				d[n] = b[n] - a[n];
				n++;
			}
		if (n < 3)
			continue;
		vp += var_of(d, n);
		vu += var_of(a, n) + var_of(b, n);
		used++;
		*pairs += n;
	}
	if (used) {
		*paired = vp / (double)used;
		*unpaired = vu / (double)used;
	}
out:
	free(m);
	free(d);
	free(a);
	free(b);
}

/* Pairs of processes (arm 0 and another, same round) with at least 6 common selected reps, and of
 * them those whose rep-by-rep log ratios give a 95% signed-rank interval without 0. */
static void persistent(const struct wl_runs *w, const struct opts *o, size_t *k, size_t *n)
{
	*k = *n = 0;
	for (size_t i = 0; i < w->n; i++)
		for (size_t j = 0; j < w->n; j++) {
			const struct run *a = &w->r[i], *b = &w->r[j];
			size_t alo, ahi, blo, bhi, m;
			double d[VD_MAX_REPS];
			struct stats_interval ci;

			if (a->arm != 0 || b->arm == 0 || a->round != b->round)
				continue;
			selected(a, o, &alo, &ahi);
			selected(b, o, &blo, &bhi);
			m = ahi - alo < bhi - blo ? ahi - alo : bhi - blo;
			if (m < 6)
				continue;
			for (size_t r = 0; r < m; r++)
				d[r] = b->t[blo + r] - a->t[alo + r];
			if (stats_hl_interval(d, m, 0.95, &ci) != 0)
				continue;
			(*n)++;
			*k += ci.lo > 0 || ci.hi < 0;
		}
}

/* The costs: median selected rep, median process time beyond its selected reps. */
static void costs(const struct wl_runs *w, const struct opts *o, double *rep_s, double *proc_s)
{
	double *reps = malloc(w->n * VD_MAX_REPS * sizeof *reps), *over = malloc(w->n * sizeof *over);
	size_t nr = 0, no = 0;

	*rep_s = *proc_s = NAN;
	if (!reps || !over) {
		free(reps);
		free(over);
		return;
	}
	for (size_t i = 0; i < w->n; i++) {
		size_t lo, hi;
		double sum = 0;

		selected(&w->r[i], o, &lo, &hi);
		for (size_t j = lo; j < hi; j++) {
			reps[nr++] = w->r[i].rep_wall_s[j];
			sum += w->r[i].rep_wall_s[j];
		}
		if (!isnan(w->r[i].wall_s))
			over[no++] = w->r[i].wall_s - sum;
	}
	*rep_s = median_of(reps, nr);
	*proc_s = median_of(over, no);
	free(reps);
	free(over);
}

static int decompose(const char *wl, const struct wl_runs *w, const struct opts *o, size_t narms,
                     size_t nrounds)
{
	double *y = malloc(w->n * VD_MAX_REPS * sizeof *y), rep_s, proc_s, vp, vu;
	size_t *start = malloc((w->n + 1) * sizeof *start), *cell = malloc(w->n * sizeof *cell);
	size_t np = 0, ny = 0, pairs, fp, nfp;
	struct calib_var v;
	int rc = -1;

	if (!y || !start || !cell)
		goto out;
	for (size_t i = 0; i < w->n; i++) {
		size_t lo, hi;

		selected(&w->r[i], o, &lo, &hi);
		if (hi == lo)
			continue;
		start[np] = ny;
		cell[np++] = w->r[i].arm;
		for (size_t j = lo; j < hi; j++)
			y[ny++] = w->r[i].t[j];
	}
	start[np] = ny;
	if (calib_vardecomp(&(struct calib_var_input){y, start, cell, np, narms}, &v) != 0) {
		fprintf(stderr, "vardecomp: %s: too few runs or reps to decompose\n", wl);
		goto out;
	}
	pairing(w, o, narms, nrounds, &vp, &vu, &pairs);
	costs(w, o, &rep_s, &proc_s);
	persistent(w, o, &fp, &nfp);
	printf("workload=%s processes=%zu reps=%.2f within_sd=%.4f between_sd=%.4f moment_sd=%.4f "
	       "process_sd=%.4f rep_rho=%.3f paired_sd=%.4f unpaired_sd=%.4f pairs=%zu rep_s=%.4f "
	       "process_s=%.4f best_reps=%.2f persistent_fp=%zu/%zu\n",
	       wl, v.nproc, v.reps, sqrt(v.within), sqrt(v.between), sqrt(v.moment),
	       sqrt(v.process), v.rep_rho, sqrt(vp), sqrt(vu), pairs, rep_s, proc_s,
	       calib_var_best_reps(&v, proc_s, rep_s), fp, nfp);
	rc = 0;
out:
	free(y);
	free(start);
	free(cell);
	return rc;
}

/* Mean of ln t_j minus the run's mean of its last 3 reps, per rep index, over the runs of arm a
 * with the most reps. */
static void profile(const char *wl, const char *arm, const struct wl_runs *w, size_t a)
{
	double sum[VD_MAX_REPS] = {0};
	size_t most = 0, n = 0;

	for (size_t i = 0; i < w->n; i++)
		if (w->r[i].arm == a && w->r[i].nreps > most)
			most = w->r[i].nreps;
	if (most < 4)
		return;
	for (size_t i = 0; i < w->n; i++) {
		const struct run *r = &w->r[i];
		double late;

		if (r->arm != a || r->nreps != most)
			continue;
		late = mean_of(r->t + most - 3, 3);
		for (size_t j = 0; j < most; j++)
			sum[j] += r->t[j] - late;
		n++;
	}
	printf("profile workload=%s arm=%s runs=%zu", wl, arm, n);
	for (size_t j = 0; j < most; j++)
		printf(" rep%zu=%+.1f%%", j, expm1(sum[j] / (double)n) * 100);
	printf("\n");
}

/* ---- designs replayed on the runs (--designs) ---- */

enum dkind { D_FIXED, D_FIXED_ONE, D_AUTO };

struct design {
	char name[32];
	enum dkind kind;
	size_t k;                /* D_FIXED*: reps in all, the cold one included; D_AUTO: cap */
	struct steady_rule rule; /* D_AUTO */
	int rule_cpu;            /* D_AUTO: the rule judges CPU times, not wall times */
};

static double median_small(const double *x, size_t n)
{
	double v[VD_MAX_REPS];

	memcpy(v, x, n * sizeof *v);
	return median_of(v, n);
}

/* The steady log time and the cost (s) run r would have had under design d, and whether the rule
 * settled; -1 when r has too few reps to tell. */
static int replay(const struct run *r, const struct design *d, double *y, double *cost,
                  int *settled)
{
	double over = r->wall_s, t[VD_MAX_REPS];
	size_t k, nsteady;

	for (size_t j = 0; j < r->nreps; j++)
		over -= r->rep_wall_s[j];
	*settled = 1;
	if (d->kind == D_AUTO) {
		size_t j;

		size_t cap = d->k && d->k < r->nreps ? d->k : r->nreps;

		for (size_t i = 1; i < cap; i++)
			t[i - 1] = d->rule_cpu ? r->rep_cpu_s[i] : r->rep_wall_s[i];
		j = cap > 1 ? steady_settled_at(t, cap - 1, &d->rule) : 0;
		*settled = j > 0;
		k = j ? j + 1 : cap;
		nsteady = k - 1 < d->rule.window ? k - 1 : d->rule.window;
	} else {
		if ((k = d->k) > r->nreps)
			return -1;
		nsteady = d->kind == D_FIXED_ONE ? 1 : k - 1 < 3 ? k - 1 : 3;
	}
	if (nsteady == 0)
		nsteady = 1; /* one rep: the cold one is all there is */
	*y = median_small(r->t + k - nsteady, nsteady);
	*cost = over;
	for (size_t j = 0; j < k; j++)
		*cost += r->rep_wall_s[j];
	return 0;
}

/* One line per design: the sd of the paired log ratio against arm 0 (pooled over the arms), the
 * mean cost of a run (s), the half-width a comparison of two arms would have after one minute
 * of runs of that design (signed-rank efficiency 3/pi, z 1.96), the bias of the log ratio
 * against the late steady time (the median of each run's last 3 reps) and the share of runs the
 * rule left unsettled. */
static void design_line(const char *wl, const struct wl_runs *w, const struct design *d,
                        size_t narms, size_t nrounds)
{
	double *m = malloc(nrounds * narms * sizeof *m), *dd = malloc(nrounds * sizeof *dd);
	double bias[VD_MAX_ARMS] = {0}, cost = 0, var = 0, bias_d = 0;
	size_t nb[VD_MAX_ARMS] = {0}, nrun = 0, unsettled = 0, used = 0;

	if (!m || !dd)
		goto out;
	for (size_t i = 0; i < nrounds * narms; i++)
		m[i] = NAN;
	for (size_t i = 0; i < w->n; i++) {
		const struct run *r = &w->r[i];
		double y, c;
		int settled;

		if (r->nreps < 4 || replay(r, d, &y, &c, &settled) != 0)
			continue;
		m[r->round * narms + r->arm] = y;
		bias[r->arm] += y - median_small(r->t + r->nreps - 3, 3);
		nb[r->arm]++;
		cost += c;
		nrun++;
		unsettled += !settled;
	}
	for (size_t a = 1; a < narms; a++) {
		size_t n = 0;

		for (size_t r = 0; r < nrounds; r++)
			if (!isnan(m[r * narms]) && !isnan(m[r * narms + a]))
				dd[n++] = m[r * narms + a] - m[r * narms];
		if (n < 3 || !nb[0] || !nb[a])
			continue;
		var += var_of(dd, n);
		bias_d += bias[a] / (double)nb[a] - bias[0] / (double)nb[0];
		used++;
	}
	if (!used || !nrun)
		goto out;
	var /= (double)used;
	cost /= (double)nrun;
	printf("design workload=%s name=%s sd=%.4f cost_s=%.3f hw1min=%.2f%% bias_d=%+.2f%% "
	       "unsettled=%.0f%%\n",
	       wl, d->name, sqrt(var), cost,
	       expm1(1.96 * sqrt(var) / sqrt(60 / (2 * cost) * 3 / M_PI)) * 100,
	       expm1(bias_d / (double)used) * 100, 100.0 * (double)unsettled / (double)nrun);
out:
	free(m);
	free(dd);
}

/* The steady rules replayed: the default, a window of 2, and caps on the reps in all. */
static const struct {
	const char *name;
	size_t window, cap;
	int cpu;
} auto_designs[] = {
    {"auto", 3, 0, 0},     {"auto-w2", 2, 0, 0},     {"auto-cap8", 3, 8, 0},
    {"auto-cap6", 3, 6, 0}, {"auto-cpu", 3, 0, 1}, {"auto-cpu-cap8", 3, 8, 1},
};

static void designs(const char *wl, const struct wl_runs *w, size_t narms, size_t nrounds)
{
	struct design d;
	size_t most = 0;

	for (size_t i = 0; i < w->n; i++)
		most = w->r[i].nreps > most ? w->r[i].nreps : most;
	for (size_t i = 0; i < sizeof auto_designs / sizeof *auto_designs; i++) {
		d = (struct design){.kind = D_AUTO,
		                    .k = auto_designs[i].cap,
		                    .rule = {auto_designs[i].window, auto_designs[i].window,
		                             STEADY_TOL},
		                    .rule_cpu = auto_designs[i].cpu};
		snprintf(d.name, sizeof d.name, "%s", auto_designs[i].name);
		design_line(wl, w, &d, narms, nrounds);
	}
	for (size_t k = 1; k <= most; k++) {
		d = (struct design){.kind = D_FIXED, .k = k};
		snprintf(d.name, sizeof d.name, "reps%zu", k);
		design_line(wl, w, &d, narms, nrounds);
		if (k < 3)
			continue;
		d.kind = D_FIXED_ONE;
		snprintf(d.name, sizeof d.name, "reps%zu-last", k);
		design_line(wl, w, &d, narms, nrounds);
	}
}

static int add_run(struct wl_runs *w, const struct run *r)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct run *nr = realloc(w->r, cap * sizeof *nr);

		if (!nr)
			return -1;
		w->r = nr;
		w->cap = cap;
	}
	w->r[w->n++] = *r;
	return 0;
}

/* Every ok run of the measured rounds, by workload, in the order run. */
static int collect(const cJSON *doc, const struct opts *o, struct wl_runs *wls, size_t nwl,
                   const cJSON *arms, const cJSON *wlnames, size_t *nrounds)
{
	const cJSON *round, *run;

	*nrounds = 0;
	cJSON_ArrayForEach(round, cJSON_GetObjectItem(doc, "rounds"))
	{
		if (cJSON_IsTrue(cJSON_GetObjectItem(round, "warmup")))
			continue;
		cJSON_ArrayForEach(run, cJSON_GetObjectItem(round, "runs"))
		{
			const cJSON *st = cJSON_GetObjectItem(run, "status");
			const cJSON *an = cJSON_GetObjectItem(run, "arm");
			const cJSON *wn = cJSON_GetObjectItem(run, "workload");
			int a = cJSON_IsString(an) ? name_index(arms, an->valuestring) : -1;
			int wi = cJSON_IsString(wn) ? name_index(wlnames, wn->valuestring) : -1;
			struct run r = {.round = *nrounds};

			if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok") != 0 || a < 0 ||
			    wi < 0 || (size_t)wi >= nwl)
				continue;
			r.arm = (size_t)a;
			if (read_run(run, o, &r) == 0 && add_run(&wls[wi], &r) != 0)
				return -1;
		}
		(*nrounds)++;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){.from = -1, .count = -1};
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cpu") == 0)
			o->cpu = 1;
		else if (strcmp(argv[i], "--designs") == 0)
			o->designs = 1;
		else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
			o->from = atol(argv[++i]);
		else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc)
			o->count = atol(argv[++i]);
		else if (!o->path && argv[i][0] != '-')
			o->path = argv[i];
		else
			return -1;
	}
	return o->path && o->from >= -1 && o->count >= -1 && o->count != 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct opts o;
	enum jl_why why;
	char err[1024];
	cJSON *doc, *cfg, *arms, *wlnames;
	struct wl_runs *wls;
	size_t nwl, narms, nrounds, done = 0;

	if (parse_args(argc, argv, &o) != 0) {
		fprintf(stderr, "usage: vardecomp [--cpu] [--from K] [--count N] RESULTS.json\n");
		return 2;
	}
	if (!(doc = jl_load(o.path, &why, err, sizeof err))) {
		fprintf(stderr, "vardecomp: %s\n", err);
		return 2;
	}
	cfg = cJSON_GetObjectItem(doc, "config");
	arms = cJSON_GetObjectItem(cfg, "arms");
	wlnames = cJSON_GetObjectItem(cfg, "workloads");
	nwl = (size_t)cJSON_GetArraySize(wlnames);
	narms = (size_t)cJSON_GetArraySize(arms);
	if (nwl == 0 || narms == 0 || narms > VD_MAX_ARMS || !(wls = calloc(nwl, sizeof *wls))) {
		fprintf(stderr, "vardecomp: %s: no arms or workloads (or too many arms)\n", o.path);
		cJSON_Delete(doc);
		return 2;
	}
	if (collect(doc, &o, wls, nwl, arms, wlnames, &nrounds) != 0) {
		fprintf(stderr, "vardecomp: out of memory\n");
		return 2;
	}
	for (size_t w = 0; w < nwl; w++)
		done += decompose(cJSON_GetArrayItem(wlnames, (int)w)->valuestring, &wls[w], &o,
		                  narms, nrounds) == 0;
	for (size_t w = 0; o.designs && w < nwl; w++)
		designs(cJSON_GetArrayItem(wlnames, (int)w)->valuestring, &wls[w], narms, nrounds);
	for (size_t w = 0; w < nwl; w++)
		for (size_t a = 0; a < narms; a++)
			profile(cJSON_GetArrayItem(wlnames, (int)w)->valuestring,
			        cJSON_GetArrayItem(arms, (int)a)->valuestring, &wls[w], a);
	for (size_t w = 0; w < nwl; w++)
		free(wls[w].r);
	free(wls);
	cJSON_Delete(doc);
	return done ? 0 : 1;
}
