/* compare.c - `allocab compare`: speedups with intervals from one or two results files
 * (front/compare/compare.h), rendered by one of the formats of front/export/export.h. */
#include "front/cmd/commands.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "front/calib/calib.h"
#include "front/claims/claims.h"
#include "front/compare/compare.h"
#include "front/cmd/cmdopt.h"
#include "front/cmd/report.h"
#include "front/results/results.h"
#include "front/export/export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct compare_args {
	struct cmp_opts o;
	const char *files[2];
	size_t nfiles;
	const char *format, *out, *calibration, *claims;
	const char *program; /* --program-results: the program's own time for a replay */
	struct cmdopt_margin m; /* the gate margin to draw */
	double margin;          /* its bound on t_candidate/t_baseline, or NAN */
	double equivalence;     /* --equivalence, or NAN when not given */
	int no_telemetry;
	int time_set; /* --time given: time applies to every file */
	int time;     /* enum rf_time_policy */
	struct cmp_primary primary; /* --primary, when given (o.primary points here) */
};

static int set_bootstrap(void *settings, const struct opt *o, const char *v, char *err,
                         size_t errlen)
{
	uint64_t u;

	if (opt_value(o, v, &u, err, errlen) != 0)
		return -1;
	((struct compare_args *)settings)->o.bootstrap = (uint32_t)u;
	return 0;
}

static int set_primary(void *settings, const struct opt *o, const char *v, char *err,
                       size_t errlen)
{
	struct compare_args *a = settings;

	(void)o;
	if (cmp_primary_parse(v, &a->primary, err, errlen) != 0)
		return -1;
	a->o.primary = &a->primary;
	return 0;
}

/* Each option may be given again and the last one counts, but the arms compared and the margin:
 * a second --baseline or --candidate is refused, as bench refuses repeats. */
#define CA struct compare_args
static const struct opt compare_opts[] = {
    CMDOPT_BASELINE(CA, o.baseline, CMDOPT_BASELINE_OF_FILE),
    CMDOPT_CANDIDATE(CA, o.candidate),
    CMDOPT_WORKLOAD(CA, o.workload),
    CMDOPT_PHASE(CA, o.phase),
    CMDOPT_PHASES(CA, o.all_phases),
    CMDOPT_REGIMES(CA, o.regimes),
    {"--primary", 0, OPT_VALUE | OPT_REPEAT, "ROWS",
     .help = "the comparisons that are the question, simultaneous among "
             "themselves: PHASE or PHASE:cold|steady (each workload's phase), or "
             "all (one family). The rest are secondary: a family and a table of "
             "their own",
     .set = set_primary,
     .def_doc = "the file's bench --primary, else each workload's total (or "
                "--phase), steady where it has steady times, else cold"},
    {"--time", 0, OPT_VALUE | OPT_REPEAT, NULL,
     .help = "the time of a repetition compared: cpu (the process's CPU time, every "
             "thread), auto (CPU time for single-threaded workloads, wall time for "
             "the others) or wall; a --one-cpu file takes cpu only",
     .values = &cmdopt_time_values, .map = cmdopt_time_map, OPT_ENUM(CA, time),
     OPT_GIVEN(CA, time_set),
     .def_doc = "the one the bench recorded (config.time; wall for files without "
                "it)"},
    CMDOPT_FORMAT(CA, format),
    CMDOPT_OUT(CA, out),
    CMDOPT_CONF(CA, o.conf),
    {"--bootstrap", 0, OPT_VALUE | OPT_REPEAT, "N",
     .help = "percentile bootstrap interval (resamples seeded by --seed; N x "
             "rounds at most 10^7) instead of the signed-rank interval; one file "
             "only",
     .type = OPT_T_U64, .lo = CMP_MIN_BOOTSTRAP, .hi = CMP_MAX_BOOTSTRAP,
     .set = set_bootstrap},
    {"--seed", 0, OPT_VALUE | OPT_REPEAT, "N", .help = "seed of the bootstrap",
     OPT_U64(CA, o.seed), OPT_DEF_U(1)},
    {"--calibration", 0, OPT_VALUE | OPT_REPEAT | OPT_FILE, "FILE",
     .help = "the noise floor column from this `allocab calibrate` file: the "
             "smallest slowdown the calibrated noise lets that many paired "
             "rounds detect",
     OPT_STRING(CA, calibration),
     .def_doc = "results/calibration.json when it exists"},
    {"--claims", 0, OPT_VALUE | OPT_REPEAT | OPT_FILE, "FILE",
     .help = "check the quoted speedups of an allocab-claims/1 file against the "
             "intervals: confirmed, partly, refuted (docs/claims.md)",
     OPT_STRING(CA, claims)},
    CMDOPT_MIN_SPEEDUP(CA, m),
    CMDOPT_MAX_SLOWDOWN(CA, m),
    CMDOPT_NO_TELEMETRY(CA, no_telemetry),
    CMDOPT_EQUIVALENCE(CA, equivalence),
    {"--program-results", 0, OPT_VALUE | OPT_REPEAT | OPT_FILE, "FILE",
     .help = "for a replay (-w replay): a --program bench of the recorded "
             "program, whose baseline's median time predicts the "
             "program's speedup from the replay's (docs/methodology.md, "
             "\"Does the replay predict the program?\")",
     OPT_STRING(CA, program),
     .def_doc = "the recorded process's duration in the trace"},
    CMDOPT_HELP,
};
#undef CA

