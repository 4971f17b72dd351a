/* gate.c - the gate: a margin on t_candidate/t_baseline judged by the whole confidence interval
 * (docs/methodology.md, "The gate"), shared by `allocab gate` and `allocab bench --gate`. */
#include "front/analysis/gate.h"

#include "common/atomicio.h"
#include "front/analysis/calibrate.h"
#include "front/analysis/compare.h"
#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/status.h"
#include "front/analysis/report.h"
#include "front/analysis/resfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CONF 0.95

struct gate_spec {
	char *candidate, *baseline, *phase, *workload, *against;
	int slowdown; /* --max-slowdown; else --min-speedup */
	double pct;
	int on_geomean;
	double conf;
};

int gate_parse_pct(const char *s, double *out)
{
	double v;

	if (num_parse_double(s, 1, &v) < 0 || !(v >= 0 && v < 100))
		return -1;
	*out = v;
	return 0;
}

/* --conf has always taken strtod's leading blanks and '+', which the other numbers refuse. */
static int parse_conf(const char *s, double *out)
{
	double v;

	s += strspn(s, " \t\n\v\f\r");
	if (num_parse_double(s + (*s == '+'), 0, &v) != 0 || !(v >= 0.5 && v < 1))
		return -1;
	*out = v;
	return 0;
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	return (*dst = strdup(v)) ? 0 : -1;
}

enum {
	G_CANDIDATE,
	G_BASELINE,
	G_PHASE,
	G_WORKLOAD,
	G_AGAINST,
	G_MIN_SPEEDUP,
	G_MAX_SLOWDOWN,
	G_ON,
	G_CONF,
	G_COUNT
};

/* Each option may be given again (the last one counts) but the margin, which is given once. */
static const struct opt gate_opts[G_COUNT] = {
    [G_CANDIDATE] = {"--candidate", 0, OPT_VALUE | OPT_REPEAT},
    [G_BASELINE] = {"--baseline", 0, OPT_VALUE | OPT_REPEAT},
    [G_PHASE] = {"--phase", 0, OPT_VALUE | OPT_REPEAT},
    [G_WORKLOAD] = {"--workload", 0, OPT_VALUE | OPT_REPEAT},
    [G_AGAINST] = {"--against", 0, OPT_VALUE | OPT_REPEAT},
    [G_MIN_SPEEDUP] = {"--min-speedup", 0, OPT_VALUE | OPT_REPEAT},
    [G_MAX_SLOWDOWN] = {"--max-slowdown", 0, OPT_VALUE | OPT_REPEAT},
    [G_ON] = {"--on", 0, OPT_VALUE | OPT_REPEAT},
    [G_CONF] = {"--conf", 0, OPT_VALUE | OPT_REPEAT},
};

static int gate_option(struct gate_spec *g, int k, const char *v, int *have_margin, char *err,
                       size_t errlen)
{
	char **dst[] = {[G_CANDIDATE] = &g->candidate,
	                [G_BASELINE] = &g->baseline,
	                [G_PHASE] = &g->phase,
	                [G_WORKLOAD] = &g->workload,
	                [G_AGAINST] = &g->against};

	switch (k) {
	case G_MIN_SPEEDUP:
	case G_MAX_SLOWDOWN:
		if ((*have_margin)++)
			return errmsg_fail(err, errlen,
			                   "give one of --min-speedup or --max-slowdown");
		if (gate_parse_pct(v, &g->pct) != 0)
			return errmsg_fail(err, errlen,
			                   "%s '%s': want a percentage 0 <= P < 100, e.g. 5%%",
			                   gate_opts[k].name, v);
		g->slowdown = k == G_MAX_SLOWDOWN;
		return 0;
	case G_ON:
		if (strcmp(v, "each") != 0 && strcmp(v, "geomean") != 0)
			return errmsg_fail(err, errlen, "--on '%s': want each or geomean", v);
		g->on_geomean = strcmp(v, "geomean") == 0;
		return 0;
	case G_CONF:
		if (parse_conf(v, &g->conf) != 0)
			return errmsg_fail(err, errlen, "--conf '%s': want a level in [0.5, 1)", v);
		return 0;
	}
	if (!v[0])
		return errmsg_fail(err, errlen, "%s: empty name", gate_opts[k].name);
	if (set_str(dst[k], v) != 0)
		return errmsg_fail(err, errlen, "out of memory");
	return 0;
}

