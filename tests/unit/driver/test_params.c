/* test_params.c - the driver's `run` argument parsing against a private workload table: good
 * values, every rejected input and the exact message it produces. */
#include "check.h"
#include "driver/params.h"

#include <string.h>

static const struct wl_param demo_params[] = {
    {"rows", "rows", "rows per group", {100, 1000, 10000}, 1, 1000000, 0},
    {"page_bytes", "bytes", "page size", {4096, 65536, 1048576}, 64, 1LL << 40, 0},
    {"skew", "percent", "signed skew", {0, 0, 0}, -50, 50, 0},
    {"pid", "pid", "a range up to INT64_MAX", {0, 0, 0}, 0, INT64_MAX, 0},
};
static const char *const demo_phases[] = {"decode", "consume", NULL};

static uint64_t demo_footprint(const int64_t *p)
{
	return (uint64_t)p[0] * (uint64_t)p[1];
}

/* rows: 10000 at the large preset, so 1,000,000 rows is the most one run may do. */
static double demo_work(const int64_t *p)
{
	return (double)p[0];
}

static int demo_check(struct wl_ctx *ctx)
{
	if (ctx->p[2] == 7)
		return wl_fail(ctx, "skew 7 needs rows >= %d", 9);
	return 0;
}

static int demo_run(struct wl_ctx *ctx, uint64_t *checksum)
{
	(void)ctx;
	*checksum = 0;
	return 0;
}

static const struct workload demo = {
    .name = "demo",
    .description = "test table",
    .params = demo_params,
    .nparams = 4,
    .phases = demo_phases,
    .footprint = demo_footprint,
    .work = demo_work,
    .check = demo_check,
    .run = demo_run,
};
static const struct workload other = {
    .name = "other", .description = "no params", .footprint = demo_footprint, .run = demo_run};
static const struct workload *const registry[] = {&demo, &other, NULL};

static struct run_opts opts;
static char err[1024];

/* Parses a space-separated command line (no quoting; "''" stands for an empty argument). */
static int parse(const char *line)
{
	static char buf[1024];
	char *argv[64], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof buf, "%s", line);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 64; t = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(t, "''") == 0 ? t + 2 : t;
	err[0] = '\0';
	opts.config = NULL;
	return params_parse_run(argc, argv, registry, &opts, err, sizeof err);
}

static void expect_ok(const char *line)
{
	int rc = parse(line);

	CHECK(rc == 0, "accepts '%s' (%s)", line, err);
}

static void expect_error(const char *line, const char *message)
{
	int rc = parse(line);

	CHECK(rc == -1 && strcmp(err, message) == 0, "rejects '%s': got \"%s\"", line, err);
}

static void test_defaults(void)
{
	expect_ok("demo");
	CHECK(opts.wl == &demo && opts.scale == WL_SCALE_DEFAULT &&
	          opts.seed == PARAMS_SEED_DEFAULT && opts.reps_mode == PARAMS_REPS_AUTO &&
	          opts.reps == 20 && opts.steady_tol == 0.05 && strcmp(opts.out, "-") == 0,
	      "defaults: scale default, seed %d, reps auto (at most 20, 5%%), stdout",
	      PARAMS_SEED_DEFAULT);
	CHECK(opts.value[0] == 1000 && opts.value[1] == 65536 && !opts.given[0],
	      "defaults come from the default scale");
	expect_ok("--scale small demo");
	CHECK(opts.scale == WL_SCALE_SMALL && opts.value[0] == 100 && opts.value[1] == 4096,
	      "--scale before WORKLOAD selects small defaults");
	expect_ok("demo --scale=large --seed=0 --reps 3 --out x.json");
	CHECK(opts.scale == WL_SCALE_LARGE && opts.value[0] == 10000 && opts.seed == 0 &&
	          opts.reps == 3 && opts.reps_mode == PARAMS_REPS_FIXED &&
	          strcmp(opts.out, "x.json") == 0,
	      "--opt=value and --opt value forms");
	expect_ok("demo --reps auto --max-reps 7 --steady-tol 2.5%");
	CHECK(opts.reps_mode == PARAMS_REPS_AUTO && opts.reps == 7 && opts.steady_tol == 0.025,
	      "--reps auto with --max-reps and --steady-tol");
	expect_ok("demo --steady-time cpu");
	CHECK(opts.steady_cpu == 1, "--steady-time cpu: the rule judges CPU times");
	expect_ok("demo --steady-time wall");
	CHECK(opts.steady_cpu == 0, "--steady-time wall, the default");
	expect_ok("demo --reps 4 --steady-tol 0");
	CHECK(opts.reps_mode == PARAMS_REPS_FIXED && opts.reps == 4 && opts.steady_tol == 0,
	      "--steady-tol with a fixed count");
	expect_ok("other --seed 9007199254740991 --reps 1000");
	CHECK(opts.wl == &other && opts.seed == 9007199254740991ULL && opts.reps == 1000,
	      "largest seed and reps");
}