const struct opt_doc compare_doc = {
    .prog = "allocab compare",
    .synopsis = (const char *const[]){"RESULTS [RESULTS2] [OPTIONS]", NULL},
    .about = "One file: every arm against the baseline, paired by round. Two files: every arm "
             "of RESULTS2 against the same arm of RESULTS (two-sample; warns when the machines "
             "differ). By default the total of every workload (all the phases of a workload "
             "whose records are flagged show_phases), plus the geometric mean over "
             "workloads. The primary comparisons (--primary; by default each workload's total "
             "or --phase, steady where it has steady times) are the question, in a table and "
             "a family of their own; the rest are secondary, in a second family.\n",
    .opts = compare_opts,
    .nopts = (sizeof compare_opts / sizeof compare_opts[0]),
    .notes = "Convention: speedup 1.12x means the candidate takes 1/1.12 of the baseline's "
             "time; improvement % = (1 - t_candidate/t_baseline) x 100.\n"
             "Intervals: simultaneous over the m comparisons of the report, each at "
             "1 - (1 - conf)/m (Bonferroni); the level is named in the header.\n"
             "Verdict, read off the printed interval: faster or slower when it lies wholly "
             "above or below 1x; equivalent within ±M% when it lies inside the margin (both "
             "are said when both hold); otherwise no detectable difference; fewer than 2 "
             "usable rounds: insufficient data; too few rounds for the interval to reach its "
             "level: too few rounds for a verdict: need N.\n"
             "Exit status: 0 report written, 2 bad input, 1 runtime failure (README.md, \"Exit "
             "status\").\n",
};

static int parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	opt_init(&p, argc, argv, 1, compare_opts, (sizeof compare_opts / sizeof compare_opts[0]));
	while ((k = opt_parse(&p, a, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k >= 0) /* --help, answered before the parse (cmdopt_help) */
			continue;
		/* k is OPT_ARG: every other row has a destination or a setter */
		if (a->nfiles == 2)
			return errmsg_fail(
			    err, errlen, "unexpected argument '%s': at most two results files", v);
		a->files[a->nfiles++] = v;
	}
	if (a->nfiles == 0)
		return errmsg_fail(err, errlen, "give a results file");
	a->margin = cmdopt_margin_ratio(&a->m);
	return opt_check(&p, err, errlen);
}

