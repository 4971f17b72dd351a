/* compare.c - paired and two-sample comparisons of allocator arms (docs/methodology.md): per round
 * the log ratio d = ln(t_candidate / t_baseline); Hodges-Lehmann estimate, signed-rank interval (or
 * seeded bootstrap), Wilcoxon p, Holm across the report; two files fall back to the Hodges-Lehmann
 * shift with Mann-Whitney. Drift of the log ratios with round index is flagged here, telemetry
 * spikes in noise.c (docs/methodology.md, "Noise telemetry and drift"). */
#include "front/analysis/compare.h"

#include "front/analysis/logratio.h"
#include "common/errmsg.h"
#include "common/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct builder {
	struct cmp_report *r;
	const struct cmp_opts *o;
	enum rf_regime g; /* the regime of the rows being built */
	double *a, *b;    /* scratch, one value per measured round (the larger document) */
	double *pa, *pb;  /* round positions matching a and b */
	double *rss;      /* scratch for memory figures */
	size_t cap;
};

double cmp_speedup(double d)
{
	return exp(-d);
}

double cmp_improvement(double d)
{
	return (1.0 - exp(d)) * 100.0;
}

static const char *const regimes_names[] = {"both", "cold", "steady"};

int cmp_regimes_parse(const char *s, enum cmp_regimes *out)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, regimes_names[i]) == 0) {
			*out = (enum cmp_regimes)i;
			return 0;
		}
	return -1;
}

const char *cmp_regimes_name(enum cmp_regimes r)
{
	return (unsigned)r < 3 ? regimes_names[r] : "both";
}

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_FASTER:
		return "faster";
	case CMP_SLOWER:
		return "slower";
	case CMP_NO_DIFFERENCE:
		return "no detectable difference";
	case CMP_TOO_FEW:
		return "too few rounds for a verdict";
	default:
		return "insufficient data";
	}
}

const char *cmp_verdict_text(const struct cmp_row *row, char *buf, size_t len)
{
	if (row->verdict == CMP_TOO_FEW)
		snprintf(buf, len, "%s: need %zu", cmp_verdict_name(row->verdict), row->need);
	else
		snprintf(buf, len, "%s", cmp_verdict_name(row->verdict));
	return buf;
}

/* The builder's steps return 0, -1 for bad input (err set) or NO_MEMORY. */
enum { NO_MEMORY = -2 };

#define warnf(b, ...) (noise_warnf(&(b)->r->warn, &(b)->r->nwarn, __VA_ARGS__) ? NO_MEMORY : 0)

static void set_na(struct cmp_row *row)
{
	struct stats_interval na = {NAN, NAN, NAN, NAN};

	row->d = row->d_rank = row->d_boot = na;
	row->sd = row->p = row->p_holm = row->drift_rho = row->drift_p = NAN;
	row->med_base_ns = row->med_cand_ns = row->rss_ratio = NAN;
	row->retained_base = row->retained_cand = row->peak_base_kib = row->peak_cand_kib = NAN;
	row->rss_first_base = row->rss_first_cand = row->rss_last_base = row->rss_last_cand = NAN;
	row->growth_base = row->growth_cand = NAN;
	for (int g = 0; g < RF_NREGIMES; g++)
		row->med_regime_base[g] = row->med_regime_cand[g] = NAN;
	row->floor_pct = NAN;
	row->verdict = CMP_INSUFFICIENT;
}

/* Paired: a holds the n log ratios, pa their round positions. */
static int paired_stats(struct builder *b, struct cmp_row *row, size_t n)
{
	const struct cmp_opts *o = b->o;
	double w;

	row->n = n;
	if (n < 2)
		return 0;
	if (stats_hl_interval(b->a, n, o->conf, &row->d_rank) != 0 ||
	    stats_wilcoxon(b->a, n, &w, &row->p) != 0 ||
	    stats_spearman(b->pa, b->a, n, &row->drift_rho, &row->drift_p) != 0)
		return NO_MEMORY;
	row->d = row->d_rank;
	if (o->bootstrap) {
		if (stats_bootstrap(b->a, n, stats_hl_estimate, o->bootstrap, o->seed, o->conf,
		                    &row->d_boot) != 0)
			return NO_MEMORY;
		row->has_boot = 1;
		row->d = row->d_boot;
	}
	row->sd = stats_sd(b->a, n);
	row->drift = row->drift_p < CMP_DRIFT_P;
	row->usable = 1;
	return 0;
}

