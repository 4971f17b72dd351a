/* benchprog.c - --program arms, --expect, the probe's per-run files and judgement, and the check
 * that every arm has a verified successful run (benchprog.h). */
#include "front/engine/benchprog.h"
#include "common/allocknown.h"
#include "front/engine/engine.h"
#include "common/errmsg.h"
#include "common/rmtree.h"
#include "front/proc/proc.h"
#include "common/status.h"
#include "common/trackmode.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

		while (strcmp(a->name, o->expect_names[i]) != 0)
			a++;
		if (!alloc_known_by_name(o->expect_allocs[i]))
			return errmsg_status(ST_USAGE, err, errlen,
			                     "--expect %s=%s: unknown allocator (system, mimalloc, "
			                     "jemalloc, tcmalloc)",
			                     o->expect_names[i], o->expect_allocs[i]);
		if (!(a->expect_allocator = strdup(o->expect_allocs[i])))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		a->expect_exe_counts = 1;
	}
	return ST_OK;
}

/* One --program arm called label: name is a known allocator or a --preload name. Returns ST_OK,
 * ST_USAGE (unknown allocator, a library that cannot be loaded) or ST_FAIL (memory). */
static int program_arm(struct bench_config *c, const struct bench_program_opts *o,
                       const struct bench_probe_paths *pp, const char *label, const char *name,
                       char *err, size_t errlen)
{
	const struct alloc_known *k = alloc_known_by_name(name);
	struct bench_arm *a = &c->arms[c->narms];
	const char *lib = NULL;
	struct preload_lib pl;
	char why[PATH_MAX + 256];

	for (size_t i = 0; i < o->npreloads; i++)
		if (strcmp(o->preload_names[i], name) == 0)
			lib = o->preload_paths[i];
	if (!lib && !k)
		return errmsg_status(
		    ST_USAGE, err, errlen,
		    "-a: unknown allocator '%s' (known: system, mimalloc, jemalloc, "
		    "tcmalloc; any other with --preload %s=LIBRARY)",
		    name, name);
	if (!(a->name = strdup(label)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	c->narms++;
	a->kind = &arm_kind_program;
	a->command = (char *)o->program;
	if (!lib && !k->preload)
		return (a->expect_allocator = strdup(k->name))
		           ? ST_OK
		           : errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (preload_resolve(lib ? lib : k->preload, pp->probe, &pl, why, sizeof why) != 0)
		return lib ? errmsg_status(ST_USAGE, err, errlen, "--preload %s: %s", name, why)
		           : errmsg_status(ST_USAGE, err, errlen, "-a %s: %s (Debian package %s)",
		                           name, why, k->package);
	if (lib && k && pl.allocator[0] && strcmp(pl.allocator, k->name) != 0)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--preload %s=%s: the library is %s, not %s (name the arm "
		                     "after the allocator it loads, or give it a name that is not "
		                     "an allocator's)",
		                     name, lib, pl.allocator, k->name);
	a->preload = strdup(pl.path);
	a->version = strdup(pl.version);
	a->expect_object = strdup(pl.path);
	if (pl.allocator[0] || k)
		a->expect_allocator = strdup(pl.allocator[0] ? pl.allocator : k->name);
	if (!a->preload || !a->version || !a->expect_object ||
	    ((pl.allocator[0] || k) && !a->expect_allocator))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	return ST_OK;
}

/* One --arm arm of a program: a known allocator, its settings checked by its driver
 * (`allocab-BACKEND env --config ...`), whose output becomes the arm's environment. Returns ST_OK,
 * ST_USAGE (a bad spec or setting) or ST_FAIL (the driver could not be run, memory). */
static int configured_arm(struct bench_config *c, const struct bench_program_opts *o,
                          const struct bench_probe_paths *pp, const char *text, char *err,
                          size_t errlen)
{
	struct arm_spec sp;
	char dir[PATH_MAX], driver[PATH_MAX + 32], *env_text = NULL, **env = NULL;
	struct bench_arm *a;
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
	if ((rc = program_arm(c, o, pp, sp.label, sp.backend, err, errlen)) != 0)
		goto out;
	a = &c->arms[c->narms - 1];
	a->env = env;
	a->backend = sp.backend;
	a->config = sp.config;
	a->nconfig = sp.nconfig;
	a->owns_config = 1;
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
		rc = program_arm(c, o, pp, sel[i], sel[i], err, errlen);
	for (size_t i = 0; rc == ST_OK && i < o->npreloads; i++)
		if (!in_list(sel, nsel, o->preload_names[i]))
			rc = program_arm(c, o, pp, o->preload_names[i], o->preload_names[i], err,
			                 errlen);
	for (size_t i = 0; rc == ST_OK && i < o->narm_specs; i++)
		rc = configured_arm(c, o, pp, o->arm_specs[i], err, errlen);
	bench_free_list(sel, nsel);
	for (size_t i = 0; rc == ST_OK && !c->baseline && i < c->narms; i++)
		if (!c->arms[i].preload && !c->arms[i].backend && c->arms[i].expect_allocator &&
		    alloc_known_platform(alloc_known_by_name(c->arms[i].expect_allocator)))
			c->baseline = c->arms[i].name;
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
		any |= c->arms[i].expect_allocator || c->arms[i].expect_object;
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

/* Why a run was not ok, in one line: its reason, else its status, exit or signal and the last
 * line of its stderr. */
static void run_reason(const cJSON *run, char *buf, size_t len)
{
	const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "status"));
	const char *why = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "reason"));
	const char *tail =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "stderr_tail"));
	const char *sig = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "signal"));
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(run, "exit_status");
	const char *nl = tail ? strrchr(tail, '\n') : NULL;
	char what[64];

	if (why) {
		snprintf(buf, len, "%s: %s", st ? st : "?", why);
		return;
	}
	if (sig)
		snprintf(what, sizeof what, "%s, %s", st ? st : "?", sig);
	else if (cJSON_IsNumber(ex))
		snprintf(what, sizeof what, "%s, exit %d", st ? st : "?", ex->valueint);
	else
		snprintf(what, sizeof what, "%s", st ? st : "?");
	snprintf(buf, len, "%s%s%s", what, tail ? ": " : "", tail ? (nl ? nl + 1 : tail) : "");
}

