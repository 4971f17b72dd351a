/* program.c - the setup of the program side (planint.h): --program arms, --expect, each arm's
 * proof (its kind's private data, front/arms/arms.h), the probe's paths, and their freeing. */
#include "common/allocknown.h"
#include "front/plan/planint.h"
#include "common/errmsg.h"
#include "common/rmtree.h"
#include "front/proc/proc.h"
#include "common/status.h"
#include "common/trackmode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int in_list(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

/* Removes the probe directory and whatever the runs' programs left in it. */
static void remove_probe_dir(const char *dir)
{
	struct rmtree_count left = {0};

	rmtree_remove(dir, &left);
}

enum status bench_setup_expects(struct bench_config *c, const struct bench_program_opts *o,
                                char *err, size_t errlen)
{
	for (size_t i = 0; i < o->nexpects; i++) {
		struct bench_arm *a = c->arms;
		struct arm_shell_data *sd;
		struct arm_proof *d;
		enum status rc;

		while (strcmp(a->name, o->expect_names[i]) != 0)
			a++;
		if ((rc = arm_proof_expect(o->expect_names[i], o->expect_allocs[i], &d, err,
		                           errlen)) != ST_OK)
			return rc;
		sd = a->data; /* --expect names only --cmd arms (front/cmd/benchopt.c) */
		arm_proof_free(sd->proof);
		sd->proof = d;
	}
	return ST_OK;
}

/* What the program arms are set up from: the configuration they go into, the options and the
 * probe's paths. */
struct progset {
	struct bench_config *c;
	const struct bench_program_opts *o;
	const struct bench_probe_paths *pp;
};

/* One --program arm called label: name is a known allocator or a --preload name, its proof
 * its kind's setup (arm_proof_program). Returns ST_OK, ST_USAGE (unknown allocator, a library
 * that cannot be loaded) or ST_FAIL (memory). */
