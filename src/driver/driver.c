/* driver.c - main of build/allocab-<backend>: runs one workload in this process with malloc served
 * by the backend's allocator (proved, not assumed), and prints one allocab-run/1 JSON document;
 * `list` and `info` print what describe.c builds, `env` what config.c derives.
 * Exit status: common/status.h (README.md, "Exit status"). */
#include "common/atomicio.h"
#include "driver/backend.h"
#include "common/fingerprint.h"
#include "common/steady.h"
#include "driver/config.h"
#include "driver/describe.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"
#include "driver/params.h"
#include "driver/proof.h"
#include "driver/runmarks.h"
#include "driver/runrec.h"
#include "driver/registry.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef ALLOCAB_VERSION
#define ALLOCAB_VERSION "unknown"
#endif

static char prog[64];
static char **main_argv; /* for re-executing with a configuration's environment */

static int fail(int status, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The one stderr line of every failure: "allocab-<backend>: context: problem[ hint]". */
static int fail(int status, const char *hint, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s%s\n", prog, msg, hint);
	return status;
}

#define USAGE_HINT " (see --help)"

/* The settings of list, info and env. */
struct sub_args {
	int json;
	int probe;
	struct config *config;
};

enum { L_JSON, L_HELP, L_COUNT };
static const struct opt list_options[L_COUNT] = {
    [L_JSON] = {"--json", 0, 0, NULL,
                .help = "print one JSON document instead of text (allocab-list/1, allocab-info/1: "
                        "docs/results-format.md)",
                OPT_FLAG(struct sub_args, json)},
    [L_HELP] = PARAMS_HELP_ROW,
};

enum { E_PROBE, E_CONFIG, E_HELP, E_COUNT };
static const struct opt env_options[E_COUNT] = {
    [E_PROBE] = {"--probe", 0, 0, NULL,
                 .help = "also print the preload probe's read-back spec, " PROBE_CONFIG_VAR,
                 OPT_FLAG(struct sub_args, probe)},
    [E_CONFIG] = CONFIG_OPT_ROW(struct sub_args, config),
    [E_HELP] = PARAMS_HELP_ROW,
};

/* The usage; its options are the rows of every command (all_options), its synopsis lines of
 * list, info and env made from their rows (usage). */
static const struct opt_doc usage_doc = {
    .about = "Runs one allocab workload in this process, with malloc served by the allocator the "
             "driver is named after (proved at start), and prints one allocab-run/1 JSON "
             "document (docs/results-format.md).\n",
    .notes = "Commands besides run:\n"
             "  list   workloads, phases, parameters, allocator options\n"
             "  info   allocator, version, proof, counters, options in force, machine\n"
             "  env    the environment that applies --config settings to a program\n"
             "\n"
             "Exit status: 0 ok; 1 runtime failure (workload error, checksum mismatch, "
             "unwritable output); 2 usage error (bad argument or parameter, too large for "
             "physical memory); 4 allocator not verified (malloc is served by another object, "
             "e.g. via LD_PRELOAD, or a --config setting is not in force: the record is still "
             "written).\n",
};

/* The rows of every command into rows (OPT_MAX of them), for the usage and the man page: run's
 * (their heading says --config is env's too), then list's and info's, then env's but --config.
 * Returns their number. */
static size_t all_options(struct opt *rows)
{
	size_t n;
	const struct opt *run = params_run_options(&n);

	memcpy(rows, run, n * sizeof *rows);
	rows[n++] = (struct opt){NULL, 0, 0, NULL, .help = "Options of list and info"};
	rows[n++] = list_options[L_JSON];
	rows[n++] = (struct opt){NULL, 0, 0, NULL, .help = "Options of env"};
	rows[n++] = env_options[E_PROBE];
	return n;
}

/* The usage, or with man the man page entries of the options (scripts/manopts.sh). */
static void usage(FILE *f, int man)
{
	struct opt rows[OPT_MAX];
	struct opt_doc d = usage_doc;
	char line[3][256];
	const char *synopsis[] = {
	    "run WORKLOAD [OPTIONS]",
	    optdoc_synopsis("list", list_options, L_COUNT, line[0], sizeof line[0]),
	    optdoc_synopsis("info", list_options, L_COUNT, line[1], sizeof line[1]),
	    optdoc_synopsis("env", env_options, E_COUNT, line[2], sizeof line[2]),
	    "--help | --version",
	    NULL};

	d.synopsis = synopsis;
	d.prog = man ? "allocab-BACKEND" : prog;
	d.opts = rows;
	d.nopts = all_options(rows);
	if (man)
		optdoc_man(f, &d);
	else
		optdoc_usage(f, &d, NULL);
}

/* Reads list's, info's or env's arguments into *a by the rows opts[0..n-1]. Returns 0, or
 * ST_USAGE after printing the one line. */
static int parse_sub(const char *cmd, const struct opt *opts, size_t n, int argc, char **argv,
                     struct sub_args *a)
{
	struct opt_parser p;
	const char *v;
	char err[1024], pre[16];
	int k;

	snprintf(pre, sizeof pre, "%s: ", cmd);
	opt_init(&p, argc, argv, 0, opts, n);
	p.prefix = pre;
	while ((k = opt_parse(&p, a, &v, err, sizeof err)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return fail(ST_USAGE, USAGE_HINT, "%s", err);
		if (k == OPT_ARG)
			return fail(ST_USAGE, USAGE_HINT, "%s: unexpected argument '%s'", cmd, v);
	}
	return 0;
}

static int refuse(const struct proof *pr)
{
	return fail(ST_UNVERIFIED, "", "allocator: %s", pr->problem);
}

static int print_json(cJSON *doc)
{
	char *text = doc ? utf8_fix(jst_print(doc, 1)) : NULL;

	cJSON_Delete(doc);
	if (!text)
		return fail(ST_FAIL, "", "out of memory building JSON");
	puts(text);
	free(text);
	return fflush(stdout) == 0 ? ST_OK : fail(ST_FAIL, "", "stdout: write failed");
}

static int cmd_list(int argc, char **argv)
{
	struct sub_args a = {0};

	if (parse_sub("list", list_options, L_COUNT, argc, argv, &a) != 0)
		return ST_USAGE;
	if (a.json)
		return print_json(describe_list_json(&backend));
	describe_list_text(&backend);
	return fflush(stdout) == 0 ? ST_OK : fail(ST_FAIL, "", "stdout: write failed");
}

static int cmd_info(int argc, char **argv)
{
	struct sub_args a = {0};
	struct proof pr;
	char version[128];
	cJSON *doc;

	if (parse_sub("info", list_options, L_COUNT, argc, argv, &a) != 0)
		return ST_USAGE;
	if (proof_check(backend.library, &pr) != 0)
		return refuse(&pr);
	doc = describe_info_json(&backend, &pr,
	                         backend.version(version, sizeof version) == 0 ? version : NULL);
	if (!doc)
		return fail(ST_FAIL, "", "out of memory building JSON");
	if (a.json)
		return print_json(doc);
	describe_info_text(&backend, doc);
	cJSON_Delete(doc);
	return fflush(stdout) == 0 ? ST_OK : fail(ST_FAIL, "", "stdout: write failed");
}

/* ---- run ---- */

static uint64_t physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* Resident bytes from /proc/self/statm, read without allocating; -1 if unreadable. */
static int64_t resident_bytes(void)
{
	char buf[128];
	long long size, resident;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &size, &resident) != 2)
		return -1;
	return resident * sysconf(_SC_PAGESIZE);
}