static const char *get_str(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

size_t bench_report_hopeless(const struct bench_config *c, const cJSON *round, FILE *f)
{
	size_t named = 0;

	for (size_t i = 0; i < c->narms; i++) {
		const cJSON *run, *bad = NULL;
		int all = 1;

		if (!bench_arm_probed(&c->arms[i]))
			continue;
		cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(round, "runs"))
		{
			const cJSON *probe = cJSON_GetObjectItemCaseSensitive(run, "probe");
			const char *st = get_str(run, "status"), *arm = get_str(run, "arm");

			if (!arm || strcmp(arm, c->arms[i].name) != 0)
				continue;
			if (!st || strcmp(st, "unverified") != 0 ||
			    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(probe, "deterministic")))
				all = 0;
			else if (!bad)
				bad = run;
		}
		if (!all || !bad)
			continue;
		if (f)
			errmsg_print(f, "bench", "%s: no verified successful run: unverified: %s",
			             c->arms[i].name, get_str(bad, "reason"));
		named++;
	}
	return named;
}

size_t bench_report_unproven(const struct bench_config *c, const cJSON *doc, FILE *f)
{
	const cJSON *rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds"), *round, *run;
	size_t named = 0;

	for (size_t i = 0; i < c->narms; i++) {
		const char *arm = c->arms[i].name;
		const cJSON *bad = NULL;
		size_t ok = 0;
		char why[1024];

		cJSON_ArrayForEach(round, rounds)
		{
			int warm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(round, "warmup"));

			cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(round, "runs"))
			{
				const char *a = cJSON_GetStringValue(
				    cJSON_GetObjectItemCaseSensitive(run, "arm"));
				const char *st = cJSON_GetStringValue(
				    cJSON_GetObjectItemCaseSensitive(run, "status"));

				if (!a || strcmp(a, arm) != 0)
					continue;
				if (st && strcmp(st, "ok") == 0)
					ok += !warm;
				else if (!bad)
					bad = run;
			}
		}
		if (ok)
			continue;
		if (bad)
			run_reason(bad, why, sizeof why);
		else
			snprintf(why, sizeof why, "no measured run");
		errmsg_print(f, "bench", "%s: no verified successful run: %s", arm, why);
		named++;
	}
	return named;
}

int bench_arm_probed(const struct bench_arm *a)
{
	return arm_kind_has(bench_arm_kind(a), ARM_KIND_PROBED) || a->expect_allocator ||
	       a->expect_object;
}

int bench_probe_prepare(const struct bench_config *c, const struct bench_arm *a, unsigned long n,
                        struct bench_probe_run *p, char *err, size_t errlen)
{
	const char *parts[3] = {c->count_lib, a->preload, c->probe_lib};
	size_t k = 0;
	struct stat st;
	int fd;

	snprintf(p->file, sizeof p->file, "%s/run-%lu.jsonl", c->probe_dir, n);
	if ((fd = open(p->file, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
	               0600)) < 0 ||
	    fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return errmsg_fail(err, errlen, "%s: %s", p->file,
		                   fd >= 0 ? "not a regular file" : strerror(e));
	}
	p->fd = fd;
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	if (preload_join(parts, 3, p->preload + 11, sizeof p->preload - 11) != 0) {
		bench_probe_discard(p);
		return errmsg_fail(err, errlen, "LD_PRELOAD of arm %s too long", a->name);
	}
	memcpy(p->preload, "LD_PRELOAD=", 11);
	snprintf(p->vars[0], sizeof p->vars[0], "ALLOCAB_PROBE_FILE=%s", p->file);
	snprintf(p->vars[1], sizeof p->vars[1], "ALLOCAB_PROBE_LIB=%s", c->probe_lib);
	p->set[k++] = p->preload;
	p->set[k++] = p->vars[0];
	p->set[k++] = p->vars[1];
	if (c->count_lib) {
		snprintf(p->vars[2], sizeof p->vars[2], "ALLOCAB_COUNT_LIB=%s", c->count_lib);
		p->set[k++] = p->vars[2];
	}
	for (size_t i = 0; a->env && a->env[i] && k < sizeof p->set / sizeof *p->set - 1; i++)
		p->set[k++] = a->env[i];
	p->set[k] = NULL;
	return 0;
}

