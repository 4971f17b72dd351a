/* attrib.c - what a comparison's difference is made of (compare.h, docs/methodology.md, "What a
 * difference is made of"): per round the paired difference of the compared time, cand - base in
 * ns, split into user time, system time and the rest (the compared time minus user and system:
 * the residual of the medians for CPU time, the time off the CPU for wall time), so the parts add
 * up to the total in every round exactly. Each part's Hodges-Lehmann estimate and signed-rank
 * interval are taken like the total's; their sum need not equal the total's estimate, so it is
 * checked against the total's interval. Minor faults per rep: the HL of the paired differences
 * of the counts. Two files: the same with the two-sample HL shift, per run. */
#include "front/compare/cmpint.h"

#include "front/stats/stats.h"

#include <math.h>
#include <stdlib.h>

static const char *const part_names[CMP_NPARTS] = {"user", "sys", "rest"};

const char *cmp_part_name(enum cmp_part p)
{
	return (unsigned)p < CMP_NPARTS ? part_names[p] : "?";
}

/* What attrib takes from one run: the compared time, its parts, faults per rep. */
enum { V_TOTAL, V_USER, V_SYS, V_REST, V_MINFLT, V_MAJFLT, V_NIVCSW, NV };

static int run_values(const struct rf_doc *d, const struct rf_run *run, enum rf_regime g, size_t p,
                      double *v)
{
	const double *u = rf_run_usage(d, run, g, p);

	if (!run->ok || !(run->t_regime[g][p] > 0) || isnan(u[RF_USER_NS]) || isnan(u[RF_SYS_NS]) ||
	    isnan(u[RF_MINFLT]))
		return 0;
	v[V_TOTAL] = run->t_regime[g][p];
	v[V_USER] = u[RF_USER_NS];
	v[V_SYS] = u[RF_SYS_NS];
	v[V_REST] = v[V_TOTAL] - v[V_USER] - v[V_SYS];
	v[V_MINFLT] = u[RF_MINFLT];
	v[V_MAJFLT] = isnan(u[RF_MAJFLT]) ? 0 : u[RF_MAJFLT];
	v[V_NIVCSW] = u[RF_NIVCSW];
	return 1;
}

static double median_of(double *v, size_t n)
{
	return n ? stats_median(v, n) : NAN;
}

/* x: NV series of n values each (paired: differences; else base values), y: the candidate's (m
 * values; NULL when paired). */
static int estimate(struct cmp_attrib *a, double *x, size_t n, double *y, size_t m, double conf)
{
	struct stats_interval *dst[] = {&a->total, &a->part[CMP_PART_USER],
	                                &a->part[CMP_PART_SYS], &a->part[CMP_PART_REST], &a->minflt};

	for (size_t k = 0; k < sizeof dst / sizeof dst[0]; k++) {
		int rc = y ? stats_hl_shift_interval(x + k * n, n, y + k * m, m, conf, dst[k])
		           : stats_hl_interval(x + k * n, n, conf, dst[k]);
		if (rc != 0)
			return -1;
	}
	a->parts_sum = 0;
	for (int k = 0; k < CMP_NPARTS; k++)
		a->parts_sum += a->part[k].est;
	a->adds_up = a->parts_sum >= a->total.lo && a->parts_sum <= a->total.hi;
	for (int k = 0; k < CMP_NPARTS; k++)
		a->share[k] = a->total.est != 0 ? a->part[k].est / a->total.est : NAN;
	a->usable = 1;
	return 0;
}

/* The per-side medians of the counts per rep. */
static void sides(struct cmp_attrib *a, double *sb, double *sc, size_t nb, size_t nc)
{
	a->minflt_base = median_of(sb + V_MINFLT * nb, nb);
	a->minflt_cand = median_of(sc + V_MINFLT * nc, nc);
	a->majflt_base = median_of(sb + V_MAJFLT * nb, nb);
	a->majflt_cand = median_of(sc + V_MAJFLT * nc, nc);
	a->sys_base = median_of(sb + V_SYS * nb, nb);
	a->sys_cand = median_of(sc + V_SYS * nc, nc);
	a->user_base = median_of(sb + V_USER * nb, nb);
	a->user_cand = median_of(sc + V_USER * nc, nc);
}

/* Collects the values of at's runs, regime g, into out[k * cap + i]. */
static size_t collect(const struct cmp_at *at, enum rf_regime g, double *out, size_t cap)
{
	size_t n = 0;
	double v[NV];

	for (size_t i = 0; i < at->doc->nrounds; i++)
		if (run_values(at->doc, rf_run(at->doc, i, at->arm, at->w), g, at->p, v)) {
			for (int k = 0; k < NV; k++)
				out[k * cap + n] = v[k];
			n++;
		}
	return n;
}

