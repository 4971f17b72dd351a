/* cmpsolo.c - a shared-CPU bench checked against its solo anchor rounds (compare.h, struct
 * cmp_solo; docs/methodology.md, "Solo anchor rounds"): its rows built from the shared rounds,
 * each workload row tested against the same row of the solo rounds at its family's level, the
 * solo rounds' row reported where they disagree, with the mechanism the runs' records point to;
 * and what the records say of any shared-CPU bench: threads serialised or fewer when pinned,
 * arms that ran part of their runs alone. */
#include "front/compare/cmpint.h"

#include "common/errmsg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An arm that ran more than this share of its wall time alone in a shared round is named. */
#define SOLO_ALONE_SHARE 0.10

/* Where a workload row's figures are in a view: its workload w, phase p, regime g, and its arms,
 * arm[0] the candidate and arm[1] the baseline. */
struct cell {
	size_t w, p, arm[2];
	enum rf_regime g;
};

/* The cell of a workload row in d. Returns 0, or -1 when a name is not in d. */
static int row_idx(const struct rf_doc *d, const struct cmp_row *row, struct cell *at)
{
	int wi = rf_workload(d, row->workload), c = rf_arm(d, row->candidate),
	    b = rf_arm(d, row->baseline), pi;

	if (wi < 0 || c < 0 || b < 0)
		return -1;
	pi = rf_phase(&d->wl[wi], row->phase ? row->phase : "total");
	if (pi < 0)
		return -1;
	at->w = (size_t)wi, at->p = (size_t)pi, at->arm[0] = (size_t)c, at->arm[1] = (size_t)b;
	at->g = row->regime;
	return 0;
}

/* The per-round log ratios of the row at c in view v into out (room for v->nrounds). */
static size_t log_ratios(const struct rf_doc *v, const struct cell *c, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < v->nrounds; i++) {
		const struct rf_run *rb = rf_run(v, i, c->arm[1], c->w),
		                    *rc = rf_run(v, i, c->arm[0], c->w);
		double tb = rb->t_regime[c->g][c->p], tc = rc->t_regime[c->g][c->p];
		if (rb->ok && rc->ok && tb > 0 && tc > 0)
			out[n++] = stats_log_ratio(tc, tb);
	}
	return n;
}

/* A figure of the ok runs of arm c->arm[j] at c in view v (count k of its regime and phase, k < 0:
 * threads). */
static size_t figures(const struct rf_doc *v, const struct cell *c, size_t j, int k, double *out)
{
	size_t n = 0;

	for (size_t i = 0; i < v->nrounds; i++) {
		const struct rf_run *run = rf_run(v, i, c->arm[j], c->w);
		double x = !run->ok ? NAN : k < 0 ? run->threads : rf_run_usage(v, run, c->g, c->p)[k];
		if (!isnan(x))
			out[n++] = x;
	}
	return n;
}

static size_t most(const double *x, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m = x[i] > m ? x[i] : m;
	return (size_t)m;
}

/* The median share of arm's wall time on w that it ran alone in d's shared rounds (its end after
 * every other arm's), NAN without two runs of a round. */
static double alone_share(const struct rf_doc *d, size_t arm, size_t w, double *buf)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nrounds; i++) {
		double mine = rf_run(d, i, arm, w)->wall_ns, other = -1;
		if (d->round_solo && d->round_solo[i])
			continue;
		for (size_t a = 0; a < d->narms; a++) {
			const struct rf_run *r = rf_run(d, i, a, w);
			if (a != arm && r->present && r->wall_ns > other)
				other = r->wall_ns;
		}
		if (mine > 0 && other > 0)
			buf[n++] = mine > other ? (mine - other) / mine : 0;
	}
	return n ? cmp_median(buf, n) : NAN;
}

static void add(char *out, size_t len, const char *fmt, double a, double b, const char *arm)
{
	size_t k = strlen(out);

	if (k + 2 < len)
		snprintf(out + k, len - k, fmt, k ? "; " : "", arm, a, b);
}

/* The likely mechanism of a disagreement into s->mechanism, from the two views' records: threads,
 * minor faults and system time per rep, arms alone at the end of a shared round. Returns 1 when
 * one of them was seen, 0 when the text is the default (caches or the scheduler). */