static void test_param_values(void)
{
	expect_ok("demo --param rows=1 --param page_bytes=64k --param=skew=-50 --scale small");
	CHECK(opts.value[0] == 1 && opts.value[1] == 65536 && opts.value[2] == -50 &&
	          opts.given[0] && opts.given[1] && opts.given[2],
	      "--param overrides every default, whatever the option order");
	expect_ok("demo --param page_bytes=3M");
	CHECK(opts.value[1] == 3 << 20 && opts.value[0] == 1000, "M suffix is 2^20; others kept");
	expect_ok("demo --param page_bytes=2G");
	CHECK(opts.value[1] == 2LL << 30, "G suffix is 2^30");
	expect_ok("demo --param page_bytes=1099511627776 --param rows=1000000");
	CHECK(opts.value[1] == 1LL << 40 && opts.value[0] == 1000000, "range maxima are inclusive");
	expect_ok("demo --param pid=5");
	CHECK(opts.value[3] == 5, "a parameter whose maximum is INT64_MAX takes 5");
	expect_ok("demo --param pid=9223372036854775807");
	CHECK(opts.value[3] == INT64_MAX, "... and INT64_MAX itself");
	expect_error("demo --param pid=9223372036854775808",
	             "--param pid: 9223372036854775808 is out of range [0, 9223372036854775807]");
}

