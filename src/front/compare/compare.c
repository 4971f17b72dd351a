/* compare.c - cmp_build's orchestration (docs/methodology.md): checks the names asked for, picks
 * the regimes, adds the rows (which rows and their families in cmpfamily.c, statistics in
 * cmprow.c, per-side summaries in cmpside.c), then verdicts and warnings (cmpverdict.c); plus
 * the names of verdicts and regimes. Telemetry spikes come from noise.c. */
#include "front/compare/cmpint.h"

#include "common/errmsg.h"
#include "common/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double cmp_speedup(double d)
{
	return exp(-d);
}

double cmp_improvement(double d)
{
	return (1.0 - exp(d)) * 100.0;
}

static const char *const regimes_names[CMP_REGIMES_COUNT] = {"both", "cold", "steady"};

const char *cmp_regimes_name(enum cmp_regimes r)
{
	return (unsigned)r < CMP_REGIMES_COUNT ? regimes_names[r] : "both";
}

int cmp_primary_parse(const char *s, struct cmp_primary *out, char *err, size_t errlen)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	*out = (struct cmp_primary){.regime = -1};
	if (strcmp(s, "all") == 0) {
		out->all = 1;
		return 0;
	}
	if (n == 0 || n >= sizeof out->phase)
		return errmsg_fail(err, errlen,
		                   "--primary '%s': want all, a phase, or PHASE:cold or "
		                   "PHASE:steady",
		                   s);
	memcpy(out->phase, s, n);
	out->phase[n] = '\0';
	if (!colon)
		return 0;
	if (strcmp(colon + 1, "cold") == 0)
		out->regime = RF_COLD;
	else if (strcmp(colon + 1, "steady") == 0)
		out->regime = RF_STEADY;
	else
		return errmsg_fail(err, errlen, "--primary '%s': the regime is cold or steady", s);
	return 0;
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

/* The candidate and workload asked for are in document d. */
static int check_doc_names(const struct rf_doc *d, const struct cmp_opts *o, char *err,
                           size_t errlen)
{
	char list[1024];

	if (o->candidate && rf_arm(d, o->candidate) < 0) {
		join_names(list, sizeof list, d->arms, d->narms);
		return errmsg_fail(err, errlen, "%s: unknown candidate '%s' (arms: %s)", d->path,
		                   o->candidate, list);
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
	return 0;
}

/* The phase asked for (o->phase set) is one of b's, and each document has the regime asked of
 * it. */
static int check_phase(const struct rf_doc *b, const struct rf_doc *c, const struct cmp_opts *o,
                       char *err, size_t errlen)
{
	int found = 0;

	for (size_t w = 0; w < b->nwl && !found; w++)
		found = (!o->workload || strcmp(b->wl[w].name, o->workload) == 0) &&
		        rf_phase(&b->wl[w], o->phase) >= 0;
	if (!found)
		return errmsg_fail(err, errlen, "%s: unknown phase '%s'%s%s", b->path, o->phase,
		                   o->workload ? " of workload " : "",
		                   o->workload ? o->workload : "");
	if (o->regimes == CMP_REGIMES_BOTH)
		return 0;
	enum rf_regime g = o->regimes == CMP_REGIMES_COLD ? RF_COLD : RF_STEADY;
	for (const struct rf_doc *d = b; d; d = d == c ? NULL : c)
		if (d->has_regime[g] && !rf_phase_measured(d, o->workload, o->phase, g))
			return errmsg_fail(err, errlen,
			                   "%s: phase '%s' has no %s times (a program's "
			                   "total, or a phase it ran once, has only a cold "
			                   "one)",
			                   d->path, o->phase, rf_regime_name(g));
	return 0;
}

static int check_names(const struct rf_doc *b, const struct rf_doc *c, const struct cmp_opts *o,
                       char *err, size_t errlen)
{
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
	for (const struct rf_doc *d = b; d; d = d == c ? NULL : c)
		if (check_doc_names(d, o, err, errlen) != 0)
			return -1;
	return o->phase ? check_phase(b, c, o, err, errlen) : 0;
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
			return errmsg_fail(
			    err, errlen, "%s measured %s: no %s times to compare%s", lacks->path,
			    rf_regimes_measured(lacks), rf_regime_name(g),
			    g != RF_STEADY ? ""
			    : rf_kind_has(lacks, RF_KIND_WHOLE_PROCESS)
			        ? " (a --cmd or --program bench times each run's "
			          "process once: use --regime cold, or have the program "
			          "mark the phases it repeats: docs/programs.md, "
			          "\"Phases your program marks\")"
			        : " (rerun the bench with --reps auto, the default, or "
			          "use --regime cold)");
		r->compared[g] = want && !lacks;
		any |= r->compared[g];
	}
	if (!any)
		r->compared[o->regimes == CMP_REGIMES_STEADY ? RF_STEADY : RF_COLD] = 1;
	return 0;
}