/* --time for every file; without it each file's own (config.time), and two files whose own
 * differ are both compared on wall time, with a warning. A file whose arms ran at once on one CPU
 * (config.duet_cpus "shared") compares on CPU time only, as its bench did: its runs' wall times
 * hold the other arms' turns on that CPU. ST_OK, or ST_USAGE with err. */
static enum status pick_time(const struct compare_args *a, struct rf_doc *d[2], char *err,
                             size_t errlen)
{
	int differ = !a->time_set && d[1] && d[0]->time_given != d[1]->time_given;
	enum rf_time_policy want = a->time_set ? (enum rf_time_policy)a->time : RF_POLICY_WALL;
	char w[256];

	for (int i = 0; (a->time_set || differ) && i < 2; i++)
		if (d[i] && d[i]->cpu_shared && want != RF_POLICY_CPU)
			return errmsg_status(
			    ST_USAGE, err, errlen,
			    "%s ran its arms at once on one CPU (config.duet_cpus \"shared\"): it "
			    "compares on CPU time only, not %s time%s",
			    a->files[i], rf_time_policy_name(want),
			    a->time_set ? "" : " (the time of the two files differs; --time cpu)");
	if (a->time_set) {
		for (int i = 0; i < 2; i++)
			if (d[i])
				rf_use_time(d[i], want);
		return ST_OK;
	}
	if (!differ)
		return ST_OK;
	snprintf(w, sizeof w,
	         "the two files compare different times (config.time %s and %s): both "
	         "compared on wall time; --time chooses",
	         rf_time_policy_name(d[0]->time_given), rf_time_policy_name(d[1]->time_given));
	errmsg_warn(stderr, "compare", w);
	rf_use_time(d[0], RF_POLICY_WALL);
	rf_use_time(d[1], RF_POLICY_WALL);
	return ST_OK;
}

struct render_ctx {
	const struct exporter *x;
	struct export_input in;
};

/* The replays of r with their predictions, the program's time from --program-results when it is
 * given (prog, loaded). Returns ST_OK, ST_USAGE (a program file that cannot serve, or no replay
 * to predict) or ST_FAIL (memory), with err set. */
static enum status replays(const struct cmp_report *r, const struct rf_doc *prog,
                           struct cmp_replay **x, size_t *n, char *err, size_t errlen)
{
	struct cmp_program p = {0};

	if (prog && cmp_program_time(prog, r->paired ? r->baseline : NULL, &p.t_ns, &p.arm, err,
	                             errlen) != 0)
		return ST_USAGE;
	p.path = prog ? prog->path : NULL;
	if (cmp_replays(r, &p, x, n) != 0)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (prog && !*n)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--program-results %s: the comparison holds no replay (a "
		                     "workload run on a recorded trace) to predict from",
		                     prog->path);
	return ST_OK;
}

static int render_one(FILE *f, const void *ctx, char *err, size_t errlen)
{
	const struct render_ctx *c = ctx;

	return c->x->write(f, &c->in, err, errlen);
}

/* What one compare holds from its arguments to its output (compare_free releases it). */
struct compare_run {
	struct compare_args a;
	struct rf_doc *d[2], *prog;
	struct cmp_replay *rp;
	size_t nrp;
	struct cmp_attrib *at;
	struct cmp_report *r;
	struct calib_floor cal;
	struct claims_file *claims;
	struct claims_result *checked;
	const struct exporter *x;
	char err[1024];
};

static int render(struct compare_run *s)
{
	struct render_ctx c = {s->x,
	                       {.r = s->r,
	                        .margin = s->a.margin,
	                        .claims = s->checked,
	                        .width = report_width(s->a.out),
	                        .replays = s->rp,
	                        .nreplays = s->nrp,
	                        .attrib = s->at}};

	return report_write(s->a.out, render_one, &c, s->err, sizeof s->err);
}

/* The options, the format, the claims and the results files, with each file's time. */
static enum status load_inputs(struct compare_run *s, int argc, char **argv)
{
	struct compare_args *a = &s->a;
	char names[256];
	enum status rc = ST_OK;

