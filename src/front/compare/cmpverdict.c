/* cmpverdict.c - the report-wide pass of a comparison (compare.h): each row's verdict from its
 * family-level interval, then the warnings a reader must see (drift, too few rounds, insufficient
 * data, regimes, never-settled runs, telemetry); and the verdicts' names, levels and margins as
 * text, the families' names and levels. */
#include "front/compare/cmpint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cmp_verdict_name(enum cmp_verdict v)
{
	switch (v) {
	case CMP_FASTER:
		return "faster";
	case CMP_SLOWER:
		return "slower";
	case CMP_EQUIVALENT:
		return "equivalent";
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
	else if (row->verdict == CMP_EQUIVALENT)
		snprintf(buf, len, "equivalent within ±%g%%", row->equiv_pct);
	else if (row->equivalent)
		snprintf(buf, len, "%s, within ±%g%%", cmp_verdict_name(row->verdict),
		         row->equiv_pct);
	else
		snprintf(buf, len, "%s", cmp_verdict_name(row->verdict));
	return buf;
}

const char *cmp_level_text(double level, char *buf, size_t len)
{
	double v = 100 * level, tol = (100 - v) / 40;

	for (int prec = 3; prec <= 7; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (fabs(strtod(buf, NULL) - v) <= tol)
			break;
	}
	return buf;
}

double cmp_equiv_log(double pct)
{
	return pct > 0 ? log1p(pct / 100) : NAN;
}

double cmp_pick_equivalence(double given, const struct rf_doc *d, double dflt)
{
	return !isnan(given) ? given : d && !isnan(d->equivalence) ? d->equivalence : dflt;
}

static const char *const family_names[CMP_NFAMILIES] = {"primary", "secondary"};

const char *cmp_family_name(enum cmp_family f)
{
	return (unsigned)f < CMP_NFAMILIES ? family_names[f] : "primary";
}

const char *cmp_primary_text(const struct cmp_primary *p, char *buf, size_t len)
{
	const char *ph = p->phase[0] ? p->phase : "total";

	if (p->all)
		snprintf(buf, len, "every comparison");
	else if (p->regime >= 0)
		snprintf(buf, len, "each workload's %s, %s regime", ph,
		         rf_regime_name((enum rf_regime)p->regime));
	else
		snprintf(buf, len, "each workload's %s, steady where it has steady times, else cold",
		         ph);
	return buf;
}

double cmp_row_family_conf(const struct cmp_report *r, const struct cmp_row *row)
{
	return r->fam[row->family].conf;
}

#define warnf(b, ...) (noise_warnf(&(b)->r->warn, &(b)->r->nwarn, __VA_ARGS__) ? ST_FAIL : ST_OK)

/* A usable row's verdict: none when its interval could not reach its family's level, else where
 * the interval lies: beyond 1 either way, inside the equivalence margin, or neither. */
static enum cmp_verdict verdict_of(const struct cmp_report *r, struct cmp_row *row)
{
	double l = cmp_equiv_log(r->equivalence);
	size_t need = r->fam[row->family].need;

	/* a sequential interval decides only at its look's level (seq_asked) */
	double want = r->seq_shown && row->has_seq ? row->seq_asked : cmp_row_family_conf(r, row);

	if (row->d.level < want - 1e-9 || (r->seq_shown && row->has_seq && !(row->seq_asked < 1))) {
		/* a sequential one: its plan's last look is the first sure to ask no more */
		if (r->seq_shown && row->has_seq)
			need = r->base->seq.planned;
		row->need = need > row->n ? need : row->n + 1;
		return CMP_TOO_FEW;
	}
	row->equivalent = !isnan(l) && row->d.lo >= -l && row->d.hi <= l;
	if (row->d.hi < 0)
		return CMP_FASTER;
	if (row->d.lo > 0)
		return CMP_SLOWER;
	return row->equivalent ? CMP_EQUIVALENT : CMP_NO_DIFFERENCE;
}

int cmp_decide(struct cmp_builder *b)
{
	struct cmp_report *r = b->r;
	double alpha = 1.0 - r->conf;

	for (int f = 0; f < CMP_NFAMILIES; f++) {
		size_t m = f == CMP_FAMILY_PRIMARY ? r->family : r->fam[f].m ? r->fam[f].m : 1;
		r->fam[f].need = r->paired ? stats_signrank_min_n(alpha, m)
		                           : stats_ranksum_min_n(alpha, m);
	}
	r->need = r->fam[CMP_FAMILY_PRIMARY].need;
	for (size_t i = 0; i < r->nrows; i++) {
		struct cmp_row *row = &r->rows[i];
		size_t m = row->family == CMP_FAMILY_PRIMARY ? r->family : r->fam[row->family].m;
		row->equiv_pct = r->equivalence;
		if (!row->usable)
			continue;
		row->p_adj = fmin(1, (double)m * row->p);
		row->verdict = verdict_of(r, row);
	}
	return 0;
}

static const char *row_name(const struct cmp_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s %s %s vs %s", row->workload ? row->workload : "geomean",
	         row->phase, rf_regime_name(row->regime), row->candidate, row->baseline);
	return buf;
}

