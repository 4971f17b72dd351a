/* bench.c - the `allocab bench` command line: from its options (benchopt.h) to the engine's
 * configuration (drivers and their workloads, output paths, --duet, the rounds rule), then the run
 * (front/engine/engine.h); what it says after the run is benchtell.c's. */
#include "front/cmd/commands.h"
#include "front/plan/plan.h"
#include "front/cmd/benchopt.h"
#include "front/cmd/benchtell.h"
#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "common/trackmode.h"
#include "front/cmd/gateopt.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- configuration ---- */

struct setup {
	const volatile sig_atomic_t *stop;
	struct bench_config c;
	struct bench_wl_list list;
	struct bench_drivers drv;
	char **sel;
	size_t nsel;
	char *paths[2];
	struct bench_probe_paths pp;
	struct arm_spec *specs; /* --arm, owned; configured arms point into them */
	size_t nspecs;
	struct gate_spec gate;    /* --gate: c.gate points here */
	char primary[80];         /* the gate's phase as c.primary when --primary was not given */
	struct bench_alloc alloc; /* --allocation sequential: c.alloc points here */
	struct bench_task task;   /* c.task points here */
	char outdir[4096];        /* where the results go: the lock's directory */
};

static void setup_free(struct setup *s)
{
	bench_resume_free(&s->c);
	bench_task_unlock(&s->task);
	bench_free_proof(&s->c, &s->pp);
	for (size_t i = 0; i < s->c.narms; i++) {
		free(s->c.arms[i].name);
		free(s->c.arms[i].path);
	}
	free(s->c.arms);
	bench_free_workloads(&s->c);
	bench_wl_list_free(&s->list);
	bench_drivers_free(&s->drv);
	bench_free_list(s->sel, s->nsel);
	free(s->paths[0]);
	free(s->paths[1]);
	for (size_t i = 0; i < s->nspecs; i++)
		armspec_free(&s->specs[i]);
	free(s->specs);
}

/* The --arm arms after the -a ones: parsed, their driver found, their settings checked by the
 * driver (`env --config ...`). Returns ST_OK, ST_FAIL (runtime) or ST_USAGE (a bad --arm) with
 * err set. */
