/* cmprow.c - the statistics of one comparison row (compare.h, docs/methodology.md): paired
 * log ratios with Hodges-Lehmann, signed-rank (or bootstrap) interval and Wilcoxon p; two files
 * with the Hodges-Lehmann shift and Mann-Whitney; the geometric mean over workloads; drift; the
 * sequential interval when a plan is given. Intervals at the level of the row's family
 * (cmp_row_family_conf) and per comparison. */
#include "front/compare/cmpint.h"

#include "front/stats/stats.h"

#include <float.h>
#include <math.h>
#include <string.h>

void cmp_row_set_na(struct cmp_row *row)
{
	struct stats_interval na = {NAN, NAN, NAN, NAN};

	row->d = row->d_rank = row->d_boot = row->d_each = row->d_seq = na;
	row->seq_asked = 1;
	row->sd = row->p = row->p_adj = row->drift_rho = row->drift_p = NAN;
	row->equiv_pct = NAN;
	row->med_base_ns = row->med_cand_ns = row->rss_ratio = NAN;
	row->retained_base = row->retained_cand = row->peak_base_kib = row->peak_cand_kib = NAN;
	row->rss_first_base = row->rss_first_cand = row->rss_last_base = row->rss_last_cand = NAN;
	row->growth_base = row->growth_cand = NAN;
	row->processes_base = row->processes_cand = row->calls_base = row->calls_cand = NAN;
	for (int g = 0; g < RF_NREGIMES; g++)
		row->med_regime_base[g] = row->med_regime_cand[g] = NAN;
	row->floor_pct = NAN;
	row->verdict = CMP_INSUFFICIENT;
}

/* The signed-rank interval of a's n values at row's family level and at conf (once when equal). */
static int rank_levels(struct cmp_builder *b, struct cmp_row *row, size_t n)
{
	double fam = cmp_row_family_conf(b->r, row), conf = b->o->conf;

	if (stats_hl_interval(b->a, n, fam, &row->d_rank) != 0)
		return -1;
	if (fam == conf) {
		row->d_each = row->d_rank;
		return 0;
	}
	return stats_hl_interval(b->a, n, conf, &row->d_each);
}

/* Paired: a holds the n log ratios, pa their round positions. */
static enum status paired_stats(struct cmp_builder *b, struct cmp_row *row, size_t n)
{
	const struct cmp_opts *o = b->o;
	const double levels[2] = {cmp_row_family_conf(b->r, row), o->conf};
	struct stats_interval boot[2];
	double w;

	row->n = n;
	if (b->counting || n < 2) {
		row->usable = b->counting && n >= 2;
		return 0;
	}
	if (rank_levels(b, row, n) != 0 || stats_wilcoxon(b->a, n, &w, &row->p) != 0 ||
	    stats_spearman(b->pa, b->a, n, &row->drift_rho, &row->drift_p) != 0)
		return ST_FAIL;
	row->d = row->d_rank;
	if (o->bootstrap) {
		const struct stats_resampling rs = {stats_hl_estimate, o->bootstrap, o->seed};
		if (stats_bootstrap_levels(b->a, n, &rs, levels, 2, boot) != 0)
			return ST_FAIL;
		row->has_boot = 1;
		row->d = row->d_boot = boot[0];
		row->d_each = boot[1];
	}
	if (o->seq) {
		if (stats_seq_interval(b->a, n, o->seq, 1 - levels[0], &row->d_seq,
		                       &row->seq_asked) != 0)
			return ST_FAIL;
		row->has_seq = 1;
		if (o->seq_shown)
			row->d = row->d_seq;
	}
	row->sd = stats_sd(b->a, n);
	row->drift = row->drift_p < CMP_DRIFT_P;
	row->usable = 1;
	return 0;
}

/* Two files, with a plan: the new file's nc rounds of its N against the old file's nb, the
 * information of a two-sample shift being 1 / (1/nb + 1/nc). */
static int seq_shift(struct cmp_builder *bd, struct cmp_row *row, size_t nb, size_t nc)
{
	const struct stats_seq_plan *p = bd->o->seq;
	double a = 0;

	if (nc >= p->first_look && nc <= p->planned)
		a = stats_seq_alpha_at((1 / (double)nb + 1 / (double)p->planned) /
		                           (1 / (double)nb + 1 / (double)nc),
		                       1 - cmp_row_family_conf(bd->r, row));
	row->seq_asked = a > 0 ? 1 - a : 1;
	row->has_seq = 1;
	return stats_hl_shift_interval(bd->a, nb, bd->b, nc, fmin(row->seq_asked, 1 - DBL_EPSILON),
	                               &row->d_seq);
}

/* Two files: a (nb values, positions pa) from the baseline, b (nc, pb) from the candidate. */
static enum status unpaired_stats(struct cmp_builder *bd, struct cmp_row *row, size_t nb, size_t nc)
{
	double u, rho, p;

