/* calibcli.c - the `allocab calibrate` command line: options, then one backend against itself
 * through the bench engine (two arms with the same driver, shuffled, padded, warmed up, within a
 * budget) or an existing A/A file (--from), handed to calib_report (calibreport.c) for the
 * noise-floor report and the calibration file. */
#include "atomicio.h"
#include "bench.h"
#include "calibrate.h"
#include "duet.h"
#include "runner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ROUNDS 20
#define KILL_GRACE_S   2.0
#define LIST_TIMEOUT_S 30.0

static const char usage[] =
    "usage: allocab calibrate [-a BACKEND] [-w WORKLOAD,...] [--scale S] [--seed N]\n"
    "                         [--param KEY=VALUE]... [--reps N] [--rounds N | --budget SECONDS]\n"
    "                         [--warmup N] [--timeout SECONDS] [--shuffle-seed N]\n"
    "                         [--pad-max BYTES] [--driver-dir DIR] [--duet] [--quiet]\n"
    "                         [--alpha A] [--power P] [--effect P%]... [--for-rounds N]...\n"
    "                         [--for-budget SECONDS] [--block N] [--phase NAME] [-o FILE]\n"
    "       allocab calibrate --from RUNS [--arms A,B] [analysis options] [-o FILE]\n"
    "\n"
    "Measures the noise floor of this machine: BACKEND (default system) against itself, two\n"
    "identical arms per round, run exactly like `allocab bench` runs a comparison (fresh\n"
    "processes, shuffled order, environment padding, warm-up). Reports per workload the spread\n"
    "of the A/A log ratios ln(t_B/t_A) (sd, MAD), the A/A estimate with its interval (a false\n"
    "positive when it excludes 0), the false positives among disjoint blocks of --block\n"
    "rounds, the drift of the ratios and of the times over the session, the minimum\n"
    "detectable effect (MDE) and the rounds a given effect needs.\n"
    "\n"
    "  -a, --allocator NAME   the backend to calibrate (default: system)\n"
    "  --rounds N             measured rounds (default: 20; with --budget: no limit)\n"
    "  --duet                 run the two arms at the same time on two CPUs (see bench --help)\n"
    "  --alpha A              two-sided level of the tests and intervals (default: 0.05)\n"
    "  --power P              power of the MDE (default: 0.8)\n"
    "  --effect P%            report the rounds this effect needs (default: 2%, 5%, 10%)\n"
    "  --for-rounds N         report the MDE of a bench of N rounds (default: 10 and 30)\n"
    "  --for-budget SECONDS   report the MDE of a bench of this budget with these workloads\n"
    "                         and two arms, from the round time measured here\n"
    "  --block N              rounds per A/A sub-comparison (default: 10)\n"
    "  --phase NAME           calibrate this phase instead of each workload's total\n"
    "  -o, --output FILE      the calibration (default: results/calibration.json); the runs\n"
    "                         go to FILE with -runs.json in place of .json\n"
    "  --from RUNS            analyse an allocab-bench/1 file instead of running: arms A and B\n"
    "                         (--arms, default its first two) must be the same backend\n"
    "The other options are those of `allocab bench`.\n"
    "MDE: the smallest slowdown t_B/t_A - 1 that a paired bench of n rounds detects with the\n"
    "given power at level alpha (normal approximation, signed-rank efficiency 3/pi), from the sd\n"
    "of the log ratios measured here. `allocab compare` prints it beside the speedups and\n"
    "`allocab gate` warns when a margin is below it.\n"
    "Exit status: 0 done, 1 runtime failure, 2 bad input, 130 interrupted (the finished rounds\n"
    "are analysed and kept).\n";

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct copts {
	const char *backend, *from, *arms, *out, *phase;
	int duet, help;
	struct calib_plan plan;
	size_t nfor;
	char **fwd; /* options for bench_parse_args */
	int nfwd;
};

static int failf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* failf for functions that return an exit status. */
static int failst(int status, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int failst(int status, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return status;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > lo && v < hi))
		return -1;
	*out = v;
	return *end == '\0' || strcmp(end, "%") == 0 ? (*end ? 1 : 0) : -1;
}

