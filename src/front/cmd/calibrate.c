/* calibrate.c - the `allocab calibrate` command line: options, then one backend against itself
 * through the bench engine (two arms with the same driver, shuffled, padded, warmed up, within a
 * budget) or an existing A/A file (--from), handed to calib_report (calibreport.c) for the
 * noise-floor report and the calibration file. */
#include "front/cmd/commands.h"
#include "common/atomicio.h"
#include "front/cmd/benchopt.h"
#include "front/engine/engine.h"
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

#define DEFAULT_ROUNDS 20

struct copts {
	const char *backend, *from, *arms, *out, *phase;
	int backend_set;
	int duet, help;
	struct calib_plan plan;
	size_t nfor;
	char **fwd; /* options for bench_parse_args */
	int nfwd;
};

/* A number strictly between lo and hi; with pct it may end in '%'. */
static int parse_between(const char *s, int pct, double lo, double hi, double *out)
{
	double v;

	if (num_parse_double(s, pct, &v) < 0 || !(v > lo && v < hi))
		return -1;
	*out = v;
	return 0;
}

/* calibrate's own options, then those of bench that it passes on (K_FORWARDED and after; bench
 * refuses their repetitions). Each own option may be given again; the last one counts, but
 * --effect and --for-rounds, which add up. */
enum {
	K_ALLOCATOR,
	K_FROM,
	K_ARMS,
	K_OUTPUT,
	K_PHASE,
	K_DUET,
	K_ALPHA,
	K_POWER,
	K_EFFECT,
	K_FOR_ROUNDS,
	K_FOR_BUDGET,
	K_BLOCK,
	K_HELP,
	K_H_BENCH,
	K_FORWARDED,
	K_COUNT = K_FORWARDED + 15
};

#define OWN (OPT_VALUE | OPT_REPEAT)
/* A bench option passed on, listed by name (bench --help describes it). */
#define FWD(name, c, flags, vals)                                                                  \
	{                                                                                          \
		name, c, flags, NULL, .values = vals                                               \
	}
static const struct opt calib_opts[K_COUNT] = {
    [K_ALLOCATOR] = {"--allocator", 'a', OWN | OPT_ALLOCATOR, "NAME",
                     .help = "the backend to calibrate (default: the baseline backend, system)"},
    [K_FROM] = {"--from", 0, OWN | OPT_FILE, "RUNS",
                .help = "analyse an allocab-bench/1 file instead of running: arms A and B "
                        "(--arms, default its first two) must be the same backend"},
    [K_ARMS] = {"--arms", 0, OWN, "A,B", .help = "with --from: the two arms to analyse"},
    [K_OUTPUT] = {"--output", 'o', OWN | OPT_FILE, "FILE",
                  .help = "the calibration (default: " CALIB_DEFAULT_PATH "); the runs go to "
                          "NAME-runs.json for a FILE NAME.json"},
    [K_PHASE] = {"--phase", 0, OWN, "NAME",
                 .help = "calibrate this phase instead of each workload's total"},
    [K_DUET] = {"--duet", 0, OPT_REPEAT, NULL,
                .help = "run the two arms at the same time on two CPUs (see bench --help)"},
    [K_ALPHA] = {"--alpha", 0, OWN, "A",
                 .help = "two-sided level of the tests and intervals, in [1e-6, 0.5) (default: "
                         "0.05)"},
    [K_POWER] = {"--power", 0, OWN, "P", .help = "power of the MDE, in [0.01, 1) (default: 0.8)"},
    [K_EFFECT] = {"--effect", 0, OWN, "P%",
                  .help = "report the rounds this effect needs; repeatable (default: 2%, 5%, "
                          "10%)"},
    [K_FOR_ROUNDS] = {"--for-rounds", 0, OWN, "N",
                      .help = "report the MDE of a bench of N rounds, 2..1000000; repeatable, "
                              "up to four (default: 10 and 30)"},
    [K_FOR_BUDGET] = {"--for-budget", 0, OWN, "SECONDS",
                      .help = "report the MDE of a bench of this budget with these workloads "
                              "and two arms, from the round time measured here"},
    [K_BLOCK] = {"--block", 0, OWN, "N",
                 .help = "rounds per A/A sub-comparison, 6..100000 (default: 10)"},
    [K_HELP] = {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL},
    [K_H_BENCH] = {NULL, 0, 0, NULL, .help = "Options of allocab bench it runs with"},
    [K_FORWARDED] = {"--rounds", 0, OWN, "N",
                     .help = "measured rounds (default: 20; with --budget: no limit)"},
    {"--arm", 0, OWN, "LABEL=BACKEND[:KEY=VALUE]...",
     .help = "calibrate a configured backend instead (docs/tuning.md): both arms, LABEL.A and "
             "LABEL.B, run with the settings; not with -a"},
    FWD("--workloads", 'w', OWN | OPT_WORKLOAD, NULL),
    FWD("--scale", 0, OWN, &bench_scale_values),
    FWD("--seed", 0, OWN, NULL),
    FWD("--param", 0, OWN, NULL),
    FWD("--reps", 0, OWN, &bench_reps_values),
    FWD("--budget", 0, OWN, NULL),
    FWD("--warmup", 0, OWN, NULL),
    FWD("--min-rounds", 0, OWN, NULL),
    FWD("--timeout", 0, OWN, NULL),
    FWD("--shuffle-seed", 0, OWN, NULL),
    FWD("--pad-max", 0, OWN, NULL),
    FWD("--driver-dir", 0, OWN | OPT_DIR, NULL),
    FWD("--quiet", 'q', OPT_REPEAT, NULL),
};
#undef FWD
#undef OWN