/* A phase its runs marked a different number of times: their steady halves are not the same
 * spans (docs/methodology.md, "Programs that mark their phases"). */
static int span_warnings(struct cmp_builder *b, const struct rf_doc *d)
{
	int rc = 0;

	for (size_t w = 0; w < d->nwl; w++)
		for (size_t p = 0; rc == 0 && p < d->wl[w].nphases; p++)
			if (d->wl[w].spans_lo[p] != d->wl[w].spans_hi[p])
				rc = warnf(b,
				           "%s: %s/%s: its runs marked it %u to %u times, so their "
				           "steady halves are not the same spans, and a round may "
				           "compare different work",
				           d->path, d->wl[w].name, d->wl[w].phases[p],
				           d->wl[w].spans_lo[p], d->wl[w].spans_hi[p]);
	return rc;
}

/* The per-run rate at which a phase whose steady spans do not trend is judged unsettled
 * (common/steady.h, steady_spans: two tests at 1%, about 1.3% of runs on flat noise), with room
 * for heavier tails; and the level at which more unsettled runs than that rate explains are
 * warned of. */
#define CMP_UNSETTLED_RATE  0.03
#define CMP_UNSETTLED_LEVEL 0.01

/* The fewest unsettled runs of n that CMP_UNSETTLED_RATE explains with probability at most
 * CMP_UNSETTLED_LEVEL (binomial upper tail), n + 1 when none does. */
static size_t unsettled_floor(size_t n)
{
	double p = CMP_UNSETTLED_RATE, pmf = pow(1 - p, (double)n), cdf = 0;

	for (size_t c = 0; c <= n; c++) {
		if (1 - cdf <= CMP_UNSETTLED_LEVEL)
			return c;
		cdf += pmf;
		pmf *= (double)(n - c) / (double)(c + 1) * p / (1 - p);
	}
	return n + 1;
}

/* Regimes left out, records without regime fields, runs that never settled: for a program's
 * marked phases, only more of them than flat but noisy spans explain (unsettled_floor). */