static int mechanism(const struct cmp_report *r, struct cmp_solo *s, const struct cell *c,
                     double *x, double *y)
{
	const struct rf_doc *sh = r->views[0], *so = r->views[1];
	double alpha = 1 - cmp_row_family_conf(r, s->row), u, pv;
	static const int counts[] = {RF_MINFLT, RF_SYS_NS};
	static const char *const what[] = {"%s%s: minor faults per rep %.0f shared, %.0f solo (an "
	                                   "allocator timer on the wall clock, decommit or decay, "
	                                   "firing in what was steady state)",
	                                   "%s%s: system time per rep %.0f ns shared, %.0f ns solo "
	                                   "(a timer on the wall clock, or faults)"};
	char *m = s->mechanism;
	size_t len = sizeof s->mechanism;

	m[0] = '\0';
	for (int j = 0; j < 2; j++) {
		const char *name = sh->arms[c->arm[j]];
		size_t nx = figures(sh, c, (size_t)j, -1, x), ny = figures(so, c, (size_t)j, -1, y);
		if (nx && ny && most(y, ny) > most(x, nx))
			add(m, len, "%s%s started fewer threads pinned to one CPU (%.0f shared, %.0f "
			    "solo): it sizes its threads from its CPU affinity", (double)most(x, nx),
			    (double)most(y, ny), name);
		else if (nx && most(x, nx) > 0 && sh->cpu_shared)
			add(m, len, "%s%s: its threads were serialised on one CPU (%.0f shared, %.0f "
			    "solo)", (double)most(x, nx), (double)most(y, ny), name);
		for (int k = 0; k < 2; k++) {
			nx = figures(sh, c, (size_t)j, counts[k], x);
			ny = figures(so, c, (size_t)j, counts[k], y);
			if (nx < 2 || ny < 2 || stats_mann_whitney(x, nx, y, ny, &u, &pv) != 0 ||
			    !(pv < alpha))
				continue;
			add(m, len, what[k], cmp_median(x, nx), cmp_median(y, ny), name);
		}
		u = alone_share(sh, c->arm[j], c->w, x);
		if (u > SOLO_ALONE_SHARE)
			add(m, len, "%s%s ran its last %.0f%% alone (median over %.0f shared rounds)",
			    100 * u, (double)sh->nrounds, name);
	}
	if (m[0])
		return 1;
	snprintf(m, len, "no difference in threads, faults or system time: shared caches or the "
	                 "scheduler (an arm with a larger working set loses more beside others)");
	return 0;
}

/* The row of rs that is row's (the same workload, phase, regime and arms), or NULL. */
static const struct cmp_row *twin(const struct cmp_report *rs, const struct cmp_row *row)
{
	for (size_t i = 0; i < rs->nrows; i++) {
		const struct cmp_row *t = &rs->rows[i];
		if (t->workload && strcmp(t->workload, row->workload) == 0 &&
		    strcmp(t->phase ? t->phase : "", row->phase ? row->phase : "") == 0 &&
		    t->regime == row->regime && strcmp(t->candidate, row->candidate) == 0 &&
		    strcmp(t->baseline, row->baseline) == 0)
			return t;
	}
	return NULL;
}

/* The line a check adds to the report's warnings. */
static int solo_line(struct cmp_report *r, const struct cmp_solo *s)
{
	const struct cmp_row *row = s->row;
	char lv[16], few[96];

	cmp_level_text(s->ratio.level, lv, sizeof lv);
	snprintf(few, sizeof few, "too few rounds to test their agreement (%d of each placement)",
	         CMP_SOLO_MIN_ROUNDS);
	return noise_warnf(
	    &r->warn, &r->nwarn,
	    "%ssolo check: %s %s %s, %s vs %s: shared rounds %.3fx (%zu), solo rounds %.3fx (%zu); "
	    "shared/solo %.3f [%.3f, %.3f] at %s%%: %s%s%s%s",
	    s->disagree ? "WARNING: " : "", row->workload, row->phase ? row->phase : "total",
	    rf_regime_name(row->regime), row->candidate, row->baseline, cmp_speedup(s->shared.est),
	    s->n_shared, cmp_speedup(s->solo.est), s->n_solo, exp(s->ratio.est), exp(s->ratio.lo),
	    exp(s->ratio.hi), lv,
	    s->disagree  ? "they disagree, so the verdict is the solo rounds': "
	    : s->reached ? "they agree"
	                 : few,
	    s->disagree ? cmp_verdict_name(s->solo_verdict) : "",
	    s->disagree ? "; likely mechanism: " : "", s->disagree ? s->mechanism : "");
}