/* Two files: a (nb values, positions pa) from the baseline, b (nc, pb) from the candidate. */
static int unpaired_stats(struct builder *bd, struct cmp_row *row, size_t nb, size_t nc)
{
	double u, rho, p;

	row->n_base = nb;
	row->n_cand = nc;
	row->n = nb < nc ? nb : nc;
	if (nb < 2 || nc < 2)
		return 0;
	if (stats_hl_shift_interval(bd->a, nb, bd->b, nc, bd->o->conf, &row->d_rank) != 0 ||
	    stats_mann_whitney(bd->a, nb, bd->b, nc, &u, &row->p) != 0 ||
	    stats_spearman(bd->pa, bd->a, nb, &row->drift_rho, &row->drift_p) != 0 ||
	    stats_spearman(bd->pb, bd->b, nc, &rho, &p) != 0)
		return NO_MEMORY;
	if (p < row->drift_p) {
		row->drift_rho = rho;
		row->drift_p = p;
	}
	row->d = row->d_rank;
	row->drift = row->drift_p < CMP_DRIFT_P;
	row->usable = 1;
	return 0;
}

static double median_of(double *v, size_t n)
{
	return n ? stats_median(v, n) : NAN;
}

/* One side's figures over its ok runs (medians): the time of each regime, the resident set after
 * the first and the last rep and its growth, and the runs that did not settle. */
struct side {
	double med_ns, retained, peak;
	double med_regime[RF_NREGIMES], rss_first, rss_last, growth;
	size_t nok, unsettled;
};

/* The median over the ok runs of one figure of a run (NAN figures skipped). */
static double run_median(struct builder *b, const struct rf_doc *doc, size_t arm, size_t w,
                         double (*fig)(const struct rf_run *, size_t, int), size_t p, int g)
{
	size_t n = 0;

	for (size_t i = 0; i < doc->nrounds; i++) {
		const struct rf_run *run = rf_run(doc, i, arm, w);
		double v = run->ok ? fig(run, p, g) : NAN;
		if (!isnan(v))
			b->rss[n++] = v;
	}
	return median_of(b->rss, n);
}

static double fig_time(const struct rf_run *run, size_t p, int g)
{
	return run->t_regime[g][p];
}

static double fig_rss(const struct rf_run *run, size_t p, int last)
{
	(void)p;
	return last ? run->rss_last : run->rss_first;
}

static double fig_growth(const struct rf_run *run, size_t p, int g)
{
	(void)p, (void)g;
	return run->rss_last - run->rss_first;
}

static double fig_retained(const struct rf_run *run, size_t p, int g)
{
	(void)p, (void)g;
	return isfinite(run->retained_bytes) ? run->retained_bytes : NAN;
}

static double fig_peak(const struct rf_run *run, size_t p, int g)
{
	(void)p, (void)g;
	return run->max_rss_kib > 0 ? run->max_rss_kib : NAN;
}

static void side_figures(struct builder *b, const struct rf_doc *doc, size_t arm, size_t w,
                         size_t p, struct side *s)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < doc->nrounds; i++) {
		const struct rf_run *run = rf_run(doc, i, arm, w);
		s->nok += run->ok && run->t_regime[b->g][p] > 0;
		s->unsettled += run->ok && run->settled == 0;
	}
	s->med_ns = run_median(b, doc, arm, w, fig_time, p, (int)b->g);
	for (int g = 0; g < RF_NREGIMES; g++)
		s->med_regime[g] = run_median(b, doc, arm, w, fig_time, p, g);
	s->retained = run_median(b, doc, arm, w, fig_retained, p, 0);
	s->peak = run_median(b, doc, arm, w, fig_peak, p, 0);
	s->rss_first = run_median(b, doc, arm, w, fig_rss, p, 0);
	s->rss_last = run_median(b, doc, arm, w, fig_rss, p, 1);
	s->growth = run_median(b, doc, arm, w, fig_growth, p, 0);
}

static void set_sides(struct cmp_row *row, const struct side *sb, const struct side *sc)
{
	row->med_base_ns = sb->med_ns;
	row->med_cand_ns = sc->med_ns;
	row->retained_base = sb->retained;
	row->retained_cand = sc->retained;
	row->peak_base_kib = sb->peak;
	row->peak_cand_kib = sc->peak;
	memcpy(row->med_regime_base, sb->med_regime, sizeof sb->med_regime);
	memcpy(row->med_regime_cand, sc->med_regime, sizeof sc->med_regime);
	row->rss_first_base = sb->rss_first;
	row->rss_first_cand = sc->rss_first;
	row->rss_last_base = sb->rss_last;
	row->rss_last_cand = sc->rss_last;
	row->growth_base = sb->growth;
	row->growth_cand = sc->growth;
	row->unsettled_base = sb->unsettled;
	row->unsettled_cand = sc->unsettled;
	row->n_base = sb->nok;
	row->n_cand = sc->nok;
}