/* Gate options from argv[1..]; positional arguments go to *pos (at most one) when pos is not
 * NULL. */
static int parse_gate(int argc, char **argv, struct gate_spec *g, const char **pos, char *err,
                      size_t errlen)
{
	struct opt_parser p;
	int have_margin = 0, k;
	const char *v;

	opt_init(&p, argc, argv, 1, gate_opts, G_COUNT);
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k == OPT_ARG && (!pos || *pos))
			return errmsg_fail(err, errlen, "unexpected argument '%s'", v);
		if (k == OPT_ARG)
			*pos = v;
		else if (gate_option(g, k, v, &have_margin, err, errlen) != 0)
			return -1;
	}
	if (!have_margin)
		return errmsg_fail(err, errlen, "give --min-speedup P%% or --max-slowdown P%%");
	if (!g->against && !g->candidate)
		return errmsg_fail(err, errlen, "give --candidate NAME (or --against OLD)");
	if (g->against && g->baseline)
		return errmsg_fail(err, errlen,
		                   "--baseline and --against exclude each other: with --against "
		                   "every arm is judged against itself in OLD");
	return 0;
}

struct gate_spec *gate_spec_parse(int argc, char **argv, const char **pos, char *err, size_t errlen)
{
	struct gate_spec *g = calloc(1, sizeof *g);

	if (!g) {
		errmsg_fail(err, errlen, "out of memory");
		return NULL;
	}
	g->conf = DEFAULT_CONF;
	if (parse_gate(argc, argv, g, pos, err, errlen) != 0) {
		gate_spec_free(g);
		return NULL;
	}
	return g;
}

void gate_spec_free(struct gate_spec *g)
{
	if (!g)
		return;
	free(g->candidate);
	free(g->baseline);
	free(g->phase);
	free(g->workload);
	free(g->against);
	free(g);
}

const char *gate_outcome_name(enum gate_outcome o)
{
	return o == GATE_PASS ? "PASS" : o == GATE_FAIL ? "FAIL" : "INCONCLUSIVE";
}

int gate_outcome_status(enum gate_outcome o)
{
	return o == GATE_PASS ? ST_OK : o == GATE_FAIL ? ST_FAIL : ST_INCONCLUSIVE;
}

/* One comparison against the bound on t_candidate/t_baseline. */
static enum gate_outcome judge_row(const struct gate_spec *g, const struct cmp_report *r,
                                   const struct cmp_row *row, double bound, FILE *out)
{
	double m = log(bound);
	enum gate_outcome o;
	char n[64];

	if (r->paired)
		snprintf(n, sizeof n, "%zu", row->n);
	else
		snprintf(n, sizeof n, "%zu+%zu", row->n_base, row->n_cand);
	/* With too few rounds an exact interval cannot reach the level asked: it is then the widest
	 * interval there is, at a lower confidence, and must not decide anything. */
	int short_level = row->usable && row->d.level < g->conf - 1e-9;
	if (!row->usable || short_level)
		o = GATE_INCONCLUSIVE;
	else
		o = row->d.hi <= m ? GATE_PASS : row->d.lo > m ? GATE_FAIL : GATE_INCONCLUSIVE;
	if (!out)
		return o;
	fprintf(out, "%-12s %s/%s %s ", gate_outcome_name(o),
	        row->workload ? row->workload : "geomean", row->phase, row->candidate);
	if (r->paired)
		fprintf(out, "vs %s: ", row->baseline);
	else
		fprintf(out, "of %s vs %s: ", r->cand->path, r->base->path);
	if (!row->usable) {
		fprintf(out, "insufficient data (%s usable rounds; at least 2 needed)\n", n);
		return o;
	}
	fprintf(out, "%s", r->paired ? "t_cand/t_base" : "t_new/t_old");
	static const char *const relation[] = {
	    [GATE_PASS] = "<=", [GATE_FAIL] = ">", [GATE_INCONCLUSIVE] = "straddles"};
	fprintf(out, " %.3g%% CI [%.3f, %.3f] %s %.3f (speedup %.3fx, n %s", 100 * row->d.level,
	        exp(row->d.lo), exp(row->d.hi), short_level ? "undecided vs" : relation[o], bound,
	        cmp_speedup(row->d.est), n);
	if (short_level)
		fprintf(out,
		        "; the interval reaches only %.3g%% confidence, below the %g%% asked: "
		        "more rounds needed",
		        100 * row->d.level, 100 * g->conf);
	else if (o == GATE_INCONCLUSIVE && r->paired && row->sd > 0 && row->d.est != m) {
		size_t need = stats_rounds_needed(row->sd, fabs(row->d.est - m), 1 - g->conf, 0.8);
		if (need > 1000)
			fprintf(out, "; the estimate is too close to the margin for more rounds to "
			             "decide it soon");
		else if (need > row->n)
			fprintf(out, "; about %zu rounds could decide it if the estimate holds",
			        need);
	}
	fprintf(out, ")\n");
	return o;
}

