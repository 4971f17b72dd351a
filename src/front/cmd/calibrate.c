/* calibrate.c - the `allocab calibrate` command line: options, then one backend against itself
 * through the bench engine (two arms with the same driver, shuffled, padded, warmed up, within a
 * budget) or an existing A/A file (--from), handed to calib_report (calibreport.c) for the
 * noise-floor report and the calibration file. */
#include "front/cmd/commands.h"
#include "common/atomicio.h"
#include "front/cmd/benchopt.h"
#include "front/results/results.h"
#include "front/plan/plan.h"
#include "front/calib/calib.h"
#include "front/calib/calib.h"
#include "common/errmsg.h"
#include "common/jsonload.h"
#include "common/status.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* calibrate's settings: the bench's first, which bench's rows in its table write (their offsets
 * are the same), then its own. */
struct copts {
	struct bench_opts b;
	const char *from, *arms, *out, *phase;
	int out_set; /* -o given (else its directory may be created) */
	int help;
	struct calib_plan plan;
	size_t nfor;
	int argc; /* calibrate's whole command line, for the record */
	char **argv;
};

/* The reports' defaults, when no --effect or --for-rounds is given. */
#define DEF_EFFECTS    2, 5, 10
#define DEF_FOR_ROUNDS 10, 30
#define STRV_(...)     #__VA_ARGS__
#define STRV(...)      STRV_(__VA_ARGS__)

static int set_effect(void *settings, const struct opt *o, const char *v, char *err,
                      size_t errlen)
{
	struct calib_plan *p = &((struct copts *)settings)->plan;
	double x;

	if (opt_value(o, v, &x, err, errlen) != 0)
		return -1;
	if (p->neffects == CALIB_MAX_EFFECTS)
		return errmsg_fail(err, errlen, "--effect: at most %d", CALIB_MAX_EFFECTS);
	p->effects[p->neffects++] = x;
	return 0;
}

static int set_for_rounds(void *settings, const struct opt *o, const char *v, char *err,
                          size_t errlen)
{
	struct copts *c = settings;
	size_t n;

	if (opt_value(o, v, &n, err, errlen) != 0)
		return -1;
	if (c->nfor == sizeof c->plan.for_rounds / sizeof c->plan.for_rounds[0])
		return errmsg_fail(err, errlen, "--for-rounds: at most 4");
	c->plan.for_rounds[c->nfor++] = n;
	return 0;
}

/* calibrate's own options; each may be given again, the last one counts, but --effect and
 * --for-rounds, which add up. Then, under the heading, the bench options it runs with: --rounds
 * and --arm, which mean more here (their own rows, into the bench's settings), and every row of
 * bench's table flagged OPT_ALSO, listed by name (bench --help describes them; calib_table). */