static int paired_row(struct builder *b, struct cmp_row *row, size_t w, size_t p, size_t ca,
                      size_t ba)
{
	const struct rf_doc *doc = b->r->base;
	size_t n = 0, nr = 0;
	struct side sb, sc;

	side_figures(b, doc, ba, w, p, &sb);
	side_figures(b, doc, ca, w, p, &sc);
	set_sides(row, &sb, &sc);
	for (size_t i = 0; i < doc->nrounds; i++) {
		const struct rf_run *rb = rf_run(doc, i, ba, w), *rc = rf_run(doc, i, ca, w);
		const double tb = rb->t_regime[b->g][p], tc = rc->t_regime[b->g][p];
		if (!rb->ok || !rc->ok || !(tb > 0 && tc > 0))
			continue;
		if (rb->max_rss_kib > 0 && rc->max_rss_kib > 0)
			b->rss[nr++] = rc->max_rss_kib / rb->max_rss_kib;
		row->flagged += noise_spiked(b->r->flags, b->r->nflags, doc, i, ba, w) ||
		                noise_spiked(b->r->flags, b->r->nflags, doc, i, ca, w);
		b->pa[n] = (double)i;
		b->a[n++] = lr_log_ratio(tc, tb);
	}
	row->rss_ratio = median_of(b->rss, nr);
	row->rss_n = nr;
	return paired_stats(b, row, n);
}

static size_t log_times(struct builder *b, const struct rf_doc *doc, size_t arm, size_t w, size_t p,
                        double *out, double *pos, size_t *flagged)
{
	size_t n = 0;

	for (size_t i = 0; i < doc->nrounds; i++) {
		const struct rf_run *run = rf_run(doc, i, arm, w);
		if (!run->ok || !(run->t_regime[b->g][p] > 0))
			continue;
		*flagged += noise_spiked(b->r->flags, b->r->nflags, doc, i, arm, w);
		pos[n] = (double)i;
		out[n++] = log(run->t_regime[b->g][p]);
	}
	return n;
}

static int unpaired_row(struct builder *b, struct cmp_row *row, size_t wb, size_t wc, size_t p,
                        size_t ab, size_t ac)
{
	const struct cmp_report *r = b->r;
	size_t nb, nc;
	struct side sb, sc;

	side_figures(b, r->base, ab, wb, p, &sb);
	side_figures(b, r->cand, ac, wc, p, &sc);
	set_sides(row, &sb, &sc);
	row->rss_ratio = row->peak_cand_kib / row->peak_base_kib;
	nb = log_times(b, r->base, ab, wb, p, b->a, b->pa, &row->flagged);
	nc = log_times(b, r->cand, ac, wc, p, b->b, b->pb, &row->flagged);
	row->rss_n = nb < nc ? nb : nc;
	return unpaired_stats(b, row, nb, nc);
}

/* The workloads a geometric mean covers: w[k] at phase index ph[k]. */
struct gm_set {
	size_t n;
	size_t *w, *ph;
};

/* Per round, the mean over the set's workloads of the log time of one arm (two files) or of the
 * log ratio (paired, cand_arm != base_arm); rounds where any run failed are skipped. */
static size_t gm_series(const struct rf_doc *doc, const struct gm_set *s, enum rf_regime g,
                        size_t arm, int ratio, size_t base_arm, double *out, double *pos)
{
	size_t n = 0;

	for (size_t i = 0; i < doc->nrounds; i++) {
		double sum = 0;
		size_t k;
		for (k = 0; k < s->n; k++) {
			const struct rf_run *rc = rf_run(doc, i, arm, s->w[k]);
			const struct rf_run *rb = rf_run(doc, i, base_arm, s->w[k]);
			const double tc = rc->t_regime[g][s->ph[k]], tb = rb->t_regime[g][s->ph[k]];
			if (!(rc->ok && tc > 0) || (ratio && !(rb->ok && tb > 0)))
				break;
			sum += ratio ? lr_log_ratio(tc, tb) : log(tc);
		}
		if (k < s->n)
			continue;
		pos[n] = (double)i;
		out[n++] = sum / (double)s->n;
	}
	return n;
}

