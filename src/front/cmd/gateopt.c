/* gateopt.c - the gate's options (front/cmd/gateopt.h), read by `allocab gate` and by
 * `allocab bench --gate`, and the margin and level values compare reads too. */
#include "front/cmd/gateopt.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "front/cmd/commands.h"
#include "front/export/export.h"

#include <math.h>
#include <string.h>

int gateopt_pct(const char *s, double *out)
{
	double v;

	if (num_parse_double(s, 1, &v) < 0 || !(v >= 0 && v < 100))
		return -1;
	*out = v;
	return 0;
}

int gateopt_equivalence(const char *s, double *out, char *err, size_t errlen)
{
	if (gateopt_pct(s, out) != 0)
		return errmsg_fail(err, errlen,
		                   "--equivalence '%s': want a percentage 0 <= M < 100, e.g. 2%%", s);
	return 0;
}

/* --conf has always taken strtod's leading blanks and '+', which the other numbers refuse. */
int gateopt_conf(const char *s, double *out)
{
	double v;

	s += strspn(s, " \t\n\v\f\r");
	if (num_parse_double(s + (*s == '+'), 0, &v) != 0 || !(v >= 0.5 && v < 1))
		return -1;
	*out = v;
	return 0;
}

static const char *format_at(size_t i, const char **summary)
{
	const struct exporter *x = export_at(i);

	if (x)
		*summary = x->summary;
	return x ? x->name : NULL;
}
const struct opt_values gateopt_format_values = {NULL, format_at};

static const char *regime_at(size_t i, const char **summary)
{
	(void)summary;
	return i < CMP_REGIMES_COUNT ? cmp_regimes_name((enum cmp_regimes)i) : NULL;
}
const struct opt_values gateopt_regime_values = {NULL, regime_at};

static const char *const phases_words[] = {"all", NULL};
const struct opt_values gateopt_phases_values = {phases_words, NULL};

int gateopt_margin(const char *opt, const char *v, int slowdown, double *margin, char *err,
                   size_t errlen)
{
	double pct;

	if (!isnan(*margin))
		return errmsg_fail(err, errlen, "give one of --min-speedup or --max-slowdown");
	if (gateopt_pct(v, &pct) != 0)
		return errmsg_fail(err, errlen, "%s '%s': want a percentage 0 <= P < 100, e.g. 5%%",
		                   opt, v);
	*margin = slowdown ? 1 + pct / 100 : 1 - pct / 100;
	return 0;
}

int gateopt_phases(const char *v, int *all, char *err, size_t errlen)
{
	if (strcmp(v, "all") != 0)
		return errmsg_fail(err, errlen, "--phases '%s': only 'all' is known", v);
	*all = 1;
	return 0;
}

int gateopt_regimes(const char *v, enum cmp_regimes *r, char *err, size_t errlen)
{
	if (cmp_regimes_parse(v, r) != 0)
		return errmsg_fail(err, errlen, "--regime '%s': want cold, steady or both", v);
	return 0;
}

int gateopt_level(const char *v, double *conf, char *err, size_t errlen)
{
	if (gateopt_conf(v, conf) != 0)
		return errmsg_fail(err, errlen, "--conf '%s': want a level in [0.5, 1)", v);
	return 0;
}

enum {
	G_CANDIDATE,
	G_BASELINE,
	G_AGAINST,
	G_MIN_SPEEDUP,
	G_MAX_SLOWDOWN,
	G_ON,
	G_PHASE,
	G_WORKLOAD,
	G_CONF,
	G_REGIME,
	G_EQUIVALENCE,
	G_COUNT
};

enum { ON_EACH, ON_GEOMEAN, ON_POOLED, ON_EACH_MACHINE };
static const char *const on_words[] = {[ON_EACH] = "each",
                                       [ON_GEOMEAN] = "geomean",
                                       [ON_POOLED] = "pooled",
                                       [ON_EACH_MACHINE] = "each-machine",
                                       NULL};
static const struct opt_values on_values = {on_words, NULL};

/* Every regime of compare but both: the gate decides on one (CMP_REGIMES_BOTH is the first). */
static const char *gate_regime_at(size_t i, const char **summary)
{
	(void)summary;
	return i + 1 < CMP_REGIMES_COUNT ? cmp_regimes_name((enum cmp_regimes)(i + 1)) : NULL;
}
static const struct opt_values regime_values = {NULL, gate_regime_at};

