/* params.c - strict parsing of the driver's `run` arguments and workload parameters. */
#include "driver/params.h"

#include "common/errmsg.h"
#include "common/opt.h"
#include "common/steady.h"
#include "driver/config.h"

#include <stdio.h>
#include <string.h>

static const char *const scale_names[WL_SCALE_COUNT + 1] = {"small", "default", "large", NULL};
static const char *const reps_words[] = {"auto", NULL};
static const struct opt_values scale_values = {scale_names, NULL};
static const struct opt_values reps_values = {reps_words, NULL};
static const char *const steady_times[] = {"wall", "cpu", NULL};
static const struct opt_values steady_time_values = {steady_times, NULL};

const char *params_scale_name(enum wl_scale s)
{
	return (unsigned)s < WL_SCALE_COUNT ? scale_names[s] : "?";
}

int params_is_string(const struct wl_param *p)
{
	return (p->flags & WL_PARAM_STRING) != 0;
}

int params_is_bytes(const struct wl_param *p)
{
	return p->unit && strcmp(p->unit, "bytes") == 0;
}

void params_format(const struct wl_param *p, int64_t v, char *buf, size_t len)
{
	static const char suffix[] = "GMk";

	for (int i = 0; params_is_bytes(p) && v != 0 && i < 3; i++) {
		int shift = 30 - 10 * i;
		if (v % ((int64_t)1 << shift) == 0) {
			snprintf(buf, len, "%lld%c", (long long)(v >> shift), suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%lld", (long long)v);
}

size_t params_nphases(const struct workload *wl)
{
	size_t n = 0;

	while (wl->phases && wl->phases[n] && n < WL_MAX_PHASES)
		n++;
	return n;
}

enum {
	R_HEADING,
	R_PARAM,
	R_SCALE,
	R_SEED,
	R_REPS,
	R_MAX_REPS,
	R_STEADY_TOL,
	R_STEADY_TIME,
	R_OUT,
	R_CONFIG,
	R_HELP,
	R_COUNT
};

#define RO struct run_opts

static int set_reps(void *settings, const struct opt *o, const char *v, char *err, size_t errlen);

/* --param is read in a second pass, once the workload is known; --help is the caller's. */
static const struct opt run_options[R_COUNT] = {
    [R_HEADING] = {NULL, 0, 0, NULL, .help = "Options of run (--config also of env)"},
    [R_PARAM] = {"--param", 0, OPT_VALUE | OPT_REPEAT, "KEY=VALUE",
                 .help = "set a workload parameter (see `list`); each KEY at most once; byte "
                         "counts accept a k, M or G suffix (2^10, 2^20, 2^30)"},
    [R_SCALE] = {"--scale", 0, OPT_VALUE, NULL, .help = "preset of parameter defaults",
                 .values = &scale_values, OPT_ENUM(RO, scale), OPT_DEF_U(WL_SCALE_DEFAULT)},
    [R_SEED] = {"--seed", 0, OPT_VALUE, "N", .help = "workload seed", OPT_U64(RO, seed), .lo = 0,
                .hi = PARAMS_SEED_MAX, OPT_DEF_U(PARAMS_SEED_DEFAULT)},
    [R_REPS] = {"--reps", 0, OPT_VALUE, "N|auto",
                .help = "runs in this process: N fixes the count; auto (docs/methodology.md): "
                        "the first is cold, then runs until the last 3 agree within "
                        "--steady-tol, or the medians of the last two windows of 3 do (at least "
                        "3 more, at most --max-reps in all or 10 s after the cold one)",
                .values = &reps_values, .type = OPT_T_UINT, .lo = 1, .hi = PARAMS_REPS_MAX,
                .def_doc = "auto", .set = set_reps},
    [R_MAX_REPS] = {"--max-reps", 0, OPT_VALUE, "N", .help = "cap of --reps auto",
                    OPT_UINT(RO, max_reps), .lo = 2, .hi = PARAMS_REPS_MAX,
                    OPT_DEF_U(STEADY_MAX_REPS)},
    [R_STEADY_TIME] = {"--steady-time", 0, OPT_VALUE, NULL,
                       .help = "the times the steady-state rule judges: wall or cpu (the "
                               "process's CPU time of each rep, every thread)",
                       .values = &steady_time_values, OPT_ENUM(RO, steady_cpu), OPT_DEF_U(0)},
    [R_STEADY_TOL] = {"--steady-tol", 0, OPT_VALUE, "P%",
                      .help = "tolerance of the steady-state rule", OPT_PCT(RO, steady_tol_pct),
                      .lo = 0, .hi = 100, OPT_DEF_D(5)},
    [R_OUT] = {"--out", 0, OPT_VALUE | OPT_FILE, "FILE|-",
               .help = "write the record atomically to FILE (-: stdout)", OPT_STRING(RO, out),
               OPT_DEF_S("-")},
    [R_CONFIG] = CONFIG_OPT_ROW(RO, config),
    [R_HELP] = PARAMS_HELP_ROW,
};
_Static_assert(PARAMS_REPS_MAX == 1000 && STEADY_MAX_REPS == 20 && STEADY_WINDOW == 3 &&
                   STEADY_MIN_AFTER == 3 && STEADY_MAX_S == 10.0 && STEADY_TOL == 0.05 &&
                   WL_SCALE_DEFAULT == 1 && WL_SCALE_COUNT == 3,
               "update the help and defaults of run_options");

const struct opt *params_run_options(size_t *n)
{
	*n = R_COUNT;
	return run_options;
}

int params_help_row(void)
{
	return R_HELP;
}

/* --reps N (fixed) or auto: N by the row's type and range. */
static int set_reps(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	struct run_opts *r = settings;
	unsigned n;

	if (strcmp(v, reps_words[0]) == 0) {
		r->reps_mode = PARAMS_REPS_AUTO;
		return 0;
	}
	if (opt_value(o, v, &n, err, errlen) != 0)
		return -1;
	r->reps = (int)n;
	r->reps_mode = PARAMS_REPS_FIXED;
	return 0;
}

static void run_parser(struct opt_parser *p, int argc, char *const *argv)
{
	opt_init(p, argc, (char **)argv, 0, run_options, R_COUNT);
	p->prefix = "run: ";
}

static int list_workloads(const struct workload *const *registry, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const struct workload *const *w = registry; *w && used < len; w++)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", (*w)->name);
	return 0;
}

static int list_params(const struct workload *wl, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < wl->nparams && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
		                         wl->params[i].name);
	return 0;
}

/* First pass: the rows' defaults and values, and the WORKLOAD; --param is left for later. */
static int parse_options(int argc, char *const *argv, const char **name, struct run_opts *o,
                         char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	opt_defaults(run_options, R_COUNT, o);
	run_parser(&p, argc, argv);
	while ((k = opt_parse(&p, o, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k == OPT_ARG && *name)
			return errmsg_fail(err, errlen,
			                   "run: unexpected argument '%s' after workload '%s'", v,
			                   *name);
		if (k == OPT_ARG)
			*name = v;
	}
	if (o->reps_mode == PARAMS_REPS_FIXED && p.given[R_MAX_REPS])
		return errmsg_fail(
		    err, errlen,
		    "--max-reps cannot be combined with --reps %d: it caps --reps auto", o->reps);
	if (o->reps_mode == PARAMS_REPS_AUTO)
		o->reps = (int)o->max_reps;
	o->steady_tol = o->steady_tol_pct / 100;
	return 0;
}

/* KEY=VALUE against the workload's table: the value is read by a row made from its wl_param
 * (name "--param KEY", its type and range), so it gets the rows' messages. */
static int set_param(struct run_opts *o, const char *kv, char *err, size_t errlen)
{
	const struct workload *wl = o->wl;
	const char *eq = strchr(kv, '=');
	const struct wl_param *p = NULL;
	size_t i, klen;
	char known[512], name[96];
	struct opt row = {0};

	if (!eq || eq == kv)
		return errmsg_fail(err, errlen, "--param: '%s' is not KEY=VALUE", kv);
	klen = (size_t)(eq - kv);
	for (i = 0; i < wl->nparams; i++)
		if (strlen(wl->params[i].name) == klen &&
		    strncmp(wl->params[i].name, kv, klen) == 0) {
			p = &wl->params[i];
			break;
		}
	if (!p) {
		list_params(wl, known, sizeof known);
		return errmsg_fail(err, errlen, "--param: %s has no parameter '%.*s' (known: %s)",
		                   wl->name, (int)klen, kv, known);
	}
	if (o->given[i])
		return errmsg_fail(err, errlen, "--param %s is given twice", p->name);
	o->given[i] = 1;
	snprintf(name, sizeof name, "--param %s", p->name);
	row.name = name;
	if (params_is_string(p))
		return opt_value(&(struct opt){.name = name, .type = OPT_T_STRING}, eq + 1,
		                 &o->str[i], err, errlen);
	row.type = OPT_T_I64;
	row.flags = params_is_bytes(p) ? OPT_BYTES : 0;
	row.lo = (double)p->min;
	row.hi = (double)p->max;
	return opt_value(&row, eq + 1, &o->value[i], err, errlen);
}

int params_parse_run(int argc, char *const *argv, const struct workload *const *registry,
                     struct run_opts *o, char *err, size_t errlen)
{
	const char *name = NULL, *v;
	char known[512];
	struct config *cfg = o->config;
	struct opt_parser p;
	int k;

	memset(o, 0, sizeof *o);
	o->reps_mode = PARAMS_REPS_AUTO;
	o->config = cfg;
	if (parse_options(argc, argv, &name, o, err, errlen) != 0)
		return -1;
	if (!name)
		return errmsg_fail(err, errlen, "run: missing WORKLOAD");
	if (!(o->wl = wl_find(registry, name))) {
		list_workloads(registry, known, sizeof known);
		return errmsg_fail(err, errlen, "run: unknown workload '%s' (known: %s)", name,
		                   known);
	}
	for (size_t i = 0; i < o->wl->nparams; i++) {
		o->value[i] = o->wl->params[i].def[o->scale];
		o->str[i] = "";
	}
	run_parser(&p, argc, argv);
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE)
		if (k == R_PARAM && set_param(o, v, err, errlen) != 0)
			return -1;
	return 0;
}

static void human_bytes(uint64_t n, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f GiB", (double)n / (1024.0 * 1024 * 1024));
}

/* A duration the way a refusal shows it: "95 s", "42 min", "6.7 h", "1.2e+03 days". */
static void human_seconds(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%.1f h", s / 3600);
	else
		snprintf(buf, len, "%.3g days", s / 86400);
}

/* The reps the work limit counts: --reps N, or for --reps auto the reps it always makes (the
 * cold one and the minimum after it; beyond those its time cap bounds it), described in how. */
static int counted_reps(const struct run_opts *o, char *how, size_t len)
{
	if (o->reps_mode == PARAMS_REPS_FIXED) {
		snprintf(how, len, "--reps %d", o->reps);
		return o->reps;
	}
	snprintf(how, len, "--reps auto (at least %d reps)", 1 + STEADY_MIN_AFTER);
	return 1 + STEADY_MIN_AFTER;
}

/* The work of these parameters times --reps against PARAMS_WORK_FACTOR runs of the large
 * preset. */
static int check_work(const struct run_opts *o, char *err, size_t errlen)
{
	int64_t large[WL_MAX_PARAMS];
	double limit, work;
	char how[64];
	int reps = counted_reps(o, how, sizeof how);

	if (!o->wl->work)
		return 0;
	for (size_t i = 0; i < o->wl->nparams && i < WL_MAX_PARAMS; i++)
		large[i] = o->wl->params[i].def[WL_SCALE_LARGE];
	limit = PARAMS_WORK_FACTOR * o->wl->work(large);
	work = o->wl->work(o->value) * (double)reps;
	if (!(work <= limit))
		return errmsg_fail(err, errlen,
		                   "%s: these parameters with %s are about %.3gx the work of "
		                   "one run at --scale large, more than the %dx allowed",
		                   o->wl->name, how, work / (limit / PARAMS_WORK_FACTOR),
		                   PARAMS_WORK_FACTOR);
	return 0;
}

/* Memory a run needs: bytes, said of who ("these parameters need"); detail, if not empty, says
 * what it is made of. */
struct need {
	const char *who;
	uint64_t bytes;
	const char *detail;
};

/* n against 1/PARAMS_MEM_SHARE of phys_bytes. */
static int check_memory(const struct run_opts *o, struct need n, uint64_t phys_bytes, char *err,
                        size_t errlen)
{
	char need_h[32], have_h[32];

	if (n.bytes <= phys_bytes / PARAMS_MEM_SHARE)
		return 0;
	human_bytes(n.bytes, need_h, sizeof need_h);
	human_bytes(phys_bytes, have_h, sizeof have_h);
	return errmsg_fail(err, errlen,
	                   "%s: %s up to %llu bytes (%s%s%s), more than 1/%d of the %llu "
	                   "bytes (%s) of physical memory",
	                   o->wl->name, n.who, (unsigned long long)n.bytes, need_h,
	                   *n.detail ? ": " : "", n.detail, PARAMS_MEM_SHARE,
	                   (unsigned long long)phys_bytes, have_h);
}

int params_validate(const struct run_opts *o, uint64_t phys_bytes, char *err, size_t errlen)
{
	struct wl_ctx ctx = {.p = o->value, .str = o->str, .seed = o->seed, .scale = o->scale};

	if (o->wl->check && o->wl->check(&ctx) != 0)
		return errmsg_fail(err, errlen, "%s: %s", o->wl->name, ctx.err);
	if (check_memory(o, (struct need){"these parameters need", o->wl->footprint(o->value), ""},
	                 phys_bytes, err, errlen) != 0)
		return -1;
	return check_work(o, err, errlen);
}

int params_validate_input(const struct run_opts *o, const struct wl_input_cost *c,
                          uint64_t phys_bytes, char *err, size_t errlen)
{
	char how[64];
	int reps = counted_reps(o, how, sizeof how);
	double limit = PARAMS_WORK_FACTOR * PARAMS_WORK_RUN_S, work = c->run_s * reps;
	char dur[32];

	if (check_memory(o, (struct need){"this input needs", c->footprint, c->memory}, phys_bytes,
	                 err, errlen) != 0)
		return -1;
	if (work <= limit)
		return 0;
	human_seconds(work, dur, sizeof dur);
	return errmsg_fail(err, errlen,
	                   "%s: this input with %s is about %.3gx the work of a %g s run "
	                   "(estimated %s%s%s), more than the %dx allowed",
	                   o->wl->name, how, work / PARAMS_WORK_RUN_S, PARAMS_WORK_RUN_S, dur,
	                   *c->work ? ": " : "", c->work, PARAMS_WORK_FACTOR);
}