static int geomean_row(struct builder *b, struct cmp_row *row, const struct gm_set *sb,
                       const struct gm_set *sc, size_t ab, size_t ac)
{
	const struct cmp_report *r = b->r;
	size_t nb, nc;

	if (r->paired) {
		row->n_base = gm_series(r->base, sb, b->g, ab, 0, ab, b->b, b->pb);
		row->n_cand = gm_series(r->base, sb, b->g, ac, 0, ac, b->b, b->pb);
		return paired_stats(b, row, gm_series(r->base, sb, b->g, ac, 1, ab, b->a, b->pa));
	}
	nb = gm_series(r->base, sb, b->g, ab, 0, ab, b->a, b->pa);
	nc = gm_series(r->cand, sc, b->g, ac, 0, ac, b->b, b->pb);
	return unpaired_stats(b, row, nb, nc);
}

static int want_phase(const struct cmp_opts *o, const struct rf_workload *w, size_t p)
{
	if (o->phase)
		return strcmp(w->phases[p], o->phase) == 0;
	if (o->all_phases || w->show_phases)
		return 1;
	return strcmp(w->phases[p], "total") == 0;
}

static void join_names(char *buf, size_t len, char *const *names, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
}

static size_t common(char *const *x, size_t nx, char *const *y, size_t ny)
{
	size_t n = 0;

	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			n += strcmp(x[i], y[j]) == 0;
	return n;
}

static int check_names(const struct rf_doc *b, const struct rf_doc *c, const struct cmp_opts *o,
                       char *err, size_t errlen)
{
	char list[1024];

	if (c && o->baseline)
		return errmsg_fail(err, errlen,
		                   "--baseline applies to one results file; with two, every arm "
		                   "of the second is compared with the same arm of the first");
	if (c && o->bootstrap)
		return errmsg_fail(err, errlen,
		                   "--bootstrap needs paired rounds (one results file)");
	if (o->bootstrap && (double)o->bootstrap * (double)b->nrounds > CMP_MAX_BOOT_POINTS)
		return errmsg_fail(
		    err, errlen,
		    "--bootstrap %u over %zu rounds: resamples x rounds exceeds %.0e; "
		    "use fewer resamples or the signed-rank interval",
		    o->bootstrap, b->nrounds, CMP_MAX_BOOT_POINTS);
	if (c && common(b->arms, b->narms, c->arms, c->narms) == 0)
		return errmsg_fail(err, errlen, "%s and %s share no arm: nothing to compare",
		                   b->path, c->path);
	for (const struct rf_doc *d = b; d; d = d == c ? NULL : c) {
		if (o->candidate && rf_arm(d, o->candidate) < 0) {
			join_names(list, sizeof list, d->arms, d->narms);
			return errmsg_fail(err, errlen, "%s: unknown candidate '%s' (arms: %s)",
			                   d->path, o->candidate, list);
		}
		if (o->workload && rf_workload(d, o->workload) < 0) {
			char *names[64];
			size_t n = d->nwl < 64 ? d->nwl : 64;
			for (size_t i = 0; i < n; i++)
				names[i] = d->wl[i].name;
			join_names(list, sizeof list, names, n);
			return errmsg_fail(err, errlen, "%s: unknown workload '%s' (workloads: %s)",
			                   d->path, o->workload, list);
		}
		if (!c)
			break;
	}
	if (o->phase) {
		int found = 0;
		for (size_t w = 0; w < b->nwl && !found; w++)
			found = (!o->workload || strcmp(b->wl[w].name, o->workload) == 0) &&
			        rf_phase(&b->wl[w], o->phase) >= 0;
		if (!found)
			return errmsg_fail(err, errlen, "%s: unknown phase '%s'%s%s", b->path,
			                   o->phase, o->workload ? " of workload " : "",
			                   o->workload ? o->workload : "");
	}
	return 0;
}

static int selected(const struct cmp_opts *o, const char *wl)
{
	return !o->workload || strcmp(o->workload, wl) == 0;
}

static struct cmp_row *new_row(struct builder *b, const char *wl, const char *phase,
                               const char *cand, const char *base)
{
	struct cmp_row *row = &b->r->rows[b->r->nrows++];

	memset(row, 0, sizeof *row);
	set_na(row);
	row->workload = wl;
	row->regime = b->g;
	row->phase = phase;
	row->candidate = cand;
	row->baseline = base;
	return row;
}