/* Checks every usable workload row of r (built on views[0]) against its twin in rs (views[1]),
 * replacing the rows that disagree by their twins. Returns ST_OK or ST_FAIL. */
static enum status solo_check(struct cmp_report *r, const struct cmp_report *rs)
{
	const struct rf_doc *sh = r->views[0], *so = r->views[1];
	size_t cap = sh->nrounds + so->nrounds + 1;
	struct cell c;
	int seen;
	double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
	enum status rc = x && y && (r->solo = calloc(r->nrows + 1, sizeof *r->solo)) ? ST_OK : ST_FAIL;

	for (size_t i = 0; rc == ST_OK && i < r->nrows; i++) {
		struct cmp_row *row = &r->rows[i];
		const struct cmp_row *t = row->workload && row->usable ? twin(rs, row) : NULL;
		struct cmp_solo *s = &r->solo[r->nsolo];
		if (!t || !t->usable || row_idx(sh, row, &c) != 0)
			continue;
		*s = (struct cmp_solo){.row = row, .shared = row->d, .solo = t->d,
		                       .shared_verdict = row->verdict, .solo_verdict = t->verdict};
		s->n_shared = log_ratios(sh, &c, x);
		s->n_solo = log_ratios(so, &c, y);
		if (cmp_solo_agree(x, s->n_shared, y, s->n_solo, cmp_row_family_conf(r, row), s) != 0)
			continue;
		r->nsolo++;
		seen = mechanism(r, s, &c, x, y);
		if (s->disagree) {
			enum cmp_family f = row->family;
			*row = *t;
			row->family = f;
			row->solo_decided = 1;
		}
		if (solo_line(r, s) != 0)
			rc = ST_FAIL;
		/* the signature of a mechanism where the estimates agree: a bias below what the
		 * check resolves may be there */
		if (rc == ST_OK && seen && !s->disagree &&
		    noise_warnf(&r->warn, &r->nwarn, "WARNING: solo check: %s %s %s: the estimates "
		                "agree, but the runs differ between the placements: %s", row->workload,
		                row->phase ? row->phase : "total", rf_regime_name(row->regime),
		                s->mechanism) != 0)
			rc = ST_FAIL;
	}
	free(x);
	free(y);
	return rc;
}

/* The threads of arm on w in d's rounds of one placement: the most any ok run started (-1: no
 * run recorded them). */
static double arm_threads(const struct rf_doc *d, size_t arm, size_t w, int solo)
{
	double m = -1;

	for (size_t i = 0; i < d->nrounds; i++) {
		const struct rf_run *run = rf_run(d, i, arm, w);
		if ((d->round_solo && d->round_solo[i]) == (solo != 0) && run->ok &&
		    run->threads > m)
			m = run->threads;
	}
	return m;
}

/* What the records of a shared-CPU bench say whatever its rows: no solo rounds to check it by,
 * threads serialised or fewer when pinned, arms alone at the end of their shared rounds. */
static enum status doc_warnings(struct cmp_report *r, const struct rf_doc *d)
{
	int rc = 0;
	double *buf = malloc((d->nrounds + 1) * sizeof *buf);