const struct opt_doc calibrate_doc = {
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
    .nopts = K_COUNT,
    .notes = "MDE: the smallest slowdown t_B/t_A - 1 that a paired bench of n rounds detects "
             "with the given power at level alpha (normal approximation, signed-rank "
             "efficiency 3/pi), from the sd of the log ratios measured here. `allocab compare` "
             "prints it beside the speedups and `allocab gate` warns when a margin is below "
             "it.\n"
             "Exit status: 0 done, 1 runtime failure, 2 bad input, 130 interrupted (the "
             "finished rounds are analysed and kept).\n",
};

static int own_option(struct copts *o, int k, const char *v, char *err, size_t errlen)
{
	double x;
	uint64_t n;

	if (v && !v[0] && (k == K_OUTPUT || k == K_FROM))
		return errmsg_fail(err, errlen, "%s: empty file name",
		                   k == K_FROM ? "--from" : "-o");
	switch (k) {
	case K_ALLOCATOR:
		o->backend = v;
		o->backend_set = 1;
		return 0;
	case K_FROM:
		o->from = v;
		return 0;
	case K_ARMS:
		o->arms = v;
		return 0;
	case K_OUTPUT:
		o->out = v;
		return 0;
	case K_PHASE:
		o->phase = v;
		return 0;
	case K_DUET:
		o->duet = 1;
		return 0;
	case K_ALPHA:
		if (parse_between(v, 0, 0, CALIB_ALPHA_MAX, &o->plan.alpha) != 0 ||
		    o->plan.alpha < CALIB_ALPHA_MIN)
			return errmsg_fail(err, errlen,
			                   "--alpha '%s': want a number in [1e-06, 0.5)", v);
		return 0;
	case K_POWER:
		if (parse_between(v, 0, 0, CALIB_POWER_MAX, &o->plan.power) != 0 ||
		    o->plan.power < CALIB_POWER_MIN)
			return errmsg_fail(err, errlen, "--power '%s': want a number in [0.01, 1)",
			                   v);
		return 0;
	case K_EFFECT:
		if (parse_between(v, 1, 0, 1000, &x) != 0)
			return errmsg_fail(
			    err, errlen, "--effect '%s': want a percentage in (0, 1000), e.g. 5%%",
			    v);
		if (o->plan.neffects == CALIB_MAX_EFFECTS)
			return errmsg_fail(err, errlen, "--effect: at most %d", CALIB_MAX_EFFECTS);
		o->plan.effects[o->plan.neffects++] = x;
		return 0;
	case K_FOR_ROUNDS:
		if (num_parse_u64(v, &n) != 0 || n < 2 || n > 1000000)
			return errmsg_fail(
			    err, errlen,
			    "--for-rounds '%s': want a whole number of rounds from 2 to "
			    "1000000",
			    v);
		if (o->nfor == 4)
			return errmsg_fail(err, errlen, "--for-rounds: at most 4");
		o->plan.for_rounds[o->nfor++] = (size_t)n;
		return 0;
	case K_FOR_BUDGET:
		if (parse_between(v, 0, 0, 1e7, &o->plan.for_budget_s) != 0)
			return errmsg_fail(
			    err, errlen,
			    "--for-budget '%s': want a number of seconds above 0 and "
			    "below 10000000",
			    v);
		return 0;
	case K_BLOCK:
		if (num_parse_u64(v, &n) != 0 || n < 6 || n > 100000)
			return errmsg_fail(
			    err, errlen,
			    "--block '%s': want a whole number of rounds from 6 to 100000", v);
		o->plan.block = (size_t)n;
		return 0;
	}
	return -1;
}