/* Candidate arm indices into cand (paired: into base) and their baseline indices. */
static size_t pick_arms(const struct cmp_report *r, const struct cmp_opts *o, size_t base_arm,
                        size_t *ca, size_t *ba)
{
	const struct rf_doc *c = r->paired ? r->base : r->cand;
	size_t n = 0;

	for (size_t a = 0; a < c->narms; a++) {
		int b = r->paired ? (int)base_arm : rf_arm(r->base, c->arms[a]);
		if (b < 0 || (r->paired && a == base_arm) ||
		    (o->candidate && strcmp(o->candidate, c->arms[a]) != 0))
			continue;
		ca[n] = a;
		ba[n++] = (size_t)b;
	}
	return n;
}

/* Rows of one comparison come steady first, cold beside it. */
static const enum rf_regime regime_order[RF_NREGIMES] = {RF_STEADY, RF_COLD};

static int add_rows(struct builder *b, size_t base_arm)
{
	struct cmp_report *r = b->r;
	const struct rf_doc *c = r->paired ? r->base : r->cand;
	const char *gphase = b->o->phase ? b->o->phase : "total";
	size_t *ca = calloc(c->narms + 1, sizeof *ca), *ba = calloc(c->narms + 1, sizeof *ba);
	size_t narms = ca && ba ? pick_arms(r, b->o, base_arm, ca, ba) : 0;
	struct gm_set sb = {0}, sc = {0};
	int rc = ca && ba ? 0 : NO_MEMORY;

	sb.w = calloc(c->nwl + 1, sizeof *sb.w);
	sb.ph = calloc(c->nwl + 1, sizeof *sb.ph);
	sc.w = calloc(c->nwl + 1, sizeof *sc.w);
	sc.ph = calloc(c->nwl + 1, sizeof *sc.ph);
	if (!sb.w || !sb.ph || !sc.w || !sc.ph)
		rc = NO_MEMORY;
	for (size_t wc = 0; rc == 0 && wc < c->nwl; wc++) {
		const struct rf_workload *w = &c->wl[wc];
		int wb = r->paired ? (int)wc : rf_workload(r->base, w->name);
		if (wb < 0 || !selected(b->o, w->name))
			continue;
		for (size_t p = 0; rc == 0 && p < w->nphases; p++) {
			if (!want_phase(b->o, w, p))
				continue;
			int pb = rf_phase(&r->base->wl[wb], w->phases[p]);
			if (pb < 0)
				continue;
			if (strcmp(w->phases[p], gphase) == 0) {
				sb.w[sb.n] = (size_t)wb;
				sb.ph[sb.n++] = (size_t)pb;
				sc.w[sc.n] = wc;
				sc.ph[sc.n++] = p;
			}
			for (size_t k = 0; rc == 0 && k < narms; k++)
				for (int i = 0; rc == 0 && i < RF_NREGIMES; i++) {
					struct cmp_row *row;
					if (!r->compared[b->g = regime_order[i]])
						continue;
					row = new_row(b, w->name, w->phases[p], c->arms[ca[k]],
					              r->base->arms[ba[k]]);
					rc = r->paired ? paired_row(b, row, wc, p, ca[k], ba[k])
					               : unpaired_row(b, row, (size_t)wb, wc,
					                              (size_t)pb, ba[k], ca[k]);
				}
		}
	}
	for (size_t k = 0; rc == 0 && sb.n >= 2 && k < narms; k++)
		for (int i = 0; rc == 0 && i < RF_NREGIMES; i++) {
			struct cmp_row *row;
			if (!r->compared[b->g = regime_order[i]])
				continue;
			row = new_row(b, NULL, gphase, c->arms[ca[k]], r->base->arms[ba[k]]);
			rc = geomean_row(b, row, &sb, &sc, ba[k], ca[k]);
		}
	free(sb.w);
	free(sb.ph);
	free(sc.w);
	free(sc.ph);
	free(ca);
	free(ba);
	return rc;
}

/* Holm over the usable rows; a row left undecided whose rounds could not have decided it (n below
 * the report's rounds rule, stats.h) says so instead of "no detectable difference". */