static int parse_count(const char *s, size_t lo, size_t hi, size_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* Options of bench that calibrate passes on, all with a value but -q. */
static const char *const forwarded[] = {
    "-w",        "--workloads",    "--scale",   "--seed",       "--param",
    "--reps",    "--rounds",       "--budget",  "--warmup",     "--min-rounds",
    "--timeout", "--shuffle-seed", "--pad-max", "--driver-dir", NULL,
};

/* Returns the value of option name at argv[*i] ("--x V", "--x=V", "-xV"), advancing *i, or NULL
 * when argv[*i] is not that option; *missing is set when the value is absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=' && name[1] == '-')
		return a + n + 1;
	if (a[n] && name[1] != '-')
		return a + n;
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int own_option(struct copts *o, const char *name, const char *v, char *err, size_t errlen)
{
	double x;
	size_t k;

	if (!strcmp(name, "-a") || !strcmp(name, "--allocator"))
		o->backend = v;
	else if (!strcmp(name, "--from"))
		o->from = v;
	else if (!strcmp(name, "--arms"))
		o->arms = v;
	else if (!strcmp(name, "-o") || !strcmp(name, "--output"))
		o->out = v;
	else if (!strcmp(name, "--phase"))
		o->phase = v;
	else if (!strcmp(name, "--alpha")) {
		if (parse_double(v, 0, 0.5, &o->plan.alpha) != 0)
			return failf(err, errlen, "--alpha: '%s' is not a number in (0, 0.5)", v);
	} else if (!strcmp(name, "--power")) {
		if (parse_double(v, 0, 1, &o->plan.power) != 0)
			return failf(err, errlen, "--power: '%s' is not a number in (0, 1)", v);
	} else if (!strcmp(name, "--effect")) {
		if (parse_double(v, 0, 1000, &x) < 0)
			return failf(err, errlen, "--effect: '%s' is not a percentage in (0, 1000)",
			             v);
		if (o->plan.neffects == CALIB_MAX_EFFECTS)
			return failf(err, errlen, "--effect: at most %d", CALIB_MAX_EFFECTS);
		o->plan.effects[o->plan.neffects++] = x;
	} else if (!strcmp(name, "--for-rounds")) {
		if (parse_count(v, 2, 1000000, &k) != 0)
			return failf(err, errlen,
			             "--for-rounds: '%s' is not an integer in 2..1000000", v);
		if (o->nfor == 4)
			return failf(err, errlen, "--for-rounds: at most 4");
		o->plan.for_rounds[o->nfor++] = k;
	} else if (!strcmp(name, "--for-budget")) {
		if (parse_double(v, 0, 1e7, &o->plan.for_budget_s) != 0)
			return failf(err, errlen, "--for-budget: '%s' is not a number of seconds",
			             v);
	} else if (!strcmp(name, "--block")) {
		if (parse_count(v, 6, 100000, &o->plan.block) != 0)
			return failf(err, errlen, "--block: '%s' is not an integer in 6..100000",
			             v);
	} else {
		return 1;
	}
	return 0;
}

static const char *const own[] = {
    "-a",      "--allocator", "--from",   "--arms",       "-o",           "--output", "--phase",
    "--alpha", "--power",     "--effect", "--for-rounds", "--for-budget", "--block",  NULL,
};

static int parse_args(int argc, char **argv, struct copts *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->backend = "system";
	o->plan =
	    (struct calib_plan){.alpha = CALIB_ALPHA, .power = CALIB_POWER, .block = CALIB_BLOCK};
	if (!(o->fwd = calloc((size_t)argc + 1, sizeof *o->fwd)))
		return failf(err, errlen, "out of memory");
	o->fwd[o->nfwd++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int missing = 0, done = 0;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = 1;
			return 0;
		}
		if (!strcmp(a, "--duet") || !strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->duet |= a[2] == 'd';
			if (a[2] != 'd')
				o->fwd[o->nfwd++] = argv[i];
			continue;
		}
		for (size_t k = 0; !done && own[k]; k++) {
			int j = i;

			if ((v = opt_value(argc, argv, &j, own[k], &missing)) || missing) {
				if (missing)
					return failf(err, errlen, "%s: missing value", own[k]);
				if (own_option(o, own[k], v, err, errlen) != 0)
					return -1;
				i = j;
				done = 1;
			}
		}
		for (size_t k = 0; !done && forwarded[k]; k++) {
			int j = i;

			if ((v = opt_value(argc, argv, &j, forwarded[k], &missing)) || missing) {
				if (missing)
					return failf(err, errlen, "%s: missing value",
					             forwarded[k]);
				for (int m = i; m <= j; m++)
					o->fwd[o->nfwd++] = argv[m];
				i = j;
				done = 1;
			}
		}
		if (!done)
			return failf(
			    err, errlen,
			    a[0] == '-'
			        ? "unknown option '%s' (allocab calibrate --help lists them)"
			        : "unexpected argument '%s'",
			    a);
	}
	if (o->plan.neffects == 0) {
		o->plan.effects[0] = 2, o->plan.effects[1] = 5, o->plan.effects[2] = 10;
		o->plan.neffects = 3;
	}
	if (o->nfor == 0)
		o->plan.for_rounds[0] = 10, o->plan.for_rounds[1] = 30;
	if (o->from && o->nfwd > 1)
		return failf(err, errlen, "--from analyses a file: %s runs nothing", o->fwd[1]);
	if (o->from && o->duet)
		return failf(err, errlen, "--from analyses a file: --duet runs nothing");
	if (o->arms && !o->from)
		return failf(err, errlen, "--arms: only with --from");
	return 0;
}

/* ---- running the A/A bench ---- */

/* The directory of the drivers: --driver-dir, $ALLOCAB_DRIVER_DIR, or allocab's own (as bench). */
static int driver_dir(const char *given, char *dir, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("ALLOCAB_DRIVER_DIR");
	ssize_t n;

	if (given || (env && *env)) {
		snprintf(dir, len, "%s", given ? given : env);
		return 0;
	}
	if ((n = readlink("/proc/self/exe", dir, len - 1)) < 0)
		return failf(err, errlen,
		             "cannot find the allocab executable: %s (use --driver-dir)",
		             strerror(errno));
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	return 0;
}

struct setup {
	struct bench_config c;
	struct bench_arm arms[2];
	char *driver;
	char **wl_names, **wl_params, **sel;
	size_t nwl_names, nsel;
	char *paths[1];
};

static void setup_free(struct setup *s)
{
	free(s->arms[0].name);
	free(s->arms[1].name);
	free(s->driver);
	for (size_t i = 0; i < s->c.nwl; i++) {
		free(s->c.wl[i].name);
		free(s->c.wl[i].params);
	}
	free(s->c.wl);
	bench_free_list(s->wl_names, s->nwl_names);
	bench_free_list(s->wl_params, s->nwl_names);
	bench_free_list(s->sel, s->nsel);
}

/* The workloads to run (-w or all the driver lists) and the --param each one takes. Returns 0,
 * 1 (runtime) or 2 (usage). */
static int setup_workloads(struct setup *s, const struct bench_opts *bo, char *err, size_t errlen)
{
	char *argv[] = {s->driver, "list", "--json", NULL};
	struct runner_spec spec = {.path = s->driver,
	                           .argv = argv,
	                           .timeout_s = LIST_TIMEOUT_S,
	                           .grace_s = KILL_GRACE_S,
	                           .capture_stdout = 1,
	                           .stop = &stop_requested};
	struct runner_result r;
	char **sel;
	int n;

	if (runner_run(&spec, &r, err, errlen) != 0)
		return 1;
	n = r.end == RUNNER_EXITED && r.exit_code == 0 && r.out
	        ? bench_parse_workload_list(r.out, &s->wl_names, &s->wl_params)
	        : -1;
	runner_result_free(&r);
	if (n <= 0)
		return failst(1, err, errlen, "%s list --json: no workload list", s->driver);
	s->nwl_names = (size_t)n;
	if (bo->workloads) {
		if ((n = bench_split_list(bo->workloads, "-w", &s->sel, err, errlen)) < 0)
			return 2;
		s->nsel = (size_t)n;
	}
	sel = bo->workloads ? s->sel : s->wl_names;
	if (!(s->c.wl = calloc((size_t)n, sizeof *s->c.wl)))
		return failst(1, err, errlen, "out of memory");
	for (int i = 0; i < n; i++) {
		struct bench_workload *w = &s->c.wl[s->c.nwl];
		size_t k = 0;

		while (k < s->nwl_names && strcmp(s->wl_names[k], sel[i]) != 0)
			k++;
		if (k == s->nwl_names)
			return failst(2, err, errlen, "-w: unknown workload '%s'", sel[i]);
		if (!(w->name = strdup(sel[i])) ||
		    !(w->params = calloc(bo->nparams + 1, sizeof *w->params))) {
			free(w->name);
			return failst(1, err, errlen, "out of memory");
		}
		s->c.nwl++;
		for (size_t p = 0; p < bo->nparams; p++) {
			char key[256];

			snprintf(key, sizeof key, ",%.*s,", (int)strcspn(bo->params[p], "="),
			         bo->params[p]);
			if (strstr(s->wl_params[k], key))
				w->params[w->nparams++] = (char *)bo->params[p];
		}
	}
	for (size_t p = 0; p < bo->nparams; p++) {
		size_t used = 0;

		for (size_t i = 0; i < s->c.nwl; i++)
			for (size_t j = 0; j < s->c.wl[i].nparams; j++)
				used += s->c.wl[i].params[j] == bo->params[p];
		if (!used)
			return failst(2, err, errlen, "--param %.*s: no selected workload has it",
			              (int)strcspn(bo->params[p], "="), bo->params[p]);
	}
	return 0;
}

static uint64_t clock_seed(void)
{
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 32);
	x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ULL;
	return (x ^ (x >> 29)) & BENCH_SEED_MAX;
}

