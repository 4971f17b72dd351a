/* bench.c - the `allocab bench` command line: from its options (benchopt.h) to the engine's
 * configuration (drivers and their workloads, output paths, --duet, the rounds rule), then the run
 * (front/run/bench.h) and the final report. */
#include "front/cmd/commands.h"
#include "front/run/run.h"
#include "front/calib/calib.h"
#include "front/cmd/benchopt.h"
#include "common/errmsg.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "front/cmd/gateopt.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Backends that exist to calibrate the harness (docs/calibration.md), not allocators to compare:
 * selectable with -a, never chosen by default. */
static const char *const calibration_only[] = {"system_slow", NULL};

static int in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

/* ---- drivers and workloads ---- */

static int by_name_system_first(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int xs = strcmp(x, "system") == 0, ys = strcmp(y, "system") == 0;

	return xs != ys ? ys - xs : strcmp(x, y);
}

int bench_find_drivers(const char *dir, char ***names, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL, path[4096 + 256];
	size_t n = 0, cap = 0;

	if (!d)
		return errmsg_fail(err, errlen, "driver directory %s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		const char *name = de->d_name + 8;
		struct stat st;

		if (strncmp(de->d_name, "allocab-", 8) != 0 || !*name ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0)
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap = cap * 2 + 8) * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		if (!(v[n] = strdup(name)))
			break;
		n++;
	}
	closedir(d);
	if (de) {
		bench_free_list(v, n);
		return errmsg_fail(err, errlen, "out of memory");
	}
	if (n)
		qsort(v, n, sizeof *v, by_name_system_first);
	*names = v;
	return (int)n;
}

/* ---- configuration ---- */

struct setup {
	const volatile sig_atomic_t *stop;
	struct bench_config c;
	struct bench_wl_list list;
	char **names, **sel;
	size_t nnames, nsel;
	char dir[4096];
	char *paths[2];
	struct bench_probe_paths pp;
	struct arm_spec *specs; /* --arm, owned; configured arms point into them */
	size_t nspecs;
	struct gate_spec gate; /* --gate: c.gate points here */
};

static void setup_free(struct setup *s)
{
	bench_free_proof(&s->c, &s->pp);
	for (size_t i = 0; i < s->c.narms; i++) {
		free(s->c.arms[i].name);
		free(s->c.arms[i].path);
	}
	free(s->c.arms);
	bench_free_workloads(&s->c);
	bench_wl_list_free(&s->list);
	bench_free_list(s->names, s->nnames);
	bench_free_list(s->sel, s->nsel);
	free(s->paths[0]);
	free(s->paths[1]);
	for (size_t i = 0; i < s->nspecs; i++)
		armspec_free(&s->specs[i]);
	free(s->specs);
}

static int index_of(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return (int)i;
	return -1;
}

/* Joins names for a message: "a, b, c". */
static void join(char *const *v, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", v[i]);
}

/* The --arm arms after the -a ones: parsed, their driver found, their settings checked by the
 * driver (`env --config ...`). Returns 0, 1 or 2 with err set. */