/* A document whose config.primary (bench --primary) names a phase none of its workloads times,
 * once some has had an ok run: its question was never measured, and the default's rows stand in
 * for it (cmp_count_family). */
static enum status primary_missing(struct cmp_report *r, const struct rf_doc *d)
{
	struct cmp_primary p;
	char ignored[256];
	int seen = 0;

	if (!d->primary[0] || cmp_primary_parse(d->primary, &p, ignored, sizeof ignored) != 0 ||
	    p.all || strcmp(p.phase, "total") == 0)
		return ST_OK;
	for (size_t w = 0; w < d->nwl; w++) {
		if (rf_phase(&d->wl[w], p.phase) >= 0)
			return ST_OK;
		seen |= d->wl[w].nphases > 0 &&
		        (!rf_kind_has(d, RF_KIND_WHOLE_PROCESS) || d->wl[w].marked != 0);
	}
	if (!seen)
		return ST_OK;
	return noise_warnf(&r->warn, &r->nwarn,
	                   "%s: its primary (bench --primary %s) is missing: no run times a phase "
	                   "'%s', so the question was never measured; the primary rows here are "
	                   "each workload's total instead",
	                   d->path, d->primary, p.phase)
	           ? ST_FAIL
	           : ST_OK;
}

/* The report's settings from o and the documents, before any row: its sides, level, primary rows
 * (the ones asked, else the document's config.primary when it agrees with --phase, else the
 * default), equivalence margin and resampling. err: scratch of a config.primary refused. */
static void report_init(struct cmp_report *r, const struct rf_doc *base, const struct rf_doc *c,
                        const struct cmp_opts *o, char *err, size_t errlen)
{
	r->verdict_warning = -1;
	r->telemetry_warning = -1;
	r->base = base;
	r->cand = c;
	r->conf = o->conf;
	r->family_conf = o->conf;
	r->family = 1;
	r->primary = (struct cmp_primary){.regime = -1};
	if (o->primary)
		r->primary = *o->primary;
	else if (c->primary[0] && (cmp_primary_parse(c->primary, &r->primary, err, errlen) != 0 ||
	                           (o->phase && !r->primary.all &&
	                            strcmp(o->phase, r->primary.phase) != 0)))
		r->primary = (struct cmp_primary){.regime = -1};
	if (o->per_comparison)
		r->primary = (struct cmp_primary){.all = 1, .regime = -1};
	if (!r->primary.phase[0])
		snprintf(r->primary.phase, sizeof r->primary.phase, "%s",
		         o->phase ? o->phase : "total");
	r->equivalence = o->equivalence > 0 ? o->equivalence : NAN;
	r->bootstrap = o->bootstrap;
	r->seed = o->seed;
}

/* The names asked for exist and the regimes are compared; one file: *ba is the baseline's arm
 * (else -1) and r->baseline its name. Returns ST_OK or ST_USAGE (err set). */
static enum status check_request(struct cmp_report *r, const struct rf_doc *cand,
                                 const struct cmp_opts *o, int *ba, char *err, size_t errlen)
{
	const struct rf_doc *base = r->base;
	const char *bname = o->baseline ? o->baseline : base->baseline;
	char list[1024];

	*ba = -1;
	if (check_names(base, cand, o, err, errlen) != 0 ||
	    (cand && rf_same_work(base, cand, err, errlen) != 0))
		return ST_USAGE;
	if (r->paired && (*ba = rf_arm(base, bname)) < 0) {
		join_names(list, sizeof list, base->arms, base->narms);
		errmsg_fail(err, errlen, "%s: baseline '%s' is not in the file (arms: %s)%s",
		            base->path, bname, list,
		            o->baseline ? "" : "; name one with --baseline");
		return ST_USAGE;
	}
	if (r->paired && o->candidate && strcmp(o->candidate, bname) == 0) {
		errmsg_fail(err, errlen, "candidate and baseline are both '%s'", bname);
		return ST_USAGE;
	}
	if (r->paired)
		r->baseline = base->arms[*ba];
	return pick_regimes(r, base, cand, o, err, errlen) != 0 ? ST_USAGE : ST_OK;
}

/* The builder's scratch, sized for the larger document, and the report's rows. */
static enum status builder_alloc(struct cmp_builder *b)
{
	const struct rf_doc *base = b->r->base, *c = b->r->cand;