#define OWN (OPT_VALUE | OPT_REPEAT)
#define C   struct copts
/* what --from excludes: every option of the bench it does not run (calib_table) */
static const char *from_excludes[OPT_MAX + 1] = {"--duet", "--one-cpu", "--rounds", "--arm"};
static const struct opt own_opts[] = {
    {"--allocator", 'a', OWN | OPT_ALLOCATOR, "NAME", .help = "the backend to calibrate",
     OPT_STRING(C, b.allocators), .def_doc = "the baseline backend, system"},
    {"--from", 0, OWN | OPT_FILE, "RUNS",
     .help = "analyse a bench file (allocab-bench/2 or /1) instead of running: arms A and B "
             "(--arms, default its first two) must be the same backend",
     OPT_STRING(C, from), .excludes = from_excludes,
     .why = "it analyses a file and runs nothing"},
    {"--arms", 0, OWN, "A,B", .help = "with --from: the two arms to analyse", OPT_STRING(C, arms),
     .needs = OPT_NAMES("--from")},
    {"--output", 'o', OWN | OPT_FILE, "FILE",
     .help = "the calibration; the runs go to NAME-runs.json for a FILE NAME.json",
     OPT_STRING(C, out), OPT_GIVEN(C, out_set), OPT_DEF_S(CALIB_DEFAULT_PATH)},
    {"--phase", 0, OWN, "NAME", .help = "calibrate this phase instead of each workload's total",
     OPT_STRING(C, phase)},
    {"--duet", 0, OPT_REPEAT, NULL,
     .help = "run the two arms at the same time on two CPUs (see bench --help)",
     OPT_FLAG(C, b.duet)},
    {"--one-cpu", 0, OPT_REPEAT, NULL,
     .help = "run the two arms at the same time on one CPU (see bench --help)",
     OPT_FLAG(C, b.one_cpu), .excludes = OPT_NAMES("--duet"),
     .why = "--duet gives each of two arms its own CPU"},
    {"--alpha", 0, OWN | OPT_OPEN_HI, "A", .help = "two-sided level of the tests and intervals",
     OPT_DOUBLE(C, plan.alpha), .lo = CALIB_ALPHA_MIN, .hi = CALIB_ALPHA_MAX,
     OPT_DEF_D(CALIB_ALPHA)},
    {"--power", 0, OWN | OPT_OPEN_HI, "P", .help = "power of the MDE", OPT_DOUBLE(C, plan.power),
     .lo = CALIB_POWER_MIN, .hi = CALIB_POWER_MAX, OPT_DEF_D(CALIB_POWER)},
    {"--effect", 0, OWN | OPT_OPEN_LO | OPT_OPEN_HI, "P%",
     .help = "report the rounds this effect needs; repeatable", .type = OPT_T_PCT, .lo = 0,
     .hi = 1000, .set = set_effect, .def_doc = STRV(DEF_EFFECTS) "%"},
    {"--for-rounds", 0, OWN, "N",
     .help = "report the MDE of a bench of N rounds; repeatable, up to four", .type = OPT_T_SIZE,
     .lo = 2, .hi = 1000000, .set = set_for_rounds, .def_doc = STRV(DEF_FOR_ROUNDS)},
    {"--for-budget", 0, OWN | OPT_OPEN_LO | OPT_OPEN_HI, "TIME",
     .help = "report the MDE of a bench of this budget (seconds, or 10m, 1.5h) with these "
             "workloads and two arms, from the round time measured here",
     OPT_SECONDS(C, plan.for_budget_s), .lo = 0, .hi = 1e7},
    {"--block", 0, OWN, "N", .help = "rounds per A/A sub-comparison", OPT_SIZE(C, plan.block),
     .lo = 6, .hi = 100000, OPT_DEF_U(CALIB_BLOCK)},
    {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL},
    {NULL, 0, 0, NULL, .help = "Options of allocab bench it runs with"},
    /* 20 rather than bench's 10: two disjoint --block sub-comparisons of the default 10 rounds,
     * and twice the pairs for the sd of the log ratios that every MDE stands on. */
    {"--rounds", 0, OWN, "N", .help = "measured rounds", OPT_UINT(C, b.cfg.rounds),
     OPT_GIVEN(C, b.rounds_set), .lo = 1, .hi = 100000, OPT_DEF_U(20),
     .def_doc = "with --budget: no limit"},
    {"--arm", 0, OWN, "LABEL=BACKEND[:KEY=VALUE]...",
     .help = "calibrate a configured backend instead (docs/tuning.md): both arms, LABEL.A and "
             "LABEL.B, run with the settings; not with -a",
     OPT_LIST(C, b.arm_specs, b.narm_specs)},
};
#undef C
#undef OWN

/* The table: own_opts, then bench's rows flagged OPT_ALSO, listed by name only (no help). */
static struct opt calib_opts[OPT_MAX];

/* Where calibrate lists a row of bench's: first what the bench runs (options with a value), then
 * where its drivers are (a directory), then the flags; each group in bench's order. */
static int also_group(const struct opt *o)
{
	return (o->flags & OPT_DIR) ? 1 : (o->flags & OPT_VALUE) ? 0 : 2;
}

/* Fills calib_opts, calibrate_doc.nopts and what --from excludes, before main: the man page and
 * completion read calibrate_doc without running calibrate. */
__attribute__((constructor)) static void calib_table(void)
{
	size_t n = 0, nx = 4;

	for (size_t i = 0; i < sizeof own_opts / sizeof own_opts[0]; i++)
		calib_opts[n++] = own_opts[i];
	for (int g = 0; g < 3; g++)
		for (size_t i = 0; i < bench_nopts && n < OPT_MAX; i++) {
			if (!(bench_opt_table[i].flags & OPT_ALSO) ||
			    also_group(&bench_opt_table[i]) != g)
				continue;
			calib_opts[n] = bench_opt_table[i];
			calib_opts[n].help = NULL;
			if (nx < OPT_MAX)
				from_excludes[nx++] = calib_opts[n].name;
			n++;
		}
	calibrate_doc.nopts = n;
}

