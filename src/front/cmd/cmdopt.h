/* cmdopt.h - private to this folder: the options that several commands take, declared once
 * (cmdopt.c) with one help text each: --time (bench and compare), and the rows compare, merge
 * and gate share. A command's table takes a shared row as [ITS_INDEX] = CMDOPT_X(T, FIELD),
 * T its settings struct and FIELD where the value goes in it; a rule between two shared rows
 * names the other row's index in that table. */
#ifndef ALLOCAB_CMDOPT_H
#define ALLOCAB_CMDOPT_H

#include "common/opt.h"
#include "common/optdoc.h"
#include "front/gate/gate.h"

#include <stddef.h>

/* --time's words and the enum rf_time_policy stored for each. */
extern const struct opt_values cmdopt_time_values;
extern const int cmdopt_time_map[];

/* --regime: compare's and merge's words (both, cold, steady: enum cmp_regimes), and the gate's,
 * which decides on one (steady, cold). */
extern const struct opt_values cmdopt_regimes_values, cmdopt_regime_values;
extern const int cmdopt_regime_map[];
/* --phases all; --format's values (the export registry). */
extern const struct opt_values cmdopt_phases_values, cmdopt_format_values;

/* The margin of --min-speedup or --max-slowdown (they exclude each other), as given. */
struct cmdopt_margin {
	double speedup_pct, slowdown_pct;
	int speedup, slowdown; /* which was given */
};
/* The bound on t_candidate/t_baseline the margin draws: 1 - P/100 or 1 + P/100, NAN for none. */
double cmdopt_margin_ratio(const struct cmdopt_margin *m);

/* --help and -h, hidden: a command that takes it anywhere among its options has this row and asks
 * cmdopt_help before it parses. */
#define CMDOPT_HELP {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL}
/* Whether argv[first..argc-1], read by d's rows, give its --help row (opt_seen: not as another
 * option's value, whatever else is wrong with them); then d's usage is on stdout. */
int cmdopt_help(const struct opt_doc *d, int argc, char **argv, int first);

/* --conf's setter: a level in [0.5, 1), with strtod's leading blanks and '+', which --conf has
 * always taken. settings + o's dest is the double. */
int cmdopt_set_conf(void *settings, const struct opt *o, const char *v, char *err, size_t errlen);

/* --baseline's default in compare and gate (def of CMDOPT_BASELINE); merge names its own. */
#define CMDOPT_BASELINE_OF_FILE                                                                    \
	"the file's config.baseline: the arm of the baseline backend, system, or else the first arm"
#define CMDOPT_BASELINE(T, f, def)                                                                 \
	{"--baseline", 0, OPT_VALUE | OPT_ALLOCATOR, "NAME", .help = "the baseline arm",           \
	 .def_doc = def, OPT_STRING(T, f)}
#define CMDOPT_CANDIDATE(T, f)                                                                     \
	{"--candidate", 0, OPT_VALUE | OPT_ALLOCATOR, "NAME",                                      \
	 .help = "the candidate arm: compare and merge show this one only, gate judges it "        \
	         "(required there without --against)",                                             \
	 OPT_STRING(T, f)}
#define CMDOPT_WORKLOAD(T, f)                                                                      \
	{"--workload", 0, OPT_VALUE | OPT_REPEAT | OPT_WORKLOAD, "NAME",                           \
	 .help = "this workload only", OPT_STRING(T, f)}
#define CMDOPT_PHASE(T, f)                                                                         \
	{"--phase", 0, OPT_VALUE | OPT_REPEAT, "NAME",                                             \
	 .help = "this phase instead of each workload's total", OPT_STRING(T, f)}
#define CMDOPT_PHASES(T, f)                                                                        \
	{"--phases", 0, OPT_VALUE | OPT_REPEAT, NULL, .help = "every phase of every workload",     \
	 .values = &cmdopt_phases_values, OPT_ENUM(T, f), .map = (const int[]){1},                \
	 .excludes = OPT_NAMES("--phase")}
#define CMDOPT_REGIME_HELP                                                                         \
	"the times: steady (the median of each run's steady repetitions, or the mean of the last " \
	"half of a marked phase's spans: what a long-running process sees), cold (its first "      \
	"repetition) or, in compare and merge, both side by side"