static int decide(struct builder *b)
{
	struct cmp_report *r = b->r;
	double *p = calloc(r->nrows + 1, sizeof *p), *adj = calloc(r->nrows + 1, sizeof *adj);
	double alpha = 1.0 - r->conf;
	size_t m = 0, k = 0;

	if (!p || !adj) {
		free(p);
		free(adj);
		return NO_MEMORY;
	}
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].usable)
			p[m++] = r->rows[i].p;
	r->need = r->paired ? stats_signrank_min_n(alpha, m ? m : 1)
	                    : stats_ranksum_min_n(alpha, m ? m : 1);
	if (m && stats_holm(p, m, adj) != 0)
		m = (size_t)-1;
	for (size_t i = 0; m != (size_t)-1 && i < r->nrows; i++) {
		struct cmp_row *row = &r->rows[i];
		if (!row->usable)
			continue;
		row->p_holm = adj[k++];
		row->verdict = CMP_NO_DIFFERENCE;
		if (row->p_holm < alpha && row->d.hi < 0)
			row->verdict = CMP_FASTER;
		else if (row->p_holm < alpha && row->d.lo > 0)
			row->verdict = CMP_SLOWER;
		else if (row->n < r->need) {
			row->verdict = CMP_TOO_FEW;
			row->need = r->need;
		}
	}
	free(p);
	free(adj);
	return m == (size_t)-1 ? NO_MEMORY : 0;
}

static const char *row_name(const struct cmp_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s %s %s vs %s", row->workload ? row->workload : "geomean",
	         row->phase, rf_regime_name(row->regime), row->candidate, row->baseline);
	return buf;
}

/* Regimes left out, records without regime fields, runs that never settled. */
static int regime_warnings(struct builder *b)
{
	struct cmp_report *r = b->r;
	int rc = 0;

	for (const struct rf_doc *d = r->base; d && rc == 0; d = d == r->cand ? NULL : r->cand) {
		if (r->regimes == CMP_REGIMES_BOTH && !d->commands &&
		    !(r->compared[RF_COLD] && r->compared[RF_STEADY]) &&
		    !(d->has_regime[RF_COLD] && d->has_regime[RF_STEADY]))
			rc = warnf(b, "%s measured %s: only the %s regime is compared", d->path,
			           rf_regimes_measured(d),
			           rf_regime_name(r->compared[RF_STEADY] ? RF_STEADY : RF_COLD));
		if (rc == 0 && d->legacy_reps && d->has_regime[RF_STEADY])
			rc = warnf(
			    b,
			    "%s: records without regime fields: their first rep counts as cold, "
			    "their last (up to 3) as steady",
			    d->path);
		for (size_t a = 0; rc == 0 && r->compared[RF_STEADY] && a < d->narms; a++)
			for (size_t w = 0; rc == 0 && w < d->nwl; w++) {
				size_t n = 0, bad = 0;
				for (size_t i = 0; i < d->nrounds; i++) {
					const struct rf_run *run = rf_run(d, i, a, w);
					n += run->ok;
					bad += run->ok && run->settled == 0;
				}
				if (bad)
					rc = warnf(
					    b,
					    "%s: %s on %s: %zu of %zu runs never settled (hit "
					    "the cap of reps or time): their steady time is the "
					    "median of their last reps",
					    d->path, d->arms[a], d->wl[w].name, bad, n);
			}
		if (r->paired)
			break;
	}
	return rc;
}

/* Flagged runs of arm a of doc: each (round, workload) once, whatever number of metrics. */
static size_t flagged_runs(const struct cmp_report *r, const struct rf_doc *doc, size_t a)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nflags; i++) {
		const struct noise_flag *f = &r->flags[i];
		size_t j = 0;
		if (f->doc != doc || f->arm != a)
			continue;
		while (j < i && !(r->flags[j].doc == doc && r->flags[j].arm == a &&
		                  r->flags[j].pos == f->pos && r->flags[j].wl == f->wl))
			j++;
		n += j == i;
	}
	return n;
}

/* One line: how many runs lie beyond this bench's normal telemetry, per arm, and where the list
 * is. */
static int telemetry_warning(struct builder *b)
{
	const struct cmp_report *r = b->r;
	char per[1024] = "";
	size_t k = 0, total = 0;

	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		for (size_t a = 0; a < d->narms && k < sizeof per; a++) {
			size_t n = flagged_runs(r, d, a);
			total += n;
			k += (size_t)snprintf(per + k, sizeof per - k, "%s%s%s %zu", k ? ", " : "",
			                      d->arms[a],
			                      r->paired      ? ""
			                      : d == r->base ? " (1st file)"
			                                     : " (2nd file)",
			                      n);
		}
		if (r->paired)
			break;
	}
	return warnf(
	    b,
	    "telemetry: %zu run%s beyond this bench's normal context switches, steal or "
	    "load (Q3 + %g IQR of its own runs that had any): %s; each is listed in compare "
	    "--format "
	    "json (telemetry_flags): rerun on a quieter machine if they cluster in one arm",
	    total, total == 1 ? "" : "s", NOISE_FENCE_IQR, per);
}