static int regime_warnings(struct cmp_builder *b)
{
	struct cmp_report *r = b->r;
	int rc = 0;

	for (const struct rf_doc *d = r->base; d && rc == 0; d = d == r->cand ? NULL : r->cand) {
		if (r->regimes == CMP_REGIMES_BOTH && rf_kind_has(d, RF_KIND_DRIVER_RECORD) &&
		    !(r->compared[RF_COLD] && r->compared[RF_STEADY]) &&
		    !(d->has_regime[RF_COLD] && d->has_regime[RF_STEADY]))
			rc = warnf(b, "%s measured %s: only the %s regime is compared", d->path,
			           rf_regimes_measured(d),
			           rf_regime_name(r->compared[RF_STEADY] ? RF_STEADY : RF_COLD));
		if (rc == 0 && r->compared[RF_STEADY])
			rc = span_warnings(b, d);
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
				if (rf_kind_has(d, RF_KIND_WHOLE_PROCESS)) {
					if (bad && bad >= unsettled_floor(n))
						rc = warnf(
						    b,
						    "%s: %s on %s: %zu of %zu run%s never "
						    "settled, more than noise explains (a "
						    "repeated phase's steady spans still trend: "
						    "docs/methodology.md, \"Programs that mark "
						    "their phases\"): their mean may hold "
						    "warm-up; mark more spans",
						    d->path, d->arms[a], d->wl[w].name, bad, n,
						    n == 1 ? "" : "s");
				} else if (bad)
					rc = warnf(
					    b,
					    "%s: %s on %s: %zu of %zu run%s never settled (the "
					    "steady rule did not hold within %s reps, fixed or "
					    "capped): %s steady time is the median of %s last reps",
					    d->path, d->arms[a], d->wl[w].name, bad, n,
					    n == 1 ? "" : "s", bad == 1 ? "its" : "their",
					    bad == 1 ? "its" : "their", bad == 1 ? "its" : "their");
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
static int telemetry_warning(struct cmp_builder *b)
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

/* What the rows' pass counts for the warnings after it. */
struct row_counts {
	size_t insufficient;           /* rows with fewer than 2 usable rounds */
	size_t too_few[CMP_NFAMILIES]; /* usable rows of each family too few for a verdict */
	size_t few_n[CMP_NFAMILIES];   /* the n of the last of them */
};

/* A warning per usable row whose times trend with the round index; counts the rows into k. */
static int drift_warnings(struct cmp_builder *b, struct row_counts *k)
{
	struct cmp_report *r = b->r;
	char name[512];
	int rc = 0;

	for (size_t i = 0; i < r->nrows && rc == 0; i++) {
		const struct cmp_row *row = &r->rows[i];
		k->insufficient += !row->usable;
		if (!row->usable)
			continue;
		if (row->verdict == CMP_TOO_FEW) {
			k->too_few[row->family]++;
			k->few_n[row->family] = row->n;
		}
		if (rc == 0 && row->drift_p < CMP_DRIFT_P)
			rc = warnf(b,
			           "%s: %s trend with round index (Spearman rho %.2f, p %.2g < "
			           "%.2g): rounds are not exchangeable",
			           row_name(row, name, sizeof name),
			           r->paired ? "log ratios" : "log times", row->drift_rho,
			           row->drift_p, CMP_DRIFT_P);
	}
	return rc;
}

/* A warning per family with rows too few for a verdict (sets verdict_warning at the first), and
 * one for the rows without data. */
static int too_few_warnings(struct cmp_builder *b, const struct row_counts *k)
{
	struct cmp_report *r = b->r;
	int rc = 0;

	for (int f = 0; f < CMP_NFAMILIES && rc == 0; f++) {
		size_t m = f == CMP_FAMILY_PRIMARY ? r->family : r->fam[f].m;
		const char *fn = r->fam[CMP_FAMILY_SECONDARY].m ? cmp_family_name(f) : "";
		if (!k->too_few[f] || r->seq_shown) /* the fixed-n rule: the note below says why not */
			continue;
		if (r->verdict_warning < 0)
			r->verdict_warning = (long)r->nwarn;
		rc = warnf(
		    b,
		    "%zu%s%s comparison%s too few rounds for a verdict (n = %zu): the simultaneous "
		    "intervals of %zu%s%s comparison%s (each at 1 - %.2g/%zu, Bonferroni) need %zu %s "
		    "(the smallest n with %s <= alpha/%zu); run more rounds or compare less "
		    "(--candidate, --workload, --phase)",
		    k->too_few[f], fn[0] ? " " : "", fn, k->too_few[f] == 1 ? " has" : "s have",
		    k->few_n[f], m, fn[0] ? " " : "", fn, m == 1 ? "" : "s", 1 - r->conf, m,
		    r->fam[f].need, r->paired ? "paired rounds" : "rounds per file",
		    r->paired ? "2/2^n" : "2/C(2n,n)", m);
	}
	if (rc == 0 && k->insufficient)
		rc = warnf(b, "%zu comparison%s with fewer than 2 usable rounds: insufficient data",
		           k->insufficient, k->insufficient == 1 ? "" : "s");
	return rc;
}

/* The warnings of benches that stopped on their sequential decisions or let cells leave: rc is
 * the status so far (the first is added whatever it is). */
static int stop_warnings(struct cmp_builder *b, int rc)
{
	struct cmp_report *r = b->r;

	if (r->seq_shown)
		rc = warnf(b,
		           "%s: its bench stopped when its sequential intervals decided (bench --gate, "
		           "or adaptive allocation with no cell left): the intervals and verdicts here "
		           "are the sequential ones of its plan of %zu rounds, valid for that stop, and "
		           "one that has not reached its look's level has no verdict yet "
		           "(docs/methodology.md, \"Sequential decisions\"); the fixed-n ones are in "
		           "--format json (ci_per_comparison)",
		           r->base->path, r->base->seq.planned);
	for (const struct rf_doc *d = r->base; rc == 0 && !b->o->seq && d;
	     d = d == r->cand ? NULL : r->cand)
		if (d->seq.planned && strcmp(d->status, "decided") == 0)
			rc = warnf(b,
			           "%s: its bench stopped when its sequential intervals decided (bench "
			           "--gate, or adaptive allocation with no cell left): these fixed-n "
			           "intervals do not allow for that; `allocab gate` judges it with the "
			           "sequential interval (docs/methodology.md, \"Sequential decisions\")",
			           d->path);
	for (const struct rf_doc *d = r->base; rc == 0 && d; d = d == r->cand ? NULL : r->cand)
		if (d->nleft)
			rc = warnf(b,
			           "%s: adaptive allocation let cells leave the rounds when their "
			           "comparisons were decided by their sequential intervals (%zu runs "
			           "not made): the fixed-n intervals of those comparisons do not allow for "
			           "that stop; the decision is the sequential interval's "
			           "(docs/methodology.md, \"Adaptive allocation\")",
			           d->path, d->nleft);
	return rc;
}

enum status cmp_warnings(struct cmp_builder *b)
{
	struct cmp_report *r = b->r;
	struct row_counts k = {0};
	int rc = drift_warnings(b, &k);

	if (rc == 0)
		rc = too_few_warnings(b, &k);
	rc = stop_warnings(b, rc);
	if (rc == 0)
		rc = regime_warnings(b);
	if (rc == 0 && r->nflags) {
		r->telemetry_warning = (long)r->nwarn;
		rc = telemetry_warning(b);
	}
	return rc;
}
