/* driver.c - main of build/allocab-<backend>: runs one workload in this process with malloc served
 * by the backend's allocator (proved, not assumed), and prints one allocab-run/1 JSON document;
 * `list` and `info` print what describe.c builds, `env` what config.c derives.
 * Exit status: common/status.h (README.md, "Exit status"). */
#include "driver/backend.h"
#include "common/steady.h"
#include "driver/config.h"
#include "driver/describe.h"
#include "driver/measure.h"
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

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* A run's state, from its options to its record. */
struct run {
	struct run_opts o;
	struct proof pr;
	struct wl_ctx ctx;
	struct runrec rec;
	struct runmarks marks;
	struct wl_input_desc input;
	struct measure m;
};

static void run_free_reps(struct run *r)
{
	free(r->m.reps);
	free(r->m.after);
	r->m.reps = NULL;
	r->m.after = NULL;
}

/* The options read, the allocator proved, the limits checked, the reps allocated and the
 * configuration applied. Returns 0 or the exit status after the one line. */
static int run_prepare(int argc, char **argv, struct config *cfg, struct run *r)
{
	char err[4096 + 128];

	r->o.config = cfg;
	if (params_parse_run(argc, argv, wl_registry, &r->o, err, sizeof err) != 0)
		return fail(ST_USAGE, USAGE_HINT, "%s", err);
	if (config_exec_env(cfg, main_argv, err, sizeof err) != 0)
		return fail(ST_UNVERIFIED, "", "%s", err);
	if (proof_check(backend.library, &r->pr) != 0)
		return refuse(&r->pr);
	if (params_validate(&r->o, measure_physical_memory(), err, sizeof err) != 0)
		return fail(ST_USAGE, "", "%s", err);
	if (runrec_out_usable(r->o.out, err, sizeof err) != 0)
		return fail(ST_FAIL, "", "--out %s", err);
	r->m.reps = calloc((size_t)r->o.reps, sizeof *r->m.reps);
	r->m.after = calloc((size_t)r->o.reps, sizeof *r->m.after);
	if (!r->m.reps || !r->m.after) {
		run_free_reps(r);
		return fail(ST_FAIL, "", "out of memory for %d reps", r->o.reps);
	}
	if (config_apply(cfg, err, sizeof err) != 0) {
		run_free_reps(r);
		return fail(ST_UNVERIFIED, "", "configuration: %s", err);
	}
	return 0;
}

/* The workload set up on its input, which the limits accept (params_validate_input: else it is
 * torn down). Returns 0 or the exit status. */
static int run_setup(struct run *r)
{
	const struct run_opts *o = &r->o;
	struct wl_input_cost c = {0};
	char err[4096 + 128];
	int bad;

	r->rec.how = (struct runrec_reps_how){.automatic = o->reps_mode == PARAMS_REPS_AUTO,
	                                      .rule = steady_default_rule(),
	                                      .max_reps = o->reps,
	                                      .max_steady_s = STEADY_MAX_S,
	                                      .cpu = o->steady_cpu};
	r->rec.how.rule.tol = o->steady_tol;
	r->ctx = (struct wl_ctx){.p = o->value, .str = o->str, .seed = o->seed, .scale = o->scale};
	if (o->wl->setup && (bad = o->wl->setup(&r->ctx)) != 0) {
		run_free_reps(r);
		return fail(bad == -1 ? ST_USAGE : ST_FAIL, "", "%s: %s", o->wl->name, r->ctx.err);
	}
	if (o->wl->input_cost) {
		o->wl->input_cost(&r->ctx, &c);
		if (params_validate_input(o, &c, measure_physical_memory(), err, sizeof err) != 0) {
			if (o->wl->teardown)
				o->wl->teardown(&r->ctx);
			run_free_reps(r);
			return fail(ST_USAGE, "", "%s", err);
		}
	}
	if (o->wl->describe_input) {
		o->wl->describe_input(&r->ctx, &r->input);
		r->rec.input = &r->input;
	}
	return 0;
}

/* The reps made and the workload torn down. Returns 0, or the exit status with the reps and
 * the marks freed. */
static int run_reps(struct run *r)
{
	int bad =
	    runmarks_init(&r->marks, &r->ctx.marks, &r->rec.how.rule, r->rec.how.cpu, r->o.reps);

	r->m = (struct measure){&r->o, &r->rec.how, &r->ctx, r->m.reps, r->m.after, &r->marks, 0};
	r->rec.started = time(NULL);
	r->rec.rss_start_bytes = measure_resident_bytes();
	if (bad == 0)
		bad = measure_reps(&r->m);
	else
		snprintf(r->ctx.err, sizeof r->ctx.err, "out of memory for the marked phases");
	free(r->m.after);
	r->m.after = NULL;
	if (r->o.wl->teardown)
		r->o.wl->teardown(&r->ctx);
	if (bad == 0)
		return 0;
	run_free_reps(r);
	runmarks_free(&r->marks);
	return fail(ST_FAIL, "", "%s: %s", r->o.wl->name, r->ctx.err);
}

/* The record of the reps made, when their checksums agree, written to --out. Returns 0 or the
 * exit status. */
static int run_record(struct run *r, struct config *cfg)
{
	struct backend_counter counters[BACKEND_MAX_COUNTERS];
	struct runrec *rec = &r->rec;
	struct rusage ru;
	char err[4096 + 256], version[128], a[17], b[17];
	int bad;

	rec->rss_retained_bytes = r->m.reps[r->m.nreps - 1].rss_after_bytes;
	getrusage(RUSAGE_SELF, &ru);
	rec->ncounters = backend.counters(counters, BACKEND_MAX_COUNTERS);
	config_verify(cfg);
	if ((bad = runrec_first_mismatch(r->m.reps, r->m.nreps)) >= 0) {
		runrec_hex64(r->m.reps[0].checksum, a);
		runrec_hex64(r->m.reps[bad].checksum, b);
		return fail(ST_FAIL, "",
		            "%s: checksum differs between reps (rep 0: %s, rep %d: %s)",
		            r->o.wl->name, a, bad, b);
	}
	rec->tool_version = ALLOCAB_VERSION;
	rec->allocator = backend.name;
	rec->allocator_version = backend.version(version, sizeof version) == 0 ? version : NULL;
	rec->library = r->pr.library;
	rec->verified = r->pr.verified;
	rec->wl = r->o.wl;
	rec->scale = r->o.scale;
	rec->seed = r->o.seed;
	rec->params = r->o.value;
	rec->str = r->o.str;
	rec->reps = r->m.reps;
	rec->nreps = r->m.nreps;
	runrec_usage_from(&ru, &rec->rusage);
	rec->counters = counters;
	if (runrec_write(rec, &r->marks, cfg, r->o.out, err, sizeof err) != 0)
		return fail(ST_FAIL, "", "%s", err);
	return ST_OK;
}

/* The run proper, after --config was taken out of the arguments. */
static int run_configured(int argc, char **argv, struct config *cfg)
{
	struct run r = {0};
	int bad;

	if ((bad = run_prepare(argc, argv, cfg, &r)) != 0 || (bad = run_setup(&r)) != 0 ||
	    (bad = run_reps(&r)) != 0)
		return bad;
	bad = run_record(&r, cfg);
	run_free_reps(&r);
	runmarks_free(&r.marks);
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