static int row_warnings(struct builder *b)
{
	struct cmp_report *r = b->r;
	size_t insufficient = 0, m = 0, too_few = 0, few_n = 0;
	char name[512];
	int rc = 0;

	for (size_t i = 0; i < r->nrows; i++)
		m += r->rows[i].usable;
	for (size_t i = 0; i < r->nrows && rc == 0; i++) {
		const struct cmp_row *row = &r->rows[i];
		insufficient += !row->usable;
		if (!row->usable)
			continue;
		if (row->verdict == CMP_TOO_FEW) {
			too_few++;
			few_n = row->n;
		}
		if (rc == 0 && row->drift_p < CMP_DRIFT_P)
			rc = warnf(b,
			           "%s: %s trend with round index (Spearman rho %.2f, p %.2g < "
			           "%.2g): rounds are not exchangeable",
			           row_name(row, name, sizeof name),
			           r->paired ? "log ratios" : "log times", row->drift_rho,
			           row->drift_p, CMP_DRIFT_P);
	}
	if (rc == 0 && too_few) {
		r->verdict_warning = (long)r->nwarn;
		rc = warnf(
		    b,
		    "%zu comparison%s too few rounds for a verdict (n = %zu): %zu comparisons "
		    "at alpha %.2g need %zu %s (the smallest n with %s <= alpha/%zu); run "
		    "more rounds or compare less (--candidate, --workload, --phase)",
		    too_few, too_few == 1 ? " has" : "s have", few_n, m, 1 - r->conf, r->need,
		    r->paired ? "paired rounds" : "rounds per file",
		    r->paired ? "2/2^n" : "2/C(2n,n)", m);
	}
	if (rc == 0 && insufficient)
		rc = warnf(b, "%zu comparison%s with fewer than 2 usable rounds: insufficient data",
		           insufficient, insufficient == 1 ? "" : "s");
	if (rc == 0)
		rc = regime_warnings(b);
	if (rc == 0 && r->nflags) {
		r->telemetry_warning = (long)r->nwarn;
		rc = telemetry_warning(b);
	}
	return rc;
}

/* The regimes to compare: those asked for that both documents measured. Asking for one that a
 * document lacks is refused; with both asked, a missing one is left out (the report says so).
 * Documents without any ok run compare the cold regime, which then has insufficient data. */
static int pick_regimes(struct cmp_report *r, const struct rf_doc *base, const struct rf_doc *cand,
                        const struct cmp_opts *o, char *err, size_t errlen)
{
	int any = 0;

	r->regimes = o->regimes;
	for (int g = 0; g < RF_NREGIMES; g++) {
		int want = o->regimes == CMP_REGIMES_BOTH ||
		           (g == RF_COLD) == (o->regimes == CMP_REGIMES_COLD);
		const struct rf_doc *lacks = !base->has_regime[g]           ? base
		                             : cand && !cand->has_regime[g] ? cand
		                                                            : NULL;
		if (want && lacks && o->regimes != CMP_REGIMES_BOTH &&
		    (lacks->has_regime[RF_COLD] || lacks->has_regime[RF_STEADY]))
			return errmsg_fail(err, errlen, "%s measured %s: no %s times to compare%s",
			                   lacks->path, rf_regimes_measured(lacks),
			                   rf_regime_name(g),
			                   g == RF_STEADY ? " (rerun the bench with --reps auto, "
			                                    "the default, or use --regime cold)"
			                                  : "");
		r->compared[g] = want && !lacks;
		any |= r->compared[g];
	}
	if (!any)
		r->compared[o->regimes == CMP_REGIMES_STEADY ? RF_STEADY : RF_COLD] = 1;
	return 0;
}

int cmp_build(const struct rf_doc *base, const struct rf_doc *cand, const struct cmp_opts *o,
              struct cmp_report **out, char *err, size_t errlen)
{
	struct cmp_report *r = calloc(1, sizeof *r);
	struct builder b = {.r = r, .o = o};
	const struct rf_doc *c = cand ? cand : base;
	const char *bname = o->baseline ? o->baseline : base->commands ? base->arms[0] : "system";
	int ba = -1, rc;
	char list[1024];