/* Fails early, before a long run, when --out cannot be created; atomic_write still decides. */
static int out_dir_usable(const char *path, char *err, size_t errlen)
{
	char copy[4096];
	const char *problem = NULL, *dir;
	struct stat st;

	if (strcmp(path, "-") == 0)
		return 0;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		if (access(path, W_OK) == 0)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(copy, sizeof copy, "%s", path);
	dir = dirname(copy);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		problem = "Is a directory";
	else if (stat(dir, &st) != 0)
		problem = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		problem = "Not a directory";
	else if (access(dir, W_OK | X_OK) != 0)
		problem = strerror(errno);
	if (!problem)
		return 0;
	snprintf(err, errlen, "%s: %s", path, problem);
	return -1;
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* The timed loop. Nothing but run() and the clock reads happen between the stamps; results go
 * into the preallocated reps. A getrusage on either side of the stamps gives the rep's resource
 * counts without adding to its time. After each rep, outside the stamps: the resident set, and in
 * automatic mode whether the steady-state rule holds (then it stops) or a cap is reached.
 * Sets *nreps to the reps made. Returns 0, or -1 with ctx->err set by the workload. */
static int measure(const struct run_opts *o, const struct runrec_reps_how *how, struct wl_ctx *ctx,
                   struct runrec_rep *reps, double *after, struct runmarks *marks, int *nreps)
{
	size_t nphases = params_nphases(o->wl);
	double spent_ns = 0;

	for (int k = 0; k < o->reps; k++) {
		struct timespec w0, w1, c0, c1;
		struct wl_usage u0, u1;
		uint64_t checksum = 0;
		int rc;

		memset(ctx->phase, 0, sizeof ctx->phase);
		wl_usage_now(&u0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
		clock_gettime(CLOCK_MONOTONIC, &w0);
		rc = o->wl->run(ctx, &checksum);
		clock_gettime(CLOCK_MONOTONIC, &w1);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		wl_usage_now(&u1);
		if (rc != 0)
			return -1;
		reps[k].checksum = checksum;
		reps[k].phase[0] =
		    (struct runrec_time){ts_ns(&w1) - ts_ns(&w0), ts_ns(&c1) - ts_ns(&c0), {0}};
		wl_usage_delta(&u0, &u1, &reps[k].phase[0].usage);
		for (size_t i = 0; i < nphases; i++)
			reps[k].phase[1 + i] = (struct runrec_time){
			    ctx->phase[i].wall_ns, ctx->phase[i].cpu_ns, ctx->phase[i].usage};
		reps[k].rss_after_bytes = resident_bytes();
		runmarks_rep(marks, k);
		*nreps = k + 1;
		if (!how->automatic || k == 0)
			continue;
		after[k - 1] = (double)(how->cpu ? reps[k].phase[0].cpu_ns : reps[k].phase[0].wall_ns);
		spent_ns += (double)reps[k].phase[0].wall_ns;
		if (steady_is_settled(after, (size_t)k, &how->rule) ||
		    ((size_t)k >= how->rule.min_after && spent_ns >= how->max_steady_s * 1e9))
			break;
	}
	return 0;
}

static int emit(const struct runrec *rec, const struct runmarks *marks, const struct config *cfg,
                const char *out)
{
	cJSON *machine = fingerprint_json();
	cJSON *doc = machine ? runrec_json(rec, machine) : NULL;
	cJSON *conf = doc && runmarks_json(doc, marks) == 0 ? config_json(cfg) : NULL;
	char *text =
	    conf && cJSON_AddItemToObject(doc, "configuration", conf) ? utf8_fix(jst_print(doc, 1))
	                                                             : NULL;
	char err[4096 + 128];
	size_t n;
	int rc = ST_OK;

	cJSON_Delete(doc);
	if (!text)
		return fail(ST_FAIL, "", "out of memory building the run record");
	n = strlen(text);
	text[n] = '\n';
	if (atomic_write(out, text, n + 1, err, sizeof err) != 0)
		rc = fail(ST_FAIL, "", "--out %s", err);
	free(text);
	return rc;
}

/* Whether the input setup() loaded is beyond the driver's limits (params_validate_input); if so,
 * tears the workload down and says why in err. */
static int input_refused(const struct run_opts *o, struct wl_ctx *ctx, char *err, size_t errlen)
{
	struct wl_input_cost c = {0};

	if (!o->wl->input_cost)
		return 0;
	o->wl->input_cost(ctx, &c);
	if (params_validate_input(o, &c, physical_memory(), err, errlen) == 0)
		return 0;
	if (o->wl->teardown)
		o->wl->teardown(ctx);
	return 1;
}

/* The run proper, after --config was taken out of the arguments. */
static int run_configured(int argc, char **argv, struct config *cfg)
{
	struct run_opts o;
	struct proof pr;
	struct wl_ctx ctx = {0};
	struct runrec rec = {0};
	struct runmarks marks;
	struct wl_input_desc input;
	struct backend_counter counters[BACKEND_MAX_COUNTERS];
	struct runrec_rep *reps;
	double *after;
	struct rusage ru;
	char err[4096 + 128], version[128];
	int bad, nreps = 0;

	if (params_parse_run(argc, argv, wl_registry, cfg, &o, err, sizeof err) != 0)
		return fail(ST_USAGE, USAGE_HINT, "%s", err);
	if (config_exec_env(cfg, main_argv, err, sizeof err) != 0)
		return fail(ST_UNVERIFIED, "", "%s", err);
	if (proof_check(backend.library, &pr) != 0)
		return refuse(&pr);
	if (params_validate(&o, physical_memory(), err, sizeof err) != 0)
		return fail(ST_USAGE, "", "%s", err);
	if (out_dir_usable(o.out, err, sizeof err) != 0)
		return fail(ST_FAIL, "", "--out %s", err);
	reps = calloc((size_t)o.reps, sizeof *reps);
	after = calloc((size_t)o.reps, sizeof *after);
	if (!reps || !after) {
		free(reps);
		free(after);
		return fail(ST_FAIL, "", "out of memory for %d reps", o.reps);
	}
	if (config_apply(cfg, err, sizeof err) != 0) {
		free(reps);
		free(after);
		return fail(ST_UNVERIFIED, "", "configuration: %s", err);
	}

	rec.how = (struct runrec_reps_how){.automatic = o.reps_mode == PARAMS_REPS_AUTO,
	                                   .rule = steady_default_rule(),
	                                   .max_reps = o.reps,
	                                   .max_steady_s = STEADY_MAX_S,
	                                   .cpu = o.steady_cpu};
	rec.how.rule.tol = o.steady_tol;
	ctx = (struct wl_ctx){.p = o.value, .str = o.str, .seed = o.seed, .scale = o.scale};
	if (o.wl->setup && (bad = o.wl->setup(&ctx)) != 0) {
		free(reps);
		free(after);
		return fail(bad == -1 ? ST_USAGE : ST_FAIL, "", "%s: %s", o.wl->name, ctx.err);
	}
	if (input_refused(&o, &ctx, err, sizeof err)) {
		free(reps);
		free(after);
		return fail(ST_USAGE, "", "%s", err);
	}
	if (o.wl->describe_input) {
		o.wl->describe_input(&ctx, &input);
		rec.input = &input;
	}
	bad = runmarks_init(&marks, &ctx.marks, &rec.how.rule, rec.how.cpu, o.reps);
	rec.started = time(NULL);
	rec.rss_start_bytes = resident_bytes();
	if (bad == 0)
		bad = measure(&o, &rec.how, &ctx, reps, after, &marks, &nreps);
	else
		snprintf(ctx.err, sizeof ctx.err, "out of memory for the marked phases");
	free(after);
	if (o.wl->teardown)
		o.wl->teardown(&ctx);
	if (bad != 0) {
		free(reps);
		runmarks_free(&marks);
		return fail(ST_FAIL, "", "%s: %s", o.wl->name, ctx.err);
	}
	rec.rss_retained_bytes = reps[nreps - 1].rss_after_bytes;
	getrusage(RUSAGE_SELF, &ru);
	rec.ncounters = backend.counters(counters, BACKEND_MAX_COUNTERS);
	config_verify(cfg);

	if ((bad = runrec_first_mismatch(reps, nreps)) >= 0) {
		char a[17], b[17];
		runrec_hex64(reps[0].checksum, a);
		runrec_hex64(reps[bad].checksum, b);
		free(reps);
		runmarks_free(&marks);
		return fail(ST_FAIL, "",
		            "%s: checksum differs between reps (rep 0: %s, rep %d: %s)", o.wl->name,
		            a, bad, b);
	}
	rec.tool_version = ALLOCAB_VERSION;
	rec.allocator = backend.name;
	rec.allocator_version = backend.version(version, sizeof version) == 0 ? version : NULL;
	rec.library = pr.library;
	rec.verified = pr.verified;
	rec.wl = o.wl;
	rec.scale = o.scale;
	rec.seed = o.seed;
	rec.params = o.value;
	rec.str = o.str;
	rec.reps = reps;
	rec.nreps = nreps;
	runrec_usage_from(&ru, &rec.rusage);
	rec.counters = counters;
	bad = emit(&rec, &marks, cfg, o.out);
	free(reps);
	runmarks_free(&marks);
	if (bad == 0 && !cfg->verified)
		return fail(ST_UNVERIFIED, "", "configuration not in force: %s", cfg->problem);
	return bad;
}

/* --config: read by its row, applied through the environment (re-executing the driver) or in
 * the process, read back after the last rep (docs/tuning.md). */
static int cmd_run(int argc, char **argv)
{
	struct config cfg;

	config_init(&cfg, &backend);
	return run_configured(argc, argv, &cfg);
}

static int cmd_env(int argc, char **argv)
{
	struct config cfg;
	struct sub_args a = {.config = &cfg};
	struct config_env env[CONFIG_MAX];
	char err[1024], spec[2048];
	int n;

	config_init(&cfg, &backend);
	if (parse_sub("env", env_options, E_COUNT, argc, argv, &a) != 0)
		return ST_USAGE;
	if ((n = config_env(&cfg, 1, env, CONFIG_MAX, err, sizeof err)) < 0 ||
	    (a.probe && config_probe_spec(&cfg, spec, sizeof spec, err, sizeof err) != 0))
		return fail(ST_USAGE, "", "env: %s", err);
	for (int i = 0; i < n; i++)
		printf("%s=%s\n", env[i].name, env[i].value);
	if (a.probe && cfg.n > 0)
		printf("%s=%s\n", PROBE_CONFIG_VAR, spec);
	return fflush(stdout) == 0 ? 0 : fail(ST_FAIL, "", "stdout: write failed");
}

/* The commands and their rows (run's: params.c); each answers --help anywhere in its options. */
static const struct command {
	const char *name;
	const struct opt *opts; /* NULL: run's */
	size_t nopts;
	int help_row;
	int (*main)(int argc, char **argv);
} commands[] = {
    {"run", NULL, 0, -1, cmd_run},
    {"list", list_options, L_COUNT, L_HELP, cmd_list},
    {"info", list_options, L_COUNT, L_HELP, cmd_info},
    {"env", env_options, E_COUNT, E_HELP, cmd_env},
};

/* Whether c's arguments argv[0..argc-1] ask for the usage: its --help row, read by its rows. */
static int wants_help(const struct command *c, int argc, char **argv)
{
	struct opt_parser p;
	size_t n = c->nopts;
	const struct opt *opts = c->opts ? c->opts : params_run_options(&n);

	opt_init(&p, argc, argv, 0, opts, n);
	return opt_seen(&p, c->opts ? c->help_row : params_help_row());
}

/* The driver's own options, before any command, and those of `help` (--man: the man page's
 * entries of the options, scripts/manopts.sh). */
enum { D_HELP, D_VERSION, D_COUNT };
static const struct opt main_options[D_COUNT] = {
    [D_HELP] = {"--help", 'h', 0, NULL, .help = "this text"},
    [D_VERSION] = {"--version", 0, 0, NULL, .help = "the version"},
};
enum { H_MAN, H_COUNT };
static const struct opt help_options[H_COUNT] = {
    [H_MAN] = {"--man", 0, 0, NULL, .help = "the man page's entries of the options"},
};

static int cmd_help(int argc, char **argv)
{
	struct sub_args a = {0};
	struct opt_parser p;
	const char *v;
	char err[256];
	int k, man = 0;

	opt_init(&p, argc, argv, 0, help_options, H_COUNT);
	p.prefix = "help: ";
	while ((k = opt_parse(&p, &a, &v, err, sizeof err)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return fail(ST_USAGE, USAGE_HINT, "%s", err);
		if (k == OPT_ARG)
			return fail(ST_USAGE, USAGE_HINT, "help: unexpected argument '%s'", v);
		man = 1;
	}
	usage(stdout, man);
	return fflush(stdout) == 0 ? ST_OK : ST_FAIL;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL, *inl;
	int k;

	snprintf(prog, sizeof prog, "allocab-%s", backend.name);
	main_argv = argv;
	if (!cmd)
		return fail(ST_USAGE, USAGE_HINT, "missing command (run, list, info or env)");
	k = opt_find(main_options, D_COUNT, cmd, &inl);
	if (k == D_HELP && !inl) {
		usage(stdout, 0);
		return ST_OK;
	}
	if (k == D_VERSION && !inl) {
		printf("%s %s\n", prog, ALLOCAB_VERSION);
		return ST_OK;
	}
	if (strcmp(cmd, "help") == 0)
		return cmd_help(argc - 2, argv + 2);
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
		if (strcmp(cmd, commands[i].name) != 0)
			continue;
		if (wants_help(&commands[i], argc - 2, argv + 2)) {
			usage(stdout, 0);
			return ST_OK;
		}
		return commands[i].main(argc - 2, argv + 2);
	}
	return fail(ST_USAGE, USAGE_HINT, "unknown command '%s'", cmd);
}
