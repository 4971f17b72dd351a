/* arms.c - the arms of a plan (front/plan/plan.h): the drivers named by -a or found, configured
 * arms (--arm), the commands (--cmd), a program's arms (the engine's bench_setup_program), and
 * calibrate's two arms of one backend; then their workloads and the probe. */
#include "front/plan/planint.h"
#include "common/errmsg.h"
#include "common/status.h"
#include "common/trackmode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The --arm arms after the -a ones: parsed, their driver found, their settings checked by the
 * driver (`env --config ...`). Returns ST_OK, ST_FAIL (runtime) or ST_USAGE (a bad --arm) with
 * err set. */
static enum status setup_configured_arms(struct bench_plan *s, const struct bench_opts *o, char *err,
                                         size_t errlen)
{
	char have[1024];
	enum status rc;

	if (o->narm_specs && !(s->specs = calloc(o->narm_specs, sizeof *s->specs)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (size_t i = 0; i < o->narm_specs; i++) {
		struct arm_spec *sp = &s->specs[s->nspecs];
		struct bench_arm *a = &s->c.arms[s->c.narms];
		struct arm_driver_data *d;

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
		a->kind = &arm_kind_configured;
		if (!(a->name = strdup(sp->label)) ||
		    !(d = arm_new_driver(s->drv.dir, sp->backend, sp->backend, sp->config,
		                         sp->nconfig)))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		a->data = d;
		s->c.narms++;
		if ((rc = armspec_check(d->path, sp, s->stop, NULL, err, errlen)) != ST_OK)
			return rc;
	}
	if (s->c.narms < 2)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--arm: a comparison needs at least two arms");
	return ST_OK;
}

const char *plan_flagged_baseline(const struct bench_plan *s)
{
	for (size_t i = 0; i < s->c.narms; i++) {
		const struct bench_arm *a = &s->c.arms[i];
		long k = arm_kind_has(bench_arm_kind(a), ARM_KIND_CONFIGURED)
		             ? -1
		             : bench_drivers_index(&s->drv, a->name);
		if (k >= 0 && (s->drv.flags[k] & BENCH_BACKEND_BASELINE))
			return a->name;
	}
	return NULL;
}

/* The arm compared against by default (config.baseline): the first plain arm whose backend is
 * flagged baseline, else the first arm. */
static const char *default_baseline(const struct bench_plan *s)
{
	const char *b = plan_flagged_baseline(s);

	return b ? b : s->c.narms ? s->c.arms[0].name : NULL;
}

/* Arms of drivers mode: -a, or every driver found but those flagged calibration (the baseline
 * first), then the --arm arms. Returns ST_OK, ST_FAIL (runtime) or ST_USAGE with err set. */
static enum status setup_arms(struct bench_plan *s, const struct bench_opts *o, char *err,
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
		    !(a->data = arm_new_driver(s->drv.dir, s->sel[i], NULL, NULL, 0)))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	if ((rc = setup_configured_arms(s, o, err, errlen)) == ST_OK)
		s->c.baseline = default_baseline(s);
	return rc;
}

/* Arms of commands mode, one per --cmd. Returns ST_OK, or ST_FAIL (out of memory) with err. */
static enum status setup_commands(struct bench_plan *s, const struct bench_opts *o, char *err,
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
		if (!(a->data = arm_new_command(o->cmd_lines[i], NULL)))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	return ST_OK;
}

/* -w with --program or --cmd: the name of the program's one workload instead of "command" (so
 * that the results of several programs say which is which, and claims can name them). Returns
 * ST_OK, ST_USAGE (not a name) or ST_FAIL with err set. */
static enum status name_command(struct bench_plan *s, const char *name, char *err, size_t errlen)
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

/* The backend calibrate runs against itself: -a, the --arm's, or the driver flagged baseline.
 * Returns ST_OK or ST_USAGE with err. */
static enum status aa_backend(struct bench_plan *s, const struct bench_opts *o,
                              const char **backend, char *err, size_t errlen)
{
	enum status rc;

	*backend = s->nspecs ? s->specs[0].backend : o->allocators;
	if (*backend && (strspn(*backend, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(*backend) ||
	                 !**backend))
		return errmsg_status(ST_USAGE, err, errlen, "-a: '%s' is not a backend name",
		                     *backend);
	if ((rc = bench_drivers_find(o->driver_dir, s->stop, &s->drv, err, errlen)) != ST_OK ||
	    *backend)
		return rc;
	for (size_t i = 0; i < s->drv.n; i++)
		if (s->drv.flags[i] & BENCH_BACKEND_BASELINE) {
			*backend = s->drv.names[i];
			return ST_OK;
		}
	return errmsg_status(ST_USAGE, err, errlen,
	                     "no driver in %s declares itself the baseline: give -a BACKEND",
	                     s->drv.dir);
}

/* calibrate's two arms NAME.A and NAME.B of one backend, configured by the one --arm when given.
 * Returns ST_OK, ST_FAIL or ST_USAGE with err set. */
static enum status aa_arms(struct bench_plan *s, const struct bench_opts *o, char *err,
                           size_t errlen)
{
	char have[1024];
	const char *backend, *label;
	struct arm_driver_data *d[2];
	enum status rc;

	if (o->narm_specs > 1 || (o->narm_specs && o->allocators))
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--arm: calibrate takes one backend (one --arm, or -a)");
	if (o->narm_specs && (!(s->specs = calloc(1, sizeof *s->specs)) ||
	                      armspec_parse(o->arm_specs[0], s->specs, err, errlen) != 0))
		return s->specs ? ST_USAGE : errmsg_status(ST_FAIL, err, errlen, "out of memory");
	s->nspecs = o->narm_specs;
	if ((rc = aa_backend(s, o, &backend, err, errlen)) != ST_OK)
		return rc;
	label = s->nspecs ? s->specs[0].label : backend;
	if (bench_drivers_index(&s->drv, backend) < 0) {
		bench_drivers_join(&s->drv, have, sizeof have);
		return errmsg_status(ST_USAGE, err, errlen,
		                     "-a: unknown allocator '%s' (drivers in %s: %s)", backend,
		                     s->drv.dir, have);
	}
	if (!(s->c.arms = calloc(2, sizeof *s->c.arms)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (int i = 0; i < 2; i++, s->c.narms++) {
		struct bench_arm *a = &s->c.arms[i];
		const struct arm_spec *sp = s->nspecs ? s->specs : NULL;

		a->kind = sp ? &arm_kind_configured : &arm_kind_driver;
		if (asprintf(&a->name, "%s.%c", label, 'A' + i) < 0)
			return a->name = NULL, errmsg_status(ST_FAIL, err, errlen, "out of memory");
		if (!(d[i] = a->data =
		          arm_new_driver(s->drv.dir, backend, sp ? sp->backend : NULL,
		                         sp ? sp->config : NULL, sp ? sp->nconfig : 0)))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	return s->nspecs ? armspec_check(d[0]->path, s->specs, s->stop, NULL, err, errlen) : ST_OK;
}

/* The arms of p and their workloads: calibrate's two, a program's, the commands' or the
 * drivers'; the --expect proofs, a program's workload name, the drivers' workloads and the probe.
 * Returns ST_OK, ST_USAGE or ST_FAIL with err set. */
enum status plan_arms(struct bench_plan *s, struct bench_opts *o, char *err, size_t errlen)
{
	enum status rc;

	o->prog.arm_specs = o->arm_specs;
	o->prog.narm_specs = o->narm_specs;
	if (o->aa_runs)
		rc = aa_arms(s, o, err, errlen);
	else if (o->prog.program)
		rc = bench_setup_program(&s->c, &o->prog, &s->pp, err, errlen);
	else
		rc = o->ncmds ? setup_commands(s, o, err, errlen) : setup_arms(s, o, err, errlen);
	if (rc == ST_OK && o->ncmds)
		rc = bench_setup_expects(&s->c, &o->prog, err, errlen);
	if (rc == ST_OK && (o->ncmds || o->prog.program) && o->workloads)
		rc = name_command(s, o->workloads, err, errlen);
	if (rc == ST_OK && !o->ncmds && !o->prog.program)
		rc = plan_workloads(s, o->workloads, err, errlen);
	if (rc == ST_OK)
		rc = bench_setup_probe(&s->c, &o->prog, &s->pp, err, errlen);
	if (rc == ST_OK && s->c.tracking && !trackmode_has(s->c.tracking, TRACKMODE_EVERY_PROCESS))
		fprintf(stderr, "allocab: bench: WARNING: process tracking: %s: processes started "
		        "past the probe's exec wrappers cannot be seen (docs/programs.md, \"Process "
		        "tracking\")\n", s->c.tracking);
	return rc;
}