#define CMDOPT_REGIMES(T, f)                                                                       \
	{"--regime", 0, OPT_VALUE | OPT_REPEAT, NULL, .help = CMDOPT_REGIME_HELP,                  \
	 .values = &cmdopt_regimes_values, OPT_ENUM(T, f), OPT_DEF_U(CMP_REGIMES_BOTH)}
#define CMDOPT_REGIME(T, f, given)                                                                 \
	{"--regime", 0, OPT_VALUE | OPT_REPEAT, NULL, .help = CMDOPT_REGIME_HELP,                  \
	 .values = &cmdopt_regime_values, .map = cmdopt_regime_map, OPT_ENUM(T, f),               \
	 OPT_GIVEN(T, given), OPT_DEF_U(CMP_REGIMES_STEADY),                                       \
	 .def_doc = "a file that measured cold only is judged cold, with a warning"}
#define CMDOPT_CONF(T, f)                                                                          \
	{"--conf", 0, OPT_VALUE | OPT_REPEAT | OPT_OPEN_HI, "LEVEL",                               \
	 .help = "family level of the intervals: with m comparisons in a family each interval is " \
	         "at 1 - (1 - LEVEL)/m, so that all of them hold at once (compare: the primary "    \
	         "ones, apart the secondary ones; merge: odd machines are named at 1 - LEVEL, "     \
	         "Bonferroni over the machines)",                                                  \
	 OPT_DOUBLE(T, f), .lo = 0.5, .hi = 1, OPT_DEF_D(GATE_DEFAULT_CONF),                       \
	 .set = cmdopt_set_conf}
#define CMDOPT_FORMAT(T, f)                                                                        \
	{"--format", 0, OPT_VALUE | OPT_REPEAT, "F",                                               \
	 .help = "the report's format (merge's json: allocab-fleet/1, its html: a forest plot of " \
	         "every machine and the pooled estimate), one of:",                               \
	 .values = &cmdopt_format_values, OPT_STRING(T, f), OPT_DEF_S("table")}
#define CMDOPT_OUT(T, f)                                                                           \
	{NULL, 'o', OPT_VALUE | OPT_REPEAT | OPT_FILE, "FILE",                                     \
	 .help = "write the report to FILE (atomically) instead of standard output",               \
	 OPT_STRING(T, f)}
#define CMDOPT_MIN_SPEEDUP(T, m)                                                                   \
	{"--min-speedup", 0, OPT_VALUE | OPT_OPEN_HI, "P%",                                        \
	 .help = "the margin that the candidate is at least P% faster: R <= 1 - P/100 (5% is R <= " \
	         "0.95, a speedup of at least 1.0526x); gate judges it, compare and merge draw it " \
	         "in html and svg charts",                                                         \
	 OPT_PCT(T, m.speedup_pct), OPT_GIVEN(T, m.speedup), .lo = 0, .hi = 100}
#define CMDOPT_MAX_SLOWDOWN(T, m)                                                                  \
	{"--max-slowdown", 0, OPT_VALUE | OPT_OPEN_HI, "P%",                                       \
	 .help = "the margin of at most P% slower: R <= 1 + P/100; one of the two margins",        \
	 OPT_PCT(T, m.slowdown_pct), OPT_GIVEN(T, m.slowdown), .lo = 0, .hi = 100,                 \
	 .excludes = OPT_NAMES("--min-speedup")}
#define CMDOPT_NO_TELEMETRY(T, f)                                                                  \
	{"--no-telemetry", 0, OPT_REPEAT, NULL,                                                    \
	 .help = "leave the runs' telemetry out (the warnings with their counts; in json its "     \
	         "list), e.g. for a CI step summary",                                              \
	 OPT_FLAG(T, f)}
#define CMDOPT_EQUIVALENCE(T, f)                                                                   \
	{"--equivalence", 0, OPT_VALUE | OPT_REPEAT | OPT_OPEN_HI, "M%",                           \
	 .help = "the equivalence margin: a comparison whose interval lies inside [1/(1+M/100), "  \
	         "1+M/100] is equivalent within ±M%; in gate, with --max-slowdown only, it also "   \
	         "passes, and FAIL needs a slowdown beyond both P and M; 0 turns it off",           \
	 OPT_PCT(T, f), .lo = 0, .hi = 100,                                                        \
	 .def_doc = "the file's bench --equivalence, else 2% in compare and none in gate"}

#endif