/* What the record file's path is now, when it is no longer the file the bench made: "" when it
 * still is. */
static const char *replaced_by(const struct bench_probe_run *p)
{
	struct stat st;

	if (lstat(p->file, &st) != 0)
		return "removed";
	if (S_ISLNK(st.st_mode))
		return "a symbolic link";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return "a device";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (st.st_dev != p->dev || st.st_ino != p->ino)
		return "another file";
	return "";
}

void bench_probe_discard(struct bench_probe_run *p)
{
	struct rmtree_count left = {0};

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	if (unlink(p->file) != 0 && errno != ENOENT)
		rmtree_remove(p->file, &left);
}

cJSON *bench_probe_verdict(const struct bench_arm *a, struct bench_probe_run *p,
                           const struct runner_result *r)
{
	struct probe_expect x = {.allocator = a->expect_allocator,
	                         .object = a->expect_object,
	                         .exe_counts = a->expect_exe_counts,
	                         .configured = a->nconfig > 0,
	                         .have_wait4 = 1,
	                         .wait4_ns = (long long)(r->user_ns + r->sys_ns)};
	struct probe_verdict v = {0};
	char shell[PATH_MAX], err[256];
	const char *gone = replaced_by(p);
	cJSON *recs = NULL, *o = cJSON_CreateObject();
	size_t bad = 0;

	/* --expect arms (the only ones whose executable counts): the command sets its own
	 * LD_PRELOAD, so the bench's shell is not the program */
	if (a->expect_exe_counts && realpath("/bin/sh", shell)) {
		x.launcher = (pid_t)r->pid;
		x.launcher_exe = shell;
	}
	if (probelog_read_fd(&(struct probelog_src){p->fd, p->file,
	                                            probelog_max_bytes(runner_tracked_processes(r))},
	                     &recs, &bad, err, sizeof err) != 0) {
		snprintf(v.reason, sizeof v.reason, "%s", err);
		ptrack_describe(r->track, v.tracking, sizeof v.tracking);
	} else {
		probelog_judge(recs, &x, r, &v);
		if (bad && v.verified) {
			v.verified = 0;
			snprintf(v.reason, sizeof v.reason,
			         "%zu line%s of the probe records the probe did not write (not an "
			         "allocab-probe/1 object, or a member named twice)",
			         bad, bad == 1 ? "" : "s");
		}
	}
	if (gone[0]) {
		v.verified = 0;
		v.deterministic = 0;
		snprintf(v.reason, sizeof v.reason,
		         "the program replaced its probe record file (now %s): records written "
		         "after that were not read",
		         gone);
	}
	bench_probe_discard(p);
	if (o) {
		cJSON_AddBoolToObject(o, "verified", v.verified);
		cJSON_AddStringToObject(o, "reason", v.reason);
		cJSON_AddItemToObject(o, "summary", recs ? probelog_summary(recs, &x, &v) : NULL);
	}
	cJSON_Delete(recs);
	return o;
}

void bench_probe_apply(cJSON *verdict, cJSON *run, const char *tail, enum run_status *st)
{
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(verdict, "verified");
	const char *reason =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(verdict, "reason"));
	cJSON *summary = cJSON_DetachItemFromObjectCaseSensitive(verdict, "summary");

	if (!cJSON_IsObject(summary)) {
		cJSON_Delete(summary);
		summary = NULL;
	}
	benchdoc_apply_probe(run, cJSON_IsTrue(ok),
	                     verdict ? (reason ? reason : "")
	                             : "no judgement of the probe's records came back (out of "
	                               "memory, or over 16 MiB from a duet's helper)",
	                     summary, tail, st);
}

void bench_free_proof(struct bench_config *c, struct bench_probe_paths *pp)
{
	for (size_t i = 0; c->arms && i < c->narms; i++) {
		free(c->arms[i].preload);
		free(c->arms[i].version);
		free(c->arms[i].expect_allocator);
		free(c->arms[i].expect_object);
		c->arms[i].preload = c->arms[i].version = NULL;
		c->arms[i].expect_allocator = c->arms[i].expect_object = NULL;
		if (c->arms[i].owns_config) {
			struct arm_spec sp = {.backend = (char *)c->arms[i].backend,
			                      .config = c->arms[i].config,
			                      .nconfig = c->arms[i].nconfig};
			armspec_free(&sp);
			armspec_env_free(c->arms[i].env);
			c->arms[i].backend = NULL;
			c->arms[i].config = NULL;
			c->arms[i].env = NULL;
			c->arms[i].nconfig = 0;
			c->arms[i].owns_config = 0;
		}
	}
	if (pp->dir[0])
		remove_probe_dir(pp->dir);
	pp->dir[0] = '\0';
}