static void describe_rule(const struct gate_spec *g, const struct cmp_report *r, double bound,
                          char *buf, size_t len)
{
	const char *dir = g->slowdown ? "slower" : "faster", *most = g->slowdown ? "most" : "least";

	if (g->against)
		snprintf(buf, len, "%s of %s at %s %g%% %s than in %s: t_new/t_old <= %.4g",
		         g->candidate ? g->candidate : "every arm", r->cand->path, most, g->pct,
		         dir, r->base->path, bound);
	else
		snprintf(buf, len, "%s at %s %g%% %s than %s: t_candidate/t_baseline <= %.4g",
		         g->candidate, most, g->pct, dir, r->baseline, bound);
}

/* Warns when the margin is below the minimum detectable effect of the paired rounds judged. */
static void margin_note(const struct gate_spec *g, const struct cmp_report *r,
                        const struct cmp_row *row, FILE *out, FILE *warn)
{
	char msg[512], line[640];

	if (!r->paired || !row->usable ||
	    !calib_margin_warning(row->sd, row->n, g->pct, 1 - g->conf, CALIB_POWER, msg,
	                          sizeof msg))
		return;
	snprintf(line, sizeof line, "%s/%s %s: %s", row->workload ? row->workload : "geomean",
	         row->phase, row->candidate, msg);
	if (out)
		fprintf(out, "note: %s\n", line);
	if (warn)
		errmsg_warn(warn, "gate", line);
}

/* Why arm has no ok run in d, in one line: the first failure's reason, else its status and the
 * last line of its stderr. */
static void no_rounds_reason(const struct rf_doc *d, const char *arm, char *buf, size_t len)
{
	for (size_t i = 0; i < d->nfails; i++) {
		const struct rf_fail *f = &d->fails[i];
		const char *tail = f->stderr_tail, *nl = tail ? strrchr(tail, '\n') : NULL;

		if (strcmp(f->arm, arm) != 0)
			continue;
		if (f->reason)
			snprintf(buf, len, "%s: %s", f->status, f->reason);
		else
			snprintf(buf, len, "%s%s%s", f->status, tail ? ": " : "",
			         tail ? (nl ? nl + 1 : tail) : "");
		return;
	}
	snprintf(buf, len, "no run of it was ok");
}

/* A judged comparison without a single usable pair is a failed setup, not missing data: writes
 * "gate: FAIL: no verified rounds for ARM: WHY" to out (and warn) and returns 1. */