static enum status setup_configured_arms(struct setup *s, const struct bench_opts *o, char *err,
                                         size_t errlen)
{
	char have[1024];
	enum status rc;

	if (o->narm_specs && !(s->specs = calloc(o->narm_specs, sizeof *s->specs)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (size_t i = 0; i < o->narm_specs; i++) {
		struct arm_spec *sp = &s->specs[s->nspecs];
		struct bench_arm *a = &s->c.arms[s->c.narms];

		if (armspec_parse(o->arm_specs[i], sp, err, errlen) != 0)
			return ST_USAGE;
		s->nspecs++;
		for (size_t k = 0; k < s->c.narms; k++)
			if (strcmp(s->c.arms[k].name, sp->label) == 0)
				return errmsg_status(ST_USAGE, err, errlen,
				                     "--arm %s: the name of another arm",
				                     sp->label);
		if (bench_drivers_index(&s->drv, sp->backend) < 0) {
			bench_drivers_join(&s->drv, have, sizeof have);
			return errmsg_status(ST_USAGE, err, errlen,
			                     "--arm %s: unknown allocator '%s' (drivers in %s: %s)",
			                     sp->label, sp->backend, s->drv.dir, have);
		}
		if (!(a->name = strdup(sp->label)) ||
		    asprintf(&a->path, "%s/allocab-%s", s->drv.dir, sp->backend) < 0) {
			a->path = NULL;
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		}
		s->c.narms++;
		a->kind = &arm_kind_configured;
		a->backend = sp->backend;
		a->config = sp->config;
		a->nconfig = sp->nconfig;
		if ((rc = armspec_check(a->path, sp, s->stop, NULL, err, errlen)) != ST_OK)
			return rc;
	}
	if (s->c.narms < 2)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--arm: a comparison needs at least two arms");
	return ST_OK;
}

/* The first plain arm whose backend is flagged baseline, or NULL. */
static const char *flagged_baseline(const struct setup *s)
{
	for (size_t i = 0; i < s->c.narms; i++) {
		const struct bench_arm *a = &s->c.arms[i];
		long k = a->backend ? -1 : bench_drivers_index(&s->drv, a->name);
		if (k >= 0 && (s->drv.flags[k] & BENCH_BACKEND_BASELINE))
			return a->name;
	}
	return NULL;
}

/* The arm compared against by default (config.baseline): the first plain arm whose backend is
 * flagged baseline, else the first arm. */
static const char *default_baseline(const struct setup *s)
{
	const char *b = flagged_baseline(s);

	return b ? b : s->c.narms ? s->c.arms[0].name : NULL;
}

/* Arms of drivers mode: -a, or every driver found but those flagged calibration (the baseline
 * first), then the --arm arms. Returns ST_OK, ST_FAIL (runtime) or ST_USAGE with err set. */
static enum status setup_arms(struct setup *s, const struct bench_opts *o, char *err,
                              size_t errlen)
{
	char have[1024];
	enum status rc;
	int n;

	if ((rc = bench_drivers_find(o->driver_dir, s->stop, &s->drv, err, errlen)) != ST_OK)
		return rc;
	bench_drivers_join(&s->drv, have, sizeof have);
	if (o->allocators) {
		if ((n = bench_split_list(o->allocators, "-a", &s->sel, err, errlen)) < 0)
			return ST_USAGE;
		s->nsel = (size_t)n;
		for (size_t i = 0; i < s->nsel; i++)
			if (bench_drivers_index(&s->drv, s->sel[i]) < 0)
				return errmsg_status(
				    ST_USAGE, err, errlen,
				    "-a: unknown allocator '%s' (drivers in %s: %s)", s->sel[i],
				    s->drv.dir, have);
		if (s->nsel + o->narm_specs < 2)
			return errmsg_status(ST_USAGE, err, errlen,
			                     "-a: a comparison needs at least two allocators");
	} else if (!o->narm_specs) {
		if (!(s->sel = calloc(s->drv.n + 1, sizeof *s->sel)))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		for (size_t i = 0; i < s->drv.n; i++)
			if (!(s->drv.flags[i] & BENCH_BACKEND_CALIBRATION) &&
			    !(s->sel[s->nsel++] = strdup(s->drv.names[i])))
				return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		if (s->nsel < 2)
			return errmsg_status(ST_FAIL, err, errlen,
			                     "found %s driver%s in %s (%s); a comparison needs two "
			                     "(build them with make, or use --driver-dir)",
			                     s->nsel ? "only one" : "no", s->nsel ? "" : "s",
			                     s->drv.dir, have);
	}
	if (!(s->c.arms = calloc(s->nsel + o->narm_specs, sizeof *s->c.arms)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (size_t i = 0; i < s->nsel; i++) {
		struct bench_arm *a = &s->c.arms[s->c.narms++];

		a->kind = &arm_kind_driver;
		if (!(a->name = strdup(s->sel[i])) ||
		    asprintf(&a->path, "%s/allocab-%s", s->drv.dir, s->sel[i]) < 0) {
			a->path = NULL;
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		}
	}
	if ((rc = setup_configured_arms(s, o, err, errlen)) == ST_OK)
		s->c.baseline = default_baseline(s);
	return rc;
}

/* Arms of commands mode, one per --cmd. Returns ST_OK, or ST_FAIL (out of memory) with err. */
static enum status setup_commands(struct setup *s, const struct bench_opts *o, char *err,
                                  size_t errlen)
{
	if (!(s->c.arms = calloc(o->ncmds, sizeof *s->c.arms)) ||
	    !(s->c.wl = calloc(1, sizeof *s->c.wl)) || !(s->c.wl[0].name = strdup("command")))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	s->c.nwl = 1;
	for (size_t i = 0; i < o->ncmds; i++) {
		struct bench_arm *a = &s->c.arms[s->c.narms++];

		if (!(a->name = strdup(o->cmd_names[i])))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		a->kind = &arm_kind_command;
		a->command = (char *)o->cmd_lines[i];
	}
	return ST_OK;
}

/* -w with --program or --cmd: the name of the program's one workload instead of "command" (so
 * that the results of several programs say which is which, and claims can name them). Returns
 * ST_OK, ST_USAGE (not a name) or ST_FAIL with err set. */
static enum status name_command(struct setup *s, const char *name, char *err, size_t errlen)
{
	char *n;

	if (!bench_valid_name(name, strlen(name)))
		return errmsg_status(ST_USAGE, err, errlen,
		                     "-w '%s': with --program or --cmd, -w names the program's "
		                     "workload: one name of [A-Za-z0-9_.-]",
		                     name);
	if (!(n = strdup(name)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	free(s->c.wl[0].name);
	s->c.wl[0].name = n;
	return ST_OK;
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
	const char *rdir = o->results_dir; /* its row's default unless given */
	/* a task label given by the flag or the environment names the files, so that the tasks of
	 * an array that share a results directory never overwrite each other's latest.json */
	int tagged = s->task.label_from && strcmp(s->task.label_from, "hostname") != 0;
	const char *sep = tagged ? "-" : "", *tag = tagged ? s->task.label : "";
	char stamp[32], dir[4096];
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;

	if (o->out) {
		const char *slash = strrchr(o->out, '/');
		int fd, kind = atomic_target(o->out, &fd, err, errlen);

		if (kind < 0)
			return -1;
		if (stat(o->out, &st) == 0 && S_ISDIR(st.st_mode))
			return errmsg_fail(err, errlen, "-o %s: Is a directory", o->out);
		/* written in place: the lock and the check go to the working directory, as for "-" */
		if (!slash || kind != AT_REPLACE)
			strcpy(dir, ".");
		else if (slash == o->out)
			strcpy(dir, "/");
		else
			snprintf(dir, sizeof dir, "%.*s", (int)(slash - o->out), o->out);
		if (bench_dir_writable(dir, o->out, err, errlen) != 0)
			return -1;
		snprintf(s->outdir, sizeof s->outdir, "%s", dir);
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
	snprintf(s->outdir, sizeof s->outdir, "%s", rdir);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	for (int k = 1; !s->paths[0]; k++) {
		char *p;

		if ((k == 1 ? asprintf(&p, "%s/%s%s%s.json", rdir, stamp, sep, tag)
		            : asprintf(&p, "%s/%s%s%s-%d.json", rdir, stamp, sep, tag, k)) < 0)
			return errmsg_fail(err, errlen, "out of memory");
		if (access(p, F_OK) == 0)
			free(p);
		else
			s->paths[0] = p;
	}
	if (asprintf(&s->paths[1], "%s/latest%s%s.json", rdir, sep, tag) < 0) {
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
		long k = s->list.nphases ? bench_wl_index(&s->list, s->c.wl[i].name) : -1;
		int all = k >= 0 && s->list.flags && (s->list.flags[k] & BENCH_WL_SHOW_PHASES);
		ph[i] = all ? s->list.nphases[k] : 1;
	}
	s->c.need_extends = o->budget_s > 0 && !o->rounds_set && !o->min_rounds_set && !o->gate_argv;
	s->c.need_comparisons = bench_comparisons(&s->c, ph);
	s->c.need_rounds = bench_rounds_rule(
	    o, s->c.need_comparisons,
	    s->c.gate ? bench_gate_need(s->c.gate, s->c.nwl, s->c.narms) : 0, warn, sizeof warn);
	free(ph);
	s->c.rounds = o->rounds;
	s->c.min_rounds = o->min_rounds;
	/* a continuation's count includes the file's rounds and phases: the engine says it */
	if (warn[0] && !o->quiet && !o->resume)
		errmsg_warn(stderr, "bench", warn);
	return 0;
}

/* --allocation sequential (the default): needs the arm compare takes as baseline by default
 * (the driver flagged baseline, system; the first arm of a --cmd or --program bench), without
 * which the default is none. Returns ST_OK, or ST_USAGE with err when it was given without. */
static enum status setup_allocation(struct setup *s, const struct bench_opts *o, char *err,
                                    size_t errlen)
{
	int base = !bench_all_arms(&s->c, ARM_KIND_DRIVER_RECORD) || flagged_baseline(s);

	if (!o->allocation || (!base && !o->allocation_set))
		return ST_OK;
	if (!base)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--allocation sequential: no arm 'system', the baseline of "
		                     "compare's default comparisons");
	bench_alloc_by_rule(&s->alloc, &bench_rule_sequential);
	s->c.alloc = &s->alloc;
	return ST_OK;
}

int bench_main(int argc, char **argv)
{
	struct bench_opts o;
	struct setup s = {0};
	struct bench_result r = {0};
	struct bench_tell tell;
	char err[4096 + 256];
	cJSON *doc = NULL;
	enum status rc;

	if (bench_parse_args(argc, argv, 0, &o, err, sizeof err) != 0) {
		errmsg_print(stderr, "bench", "%s", err);
		return ST_USAGE;
	}
	if (o.help) {
		optdoc_usage(stdout, &bench_doc, NULL);
		bench_opts_free(&o);
		return ST_OK;
	}
	if (o.resume && !o.out)
		o.out = o.resume; /* the file continued is appended to */
	s.stop = bench_catch_signals();
	if (bench_task_resolve(&s.task, o.label, o.shard, err, sizeof err) != 0) {
		errmsg_print(stderr, "bench", "%s", err);
		bench_opts_free(&o);
		return ST_USAGE;
	}
	s.c = (struct bench_config){
	    .argv = argv,
	    .argc = argc,
	    .gate_argv = o.gate_argv ? o.gate_argv + 1 : NULL,
	    .gate_argc = o.gate_argc ? o.gate_argc - 1 : 0,
	    .task = &s.task,
	};
	bench_plan(&o, &s.c);
	/* a continuation draws its own: the shard's would repeat the first session's orders */
	if (!o.shuffle_seed_set && s.task.shard >= 0 && !o.resume)
		s.c.shuffle_seed = bench_task_shuffle_seed(&s.task);
	rc = ST_OK;
	if (o.gate_argv && bench_parse_gate(&o, &s.gate, err, sizeof err) != 0)
		rc = ST_USAGE;
	else if (o.gate_argv)
		s.c.gate = &s.gate;
	/* the gate's question is the results' primary rows unless --primary names others */
	if (s.c.gate && !s.c.primary && s.gate.phase && strcmp(s.gate.phase, "total") != 0) {
		snprintf(s.primary, sizeof s.primary, "%s%s", s.gate.phase,
		         s.gate.regime_given && s.gate.regime == CMP_REGIMES_COLD ? ":cold" : "");
		s.c.primary = s.primary;
	}
	s.c.equivalence = o.equivalence; /* the gate's margin may have become the bench's */
	o.prog.arm_specs = o.arm_specs;
	o.prog.narm_specs = o.narm_specs;
	if (rc == ST_OK && o.prog.program)
		rc = bench_setup_program(&s.c, &o.prog, &s.pp, err, sizeof err);
	else if (rc == ST_OK)
		rc = o.ncmds ? setup_commands(&s, &o, err, sizeof err) : setup_arms(&s, &o, err, sizeof err);
	if (rc == ST_OK && o.ncmds)
		rc = bench_setup_expects(&s.c, &o.prog, err, sizeof err);
	if (rc == ST_OK && (o.ncmds || o.prog.program) && o.workloads)
		rc = name_command(&s, o.workloads, err, sizeof err);
	if (rc == ST_OK && !o.ncmds && !o.prog.program)
		rc = bench_setup_workloads(&s.c, s.c.arms[0].path, o.workloads, o.params, o.nparams,
		                           s.stop, &s.list, err, sizeof err);
	if (rc == ST_OK)
		rc = bench_setup_probe(&s.c, &o.prog, &s.pp, err, sizeof err);
	if (rc == ST_OK && s.c.tracking && !trackmode_has(s.c.tracking, TRACKMODE_EVERY_PROCESS))
		fprintf(stderr, "allocab: bench: WARNING: process tracking: %s: processes started "
		        "past the probe's exec wrappers cannot be seen (docs/programs.md, \"Process "
		        "tracking\")\n", s.c.tracking);
	if (rc == ST_OK && (o.duet || o.one_cpu))
		rc = bench_duet_setup(&s.c, &s.list, o.one_cpu, err, sizeof err) != 0 ? ST_USAGE : ST_OK;
	if (rc == ST_OK && apply_rounds_rule(&o, &s) != 0)
		rc = errmsg_status(ST_FAIL, err, sizeof err, "out of memory");
	if (rc == ST_OK)
		rc = setup_allocation(&s, &o, err, sizeof err);
	if (rc == ST_OK && o.resume)
		rc = bench_resume_load(&s.c, o.resume, o.out, err, sizeof err);
	if (rc == ST_OK && setup_outputs(&s, &o, err, sizeof err) != 0)
		rc = ST_FAIL;
	if (rc == ST_OK)
		rc = bench_task_lock(&s.task, s.outdir, err, sizeof err);
	if (rc != ST_USAGE && *s.stop)
		rc = errmsg_status(ST_INTERRUPTED, err, sizeof err,
		                   "interrupted before the first round; nothing written");
	tell = (struct bench_tell){&o, &s.c, s.paths[0], argc, argv};
	if (rc == ST_OK) {
		rc = bench_run(&s.c, s.stop, &doc, &r, err, sizeof err);
		s.c.resume = s.c.resume_disk = NULL;
	}
	if (rc == ST_OK) {
		rc = bench_tell_done(&tell, &r, doc);
		cJSON_Delete(doc);
	} else if (rc != ST_OK) {
		bench_tell_failed(&tell, &r, err);
	}
	setup_free(&s);
	bench_opts_free(&o);
	return rc;
}