/* Each option may be given again (the last one counts) but the margin, which is given once. */
static const struct opt gate_opts[G_COUNT] = {
    [G_CANDIDATE] = {"--candidate", 0, OPT_VALUE | OPT_REPEAT | OPT_ALLOCATOR, "NAME",
                     .help = "the arm judged (required without --against)"},
    [G_BASELINE] = {"--baseline", 0, OPT_VALUE | OPT_REPEAT | OPT_ALLOCATOR, "NAME",
                    .help = "the arm it is judged against (default: the file's config.baseline: "
                            "the arm of the baseline backend, system, or else the first arm)"},
    [G_AGAINST] = {"--against", 0, OPT_VALUE | OPT_REPEAT | OPT_FILE, "OLD",
                   .help = "judge every arm of NEW (or only --candidate) against the same arm "
                           "of the stored results OLD, two-sample (R is t_new/t_old); not "
                           "with --baseline"},
    [G_MIN_SPEEDUP] = {"--min-speedup", 0, OPT_VALUE | OPT_REPEAT, "P%",
                       .help = "the candidate is at least P% faster: R <= 1 - P/100 (5% is R "
                               "<= 0.95, a speedup of at least 1.0526x)"},
    [G_MAX_SLOWDOWN] = {"--max-slowdown", 0, OPT_VALUE | OPT_REPEAT, "P%",
                        .help = "at most P% slower: R <= 1 + P/100; exactly one of the two "
                                "margins, P written 5, 5% or 2.5% with 0 <= P < 100"},
    [G_ON] = {"--on", 0, OPT_VALUE | OPT_REPEAT, NULL,
              .help = "what is judged: each (default) every workload's total (or --phase), PASS "
                      "when all pass; geomean one decision on the geometric mean over the "
                      "workloads (per arm with --against); with several files (a fleet): pooled "
                      "(default) each comparison's pooled interval, each-machine every "
                      "machine's own; given twice for both, e.g. --on geomean --on "
                      "each-machine",
              .values = &on_values},
    [G_PHASE] = {"--phase", 0, OPT_VALUE | OPT_REPEAT, "NAME",
                 .help = "judge this phase instead of each workload's total"},
    [G_WORKLOAD] = {"--workload", 0, OPT_VALUE | OPT_REPEAT | OPT_WORKLOAD, "NAME",
                    .help = "judge this workload only"},
    [G_CONF] = {"--conf", 0, OPT_VALUE | OPT_REPEAT, "LEVEL",
                .help = "confidence level of the intervals, in [0.5, 1) (default: 0.95)"},
    [G_REGIME] = {"--regime", 0, OPT_VALUE | OPT_REPEAT, NULL,
                  .help = "the times judged: steady (default; the median of each run's steady "
                          "repetitions, what a long-running process sees) or cold (its first "
                          "repetition)",
                  .values = &regime_values},
    [G_EQUIVALENCE] = {"--equivalence", 0, OPT_VALUE | OPT_REPEAT, "M%",
                       .help = "with --max-slowdown: a comparison whose whole interval lies "
                               "within ±M% also passes (equivalent), and FAIL needs a slowdown "
                               "beyond both P and M (default: the file's bench --equivalence, "
                               "else none)"},
};

const struct opt_doc gate_doc = {
    .prog = "allocab gate",
    .synopsis = (const char *const[]){"RESULTS --candidate NAME --min-speedup P% [OPTIONS]",
                                      "NEW --against OLD --max-slowdown P% [OPTIONS]",
                                      "RESULTS RESULTS... --candidate NAME [OPTIONS]",
                                      NULL},
    .about = "Judges the comparisons `allocab compare` would report against a margin on the "
             "ratio R = t_candidate/t_baseline.\n",
    .opts = gate_opts,
    .nopts = G_COUNT,
    .notes =
        "Each comparison is PASS when its whole confidence interval satisfies the margin, FAIL "
        "when the whole interval violates it (with k comparisons gated, the interval at "
        "1 - (1 - conf)/k: Bonferroni), INCONCLUSIVE otherwise. The gate is PASS when all "
        "pass, FAIL when any fails, INCONCLUSIVE otherwise (more rounds or a bigger budget can "
        "decide it). Lines print the speedup and its interval as compare does, the ratio "
        "t_cand/t_base in parentheses.\n"
        "A file that measured cold only is judged on cold, with a warning, unless --regime "
        "steady is given. Every verdict line names its regime.\n"
        "A file whose rounds were looked at after every round, with a recorded plan "
        "(config.sequential: a bench --gate file, or one whose adaptive allocation decided with "
        "it, --allocation sequential), is judged with the sequential intervals of that plan, as "
        "the bench judged it; its lines then say \"sequential\" and after which round of the "
        "plan (docs/methodology.md, \"Sequential decisions\").\n"
        "A comparison without a single usable pair of rounds is FAIL: \"no verified rounds for "
        "ARM: REASON\".\n"
        "Several files are a fleet, one machine each (allocab merge; docs/fleet.md): --on pooled "
        "(default) judges each comparison's pooled interval (random effects, "
        "Hartung-Knapp-Sidik-Jonkman), --on each-machine every machine's own interval "
        "(Bonferroni over all of them for FAIL). A comparison that a machine lacks or cannot "
        "pool is never PASS.\n"
        "Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 bad input (README.md, \"Exit "
        "status\").\n",
};