static void test_errors(void)
{
	expect_error("", "run: missing WORKLOAD");
	expect_error("--seed 1", "run: missing WORKLOAD");
	expect_error("nosuch", "run: unknown workload 'nosuch' (known: demo, other)");
	expect_error("demo other", "run: unexpected argument 'other' after workload 'demo'");
	expect_error("demo --verbose", "run: unknown option '--verbose'");
	expect_error("demo --params=x", "run: unknown option '--params=x'");
	expect_error("demo --seed", "run: --seed needs a value");
	expect_error("demo --param", "run: --param needs a value");
	expect_error("demo --scale huge", "--scale: 'huge' is not one of small, default, large");
	expect_error("demo --scale ''", "--scale: empty value");
	expect_error("demo --scale small --scale large", "run: --scale is given twice");
	expect_error("demo --seed x", "--seed: 'x' is not a whole number");
	expect_error("demo --seed ''", "--seed: empty value");
	expect_error("demo --seed -1", "--seed: '-1' is not a whole number");
	expect_error("demo --seed 1.5", "--seed: '1.5' is not a whole number");
	expect_error("demo --seed 9007199254740992",
	             "--seed: 9007199254740992 is out of range [0, 9007199254740991]");
	expect_error("demo --seed 18446744073709551616",
	             "--seed: 18446744073709551616 is out of range [0, 9007199254740991]");
	expect_error("demo --reps 0", "--reps: 0 is out of range [1, 1000]");
	expect_error("demo --reps 1001", "--reps: 1001 is out of range [1, 1000]");
	expect_error("demo --reps -2", "--reps: '-2' is not a whole number");
	expect_error("demo --reps 2x", "--reps: '2x' is not a whole number");
	expect_error("demo --reps 1k", "--reps: '1k' is not a whole number");
	expect_error("demo --max-reps 1", "--max-reps: 1 is out of range [2, 1000]");
	expect_error("demo --reps 3 --max-reps 5",
	             "--max-reps cannot be combined with --reps 3: it caps --reps auto");
	expect_error("demo --steady-tol 101", "--steady-tol: 101 is out of range [0%, 100%]");
	expect_error("demo --steady-tol -1",
	             "--steady-tol: '-1' is not a percentage (5, 5% or 2.5%)");
	expect_error("demo --steady-time gpu", "--steady-time: 'gpu' is not one of wall, cpu");
	expect_error("demo --out ''", "--out: empty value");
	expect_error("demo --out a --out b", "run: --out is given twice");
	expect_error("demo --param rows", "--param: 'rows' is not KEY=VALUE");
	expect_error("demo --param =5", "--param: '=5' is not KEY=VALUE");
	expect_error("demo --param width=5", "--param: demo has no parameter 'width' (known: rows, "
	                                     "page_bytes, skew, pid)");
	expect_error("demo --param Rows=5", "--param: demo has no parameter 'Rows' (known: rows, "
	                                    "page_bytes, skew, pid)");
	expect_error("other --param rows=5", "--param: other has no parameter 'rows' (known: )");
	expect_error("demo --param rows=", "--param rows: empty value");
	expect_error("demo --param rows=abc", "--param rows: 'abc' is not a whole number");
	expect_error("demo --param rows=12x", "--param rows: '12x' is not a whole number");
	expect_error("demo --param rows=+5", "--param rows: '+5' is not a whole number");
	expect_error("demo --param rows=0x10", "--param rows: '0x10' is not a whole number");
	expect_error("demo --param rows=1k", "--param rows: '1k' is not a whole number");
	expect_error("demo --param rows=0", "--param rows: 0 is out of range [1, 1000000]");
	expect_error("demo --param rows=-1", "--param rows: -1 is out of range [1, 1000000]");
	expect_error("demo --param rows=1000001",
	             "--param rows: 1000001 is out of range [1, 1000000]");
	expect_error("demo --param rows=99999999999999999999999",
	             "--param rows: 99999999999999999999999 is out of range [1, 1000000]");
	expect_error("demo --param rows=1 --param rows=2", "--param rows is given twice");
	expect_error("demo --param page_bytes=1T", "--param page_bytes: '1T' is not a byte count "
	                                           "(a whole number, optional k, M or G suffix)");
	expect_error("demo --param page_bytes=1kk", "--param page_bytes: '1kk' is not a byte count "
	                                            "(a whole number, optional k, M or G suffix)");
	expect_error("demo --param page_bytes=2048G",
	             "--param page_bytes: 2048G is out of range [64, 1099511627776]");
	expect_error("demo --param page_bytes=9007199254740992G",
	             "--param page_bytes: 9007199254740992G is out of range [64, 1099511627776]");
	expect_error("demo --param skew=51", "--param skew: 51 is out of range [-50, 50]");
	expect_error("demo --param skew=-", "--param skew: '-' is not a whole number");
}

static void test_option_values_are_values(void)
{
	expect_ok("demo --out --param");
	CHECK(strcmp(opts.out, "--param") == 0 && !opts.given[0],
	      "--out --param: '--param' is the file name, not an option");
}