static int parse_args(int argc, char **argv, struct copts *o, char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	memset(o, 0, sizeof *o);
	o->plan =
	    (struct calib_plan){.alpha = CALIB_ALPHA, .power = CALIB_POWER, .block = CALIB_BLOCK};
	if (!(o->fwd = calloc((size_t)argc + 1, sizeof *o->fwd)))
		return errmsg_fail(err, errlen, "out of memory");
	o->fwd[o->nfwd++] = argv[0];
	opt_init(&p, argc, argv, 1, calib_opts, K_COUNT);
	p.help = "allocab calibrate";
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k == OPT_ARG)
			return errmsg_fail(err, errlen, "unexpected argument '%s'", v);
		if (k == K_HELP) {
			o->help = 1;
			return 0;
		}
		if (k >= K_FORWARDED)
			for (int m = p.at; m < p.i; m++)
				o->fwd[o->nfwd++] = argv[m];
		else if (own_option(o, k, v, err, errlen) != 0)
			return -1;
	}
	if (o->plan.neffects == 0) {
		o->plan.effects[0] = 2, o->plan.effects[1] = 5, o->plan.effects[2] = 10;
		o->plan.neffects = 3;
	}
	if (o->nfor == 0)
		o->plan.for_rounds[0] = 10, o->plan.for_rounds[1] = 30;
	if (o->from && o->nfwd > 1)
		return errmsg_fail(err, errlen, "--from analyses a file: %s runs nothing",
		                   o->fwd[1]);
	if (o->from && o->duet)
		return errmsg_fail(err, errlen, "--from analyses a file: --duet runs nothing");
	if (o->arms && !o->from)
		return errmsg_fail(err, errlen, "--arms: only with --from");
	return 0;
}

/* ---- running the A/A bench ---- */

struct setup {
	const volatile sig_atomic_t *stop;
	struct bench_config c;
	struct bench_arm arms[2];
	struct arm_spec spec; /* --arm */
	struct bench_drivers drv;
	char *driver;
	struct bench_wl_list list;
	char *paths[1];
};

static void setup_free(struct setup *s)
{
	free(s->arms[0].name);
	free(s->arms[1].name);
	free(s->driver);
	armspec_free(&s->spec);
	bench_free_workloads(&s->c);
	bench_wl_list_free(&s->list);
	bench_drivers_free(&s->drv);
}

/* The backend to calibrate: -a, --arm's, or the driver flagged baseline. Returns ST_OK or
 * ST_USAGE with err. */
static int pick_backend(const struct setup *s, const char **backend, char *err, size_t errlen)
{
	if (*backend)
		return ST_OK;
	for (size_t i = 0; i < s->drv.n; i++)
		if (s->drv.flags[i] & BENCH_BACKEND_BASELINE) {
			*backend = s->drv.names[i];
			return ST_OK;
		}
	return errmsg_status(ST_USAGE, err, errlen,
	                     "no driver in %s declares itself the baseline: give -a BACKEND",
	                     s->drv.dir);
}