	if (!buf)
		return ST_FAIL;
	if (d->nsolo == 0 && d->nrounds)
		rc = noise_warnf(&r->warn, &r->nwarn,
		                 "WARNING: %s: a shared-CPU bench (%s) without solo rounds: its "
		                 "estimates are not checked against runs one after the other (bench "
		                 "--solo-share; docs/methodology.md, \"Solo anchor rounds\")",
		                 d->path, d->cpu_shared ? "--one-cpu" : "--duet");
	for (size_t w = 0; rc == 0 && w < d->nwl; w++)
		for (size_t a = 0; rc == 0 && a < d->narms; a++) {
			double sh = arm_threads(d, a, w, 0), so = arm_threads(d, a, w, 1);
			double alone = d->narms > 1 ? alone_share(d, a, w, buf) : NAN;
			if (so > sh && sh >= 0)
				rc = noise_warnf(&r->warn, &r->nwarn,
				                 "WARNING: %s: %s: %s started %.0f threads in its solo "
				                 "rounds but %.0f pinned to its CPU: it sizes its threads "
				                 "from its CPU affinity, so the shared rounds ran another "
				                 "program",
				                 d->path, d->wl[w].name, d->arms[a], so, sh);
			else if (sh > 0 && d->cpu_shared)
				rc = noise_warnf(&r->warn, &r->nwarn,
				                 "WARNING: %s: %s: %s started %.0f threads, serialised "
				                 "on one CPU in the shared rounds (--one-cpu-threads): "
				                 "not how the program runs",
				                 d->path, d->wl[w].name, d->arms[a], sh);
			if (rc == 0 && alone > SOLO_ALONE_SHARE)
				rc = noise_warnf(&r->warn, &r->nwarn,
				                 "WARNING: %s: %s: the arms of a shared round end apart: "
				                 "%s ran its last %.0f%% alone (median over the shared "
				                 "rounds), on more of the CPU than the others had",
				                 d->path, d->wl[w].name, d->arms[a], 100 * alone);
		}
	free(buf);
	return rc ? ST_FAIL : ST_OK;
}

enum status cmp_build(const struct rf_doc *base, const struct rf_doc *cand,
                      const struct cmp_opts *o, struct cmp_report **out, char *err, size_t errlen)
{
	struct cmp_report *r = NULL, *rs = NULL;
	struct rf_doc *sh, *so;
	enum status rc;
	char why[512];

	if (cand || !base->duet || base->nsolo == base->nrounds) {
		rc = cmp_build_one(base, cand, o, out, err, errlen);
		if (rc == ST_OK && ((!cand && base->duet && doc_warnings(*out, base) != ST_OK) ||
		                    (cand && (base->nsolo || cand->nsolo) &&
		                     noise_warnf(&(*out)->warn, &(*out)->nwarn,
		                                 "WARNING: two files with solo rounds: their solo and "
		                                 "shared rounds are pooled; compare each file alone "
		                                 "for the check of one against the other") != 0))) {
			cmp_free(*out);
			*out = NULL;
			rc = errmsg_status(ST_FAIL, err, errlen, "out of memory");
		}
		return rc;
	}
	sh = rf_view_placement(base, 0);
	so = rf_view_placement(base, 1);
	if (!sh || !so || (rc = cmp_build_one(sh, NULL, o, &r, err, errlen)) != ST_OK) {
		rf_view_free(sh);
		rf_view_free(so);
		return !sh || !so ? errmsg_status(ST_FAIL, err, errlen, "out of memory") : rc;
	}
	r->views[0] = sh;
	r->views[1] = so;
	r->shared_rounds = sh->nrounds;
	r->solo_rounds = so->nrounds;
	if (noise_warnf(&r->warn, &r->nwarn, "%s: a shared-CPU bench: its rows are its %zu shared "
	                "rounds; its %zu solo rounds check them", base->path, sh->nrounds,
	                so->nrounds) != 0) {
		cmp_free(r);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	if ((rc = cmp_build_one(so, NULL, o, &rs, why, sizeof why)) == ST_OK)
		rc = solo_check(r, rs);
	else if (rc == ST_USAGE)
		rc = noise_warnf(&r->warn, &r->nwarn, "WARNING: %s: its %zu solo rounds cannot be "
		                 "compared (%s): the shared rounds are unchecked", base->path,
		                 so->nrounds, why) ? ST_FAIL : ST_OK;
	cmp_free(rs);
	if (rc == ST_OK && r->nsolo == 0)
		rc = noise_warnf(&r->warn, &r->nwarn, "WARNING: %s: %zu solo rounds: too few to "
		                 "check the shared rounds against", base->path, so->nrounds)
		         ? ST_FAIL : ST_OK;
	if (rc == ST_OK)
		rc = doc_warnings(r, base);
	if (rc != ST_OK) {
		cmp_free(r);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	*out = r;
	return ST_OK;
}