/* The options are typed rows: their defaults, ranges and the help come from the table. */
static void test_rows(void)
{
	size_t n, found = 0;
	const struct opt *rows = params_run_options(&n);
	char buf[1024];

	expect_ok("demo");
	CHECK(opts.max_reps == 20 && opts.steady_tol_pct == 5 && opts.steady_cpu == 0 &&
	          opts.scale == WL_SCALE_DEFAULT,
	      "the rows' defaults are applied: --max-reps 20, --steady-tol 5%%, wall, default");
	expect_ok("demo --max-reps 1000 --steady-tol 100");
	CHECK(opts.reps == 1000 && opts.steady_tol == 1, "the rows' upper bounds are inclusive");
	expect_error("demo --reps", "run: --reps needs a value");
	expect_error("demo --reps=", "--reps: empty value");
	expect_error("demo --max-reps x", "--max-reps: 'x' is not a whole number");
	expect_error("demo --steady-tol 5% --steady-tol 6", "run: --steady-tol is given twice");
	expect_error("demo -x", "run: unknown option '-x'");
	for (size_t i = 0; i < n; i++) {
		const char *nm = rows[i].name ? rows[i].name : "";
		const char *h = rows[i].name ? opt_help(&rows[i], buf, sizeof buf) : NULL;

		found += strcmp(nm, "--seed") == 0 || strcmp(nm, "--steady-tol") == 0 ||
		         strcmp(nm, "--scale") == 0;
		if (strcmp(nm, "--seed") == 0)
			CHECK(strcmp(h, "workload seed, in [0, 9007199254740991] (default: "
			                "42)") == 0,
			      "--seed's help from its row: '%s'", h);
		if (strcmp(nm, "--steady-tol") == 0)
			CHECK(strcmp(h, "tolerance of the steady-state rule, in [0%, 100%] "
			                "(default: 5%)") == 0,
			      "--steady-tol's help from its row: '%s'", h);
		if (strcmp(nm, "--scale") == 0)
			CHECK(strstr(h, "(default: default)") != NULL,
			      "--scale's help names its default word: '%s'", h);
	}
	CHECK(found == 3, "the rows of --seed, --steady-tol and --scale are in the table");
}

static void test_format(void)
{
	char buf[32];

	params_format(&demo_params[1], 65536, buf, sizeof buf);
	CHECK(strcmp(buf, "64k") == 0, "65536 bytes shows as 64k (%s)", buf);
	params_format(&demo_params[1], 3 << 20, buf, sizeof buf);
	CHECK(strcmp(buf, "3M") == 0, "3 MiB shows as 3M (%s)", buf);
	params_format(&demo_params[1], 1LL << 40, buf, sizeof buf);
	CHECK(strcmp(buf, "1024G") == 0, "2^40 bytes shows as 1024G (%s)", buf);
	params_format(&demo_params[1], 1000, buf, sizeof buf);
	CHECK(strcmp(buf, "1000") == 0, "1000 bytes stays decimal (%s)", buf);
	params_format(&demo_params[0], 65536, buf, sizeof buf);
	CHECK(strcmp(buf, "65536") == 0, "rows never get a suffix (%s)", buf);
	CHECK(params_nphases(&demo) == 2 && params_nphases(&other) == 0, "phase counts");
}

static void test_validate(void)
{
	expect_ok("demo --param skew=7");
	CHECK(params_validate(&opts, 1ULL << 40, err, sizeof err) == -1 &&
	          strcmp(err, "demo: skew 7 needs rows >= 9") == 0,
	      "check() failure is reported with the workload name: \"%s\"", err);
	expect_ok("demo --param rows=1000 --param page_bytes=1M");
	CHECK(params_validate(&opts, 1ULL << 31, err, sizeof err) == 0,
	      "a footprint within half of physical memory passes (%s)", err);
	CHECK(params_validate(&opts, 1ULL << 30, err, sizeof err) == -1 &&
	          strcmp(err, "demo: these parameters need up to 1048576000 bytes (1.0 GiB), "
	                      "more than 1/2 of the 1073741824 bytes (1.0 GiB) of physical "
	                      "memory") == 0,
	      "a footprint above half of physical memory names both sizes: \"%s\"", err);
	expect_ok("demo --param rows=1000000 --param page_bytes=64 --reps 1");
	CHECK(params_validate(&opts, 1ULL << 40, err, sizeof err) == 0,
	      "100x the large preset's work passes (%s)", err);
	expect_ok("demo --param rows=250000 --param page_bytes=64");
	CHECK(params_validate(&opts, 1ULL << 40, err, sizeof err) == 0,
	      "--reps auto counts its 4 minimum reps: 4 x 25x passes (%s)", err);
	expect_ok("demo --param rows=1000000 --param page_bytes=64");
	CHECK(params_validate(&opts, 1ULL << 40, err, sizeof err) == -1 &&
	          strstr(err, "with --reps auto (at least 4 reps) are about 400x") != NULL,
	      "--reps auto: 4 x 100x is refused: \"%s\"", err);
	expect_ok("demo --param rows=1000000 --param page_bytes=64 --reps 2");
	CHECK(params_validate(&opts, 1ULL << 40, err, sizeof err) == -1 &&
	          strcmp(err, "demo: these parameters with --reps 2 are about 200x the work of one "
	                      "run at --scale large, more than the 100x allowed") == 0,
	      "twice that with --reps 2 is refused: \"%s\"", err);
	expect_ok("other");
	CHECK(params_validate(&opts, 0, err, sizeof err) == 0, "a NULL check() is skipped");
}