/* Builds the two-arm configuration. Returns 0, 1 or 2 with err set. */
static int setup(struct setup *s, const struct copts *o, const struct bench_opts *bo,
                 const char *runs_path, int argc, char **argv, char *err, size_t errlen)
{
	char dir[4096];
	int cpu[2], rc;

	if (strspn(o->backend, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(o->backend) ||
	    !*o->backend)
		return failst(2, err, errlen, "-a: '%s' is not a backend name", o->backend);
	if (driver_dir(bo->driver_dir, dir, sizeof dir, err, errlen) != 0)
		return 1;
	if (asprintf(&s->driver, "%s/allocab-%s", dir, o->backend) < 0) {
		s->driver = NULL;
		return failst(1, err, errlen, "out of memory");
	}
	if (access(s->driver, X_OK) != 0)
		return failst(2, err, errlen, "-a: no driver %s (%s)", s->driver, strerror(errno));
	if (asprintf(&s->arms[0].name, "%s.A", o->backend) < 0)
		s->arms[0].name = NULL;
	if (asprintf(&s->arms[1].name, "%s.B", o->backend) < 0)
		s->arms[1].name = NULL;
	if (!s->arms[0].name || !s->arms[1].name)
		return failst(1, err, errlen, "out of memory");
	s->arms[0].path = s->arms[1].path = s->driver;
	s->paths[0] = (char *)runs_path;
	s->c = (struct bench_config){
	    .mode = BENCH_DRIVERS,
	    .arms = s->arms,
	    .narms = 2,
	    .scale = bo->scale,
	    .seed = bo->seed,
	    .reps = bo->reps,
	    .params = (char **)bo->params,
	    .nparams = bo->nparams,
	    .rounds = bo->rounds_set || bo->budget_s > 0 ? bo->rounds : DEFAULT_ROUNDS,
	    .budget_s = bo->budget_s,
	    .warmup = bo->warmup,
	    .min_rounds = bo->min_rounds,
	    .timeout_s = bo->timeout_s,
	    .grace_s = KILL_GRACE_S,
	    .shuffle_seed = bo->shuffle_seed_set ? bo->shuffle_seed : clock_seed(),
	    .pad_max = bo->pad_max,
	    .progress = !bo->quiet && isatty(2),
	    .out_paths = s->paths,
	    .nout = 1,
	    .argv = argv,
	    .argc = argc,
	};
	if ((rc = setup_workloads(s, bo, err, errlen)) != 0 || !o->duet)
		return rc;
	for (size_t i = 0; i < s->c.nwl; i++)
		if (!duet_workload_ok(s->c.wl[i].name))
			return failst(2, err, errlen,
			              "--duet: workload '%s' is not single-threaded "
			              "(duet takes feature_extract, checkpoint_write)",
			              s->c.wl[i].name);
	if (duet_cpus(cpu, err, errlen) != 0)
		return 2;
	s->c.duet = 1;
	return 0;
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
	char dir[4096], probe[4096 + 32];
	int fd;

	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
	         slash ? path : ".");
	if (make_dir && mkdir(dir, 0777) != 0 && errno != EEXIST)
		return failf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
	snprintf(probe, sizeof probe, "%s/.allocab-probe.XXXXXX", dir);
	if ((fd = mkstemp(probe)) < 0)
		return failf(err, errlen, "cannot write %s: %s", path, strerror(errno));
	close(fd);
	unlink(probe);
	return 0;
}

