/* cmpside.c - the per-side summaries of a comparison row (compare.h): median times of each
 * regime, memory (peak, retained, resident set after the first and last rep, its growth), the
 * processes and allocation calls of probed runs, and the runs that never settled, over the ok
 * runs of each arm. */
#include "front/compare/cmpint.h"

#include <math.h>
#include <string.h>

double cmp_median(double *v, size_t n)
{
	return n ? stats_median(v, n) : NAN;
}

/* One side's figures over its ok runs (medians): the time of each regime, and (in m) memory and
 * the runs that did not settle. */
struct side {
	double med_ns, med_regime[RF_NREGIMES];
	size_t nok, unsettled; /* ok runs with a time of the phase; of them, unsettled in it */
	struct cmp_side_memo m; /* a copy: the builder keeps only the last two */
};

/* The median over the ok runs of one figure of a run (NAN figures skipped). */
static double run_median(struct cmp_builder *b, const struct cmp_at *at,
                         double (*fig)(const struct rf_run *, size_t, int), int g)
{
	size_t n = 0;

	for (size_t i = 0; i < at->doc->nrounds; i++) {
		const struct rf_run *run = rf_run(at->doc, i, at->arm, at->w);
		double v = run->ok ? fig(run, at->p, g) : NAN;
		if (!isnan(v))
			b->rss[n++] = v;
	}
	return cmp_median(b->rss, n);
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

static double fig_processes(const struct rf_run *run, size_t p, int g)
{
	(void)p, (void)g;
	return run->processes;
}

static double fig_calls(const struct rf_run *run, size_t p, int g)
{
	(void)p, (void)g;
	return run->calls;
}

/* The memo of at's arm and workload, computed when the builder does not hold it. */
static const struct cmp_side_memo *side_memo(struct cmp_builder *b, const struct cmp_at *at)
{
	const struct cmp_at any = {at->doc, at->arm, at->w, 0};
	struct cmp_side_memo *m;

	for (int k = 0; k < 2; k++)
		if (b->memo[k].doc == at->doc && b->memo[k].arm == at->arm && b->memo[k].w == at->w)
			return &b->memo[k];
	m = &b->memo[b->memo_next++ % 2];
	*m = (struct cmp_side_memo){.doc = at->doc, .arm = at->arm, .w = at->w};
	m->retained = run_median(b, &any, fig_retained, 0);
	m->peak = run_median(b, &any, fig_peak, 0);
	m->rss_first = run_median(b, &any, fig_rss, 0);
	m->rss_last = run_median(b, &any, fig_rss, 1);
	m->growth = run_median(b, &any, fig_growth, 0);
	m->processes = run_median(b, &any, fig_processes, 0);
	m->calls = run_median(b, &any, fig_calls, 0);
	return m;
}

static void side_figures(struct cmp_builder *b, const struct cmp_at *at, struct side *s)
{
	memset(s, 0, sizeof *s);
	s->m = *side_memo(b, at);
	for (size_t i = 0; i < at->doc->nrounds; i++) {
		const struct rf_run *run = rf_run(at->doc, i, at->arm, at->w);
		s->nok += run->ok && run->t_regime[b->g][at->p] > 0;
		s->unsettled += run->ok && run->settled_phase[at->p] == 0;
	}
	for (int g = 0; g < RF_NREGIMES; g++)
		s->med_regime[g] = run_median(b, at, fig_time, g);
	s->med_ns = s->med_regime[b->g];
}

static void set_sides(struct cmp_row *row, const struct side *sb, const struct side *sc)
{
	row->med_base_ns = sb->med_ns;
	row->med_cand_ns = sc->med_ns;
	row->retained_base = sb->m.retained;
	row->retained_cand = sc->m.retained;
	row->peak_base_kib = sb->m.peak;
	row->peak_cand_kib = sc->m.peak;
	memcpy(row->med_regime_base, sb->med_regime, sizeof sb->med_regime);
	memcpy(row->med_regime_cand, sc->med_regime, sizeof sc->med_regime);
	row->rss_first_base = sb->m.rss_first;
	row->rss_first_cand = sc->m.rss_first;
	row->rss_last_base = sb->m.rss_last;
	row->rss_last_cand = sc->m.rss_last;
	row->growth_base = sb->m.growth;
	row->growth_cand = sc->m.growth;
	row->processes_base = sb->m.processes;
	row->processes_cand = sc->m.processes;
	row->calls_base = sb->m.calls;
	row->calls_cand = sc->m.calls;
	row->unsettled_base = sb->unsettled;
	row->unsettled_cand = sc->unsettled;
	row->n_base = sb->nok;
	row->n_cand = sc->nok;
}

void cmp_row_sides(struct cmp_builder *b, struct cmp_row *row, const struct cmp_at *base,
                   const struct cmp_at *cand)
{
	struct side sb, sc;

	side_figures(b, base, &sb);
	side_figures(b, cand, &sc);
	set_sides(row, &sb, &sc);
}