static int setup_configured_arms(struct setup *s, const struct bench_opts *o, const char *have,
                                 char *err, size_t errlen)
{
	int rc;

	if (o->narm_specs && !(s->specs = calloc(o->narm_specs, sizeof *s->specs)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (size_t i = 0; i < o->narm_specs; i++) {
		struct arm_spec *sp = &s->specs[s->nspecs];
		struct bench_arm *a = &s->c.arms[s->c.narms];

		if (armspec_parse(o->arm_specs[i], sp, err, errlen) != 0)
			return 2;
		s->nspecs++;
		for (size_t k = 0; k < s->c.narms; k++)
			if (strcmp(s->c.arms[k].name, sp->label) == 0)
				return errmsg_status(
				    2, err, errlen, "--arm %s: the name of another arm", sp->label);
		if (index_of(s->names, s->nnames, sp->backend) < 0)
			return errmsg_status(
			    2, err, errlen, "--arm %s: unknown allocator '%s' (drivers in %s: %s)",
			    sp->label, sp->backend, s->dir, s->nnames ? have : "none");
		if (!(a->name = strdup(sp->label)) ||
		    asprintf(&a->path, "%s/allocab-%s", s->dir, sp->backend) < 0) {
			a->path = NULL;
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		}
		s->c.narms++;
		a->backend = sp->backend;
		a->config = sp->config;
		a->nconfig = sp->nconfig;
		if ((rc = armspec_check(a->path, sp, s->stop, NULL, err, errlen)) != 0)
			return rc;
	}
	if (s->c.narms < 2)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--arm: a comparison needs at least two arms");
	return 0;
}

/* Arms of drivers mode: -a, or every driver found but the calibration backends, then the --arm
 * arms. Returns 0, 1 (runtime) or 2 (usage) with err set. */
static int setup_arms(struct setup *s, const struct bench_opts *o, char *err, size_t errlen)
{
	char have[1024];
	int n;

	if (bench_driver_dir(o->driver_dir, s->dir, sizeof s->dir, err, errlen) != 0)
		return ST_FAIL;
	if ((n = bench_find_drivers(s->dir, &s->names, err, errlen)) < 0)
		return ST_FAIL;
	s->nnames = (size_t)n;
	join(s->names, s->nnames, have, sizeof have);
	if (o->allocators) {
		if ((n = bench_split_list(o->allocators, "-a", &s->sel, err, errlen)) < 0)
			return ST_USAGE;
		s->nsel = (size_t)n;
		for (size_t i = 0; i < s->nsel; i++)
			if (index_of(s->names, s->nnames, s->sel[i]) < 0)
				return errmsg_status(
				    ST_USAGE, err, errlen,
				    "-a: unknown allocator '%s' (drivers in %s: %s)", s->sel[i],
				    s->dir, s->nnames ? have : "none");
		if (s->nsel + o->narm_specs < 2)
			return errmsg_status(ST_USAGE, err, errlen,
			                     "-a: a comparison needs at least two allocators");
	} else if (!o->narm_specs) {
		if (!(s->sel = calloc(s->nnames + 1, sizeof *s->sel)))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		for (size_t i = 0; i < s->nnames; i++)
			if (!in_list(calibration_only, s->names[i]) &&
			    !(s->sel[s->nsel++] = strdup(s->names[i])))
				return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		if (s->nsel < 2)
			return errmsg_status(ST_FAIL, err, errlen,
			                     "found %s driver%s in %s (%s); a comparison needs two "
			                     "(build them with make, or use --driver-dir)",
			                     s->nsel ? "only one" : "no", s->nsel ? "" : "s",
			                     s->dir, s->nnames ? have : "none");
	}
	if (!(s->c.arms = calloc(s->nsel + o->narm_specs, sizeof *s->c.arms)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (size_t i = 0; i < s->nsel; i++) {
		struct bench_arm *a = &s->c.arms[s->c.narms++];

		if (!(a->name = strdup(s->sel[i])) ||
		    asprintf(&a->path, "%s/allocab-%s", s->dir, s->sel[i]) < 0) {
			a->path = NULL;
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		}
	}
	return setup_configured_arms(s, o, have, err, errlen);
}

/* Workloads of drivers mode, from the first arm's `list --json`, and the --param each gets. */
static int setup_workloads(struct setup *s, const struct bench_opts *o, char *err, size_t errlen)
{
	char **sel, have[1024];
	const char *bad;
	enum bench_route route;
	int n, rc = 0;

	if (bench_list_workloads(s->c.arms[0].path, s->stop, &s->list, err, errlen) != 0)
		return ST_FAIL;
	join(s->list.names, s->list.n, have, sizeof have);
	sel = s->list.defaults;
	n = (int)s->list.ndefaults;
	if (o->workloads && (n = bench_split_list(o->workloads, "-w", &sel, err, errlen)) < 0)
		return ST_USAGE;
	route = bench_route_workloads(&s->c, sel, (size_t)n, &s->list, o->params, o->nparams, &bad);
	if (route == BENCH_ROUTE_NOMEM)
		rc = errmsg_status(ST_FAIL, err, errlen, "out of memory");
	else if (route == BENCH_ROUTE_UNKNOWN_WL)
		rc = errmsg_status(ST_USAGE, err, errlen, "-w: unknown workload '%s' (%s)", bad,
		                   have);
	else if (route == BENCH_ROUTE_UNUSED_PARAM)
		rc = errmsg_status(ST_USAGE, err, errlen,
		                   "--param %.*s: no selected workload has this parameter",
		                   (int)strcspn(bad, "="), bad);
	if (sel != s->list.defaults)
		bench_free_list(sel, (size_t)n);
	return rc;
}

static int setup_commands(struct setup *s, const struct bench_opts *o, char *err, size_t errlen)
{
	if (!(s->c.arms = calloc(o->ncmds, sizeof *s->c.arms)) ||
	    !(s->c.wl = calloc(1, sizeof *s->c.wl)) || !(s->c.wl[0].name = strdup("command")))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	s->c.nwl = 1;
	for (size_t i = 0; i < o->ncmds; i++) {
		struct bench_arm *a = &s->c.arms[s->c.narms++];

		if (!(a->name = strdup(o->cmd_names[i])))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		a->command = (char *)o->cmd_lines[i];
	}
	return 0;
}

/* --duet: two arms, single-threaded workloads only, two CPUs to pin them to. Returns 0 or 2. */
static int setup_duet(struct setup *s, char *err, size_t errlen)
{
	if (s->c.narms != 2)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--duet pairs exactly two allocators (-a A,B), not %zu",
		                     s->c.narms);
	return bench_duet_setup(&s->c, &s->list, err, errlen) != 0 ? ST_USAGE : 0;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof path)
		return errno = ENAMETOOLONG, -1;
	memcpy(path, dir, n + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int setup_outputs(struct setup *s, const struct bench_opts *o, char *err, size_t errlen)
{
	const char *rdir = o->results_dir ? o->results_dir : "results";
	char stamp[32], dir[4096];
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;

	if (o->out) {
		const char *slash = strrchr(o->out, '/');

		if (stat(o->out, &st) == 0 && S_ISDIR(st.st_mode))
			return errmsg_fail(err, errlen, "-o %s: Is a directory", o->out);
		if (!slash)
			strcpy(dir, ".");
		else if (slash == o->out)
			strcpy(dir, "/");
		else
			snprintf(dir, sizeof dir, "%.*s", (int)(slash - o->out), o->out);
		if (bench_dir_writable(dir, o->out, err, errlen) != 0)
			return -1;
		if (!(s->paths[0] = strdup(o->out)))
			return errmsg_fail(err, errlen, "out of memory");
		s->c.nout = 1;
		s->c.out_paths = s->paths;
		return 0;
	}
	if (make_dirs(rdir) != 0)
		return errmsg_fail(err, errlen, "cannot create %s: %s", rdir, strerror(errno));
	if (bench_dir_writable(rdir, rdir, err, errlen) != 0)
		return -1;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int k = 1; !s->paths[0]; k++) {
		char *p;

		if ((k == 1 ? asprintf(&p, "%s/%s.json", rdir, stamp)
		            : asprintf(&p, "%s/%s-%d.json", rdir, stamp, k)) < 0)
			return errmsg_fail(err, errlen, "out of memory");
		if (access(p, F_OK) == 0)
			free(p);
		else
			s->paths[0] = p;
	}
	if (asprintf(&s->paths[1], "%s/latest.json", rdir) < 0) {
		s->paths[1] = NULL;
		return errmsg_fail(err, errlen, "out of memory");
	}
	s->c.nout = 2;
	s->c.out_paths = s->paths;
	return 0;
}

/* The rounds rule on what this bench compares (bench_rounds_rule); prints its warning. */
static int apply_rounds_rule(struct bench_opts *o, struct setup *s)
{
	size_t *ph = calloc(s->c.nwl + 1, sizeof *ph);
	char warn[512];

	if (!ph)
		return -1;
	for (size_t i = 0; i < s->c.nwl; i++) {
		int k = s->list.nphases ? index_of(s->list.names, s->list.n, s->c.wl[i].name) : -1;
		int all = k >= 0 && s->list.flags && (s->list.flags[k] & BENCH_WL_SHOW_PHASES);
		ph[i] = all ? s->list.nphases[k] : 1;
	}
	bench_rounds_rule(o, bench_comparisons(&s->c, ph), warn, sizeof warn);
	free(ph);
	s->c.rounds = o->rounds;
	s->c.min_rounds = o->min_rounds;
	if (warn[0] && !o->quiet)
		errmsg_warn(stderr, "bench", warn);
	return 0;
}

static void report(const struct bench_opts *o, const struct setup *s, const struct bench_result *r)
{
	char by[256] = "";
	size_t k = 0;

	if (strcmp(r->status, "interrupted") == 0) {
		fprintf(stderr, "allocab: bench: interrupted after %u round%s; results in %s\n",
		        r->rounds_done, r->rounds_done == 1 ? "" : "s", s->paths[0]);
		return;
	}
	for (size_t i = 1; bench_run_status_name(i); i++)
		if (r->by_status[i])
			k += (size_t)snprintf(by + k, sizeof by - k, "%s%zu %s", k ? ", " : "",
			                      r->by_status[i], bench_run_status_name(i));
	if (r->failed)
		fprintf(stderr,
		        "allocab: bench: %zu of %zu runs did not succeed (%s); results in %s\n",
		        r->failed, r->runs, by, s->paths[0]);
	else if (!o->quiet)
		fprintf(stderr,
		        "allocab: bench: %u measured round%s (+%u warm-up) in %.1f s%s; "
		        "results in %s\n",
		        r->measured, r->measured == 1 ? "" : "s", r->rounds_done - r->measured,
		        r->elapsed_s,
		        strcmp(r->status, "budget") == 0 ? ", stopped by --budget"
		        : strcmp(r->status, "decided") != 0 ? ""
		        : s->c.gate                         ? ", stopped: the gate decided"
		                                            : ", stopped: every comparison decided",
		        s->paths[0]);
}

/* The budget's yield on stderr (calib_yield_report); a bench whose arms compare cannot judge by
 * default (no system arm) says so in one line. */
static void yield(const cJSON *doc)
{
	char err[1024];

	fputc('\n', stderr);
	if (calib_yield_report(doc, stderr, err, sizeof err) != ST_OK)
		fprintf(stderr, "allocab: bench: no yield to report: %s\n", err);
}

int bench_main(int argc, char **argv)
{
	struct bench_opts o;
	struct setup s = {0};
	struct bench_result r;
	char err[4096 + 256];
	cJSON *doc = NULL;
	int rc;

	if (bench_parse_args(argc, argv, &o, err, sizeof err) != 0) {
		fprintf(stderr, "allocab: bench: %s\n", err);
		return ST_USAGE;
	}
	if (o.help) {
		optdoc_usage(stdout, &bench_doc, NULL);
		bench_opts_free(&o);
		return ST_OK;
	}
	s.stop = bench_catch_signals();
	s.c = (struct bench_config){
	    .mode = o.ncmds || o.prog.program ? BENCH_COMMANDS : BENCH_DRIVERS,
	    .scale = o.scale,
	    .seed = o.seed,
	    .reps = o.reps,
	    .time = o.time,
	    .params = (char **)o.params,
	    .nparams = o.nparams,
	    .rounds = o.rounds,
	    .budget_s = o.budget_s,
	    .warmup = o.warmup,
	    .min_rounds = o.min_rounds,
	    .timeout_s = o.timeout_s,
	    .grace_s = BENCH_KILL_GRACE_S,
	    .shuffle_seed = o.shuffle_seed_set ? o.shuffle_seed : bench_clock_seed(),
	    .pad_max = o.pad_max,
	    .progress = (int)progress_mode_for(o.quiet, 2),
	    .argv = argv,
	    .argc = argc,
	    .gate_argv = o.gate_argv ? o.gate_argv + 1 : NULL,
	    .gate_argc = o.gate_argc ? o.gate_argc - 1 : 0,
	};
	rc = ST_OK;
	if (o.gate_argv && gateopt_parse(o.gate_argc, o.gate_argv, &s.gate, NULL, err, sizeof err) != 0)
		rc = ST_USAGE;
	else if (o.gate_argv)
		s.c.gate = &s.gate;
	o.prog.arm_specs = o.arm_specs;
	o.prog.narm_specs = o.narm_specs;
	if (rc == 0)
		rc = o.prog.program ? bench_setup_program(&s.c, &o.prog, &s.pp, err, sizeof err)
		     : o.ncmds      ? setup_commands(&s, &o, err, sizeof err)
		                    : setup_arms(&s, &o, err, sizeof err);
	if (rc == 0 && o.ncmds)
		rc = bench_setup_expects(&s.c, &o.prog, err, sizeof err);
	if (rc == 0 && !o.ncmds && !o.prog.program)
		rc = setup_workloads(&s, &o, err, sizeof err);
	if (rc == 0)
		rc = bench_setup_probe(&s.c, &o.prog, &s.pp, err, sizeof err);
	if (rc == 0 && o.duet)
		rc = setup_duet(&s, err, sizeof err);
	if (rc == 0 && apply_rounds_rule(&o, &s) != 0)
		rc = errmsg_status(1, err, sizeof err, "out of memory");
	if (rc == 0 && setup_outputs(&s, &o, err, sizeof err) != 0)
		rc = ST_FAIL;
	if (rc != ST_USAGE && *s.stop)
		rc = errmsg_status(ST_INTERRUPTED, err, sizeof err,
		                   "interrupted before the first round; nothing written");
	if (rc == ST_OK && (rc = bench_run(&s.c, s.stop, &doc, &r, err, sizeof err)) == ST_OK) {
		report(&o, &s, &r);
		if (!o.quiet && strcmp(r.status, "interrupted") != 0)
			yield(doc);
		rc = strcmp(r.status, "interrupted") == 0 ? ST_INTERRUPTED
		     : s.c.gate                           ? gate_outcome_status(r.gate)
		                                          : ST_OK;
		/* An arm without a verified successful run fails the bench, whatever the gate. */
		if (rc != ST_INTERRUPTED && bench_report_unproven(&s.c, doc, stderr) > 0)
			rc = ST_FAIL;
		cJSON_Delete(doc);
	} else {
		fprintf(stderr, "allocab: bench: %s\n", err);
	}
	setup_free(&s);
	bench_opts_free(&o);
	return rc;
}