	const double fam = cmp_row_family_conf(bd->r, row), conf = bd->o->conf;

	row->n_base = nb;
	row->n_cand = nc;
	row->n = nb < nc ? nb : nc;
	if (bd->counting || nb < 2 || nc < 2) {
		row->usable = bd->counting && nb >= 2 && nc >= 2;
		return 0;
	}
	if (stats_hl_shift_interval(bd->a, nb, bd->b, nc, fam, &row->d_rank) != 0 ||
	    stats_hl_shift_interval(bd->a, nb, bd->b, nc, conf, &row->d_each) != 0 ||
	    (bd->o->seq && seq_shift(bd, row, nb, nc) != 0) ||
	    stats_mann_whitney(bd->a, nb, bd->b, nc, &u, &row->p) != 0 ||
	    stats_spearman(bd->pa, bd->a, nb, &row->drift_rho, &row->drift_p) != 0 ||
	    stats_spearman(bd->pb, bd->b, nc, &rho, &p) != 0)
		return ST_FAIL;
	if (p < row->drift_p) {
		row->drift_rho = rho;
		row->drift_p = p;
	}
	row->d = row->d_rank;
	row->drift = row->drift_p < CMP_DRIFT_P;
	row->usable = 1;
	return 0;
}

enum status cmp_row_paired(struct cmp_builder *b, struct cmp_row *row, const struct cmp_at *base,
                           const struct cmp_at *cand)
{
	const struct rf_doc *doc = base->doc;
	const size_t w = base->w, p = base->p, ba = base->arm, ca = cand->arm;
	size_t n = 0, nr = 0;

	if (!b->counting)
		cmp_row_sides(b, row, base, cand);
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
		b->a[n++] = stats_log_ratio(tc, tb);
	}
	row->rss_ratio = cmp_median(b->rss, nr);
	row->rss_n = nr;
	return paired_stats(b, row, n);
}

/* The log times of at's ok runs into b's scratch (second: b and pb, else a and pa), and their
 * round positions; adds the spiked ones to *flagged. */
static size_t log_times(struct cmp_builder *b, const struct cmp_at *at, int second, size_t *flagged)
{
	double *out = second ? b->b : b->a, *pos = second ? b->pb : b->pa;
	size_t n = 0;

	for (size_t i = 0; i < at->doc->nrounds; i++) {
		const struct rf_run *run = rf_run(at->doc, i, at->arm, at->w);
		if (!run->ok || !(run->t_regime[b->g][at->p] > 0))
			continue;
		*flagged += noise_spiked(b->r->flags, b->r->nflags, at->doc, i, at->arm, at->w);
		pos[n] = (double)i;
		out[n++] = log(run->t_regime[b->g][at->p]);
	}
	return n;
}

enum status cmp_row_unpaired(struct cmp_builder *b, struct cmp_row *row, const struct cmp_at *base,
                             const struct cmp_at *cand)
{
	size_t nb, nc;

	if (!b->counting)
		cmp_row_sides(b, row, base, cand);
	row->rss_ratio = row->peak_cand_kib / row->peak_base_kib;
	nb = log_times(b, base, 0, &row->flagged);
	nc = log_times(b, cand, 1, &row->flagged);
	row->rss_n = nb < nc ? nb : nc;
	return unpaired_stats(b, row, nb, nc);
}

/* Per round, the mean over the set's workloads of doc of the log time of one arm (arm ==
 * base_arm) or of its log ratio to base_arm, regime b->g, into b's scratch (second: b and pb,
 * else a and pa); rounds where any run failed are skipped. */
static size_t gm_series(struct cmp_builder *b, const struct rf_doc *doc, const struct cmp_gm_set *s,
                        size_t arm, size_t base_arm, int second)
{
	double *out = second ? b->b : b->a, *pos = second ? b->pb : b->pa;
	const enum rf_regime g = b->g;
	const int ratio = arm != base_arm;
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
			sum += ratio ? stats_log_ratio(tc, tb) : log(tc);
		}
		if (k < s->n)
			continue;
		pos[n] = (double)i;
		out[n++] = sum / (double)s->n;
	}
	return n;
}

enum status cmp_row_geomean(struct cmp_builder *b, struct cmp_row *row, const struct cmp_gm_set *sb,
                            const struct cmp_gm_set *sc, size_t ab, size_t ac)
{
	const struct cmp_report *r = b->r;
	size_t nb, nc;

	if (r->paired) {
		row->n_base = gm_series(b, r->base, sb, ab, ab, 1);
		row->n_cand = gm_series(b, r->base, sb, ac, ac, 1);
		return paired_stats(b, row, gm_series(b, r->base, sb, ac, ab, 0));
	}
	nb = gm_series(b, r->base, sb, ab, ab, 0);
	nc = gm_series(b, r->cand, sc, ac, ac, 1);
	return unpaired_stats(b, row, nb, nc);
}