struct opt_doc calibrate_doc = {
    .prog = "allocab calibrate",
    .synopsis = (const char *const[]){"[-a BACKEND | --arm LABEL=BACKEND...] [OPTIONS]",
                                      "--from RUNS [--arms A,B] [OPTIONS] [-o FILE]", NULL},
    .about = "Measures the noise floor of this machine: BACKEND (default system) against "
             "itself, two identical arms per round, run exactly like `allocab bench` runs a "
             "comparison (fresh processes, shuffled order, environment padding, warm-up). "
             "Reports per workload the spread of the A/A log ratios ln(t_B/t_A) (sd, MAD), the "
             "A/A estimate with its interval (a false positive when it excludes 0), the false "
             "positives among disjoint blocks of --block rounds, the drift of the ratios and of "
             "the times over the session, the minimum detectable effect (MDE) and the rounds a "
             "given effect needs.\n",
    .opts = calib_opts,
    .notes = "MDE: the smallest slowdown t_B/t_A - 1 that a paired bench of n rounds detects "
             "with the given power at level alpha (normal approximation, signed-rank "
             "efficiency 3/pi), from the sd of the log ratios measured here. `allocab compare` "
             "prints it beside the speedups and `allocab gate` warns when a margin is below "
             "it.\n"
             "Exit status: 0 done, 1 runtime failure, 2 bad input, 130 interrupted (the "
             "finished rounds are analysed and kept).\n",
};