static void install_handlers(void)
{
	struct sigaction sa = {.sa_handler = on_stop};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* --from RUNS: the analysis of an existing file. */
static int from_file(const struct copts *o, const char *out, char *err, size_t errlen)
{
	char *text = read_file(o->from, NULL), **arms = NULL;
	cJSON *doc = NULL;
	const cJSON *cfg_arms;
	int rc = 2, narms = 0;

	if (!text)
		return failst(2, err, errlen, "%s: %s", o->from, strerror(errno));
	if (writable(out, !o->out, err, errlen) != 0) {
		rc = 1;
		goto out;
	}
	if (!(doc = cJSON_Parse(text))) {
		failf(err, errlen, "%s: not JSON", o->from);
		goto out;
	}
	if (o->arms) {
		if ((narms = bench_split_list(o->arms, "--arms", &arms, err, errlen)) < 0)
			goto out;
		if (narms != 2) {
			failf(err, errlen, "--arms: want two arms A,B");
			goto out;
		}
	}
	cfg_arms = get(get(doc, "config"), "arms");
	if (!o->arms &&
	    (cJSON_GetArraySize(cfg_arms) < 2 || !cJSON_IsString(cJSON_GetArrayItem(cfg_arms, 0)) ||
	     !cJSON_IsString(cJSON_GetArrayItem(cfg_arms, 1)))) {
		failf(err, errlen, "%s: config.arms: want at least two arms", o->from);
		goto out;
	}
	rc = calib_report(doc, o->from,
	                  o->arms ? arms[0] : cJSON_GetArrayItem(cfg_arms, 0)->valuestring,
	                  o->arms ? arms[1] : cJSON_GetArrayItem(cfg_arms, 1)->valuestring,
	                  &o->plan, o->phase, out, stdout, err, errlen);
out:
	bench_free_list(arms, narms > 0 ? (size_t)narms : 0);
	cJSON_Delete(doc);
	free(text);
	return rc;
}

/* Runs the A/A bench and analyses it. */
static int run_and_analyse(const struct copts *o, const char *out, int argc, char **argv, char *err,
                           size_t errlen)
{
	struct bench_opts bo;
	struct bench_result res;
	struct setup s = {0};
	char *runs = runs_path_of(out);
	cJSON *doc = NULL;
	int rc;

	if (!runs)
		return failst(1, err, errlen, "out of memory");
	if (bench_parse_args(o->nfwd, o->fwd, &bo, err, errlen) != 0) {
		free(runs);
		return 2;
	}
	rc = setup(&s, o, &bo, runs, argc, argv, err, errlen);
	if (rc == 0 && writable(runs, !o->out, err, errlen) != 0)
		rc = 1;
	if (rc == 0 && stop_requested)
		rc = 130;
	if (rc == 0)
		rc = bench_run(&s.c, &stop_requested, &doc, &res, err, errlen);
	if (rc == 0 && res.measured < 2) {
		rc = strcmp(res.status, "interrupted") == 0 ? 130 : 1;
		failf(err, errlen,
		      "%u measured round%s: an A/A analysis needs at least 2 (runs in %s)",
		      res.measured, res.measured == 1 ? "" : "s", runs);
	} else if (rc == 0) {
		if (res.failed)
			fprintf(stderr,
			        "allocab: calibrate: %zu of %zu runs did not succeed; see %s\n",
			        res.failed, res.runs, runs);
		rc = calib_report(doc, runs, s.arms[0].name, s.arms[1].name, &o->plan, o->phase,
		                  out, stdout, err, errlen);
		if (rc == 0 && strcmp(res.status, "interrupted") == 0)
			rc = 130;
	}
	cJSON_Delete(doc);
	setup_free(&s);
	bench_opts_free(&bo);
	free(runs);
	return rc;
}

int calibrate_main(int argc, char **argv)
{
	struct copts o;
	char err[4096 + 256];
	const char *out;
	int rc;

	if (parse_args(argc, argv, &o, err, sizeof err) != 0) {
		fprintf(stderr, "allocab: calibrate: %s\n", err);
		free(o.fwd);
		return 2;
	}
	if (o.help) {
		fputs(usage, stdout);
		free(o.fwd);
		return 0;
	}
	out = o.out ? o.out : CALIB_DEFAULT_PATH;
	install_handlers();
	err[0] = '\0';
	rc = o.from ? from_file(&o, out, err, sizeof err)
	            : run_and_analyse(&o, out, argc, argv, err, sizeof err);
	if (rc != 0 && err[0])
		fprintf(stderr, "allocab: calibrate: %s\n", err);
	else if (rc == 130)
		fprintf(stderr, "allocab: calibrate: interrupted\n");
	free(o.fwd);
	return rc;
}