	b->cap = 1;
	for (const struct rf_doc *d = base; d; d = d == c ? NULL : c)
		if (d->nrounds * d->narms + 1 > b->cap)
			b->cap = d->nrounds * d->narms + 1;
	b->a = calloc(b->cap, sizeof *b->a);
	b->b = calloc(b->cap, sizeof *b->b);
	b->pa = calloc(b->cap, sizeof *b->pa);
	b->pb = calloc(b->cap, sizeof *b->pb);
	b->rss = calloc(b->cap, sizeof *b->rss);
	b->r->rows = calloc(RF_NREGIMES * (c->nwl * RF_MAX_PHASES * c->narms + c->narms) + 1,
	                    sizeof *b->r->rows);
	return b->a && b->b && b->pa && b->pb && b->rss && b->r->rows ? ST_OK : ST_FAIL;
}

static void builder_free(struct cmp_builder *b)
{
	free(b->a);
	free(b->b);
	free(b->pa);
	free(b->pb);
	free(b->rss);
}

/* The report's rows, verdicts and warnings, arms paired with arm ba of a one-file report. */
static enum status build_rows(struct cmp_builder *b, const struct rf_doc *cand, size_t ba,
                              char *err, size_t errlen)
{
	struct cmp_report *r = b->r;
	const struct rf_doc *base = r->base, *c = r->cand;
	enum status rc = ST_OK;

	if (noise_flag_spikes(base, &r->flags, &r->nflags) != 0 ||
	    (cand && noise_flag_spikes(cand, &r->flags, &r->nflags) != 0))
		return ST_FAIL;
	rc = cmp_count_family(b, ba, b->o->primary != NULL, err, errlen);
	if (rc == 0)
		rc = cmp_add_rows(b, ba);
	if (rc == 0 && r->nrows == 0 && r->paired)
		rc = errmsg_status(ST_USAGE, err, errlen,
		                   "%s: no arm to compare with the baseline %s", base->path,
		                   r->baseline);
	else if (rc == 0 && r->nrows == 0)
		rc = errmsg_status(ST_USAGE, err, errlen,
		                   "%s and %s share no workload: nothing to compare", base->path,
		                   c->path);
	if (rc == 0)
		rc = cmp_decide(b);
	if (rc == 0 && noise_doc_warnings(base, cand, &r->warn, &r->nwarn) != 0)
		rc = ST_FAIL;
	if (rc == 0)
		rc = cmp_warnings(b);
	for (const struct rf_doc *d = base; rc == 0 && d; d = d == c ? NULL : c)
		rc = primary_missing(r, d);
	return rc;
}

enum status cmp_build_one(const struct rf_doc *base, const struct rf_doc *cand,
                          const struct cmp_opts *o, struct cmp_report **out, char *err,
                          size_t errlen)
{
	struct cmp_report *r = calloc(1, sizeof *r);
	struct cmp_builder b = {.r = r, .o = o};
	struct cmp_opts seq_opts;
	int ba = -1;
	enum status rc;

	*out = NULL;
	if (!r)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	r->paired = cand == NULL;
	/* a file whose bench stopped on its sequential decisions, alone: its plan's intervals, the
	 * ones valid for that stop (docs/methodology.md, "Sequential decisions") */
	if (o->seq_if_decided && !cand && !o->seq && !o->per_comparison && base->seq.planned &&
	    strcmp(base->status, "decided") == 0) {
		seq_opts = *o;
		seq_opts.seq = &base->seq;
		seq_opts.seq_shown = r->seq_shown = 1;
		b.o = o = &seq_opts;
	}
	report_init(r, base, cand ? cand : base, o, err, errlen);
	rc = check_request(r, cand, o, &ba, err, errlen);
	if (rc == ST_OK)
		rc = builder_alloc(&b);
	if (rc == ST_OK)
		rc = build_rows(&b, cand, ba < 0 ? 0 : (size_t)ba, err, errlen);
	builder_free(&b);
	if (rc != ST_OK) {
		if (rc == ST_FAIL)
			snprintf(err, errlen, "out of memory");
		cmp_free(r);
		return rc;
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
	free(r->solo);
	rf_view_free(r->views[0]);
	rf_view_free(r->views[1]);
	free(r);
}

int cmp_row_seq_decided(const struct cmp_row *row)
{
	double m = cmp_equiv_log(row->equiv_pct);
	const struct stats_interval *i = &row->d_seq;

	if (!row->usable || !row->has_seq || !(row->seq_asked < 1) || !(i->level >= row->seq_asked))
		return 0;
	return i->lo > 0 || i->hi < 0 || (m > 0 && -m <= i->lo && i->hi <= m);
}