/* A loaded input (workload.h, input_cost) against the same limits: memory as a footprint,
 * estimated seconds x --reps against PARAMS_WORK_FACTOR runs of PARAMS_WORK_RUN_S. */
static void test_validate_input(void)
{
	struct wl_input_cost c = {.footprint = 1ULL << 29, .run_s = 250, .work = "per rep 5 calls"};

	expect_ok("other");
	CHECK(params_validate_input(&opts, &c, 1ULL << 30, err, sizeof err) == 0,
	      "--reps auto: 4 x 250 s is 1000 s, within 100 runs of 10 s (%s)", err);
	c.run_s = 251;
	CHECK(params_validate_input(&opts, &c, 1ULL << 30, err, sizeof err) == -1 &&
	          strcmp(err,
	                 "other: this input with --reps auto (at least 4 reps) is about 100x the "
	                 "work of a 10 s run (estimated 17 min: per rep 5 calls), more than the "
	                 "100x allowed") == 0,
	      "4 x 251 s is refused, with the estimate and its detail: \"%s\"", err);
	expect_ok("other --reps 1000");
	c.run_s = 1;
	CHECK(params_validate_input(&opts, &c, 1ULL << 30, err, sizeof err) == 0,
	      "--reps 1000 of 1 s passes (%s)", err);
	c.run_s = 1.5;
	c.work[0] = 0;
	CHECK(params_validate_input(&opts, &c, 1ULL << 30, err, sizeof err) == -1 &&
	          strcmp(err, "other: this input with --reps 1000 is about 150x the work of a 10 s "
	                      "run (estimated 25 min), more than the 100x allowed") == 0,
	      "--reps 1000 of 1.5 s is refused: \"%s\"", err);
	c.run_s = 3600 * 24 * 30;
	CHECK(params_validate_input(&opts, &c, 1ULL << 30, err, sizeof err) == -1 &&
	          strstr(err, "(estimated 3e+04 days)") != NULL,
	      "a month per rep is shown in days: \"%s\"", err);
	c.run_s = NAN;
	CHECK(params_validate_input(&opts, &c, 1ULL << 30, err, sizeof err) == -1,
	      "an estimate that is not a number is refused");
	c = (struct wl_input_cost){.footprint = (1ULL << 29) + 1, .memory = "peak 0.5 GiB"};
	CHECK(params_validate_input(&opts, &c, 1ULL << 30, err, sizeof err) == -1 &&
	          strcmp(err, "other: this input needs up to 536870913 bytes (0.5 GiB: peak 0.5 "
	                      "GiB), more than 1/2 of the 1073741824 bytes (1.0 GiB) of physical "
	                      "memory") == 0,
	      "a footprint above half of physical memory is refused first: \"%s\"", err);
}

int main(void)
{
	test_defaults();
	test_param_values();
	test_errors();
	test_option_values_are_values();
	test_rows();
	test_format();
	test_validate();
	test_validate_input();
	return CHECK_DONE();
}