	opt_defaults(compare_opts, sizeof compare_opts / sizeof compare_opts[0], a);
	if (parse_compare(argc, argv, a, s->err, sizeof s->err) != 0)
		rc = ST_USAGE;
	else if (!(s->x = export_find(a->format))) {
		errmsg_fail(s->err, sizeof s->err, "--format: '%s' is not one of %s", a->format,
		            export_names(names, sizeof names, ", ", ", "));
		rc = ST_USAGE;
	} else if (a->claims && !(s->claims = claims_load(a->claims, s->err, sizeof s->err)))
		rc = ST_USAGE;
	for (size_t i = 0; rc == ST_OK && i < a->nfiles; i++)
		rc = rf_load(a->files[i], &s->d[i], s->err, sizeof s->err);
	if (rc == ST_OK && a->program)
		rc = rf_load(a->program, &s->prog, s->err, sizeof s->err);
	if (rc == ST_OK)
		rc = pick_time(a, s->d, s->err, sizeof s->err);
	return rc;
}

/* The report, with its noise floor, replays and attributions. */
static enum status build_report(struct compare_run *s)
{
	struct compare_args *a = &s->a;
	enum status rc;

	a->o.equivalence = cmp_pick_equivalence(a->equivalence, s->d[1] ? s->d[1] : s->d[0],
	                                        CMP_DEFAULT_EQUIVALENCE);
	a->o.seq_if_decided = 1; /* a bench that stopped on its decisions: the intervals valid so */
	rc = cmp_build(s->d[0], s->d[1], &a->o, &s->r, s->err, sizeof s->err);
	if (rc == ST_OK && calib_apply(s->r, a->calibration, &s->cal, s->err, sizeof s->err) != 0)
		rc = ST_USAGE;
	else if (rc == ST_OK && s->cal.warn[0])
		errmsg_warn(stderr, "compare", s->cal.warn);
	if (rc == ST_OK && a->no_telemetry)
		cmp_drop_telemetry(s->r);
	if (rc == ST_OK)
		rc = replays(s->r, s->prog, &s->rp, &s->nrp, s->err, sizeof s->err);
	if (rc == ST_OK && cmp_attribs(s->r, &s->at) != 0)
		rc = errmsg_status(ST_FAIL, s->err, sizeof s->err, "out of memory");
	return rc;
}

/* The warnings on stderr (unless the format holds them), the claims checked, the report. */
static enum status write_report(struct compare_run *s)
{
	for (size_t i = 0; !(s->x->flags & EXPORT_WARNINGS) && i < s->r->nwarn; i++)
		errmsg_warn(stderr, "compare", s->r->warn[i]);
	if (s->claims && !(s->checked = claims_check(s->claims, s->r)))
		return errmsg_status(ST_FAIL, s->err, sizeof s->err, "out of memory");
	return render(s) != 0 ? ST_FAIL : ST_OK;
}

static void compare_free(struct compare_run *s)
{
	cmp_replays_free(s->rp, s->nrp);
	cmp_attribs_free(s->at);
	rf_free(s->prog);
	claims_result_free(s->checked);
	claims_free(s->claims);
	cmp_free(s->r);
	calib_file_free(s->cal.file);
	rf_free(s->d[0]);
	rf_free(s->d[1]);
}

int compare_main(int argc, char **argv)
{
	struct compare_run s = {.a = {.margin = NAN, .equivalence = NAN}};
	enum status rc;

	if (cmdopt_help(&compare_doc, argc, argv, 1))
		return ST_OK;
	if (argc < 2) {
		optdoc_usage(stderr, &compare_doc, NULL);
		return ST_USAGE;
	}
	rc = load_inputs(&s, argc, argv);
	if (rc == ST_OK)
		rc = build_report(&s);
	if (rc == ST_OK)
		rc = write_report(&s);
	if (rc != ST_OK)
		errmsg_print(stderr, "compare", "%s", s.err);
	compare_free(&s);
	return rc;
}