static int gate_option(struct gate_spec *g, int k, const char *v, int *have_margin, char *err,
                       size_t errlen)
{
	const char **dst[] = {[G_CANDIDATE] = &g->candidate,
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
		if (gateopt_pct(v, &g->pct) != 0)
			return errmsg_fail(err, errlen,
			                   "%s '%s': want a percentage 0 <= P < 100, e.g. 5%%",
			                   gate_opts[k].name, v);
		g->slowdown = k == G_MAX_SLOWDOWN;
		return 0;
	case G_ON:
		if (strcmp(v, on_words[ON_EACH_MACHINE]) == 0 || strcmp(v, on_words[ON_POOLED]) == 0) {
			g->each_machine = strcmp(v, on_words[ON_EACH_MACHINE]) == 0;
			g->fleet_on = 1;
		} else if (strcmp(v, on_words[ON_EACH]) == 0 || strcmp(v, on_words[ON_GEOMEAN]) == 0) {
			g->on_geomean = strcmp(v, on_words[ON_GEOMEAN]) == 0;
		} else
			return errmsg_fail(err, errlen,
			                   "--on '%s': want each or geomean (the comparisons), or "
			                   "pooled or each-machine (a fleet)",
			                   v);
		return 0;
	case G_CONF:
		if (gateopt_conf(v, &g->conf) != 0)
			return errmsg_fail(err, errlen, "--conf '%s': want a level in [0.5, 1)", v);
		return 0;
	case G_EQUIVALENCE:
		return gateopt_equivalence(v, &g->equivalence, err, errlen);
	case G_REGIME:
		if (cmp_regimes_parse(v, &g->regime) != 0 || g->regime == CMP_REGIMES_BOTH)
			return errmsg_fail(
			    err, errlen,
			    "--regime '%s': want steady or cold (the gate decides on one regime)",
			    v);
		g->regime_given = 1;
		return 0;
	}
	if (!v[0])
		return errmsg_fail(err, errlen, "%s: empty name", gate_opts[k].name);
	*dst[k] = v;
	return 0;
}

/* Gate options from argv[1..]; positional arguments go to pos[0..cap) (*npos of them) when pos
 * is not NULL. */
static int parse_gate(int argc, char **argv, struct gate_spec *g, const char **pos, size_t cap,
                      size_t *npos, char *err, size_t errlen)
{
	struct opt_parser p;
	int have_margin = 0, k;
	const char *v;
	size_t n = 0;

	opt_init(&p, argc, argv, 1, gate_opts, G_COUNT);
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k == OPT_ARG && (!pos || n == cap))
			return errmsg_fail(err, errlen, "unexpected argument '%s'", v);
		if (k == OPT_ARG)
			pos[n++] = v;
		else if (gate_option(g, k, v, &have_margin, err, errlen) != 0)
			return -1;
	}
	if (npos)
		*npos = n;
	if (!have_margin)
		return errmsg_fail(err, errlen, "give --min-speedup P%% or --max-slowdown P%%");
	if (!isnan(g->equivalence) && !g->slowdown)
		return errmsg_fail(err, errlen,
		                   "--equivalence relaxes a no-regression requirement "
		                   "(--max-slowdown), not --min-speedup");
	if (!g->against && !g->candidate)
		return errmsg_fail(err, errlen, "give --candidate NAME (or --against OLD)");
	if (g->against && g->baseline)
		return errmsg_fail(err, errlen,
		                   "--baseline and --against exclude each other: with --against "
		                   "every arm is judged against itself in OLD");
	return 0;
}

int gateopt_parse(int argc, char **argv, struct gate_spec *g, const char **pos, char *err,
                  size_t errlen)
{
	gate_spec_init(g);
	return parse_gate(argc, argv, g, pos, 1, NULL, err, errlen);
}

int gateopt_parse_files(int argc, char **argv, struct gate_spec *g, const char **files,
                        size_t *nfiles, char *err, size_t errlen)
{
	gate_spec_init(g);
	*nfiles = 0;
	return parse_gate(argc, argv, g, files, (size_t)argc, nfiles, err, errlen);
}
