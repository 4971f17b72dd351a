/* gateopt.c - the gate's options (front/cmd/gateopt.h), read by `allocab gate` and by
 * `allocab bench --gate`, and the margin and level values compare reads too. */
#include "front/cmd/gateopt.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "front/cmd/cmdopt.h"
#include "front/cmd/commands.h"

#include <math.h>
#include <string.h>

struct gate_args {
	struct gate_spec g;
	struct cmdopt_margin m;
	int on_rows, on_fleet; /* --on each|geomean, --on pooled|each-machine given */
};

enum { ON_EACH, ON_GEOMEAN, ON_POOLED, ON_EACH_MACHINE };
static const char *const on_words[] = {[ON_EACH] = "each",
                                       [ON_GEOMEAN] = "geomean",
                                       [ON_POOLED] = "pooled",
                                       [ON_EACH_MACHINE] = "each-machine",
                                       NULL};
static const struct opt_values on_values = {on_words, NULL};

/* --on: one word of each pair, each at most once (a second one contradicted the first). */
static int set_on(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	struct gate_args *a = settings;
	int w;

	if (opt_value(o, v, &w, err, errlen) != 0)
		return -1;
	if (w == ON_POOLED || w == ON_EACH_MACHINE) {
		if (a->on_fleet++)
			return errmsg_fail(err, errlen, "--on: give one of pooled or each-machine");
		a->g.each_machine = w == ON_EACH_MACHINE;
		a->g.fleet_on = 1;
		return 0;
	}
	if (a->on_rows++)
		return errmsg_fail(err, errlen, "--on: give one of each or geomean");
	a->g.on_geomean = w == ON_GEOMEAN;
	return 0;
}

#define GA struct gate_args
static const struct opt gate_opts[] = {
    CMDOPT_CANDIDATE(GA, g.candidate),
    CMDOPT_BASELINE(GA, g.baseline, CMDOPT_BASELINE_OF_FILE),
    {"--against", 0, OPT_VALUE | OPT_REPEAT | OPT_FILE, "OLD",
     .help = "judge every arm of NEW (or only --candidate) against the same arm "
             "of the stored results OLD, two-sample (R is t_new/t_old)",
     OPT_STRING(GA, g.against), .excludes = OPT_NAMES("--baseline"),
     .why = "with --against every arm is judged against itself in OLD"},
    CMDOPT_MIN_SPEEDUP(GA, m),
    CMDOPT_MAX_SLOWDOWN(GA, m),
    {"--on", 0, OPT_VALUE | OPT_REPEAT, NULL,
     .help = "what is judged: each every workload's total (or --phase), PASS when all "
             "pass; geomean one decision on the geometric mean over the workloads (per "
             "arm with --against); with several files (a fleet): pooled each "
             "comparison's pooled interval, each-machine every machine's own; one of "
             "each pair, given twice for both, e.g. --on geomean --on each-machine",
     .values = &on_values, .type = OPT_T_ENUM, .set = set_on,
     .def_doc = "each; with several files, pooled"},
    CMDOPT_PHASE(GA, g.phase),
    CMDOPT_WORKLOAD(GA, g.workload),
    CMDOPT_CONF(GA, g.conf),
    CMDOPT_REGIME(GA, g.regime, g.regime_given),
    CMDOPT_EQUIVALENCE(GA, g.equivalence),
    CMDOPT_HELP,
};
#undef GA

const struct opt_doc gate_doc = {
    .prog = "allocab gate",
    .synopsis = (const char *const[]){"RESULTS --candidate NAME --min-speedup P% [OPTIONS]",
                                      "NEW --against OLD --max-slowdown P% [OPTIONS]",
                                      "RESULTS RESULTS... --candidate NAME [OPTIONS]",
                                      NULL},
    .about = "Judges the comparisons `allocab compare` would report against a margin on the "
             "ratio R = t_candidate/t_baseline.\n",
    .opts = gate_opts,
    .nopts = (sizeof gate_opts / sizeof gate_opts[0]),
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

/* Gate options from argv[1..]; positional arguments go to pos (pos->n of them) when pos is not
 * NULL, refused otherwise. */
static int parse_gate(int argc, char **argv, struct gate_spec *g, struct gateopt_pos *pos,
                      char *err, size_t errlen)
{
	struct gate_args a = {.m = {0}};
	struct opt_parser p;
	const char *v;
	int k;

	gate_spec_init(&a.g);
	opt_defaults(gate_opts, (sizeof gate_opts / sizeof gate_opts[0]), &a);
	opt_init(&p, argc, argv, 1, gate_opts, (sizeof gate_opts / sizeof gate_opts[0]));
	while ((k = opt_parse(&p, &a, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		/* the gate answers --help first (gateopt_help); bench --gate has none */
		if (k >= 0) /* --help, the one row without a destination */
			return errmsg_fail(err, errlen, "unknown option '%s'", argv[p.at]);
		if (k != OPT_ARG || !pos || pos->n == pos->cap)
			return errmsg_fail(err, errlen, "unexpected argument '%s'", v);
		pos->v[pos->n++] = v;
	}
	if (opt_check(&p, err, errlen) != 0)
		return -1;
	if (!a.m.speedup && !a.m.slowdown)
		return errmsg_fail(err, errlen, "give --min-speedup P%% or --max-slowdown P%%");
	if (!isnan(a.g.equivalence) && !a.m.slowdown)
		return errmsg_fail(err, errlen,
		                   "--equivalence relaxes a no-regression requirement "
		                   "(--max-slowdown), not --min-speedup");
	if (!a.g.against && !a.g.candidate)
		return errmsg_fail(err, errlen, "give --candidate NAME (or --against OLD)");
	a.g.slowdown = a.m.slowdown;
	a.g.pct = a.m.slowdown ? a.m.slowdown_pct : a.m.speedup_pct;
	*g = a.g;
	return 0;
}

int gateopt_help(int argc, char **argv)
{
	return cmdopt_help(&gate_doc, argc, argv, 1);
}

int gateopt_parse(int argc, char **argv, struct gate_spec *g, const char **pos, char *err,
                  size_t errlen)
{
	struct gateopt_pos one = {pos, 1, 0};

	return parse_gate(argc, argv, g, pos ? &one : NULL, err, errlen);
}

int gateopt_parse_files(int argc, char **argv, struct gate_spec *g, struct gateopt_pos *files,
                        char *err, size_t errlen)
{
	files->cap = (size_t)argc;
	files->n = 0;
	return parse_gate(argc, argv, g, files, err, errlen);
}