/* Builds the two-arm configuration. Returns ST_OK, ST_FAIL or ST_USAGE with err set. */
static int setup(struct setup *s, const struct copts *o, const struct bench_opts *bo,
                 const char *runs_path, int argc, char **argv, char *err, size_t errlen)
{
	char have[1024];
	int rc;
	const char *backend = o->backend, *label = o->backend;

	if (bo->narm_specs > 1 || (bo->narm_specs && o->backend_set))
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--arm: calibrate takes one backend (one --arm, "
		                     "or -a)");
	if (bo->narm_specs) {
		if (armspec_parse(bo->arm_specs[0], &s->spec, err, errlen) != 0)
			return ST_USAGE;
		backend = s->spec.backend;
		label = s->spec.label;
	}
	if (backend && (strspn(backend, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(backend) ||
	                !*backend))
		return errmsg_status(ST_USAGE, err, errlen, "-a: '%s' is not a backend name",
		                     backend);
	if ((rc = bench_drivers_find(bo->driver_dir, s->stop, &s->drv, err, errlen)) != ST_OK ||
	    (rc = pick_backend(s, &backend, err, errlen)) != ST_OK)
		return rc;
	label = label ? label : backend;
	if (bench_drivers_index(&s->drv, backend) < 0) {
		bench_drivers_join(&s->drv, have, sizeof have);
		return errmsg_status(ST_USAGE, err, errlen,
		                     "-a: unknown allocator '%s' (drivers in %s: %s)", backend,
		                     s->drv.dir, have);
	}
	if (asprintf(&s->driver, "%s/allocab-%s", s->drv.dir, backend) < 0) {
		s->driver = NULL;
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	if (s->spec.label &&
	    (rc = armspec_check(s->driver, &s->spec, s->stop, NULL, err, errlen)) != 0)
		return rc;
	for (int i = 0; s->spec.label && i < 2; i++)
		s->arms[i] = (struct bench_arm){.kind = &arm_kind_configured,
		                                .backend = s->spec.backend,
		                                .config = s->spec.config,
		                                .nconfig = s->spec.nconfig};
	if (asprintf(&s->arms[0].name, "%s.A", label) < 0)
		s->arms[0].name = NULL;
	if (asprintf(&s->arms[1].name, "%s.B", label) < 0)
		s->arms[1].name = NULL;
	if (!s->arms[0].name || !s->arms[1].name)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	s->arms[0].path = s->arms[1].path = s->driver;
	s->paths[0] = (char *)runs_path;
	s->c = (struct bench_config){
	    .arms = s->arms,
	    .narms = 2,
	    .scale = bo->scale,
	    .seed = bo->seed,
	    .reps = bo->reps,
	    .time = bo->time,
	    .params = (char **)bo->params,
	    .nparams = bo->nparams,
	    .rounds = bo->rounds_set || bo->budget_s > 0 ? bo->rounds : DEFAULT_ROUNDS,
	    .budget_s = bo->budget_s,
	    .warmup = bo->warmup,
	    .min_rounds = bo->min_rounds,
	    .timeout_s = bo->timeout_s,
	    .grace_s = BENCH_KILL_GRACE_S,
	    .shuffle_seed = bo->shuffle_seed_set ? bo->shuffle_seed : bench_clock_seed(),
	    .pad_max = bo->pad_max,
	    .progress = (int)progress_mode_for(bo->quiet, 2),
	    .out_paths = s->paths,
	    .nout = 1,
	    .argv = argv,
	    .argc = argc,
	};
	if ((rc = bench_setup_workloads(&s->c, s->driver, bo->workloads, bo->params, bo->nparams,
	                                s->stop, &s->list, err, errlen)) != ST_OK ||
	    !o->duet)
		return rc;
	return bench_duet_setup(&s->c, &s->list, err, errlen) != 0 ? ST_USAGE : 0;
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

/* Fails early when a file could not be created next to path; atomic_write still decides. */
static int writable(const char *path, int make_dir, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
	         slash ? path : ".");
	if (make_dir && mkdir(dir, 0777) != 0 && errno != EEXIST)
		return errmsg_fail(err, errlen, "cannot create %s: %s", dir, strerror(errno));
	return bench_dir_writable(dir, path, err, errlen);
}

/* The machine's bench lock (front/engine/engine.h) in the directory of path, as `allocab bench` takes
 * it: an A/A bench beside another bench measures neither. Returns 0, ST_USAGE (a bad label in
 * the environment) or ST_FAIL with err set. */
static int lock_machine(struct bench_task *t, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
	         slash ? path : ".");
	if (bench_task_resolve(t, NULL, NULL, err, errlen) != 0)
		return ST_USAGE;
	return bench_task_lock(t, dir, err, errlen);
}

/* --from RUNS: the analysis of an existing file. */
static int from_file(const struct copts *o, const char *out, char *err, size_t errlen)
{
	char **arms = NULL;
	enum jl_why why;
	cJSON *doc = jl_load(o->from, &why, err, errlen);
	const cJSON *cfg_arms;
	int rc = ST_USAGE, narms = 0;

	if (!doc)
		return why == JL_NOMEM ? ST_FAIL : ST_USAGE;
	if (writable(out, !o->out, err, errlen) != 0) {
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
	rc = calib_report(doc, o->from,
	                  o->arms ? arms[0] : cJSON_GetArrayItem(cfg_arms, 0)->valuestring,
	                  o->arms ? arms[1] : cJSON_GetArrayItem(cfg_arms, 1)->valuestring,
	                  &o->plan, o->phase, out, stdout, err, errlen);
out:
	bench_free_list(arms, narms > 0 ? (size_t)narms : 0);
	cJSON_Delete(doc);
	return rc;
}

/* Runs the A/A bench and analyses it. */
static int run_and_analyse(const struct copts *o, const char *out,
                           const volatile sig_atomic_t *stop, int argc, char **argv, char *err,
                           size_t errlen)
{
	struct bench_opts bo;
	struct bench_result res;
	struct setup s = {.stop = stop};
	struct bench_task task = {.lock_fd = -1};
	char *runs = runs_path_of(out);
	cJSON *doc = NULL;
	int rc;

	if (!runs)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (bench_parse_args(o->nfwd, o->fwd, &bo, err, errlen) != 0) {
		free(runs);
		return ST_USAGE;
	}
	rc = setup(&s, o, &bo, runs, argc, argv, err, errlen);
	if (rc == 0 && writable(runs, !o->out, err, errlen) != 0)
		rc = ST_FAIL;
	if (rc == 0 && (rc = lock_machine(&task, runs, err, errlen)) == 0)
		s.c.task = &task;
	if (rc == 0 && *stop)
		rc = ST_INTERRUPTED;
	if (rc == 0)
		rc = bench_run(&s.c, stop, &doc, &res, err, errlen);
	if (rc == 0 && res.measured < 2) {
		rc = strcmp(res.status, "interrupted") == 0 ? ST_INTERRUPTED : ST_FAIL;
		errmsg_fail(err, errlen,
		            "%u measured round%s: an A/A analysis needs at least 2 (runs in %s)",
		            res.measured, res.measured == 1 ? "" : "s", runs);
	} else if (rc == 0) {
		if (res.failed)
			fprintf(stderr,
			        "allocab: calibrate: %zu of %zu run%s did not succeed; see %s\n",
			        res.failed, res.runs, res.runs == 1 ? "" : "s", runs);
		rc = calib_report(doc, runs, s.arms[0].name, s.arms[1].name, &o->plan, o->phase,
		                  out, stdout, err, errlen);
		if (rc == 0 && strcmp(res.status, "interrupted") == 0)
			rc = ST_INTERRUPTED;
	}
	cJSON_Delete(doc);
	setup_free(&s);
	bench_task_unlock(&task);
	bench_opts_free(&bo);
	free(runs);
	return rc;
}

int calibrate_main(int argc, char **argv)
{
	struct copts o;
	char err[4096 + 256];
	const volatile sig_atomic_t *stop;
	const char *out;
	int rc;

	if (parse_args(argc, argv, &o, err, sizeof err) != 0) {
		errmsg_print(stderr, "calibrate", "%s", err);
		free(o.fwd);
		return ST_USAGE;
	}
	if (o.help) {
		optdoc_usage(stdout, &calibrate_doc, NULL);
		free(o.fwd);
		return ST_OK;
	}
	out = o.out ? o.out : CALIB_DEFAULT_PATH;
	stop = bench_catch_signals();
	err[0] = '\0';
	rc = o.from ? from_file(&o, out, err, sizeof err)
	            : run_and_analyse(&o, out, stop, argc, argv, err, sizeof err);
	if (rc != 0 && err[0])
		errmsg_print(stderr, "calibrate", "%s", err);
	else if (rc == ST_INTERRUPTED)
		fprintf(stderr, "allocab: calibrate: interrupted\n");
	free(o.fwd);
	return rc;
}