	*out = NULL;
	if (!r)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	r->paired = cand == NULL;
	r->verdict_warning = -1;
	r->telemetry_warning = -1;
	r->base = base;
	r->cand = c;
	r->conf = o->conf;
	r->bootstrap = o->bootstrap;
	r->seed = o->seed;
	if ((rc = check_names(base, cand, o, err, errlen)) != 0 ||
	    (cand && (rc = rf_same_work(base, cand, err, errlen)) != 0)) {
		cmp_free(r);
		return rc == NO_MEMORY ? ST_FAIL : ST_USAGE;
	}
	if (r->paired && (ba = rf_arm(base, bname)) < 0) {
		join_names(list, sizeof list, base->arms, base->narms);
		errmsg_fail(err, errlen, "%s: baseline '%s' is not in the file (arms: %s)%s",
		            base->path, bname, list,
		            o->baseline ? "" : "; name one with --baseline");
		cmp_free(r);
		return ST_USAGE;
	}
	if (r->paired && o->candidate && strcmp(o->candidate, bname) == 0) {
		errmsg_fail(err, errlen, "candidate and baseline are both '%s'", bname);
		cmp_free(r);
		return ST_USAGE;
	}
	if (r->paired)
		r->baseline = base->arms[ba];
	if (pick_regimes(r, base, cand, o, err, errlen) != 0) {
		cmp_free(r);
		return ST_USAGE;
	}
	b.cap = 1;
	for (const struct rf_doc *d = base; d; d = d == c ? NULL : c)
		if (d->nrounds * d->narms + 1 > b.cap)
			b.cap = d->nrounds * d->narms + 1;
	b.a = calloc(b.cap, sizeof *b.a);
	b.b = calloc(b.cap, sizeof *b.b);
	b.pa = calloc(b.cap, sizeof *b.pa);
	b.pb = calloc(b.cap, sizeof *b.pb);
	b.rss = calloc(b.cap, sizeof *b.rss);
	r->rows = calloc(RF_NREGIMES * (c->nwl * RF_MAX_PHASES * c->narms + c->narms) + 1,
	                 sizeof *r->rows);
	rc = b.a && b.b && b.pa && b.pb && b.rss && r->rows ? 0 : NO_MEMORY;
	if (rc == 0 && noise_flag_spikes(base, &r->flags, &r->nflags) != 0)
		rc = NO_MEMORY;
	if (rc == 0 && cand && noise_flag_spikes(cand, &r->flags, &r->nflags) != 0)
		rc = NO_MEMORY;
	if (rc == 0)
		rc = add_rows(&b, ba < 0 ? 0 : (size_t)ba);
	if (rc == 0 && r->nrows == 0 && r->paired)
		rc = errmsg_fail(err, errlen, "%s: no arm to compare with the baseline %s",
		                 base->path, r->baseline);
	else if (rc == 0 && r->nrows == 0)
		rc = errmsg_fail(err, errlen, "%s and %s share no workload: nothing to compare",
		                 base->path, c->path);
	if (rc == 0)
		rc = decide(&b);
	if (rc == 0 && noise_doc_warnings(base, cand, &r->warn, &r->nwarn) != 0)
		rc = NO_MEMORY;
	if (rc == 0)
		rc = row_warnings(&b);
	free(b.a);
	free(b.b);
	free(b.pa);
	free(b.pb);
	free(b.rss);
	if (rc != 0) {
		if (rc == NO_MEMORY)
			snprintf(err, errlen, "out of memory");
		cmp_free(r);
		return rc == NO_MEMORY ? ST_FAIL : ST_USAGE;
	}
	*out = r;
	return ST_OK;
}

void cmp_drop_telemetry(struct cmp_report *r)
{
	long t = r->telemetry_warning;

	r->nflags = 0;
	if (t < 0)
		return;
	free(r->warn[t]);
	memmove(&r->warn[t], &r->warn[t + 1], (r->nwarn - (size_t)t - 1) * sizeof *r->warn);
	r->nwarn--;
	if (r->verdict_warning > t)
		r->verdict_warning--;
	r->telemetry_warning = -1;
}

void cmp_free(struct cmp_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nwarn; i++)
		free(r->warn[i]);
	free(r->warn);
	free(r->rows);
	free(r->flags);
	free(r);
}