static int parse_args(int argc, char **argv, struct copts *o, char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	memset(o, 0, sizeof *o);
	if (bench_opts_init(&o->b, argc, err, errlen) != 0)
		return -1;
	opt_defaults(calib_opts, calibrate_doc.nopts, o);
	opt_init(&p, argc, argv, 1, calib_opts, calibrate_doc.nopts);
	p.help = "allocab calibrate";
	while ((k = opt_parse(&p, o, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k == OPT_ARG)
			return errmsg_fail(err, errlen, "unexpected argument '%s'", v);
		o->help = 1; /* --help, the one row without a destination */
		return 0;
	}
	if (o->plan.neffects == 0) {
		static const double effects[] = {DEF_EFFECTS};

		memcpy(o->plan.effects, effects, sizeof effects);
		o->plan.neffects = sizeof effects / sizeof effects[0];
	}
	if (o->nfor == 0) {
		static const size_t rounds[] = {DEF_FOR_ROUNDS};

		memcpy(o->plan.for_rounds, rounds, sizeof rounds);
	}
	return bench_opts_finish(&p, &o->b, err, errlen);
}

/* ---- output paths ---- */

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* FILE.json -> FILE-runs.json (FILE -> FILE-runs.json). Caller frees. */
static char *runs_path_of(const char *out)
{
	size_t n = strlen(out);
	char *p;

	if (n > 5 && strcmp(out + n - 5, ".json") == 0)
		n -= 5;
	return asprintf(&p, "%.*s-runs.json", (int)n, out) < 0 ? NULL : p;
}

/* --from RUNS: the analysis of an existing file. Returns calib_report's status, or ST_USAGE (a
 * file or --arms that cannot be analysed) or ST_FAIL with err set. */
static enum status from_file(const struct copts *o, const char *out, char *err, size_t errlen)
{
	char **arms = NULL;
	enum jl_why why;
	struct rf_file info;
	cJSON *doc;
	const cJSON *cfg_arms;
	struct calib_ask ask;
	enum status rc = ST_USAGE;
	int narms = 0;

	if (rf_bench_read(o->from, &doc, &info, &why, err, errlen) != 0)
		return why == JL_NOMEM ? ST_FAIL : ST_USAGE;
	cJSON_Delete(info.disk);
	if (info.torn)
		fprintf(stderr, "allocab: warning: %s\n", info.torn_msg);
	if (plan_out_writable(out, !o->out_set, err, errlen) != 0) {
		rc = ST_FAIL;
		goto out;
	}
	if (o->arms) {
		if ((narms = bench_split_list(o->arms, "--arms", &arms, err, errlen)) < 0)
			goto out;
		if (narms != 2) {
			errmsg_fail(err, errlen, "--arms: want two arms A,B");
			goto out;
		}
	}
	cfg_arms = get(get(doc, "config"), "arms");
	if (!o->arms &&
	    (cJSON_GetArraySize(cfg_arms) < 2 || !cJSON_IsString(cJSON_GetArrayItem(cfg_arms, 0)) ||
	     !cJSON_IsString(cJSON_GetArrayItem(cfg_arms, 1)))) {
		errmsg_fail(err, errlen, "%s: config.arms: want at least two arms", o->from);
		goto out;
	}
	ask = (struct calib_ask){o->arms ? arms[0] : cJSON_GetArrayItem(cfg_arms, 0)->valuestring,
	                         o->arms ? arms[1] : cJSON_GetArrayItem(cfg_arms, 1)->valuestring,
	                         o->phase, &o->plan};
	rc = calib_report(doc, &ask, &(struct calib_where){o->from, out, stdout}, err, errlen);
out:
	bench_free_list(arms, narms > 0 ? (size_t)narms : 0);
	cJSON_Delete(doc);
	return rc;
}

/* The A/A bench's plan from the options, as bench builds its own (plan_init, plan_build).
 * Returns ST_OK, ST_USAGE or ST_FAIL with err set. */
static enum status aa_plan(struct bench_plan *p, struct copts *o, const char *runs, char *err,
                           size_t errlen)
{
	enum status rc;

	o->b.aa_runs = runs;
	o->b.aa_out = o->out;
	o->b.aa_make_dir = !o->out_set;
	if ((rc = plan_init(p, &o->b, o->argc, o->argv, err, errlen)) != ST_OK)
		return rc;
	return plan_build(p, &o->b, err, errlen);
}

/* Runs the A/A bench and analyses it. Returns ST_OK, ST_USAGE or ST_FAIL with err set, or
 * ST_INTERRUPTED (with err when fewer than 2 rounds were measured). */
static enum status run_and_analyse(struct copts *o, char *err, size_t errlen)
{
	struct bench_result res;
	struct bench_plan p;
	char *runs = runs_path_of(o->out);
	cJSON *doc = NULL;
	enum status rc;

	if (!runs)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	rc = aa_plan(&p, o, runs, err, errlen);
	if (rc == ST_OK && *p.stop)
		rc = ST_INTERRUPTED;
	if (rc == ST_OK)
		rc = bench_run(&p.c, p.stop, &doc, &res, err, errlen);
	if (rc == ST_OK && res.measured < 2) {
		rc = strcmp(res.status, "interrupted") == 0 ? ST_INTERRUPTED : ST_FAIL;
		errmsg_fail(err, errlen,
		            "%u measured round%s: an A/A analysis needs at least 2 (runs in %s)",
		            res.measured, res.measured == 1 ? "" : "s", runs);
	} else if (rc == ST_OK) {
		if (res.failed)
			fprintf(stderr,
			        "allocab: calibrate: %zu of %zu run%s did not succeed; see %s\n",
			        res.failed, res.runs, res.runs == 1 ? "" : "s", runs);
		struct calib_ask ask = {p.c.arms[0].name, p.c.arms[1].name, o->phase, &o->plan};
		rc = calib_report(doc, &ask, &(struct calib_where){runs, o->out, stdout}, err, errlen);
		if (rc == ST_OK && strcmp(res.status, "interrupted") == 0)
			rc = ST_INTERRUPTED;
	}
	cJSON_Delete(doc);
	plan_free(&p);
	free(runs);
	return rc;
}

int calibrate_main(int argc, char **argv)
{
	struct copts o;
	char err[4096 + 256];
	enum status rc;

	if (parse_args(argc, argv, &o, err, sizeof err) != 0) {
		errmsg_print(stderr, "calibrate", "%s", err);
		bench_opts_free(&o.b);
		return ST_USAGE;
	}
	if (o.help) {
		optdoc_usage(stdout, &calibrate_doc, NULL);
		bench_opts_free(&o.b);
		return ST_OK;
	}
	o.argc = argc;
	o.argv = argv;
	bench_catch_signals();
	err[0] = '\0';
	rc = o.from ? from_file(&o, o.out, err, sizeof err) : run_and_analyse(&o, err, sizeof err);
	if (rc != ST_OK && err[0])
		errmsg_print(stderr, "calibrate", "%s", err);
	else if (rc == ST_INTERRUPTED)
		fprintf(stderr, "allocab: calibrate: interrupted\n");
	bench_opts_free(&o.b);
	return rc;
}