static int no_pairs(const struct cmp_report *r, const struct cmp_row *row, FILE *out, FILE *warn)
{
	const struct rf_doc *d = r->cand;
	const char *arm = row->candidate;
	char why[1024], line[1200];

	if (row->n > 0)
		return 0;
	if (row->n_cand > 0 && row->n_base == 0) {
		arm = r->paired ? row->baseline : row->candidate;
		d = r->base;
	}
	if (row->n_cand > 0 && row->n_base > 0)
		snprintf(why, sizeof why, "no round in which both %s and %s ran ok", row->candidate,
		         row->baseline);
	else
		no_rounds_reason(d, arm, why, sizeof why);
	snprintf(line, sizeof line, "no verified rounds for %s: %s", arm, why);
	if (out)
		fprintf(out, "gate: FAIL: %s\n", line);
	if (warn && warn != out)
		fprintf(warn, "allocab: gate: %s\n", line);
	return 1;
}

/* Judges one loaded document (cand) against its baseline arm or against OLD into *verdict.
 * Returns 0 or -1 (err set). */
static int judge(const struct gate_spec *g, struct rf_doc *cand, FILE *out, FILE *warn,
                 enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct cmp_opts o = {.baseline = g->baseline,
	                     .candidate = g->candidate,
	                     .workload = g->workload,
	                     .phase = g->phase ? g->phase : "total",
	                     .conf = g->conf};
	struct rf_doc *old = NULL;
	struct cmp_report *r = NULL;
	double bound = g->slowdown ? 1 + g->pct / 100 : 1 - g->pct / 100;
	size_t count[3] = {0}, judged = 0;
	char rule[512];

	if (g->against && rf_load(g->against, &old, err, errlen) != ST_OK)
		return -1;
	if (cmp_build(old ? old : cand, old ? cand : NULL, &o, &r, err, errlen) != ST_OK) {
		rf_free(old);
		return -1;
	}
	for (size_t i = 0; warn && i < r->nwarn; i++)
		if ((long)i != r->verdict_warning)
			errmsg_warn(warn, "gate", r->warn[i]);
	int any_geomean = 0;
	for (size_t i = 0; i < r->nrows; i++)
		any_geomean |= r->rows[i].workload == NULL;
	for (size_t i = 0; i < r->nrows; i++)
		if (r->rows[i].workload && no_pairs(r, &r->rows[i], out, warn)) {
			cmp_free(r);
			rf_free(old);
			*verdict = GATE_FAIL;
			return 0;
		}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (g->on_geomean && any_geomean && row->workload)
			continue;
		if (!g->on_geomean && !row->workload)
			continue;
		count[judge_row(g, r, row, bound, out)]++;
		judged++;
		margin_note(g, r, row, out, warn);
	}
	describe_rule(g, r, bound, rule, sizeof rule);
	enum gate_outcome res = count[GATE_FAIL]                      ? GATE_FAIL
	                        : count[GATE_INCONCLUSIVE] || !judged ? GATE_INCONCLUSIVE
	                                                              : GATE_PASS;
	if (out)
		fprintf(out,
		        "gate: %s (%zu pass, %zu fail, %zu inconclusive; %s over the whole %g%% "
		        "interval, on %s)\n",
		        gate_outcome_name(res), count[GATE_PASS], count[GATE_FAIL],
		        count[GATE_INCONCLUSIVE], rule, 100 * g->conf,
		        g->on_geomean ? "the geometric mean" : "each workload");
	cmp_free(r);
	rf_free(old);
	*verdict = res;
	return 0;
}

int gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
                   enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct rf_doc *d = rf_from_json(bench, "the bench document", err, errlen);
	int rc;

	if (!d)
		return -1;
	rc = judge(g, d, out, NULL, verdict, err, errlen);
	rf_free(d);
	return rc;
}

int gate_spec_judge_file(const struct gate_spec *g, const char *path, FILE *out, FILE *warn,
                         enum gate_outcome *verdict, char *err, size_t errlen)
{
	struct rf_doc *d;
	int rc;

	if (rf_load(path, &d, err, errlen) != ST_OK)
		return -1;
	rc = judge(g, d, out, warn, verdict, err, errlen);
	rf_free(d);
	return rc;
}