static int program_arm(const struct progset *s, const char *label, const char *name, char *err,
                       size_t errlen)
{
	struct bench_config *c = s->c;
	const struct bench_program_opts *o = s->o;
	struct bench_arm *a = &c->arms[c->narms];
	struct arm_proof *d;
	const char *lib = NULL;
	enum status rc;

	for (size_t i = 0; i < o->npreloads; i++)
		if (strcmp(o->preload_names[i], name) == 0)
			lib = o->preload_paths[i];
	if ((rc = arm_proof_program(name, lib, s->pp->probe, &d, err, errlen)) != ST_OK)
		return rc;
	if (!(a->name = strdup(label)) || !(a->data = arm_new_command(o->program, d))) {
		free(a->name);
		a->name = NULL;
		arm_proof_free(d);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	c->narms++;
	a->kind = &arm_kind_program;
	return ST_OK;
}

/* One --arm arm of a program: a known allocator, its settings checked by its driver
 * (`allocab-BACKEND env --config ...`), whose output becomes the arm's environment. Returns ST_OK,
 * ST_USAGE (a bad spec or setting) or ST_FAIL (the driver could not be run, memory). */
static int configured_arm(const struct progset *s, const char *text, char *err, size_t errlen)
{
	struct bench_config *c = s->c;
	struct arm_spec sp;
	char dir[PATH_MAX], driver[PATH_MAX + 32], *env_text = NULL, **env = NULL;
	struct arm_shell_data *sd;
	struct arm_proof *d;
	int rc;

	if (armspec_parse(text, &sp, err, errlen) != 0)
		return ST_USAGE;
	for (size_t i = 0; i < c->narms; i++)
		if (strcmp(c->arms[i].name, sp.label) == 0) {
			rc = errmsg_status(ST_USAGE, err, errlen,
			                   "--arm %s: the name of another arm", sp.label);
			goto out;
		}
	if (!alloc_known_by_name(sp.backend)) {
		rc = errmsg_status(ST_USAGE, err, errlen,
		                   "--arm %s: unknown allocator '%s' (known: system, mimalloc, "
		                   "jemalloc, tcmalloc)",
		                   sp.label, sp.backend);
		goto out;
	}
	if (bench_driver_dir(NULL, dir, sizeof dir, err, errlen) != 0) {
		rc = ST_FAIL;
		goto out;
	}
	snprintf(driver, sizeof driver, "%s/allocab-%s", dir, sp.backend);
	if ((rc = armspec_check(driver, &sp, NULL, &env_text, err, errlen)) != 0)
		goto out;
	if (armspec_env_list(env_text, &env, err, errlen) < 0) {
		rc = ST_FAIL;
		goto out;
	}
	if ((rc = program_arm(s, sp.label, sp.backend, err, errlen)) != 0)
		goto out;
	sd = c->arms[c->narms - 1].data;
	d = sd->proof;
	d->env = env;
	d->backend = sp.backend;
	d->config = sp.config;
	d->nconfig = sp.nconfig;
	env = NULL;
	sp.backend = NULL;
	sp.config = NULL;
	sp.nconfig = 0;
out:
	armspec_env_free(env);
	free(env_text);
	armspec_free(&sp);
	return rc;
}

enum status bench_setup_program(struct bench_config *c, const struct bench_program_opts *o,
                                struct bench_probe_paths *pp, char *err, size_t errlen)
{
	const struct progset s = {c, o, pp};
	char have[256], **sel = NULL;
	size_t nsel;
	int n, rc = ST_OK;

	if (preload_find_own("probe", pp->probe, sizeof pp->probe, err, errlen) != 0)
		return ST_FAIL;
	if (!o->allocators)
		preload_installed(pp->probe, have, sizeof have);
	if (!o->allocators && o->narm_specs)
		n = 0;
	else if ((n = bench_split_list(o->allocators ? o->allocators : have, "-a", &sel, err,
	                               errlen)) < 0)
		return ST_USAGE;
	nsel = (size_t)n;
	if (!(c->arms = calloc(nsel + o->npreloads + o->narm_specs, sizeof *c->arms)) ||
	    !(c->wl = calloc(1, sizeof *c->wl)) || !(c->wl[0].name = strdup("command")))
		rc = errmsg_status(ST_FAIL, err, errlen, "out of memory");
	else
		c->nwl = 1;
	c->program = o->program;
	for (size_t i = 0; rc == ST_OK && i < nsel; i++)
		rc = program_arm(&s, sel[i], sel[i], err, errlen);
	for (size_t i = 0; rc == ST_OK && i < o->npreloads; i++)
		if (!in_list(sel, nsel, o->preload_names[i]))
			rc = program_arm(&s, o->preload_names[i], o->preload_names[i], err, errlen);
	for (size_t i = 0; rc == ST_OK && i < o->narm_specs; i++)
		rc = configured_arm(&s, o->arm_specs[i], err, errlen);
	bench_free_list(sel, nsel);
	for (size_t i = 0; rc == ST_OK && !c->baseline && i < c->narms; i++) {
		const struct arm_proof *d = ((const struct arm_shell_data *)c->arms[i].data)->proof;

		if (d && !d->preload && !d->backend && d->allocator &&
		    alloc_known_platform(alloc_known_by_name(d->allocator)))
			c->baseline = c->arms[i].name;
	}
	if (rc == ST_OK && c->narms < 2)
		rc = errmsg_status(ST_USAGE, err, errlen,
		                   "--program: a comparison needs at least two allocators (-a, "
		                   "--preload)");
	return rc;
}

enum status bench_setup_probe(struct bench_config *c, const struct bench_program_opts *o,
                              struct bench_probe_paths *pp, char *err, size_t errlen)
{
	const char *tmp = sweep_tmpdir();
	char why[48], cwhy[160];
	int any = 0;

	for (size_t i = 0; i < c->narms; i++)
		any |= arm_probed(bench_arm_kind(&c->arms[i]), c->arms[i].data);
	if (!any)
		return ST_OK;
	if (!pp->probe[0] &&
	    preload_find_own("probe", pp->probe, sizeof pp->probe, err, errlen) != 0)
		return ST_FAIL;
	c->probe_lib = pp->probe;
	if (o->count_calls) {
		if (preload_find_own("count", pp->count, sizeof pp->count, err, errlen) != 0)
			return ST_FAIL;
		c->count_lib = pp->count;
	}
	snprintf(pp->dir, sizeof pp->dir, "%s/" SWEEP_PROBE_PREFIX "%ld.XXXXXX", tmp,
	         (long)sweep_owner());
	if (!mkdtemp(pp->dir)) {
		pp->dir[0] = '\0';
		return errmsg_status(ST_FAIL, err, errlen, "cannot create a directory in %s: %s",
		                     tmp, strerror(errno));
	}
	sweep_claim(pp->dir); /* held while the bench lives */
	c->probe_dir = pp->dir;
	snprintf(pp->containment, sizeof pp->containment, "%s",
	         contain_available(cwhy, sizeof cwhy));
	c->containment = pp->containment;
	if (!ptrack_available(why, sizeof why))
		trackmode_text(TRACKMODE_PROBE_ONLY, why, pp->tracking, sizeof pp->tracking);
	else if (!containmode_has(pp->containment, CONTAINMODE_SEES_ESCAPES))
		trackmode_text(TRACKMODE_PTRACE_ESCAPES, cwhy, pp->tracking, sizeof pp->tracking);
	else
		trackmode_text(TRACKMODE_PTRACE, NULL, pp->tracking, sizeof pp->tracking);
	c->tracking = pp->tracking;
	return ST_OK;
}

void bench_free_proof(struct bench_config *c, struct bench_probe_paths *pp)
{
	for (size_t i = 0; c->arms && i < c->narms; i++) {
		struct bench_arm *a = &c->arms[i];
		const struct arm_kind_ops *k = bench_arm_kind(a);

		if (k->free_data)
			k->free_data(a->data);
		a->data = NULL;
	}
	if (pp->dir[0])
		remove_probe_dir(pp->dir);
	pp->dir[0] = '\0';
}