static void compact(double *x, size_t cap, size_t n)
{
	for (int k = 1; k < NV; k++)
		for (size_t i = 0; i < n; i++)
			x[k * n + i] = x[k * cap + i];
}

/* One file: arm ca against base (of r->base), rounds paired. */
static int paired(const struct cmp_report *r, struct cmp_attrib *a, const struct cmp_at *base,
                  size_t ca, double *buf, size_t cap)
{
	const struct rf_doc *d = base->doc;
	const size_t w = base->w, p = base->p, ba = base->arm;
	double *x = buf, *sb = buf + NV * cap, *sc = buf + 2 * NV * cap, vb[NV], vc[NV];
	size_t n = 0;

	for (size_t i = 0; i < d->nrounds; i++) {
		if (!run_values(d, rf_run(d, i, ba, w), a->row->regime, p, vb) ||
		    !run_values(d, rf_run(d, i, ca, w), a->row->regime, p, vc))
			continue;
		for (int k = 0; k < NV; k++) {
			x[k * cap + n] = vc[k] - vb[k];
			sb[k * cap + n] = vb[k];
			sc[k * cap + n] = vc[k];
		}
		n++;
	}
	a->n = n;
	if (n < 2)
		return 0;
	compact(x, cap, n);
	compact(sb, cap, n);
	compact(sc, cap, n);
	sides(a, sb, sc, n, n);
	return estimate(a, x, n, NULL, 0, cmp_row_family_conf(r, a->row));
}

static int unpaired(const struct cmp_report *r, struct cmp_attrib *a, size_t p, double *buf,
                    size_t cap)
{
	int ab = rf_arm(r->base, a->row->baseline), ac = rf_arm(r->cand, a->row->candidate);
	int wb = rf_workload(r->base, a->row->workload), wc = rf_workload(r->cand, a->row->workload);
	double *sb = buf, *sc = buf + NV * cap;
	size_t nb, nc;

	if (ab < 0 || ac < 0 || wb < 0 || wc < 0)
		return 0;
	const struct cmp_at base = {r->base, (size_t)ab, (size_t)wb, p};
	const struct cmp_at cand = {r->cand, (size_t)ac, (size_t)wc, p};
	nb = collect(&base, a->row->regime, sb, cap);
	nc = collect(&cand, a->row->regime, sc, cap);
	a->n = nb < nc ? nb : nc;
	if (nb < 2 || nc < 2)
		return 0;
	compact(sb, cap, nb);
	compact(sc, cap, nc);
	sides(a, sb, sc, nb, nc);
	return estimate(a, sb, nb, sc, nc, cmp_row_family_conf(r, a->row));
}

static void set_na(struct cmp_attrib *a, const struct cmp_row *row)
{
	struct stats_interval na = {NAN, NAN, NAN, NAN};

	*a = (struct cmp_attrib){.row = row, .total = na, .minflt = na, .parts_sum = NAN};
	for (int k = 0; k < CMP_NPARTS; k++) {
		a->part[k] = na;
		a->share[k] = NAN;
	}
	a->minflt_base = a->minflt_cand = a->majflt_base = a->majflt_cand = NAN;
	a->sys_base = a->sys_cand = a->user_base = a->user_cand = NAN;
}

int cmp_attribs(const struct cmp_report *r, struct cmp_attrib **out)
{
	size_t cap = r->base->nrounds;
	double *buf;
	struct cmp_attrib *a;

	if (r->cand && r->cand->nrounds > cap)
		cap = r->cand->nrounds;
	*out = NULL;
	a = calloc(r->nrows ? r->nrows : 1, sizeof *a);
	buf = malloc((3 * NV * cap + 1) * sizeof *buf);
	if (!a || !buf) {
		free(a);
		free(buf);
		return -1;
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		int w = row->workload ? rf_workload(r->base, row->workload) : -1;
		int p = w >= 0 ? rf_phase(&r->base->wl[w], row->phase) : -1;
		int rc = 0;
		set_na(&a[i], row);
		if (w < 0 || p < 0)
			continue;
		a[i].cpu = r->base->wl[w].time == RF_TIME_CPU;
		if (r->paired) {
			int ba = rf_arm(r->base, row->baseline), ca = rf_arm(r->base, row->candidate);
			const struct cmp_at base = {r->base, (size_t)ba, (size_t)w, (size_t)p};
			if (ba >= 0 && ca >= 0)
				rc = paired(r, &a[i], &base, (size_t)ca, buf, cap);
		} else {
			rc = unpaired(r, &a[i], (size_t)p, buf, cap);
		}
		if (rc != 0) {
			free(a);
			free(buf);
			return -1;
		}
	}
	free(buf);
	*out = a;
	return 0;
}

void cmp_attribs_free(struct cmp_attrib *a)
{
	free(a);
}
