/* probe.c - the private data of the probed arm kinds (struct arm_proof) and their runs' probe:
 * each run's record file and environment, and the judgement of what the probe wrote there
 * (front/proc/proc.h: probelog_judge), as the kinds' hooks (arms.h). */
#include "front/arms/arms.h"
#include "common/allocknown.h"
#include "common/errmsg.h"
#include "common/rmtree.h"
#include "front/proc/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int arm_probe_prepare(const struct arm_run_env *b, const void *data, struct arm_probe_run *p,
                      char *err, size_t errlen)
{
	const struct arm_proof *d = data;
	const char *parts[3] = {b->count_lib, d ? d->preload : NULL, b->probe_lib};
	size_t k = 0;
	struct stat st;
	int fd;

	snprintf(p->file, sizeof p->file, "%s/run-%lu.jsonl", b->dir, b->n);
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
		arm_probe_discard(p);
		return errmsg_fail(err, errlen, "LD_PRELOAD of arm %s too long", b->arm);
	}
	memcpy(p->preload, "LD_PRELOAD=", 11);
	snprintf(p->vars[0], sizeof p->vars[0], "ALLOCAB_PROBE_FILE=%s", p->file);
	snprintf(p->vars[1], sizeof p->vars[1], "ALLOCAB_PROBE_LIB=%s", b->probe_lib);
	p->set[k++] = p->preload;
	p->set[k++] = p->vars[0];
	p->set[k++] = p->vars[1];
	if (b->count_lib) {
		snprintf(p->vars[2], sizeof p->vars[2], "ALLOCAB_COUNT_LIB=%s", b->count_lib);
		p->set[k++] = p->vars[2];
	}
	for (size_t i = 0; d && d->env && d->env[i] && k < sizeof p->set / sizeof *p->set - 1; i++)
		p->set[k++] = d->env[i];
	p->set[k] = NULL;
	return 0;
}

/* What the record file's path is now, when it is no longer the file the bench made: "" when it
 * still is. */
static const char *replaced_by(const struct arm_probe_run *p)
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

void arm_probe_discard(struct arm_probe_run *p)
{
	struct rmtree_count left = {0};

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	if (unlink(p->file) != 0 && errno != ENOENT)
		rmtree_remove(p->file, &left);
}

/* Reads and judges the records of p into v (and *recs, the records; NULL when unreadable). */
static void judge_records(const struct probe_expect *x, struct arm_probe_run *p,
                          const struct runner_result *r, cJSON **recs, struct probe_verdict *v)
{
	char err[256];
	size_t bad = 0;
	struct probelog_src src = {p->fd, p->file, probelog_max_bytes(runner_tracked_processes(r))};

	if (probelog_read_fd(&src, recs, &bad, err, sizeof err) != 0) {
		snprintf(v->reason, sizeof v->reason, "%s", err);
		ptrack_describe(r->track, v->tracking, sizeof v->tracking);
		return;
	}
	probelog_judge(*recs, x, r, v);
	if (bad && v->verified) {
		v->verified = 0;
		snprintf(v->reason, sizeof v->reason,
		         "%zu line%s of the probe records the probe did not write (not an "
		         "allocab-probe/1 object, or a member named twice)",
		         bad, bad == 1 ? "" : "s");
	}
}

cJSON *arm_probe_judge(const void *data, struct arm_probe_run *p, const struct runner_result *r)
{
	const struct arm_proof *d = data;
	struct probe_expect x = {.allocator = d ? d->allocator : NULL,
	                         .object = d ? d->object : NULL,
	                         .exe_counts = d && d->exe_counts,
	                         .configured = d && d->nconfig > 0,
	                         .have_wait4 = 1,
	                         .wait4_ns = (long long)(r->user_ns + r->sys_ns)};
	struct probe_verdict v = {0};
	char shell[PATH_MAX];
	const char *gone = replaced_by(p);
	cJSON *recs = NULL, *o = cJSON_CreateObject();

	/* --expect arms (the only ones whose executable counts): the command sets its own
	 * LD_PRELOAD, so the bench's shell is not the program */
	if (x.exe_counts && realpath("/bin/sh", shell)) {
		x.launcher = (pid_t)r->pid;
		x.launcher_exe = shell;
	}
	judge_records(&x, p, r, &recs, &v);
	if (gone[0]) {
		v.verified = 0;
		v.deterministic = 0;
		snprintf(v.reason, sizeof v.reason,
		         "the program replaced its probe record file (now %s): records written "
		         "after that were not read",
		         gone);
	}
	arm_probe_discard(p);
	if (o) {
		cJSON_AddBoolToObject(o, "verified", v.verified);
		cJSON_AddStringToObject(o, "reason", v.reason);
		cJSON_AddItemToObject(o, "summary", recs ? probelog_summary(recs, &x, &v) : NULL);
	}
	cJSON_Delete(recs);
	return o;
}

/* The proof of a program arm whose allocator k (NULL: none known) is preloaded from lib, resolved
 * into pl, into d. Returns ST_OK or ST_FAIL (memory). */
static enum status proof_fill(struct arm_proof *d, const struct alloc_known *k,
                              const struct preload_lib *pl)
{
	d->preload = strdup(pl->path);
	d->version = strdup(pl->version);
	d->object = strdup(pl->path);
	if (pl->allocator[0] || k)
		d->allocator = strdup(pl->allocator[0] ? pl->allocator : k->name);
	return !d->preload || !d->version || !d->object ||
	               ((pl->allocator[0] || k) && !d->allocator)
	           ? ST_FAIL
	           : ST_OK;
}

enum status arm_proof_program(const char *name, const char *lib, const char *probe,
                              struct arm_proof **out, char *err, size_t errlen)
{
	const struct alloc_known *k = alloc_known_by_name(name);
	struct arm_proof *d;
	struct preload_lib pl;
	char why[PATH_MAX + 256];
	enum status rc = ST_OK;

	*out = NULL;
	if (!lib && !k)
		return errmsg_status(
		    ST_USAGE, err, errlen,
		    "-a: unknown allocator '%s' (known: system, mimalloc, jemalloc, "
		    "tcmalloc; any other with --preload %s=LIBRARY)",
		    name, name);
	if (!(d = calloc(1, sizeof *d)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (!lib && !k->preload)
		rc = (d->allocator = strdup(k->name))
		         ? ST_OK
		         : errmsg_status(ST_FAIL, err, errlen, "out of memory");
	else if (preload_resolve(lib ? lib : k->preload, probe, &pl, why, sizeof why) != 0)
		rc = lib ? errmsg_status(ST_USAGE, err, errlen, "--preload %s: %s", name, why)
		         : errmsg_status(ST_USAGE, err, errlen, "-a %s: %s (Debian package %s)", name,
		                         why, k->package);
	else if (lib && k && pl.allocator[0] && strcmp(pl.allocator, k->name) != 0)
		rc = errmsg_status(ST_USAGE, err, errlen,
		                   "--preload %s=%s: the library is %s, not %s (name the arm after the "
		                   "allocator it loads, or give it a name that is not an allocator's)",
		                   name, lib, pl.allocator, k->name);
	else if (proof_fill(d, k, &pl) != ST_OK)
		rc = errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (rc == ST_OK)
		*out = d;
	else
		arm_proof_free(d);
	return rc;
}

enum status arm_proof_expect(const char *name, const char *allocator, struct arm_proof **out,
                             char *err, size_t errlen)
{
	struct arm_proof *d;

	*out = NULL;
	if (!alloc_known_by_name(allocator))
		return errmsg_status(ST_USAGE, err, errlen,
		                     "--expect %s=%s: unknown allocator (system, mimalloc, "
		                     "jemalloc, tcmalloc)",
		                     name, allocator);
	if (!(d = calloc(1, sizeof *d)) || !(d->allocator = strdup(allocator))) {
		free(d);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	d->exe_counts = 1;
	*out = d;
	return ST_OK;
}

cJSON *arm_proof_json(const void *data)
{
	const struct arm_proof *d = data;
	cJSON *p = cJSON_CreateObject();

	if (!p)
		return NULL;
	cJSON_AddItemToObject(p, "allocator",
	                      d->allocator ? cJSON_CreateString(d->allocator) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "library",
	                      d->preload ? cJSON_CreateString(d->preload) : cJSON_CreateNull());
	cJSON_AddItemToObject(p, "version",
	                      d->version && *d->version ? cJSON_CreateString(d->version)
	                                                : cJSON_CreateNull());
	cJSON_AddBoolToObject(p, "executable_counts", d->exe_counts);
	return p;
}

void arm_proof_free(void *data)
{
	struct arm_proof *d = data;

	if (!d)
		return;
	free(d->allocator);
	free(d->object);
	free(d->preload);
	free(d->version);
	for (size_t i = 0; d->env && d->env[i]; i++)
		free(d->env[i]);
	free(d->env);
	for (size_t i = 0; i < d->nconfig; i++)
		free(d->config[i]);
	free(d->config);
	free(d->backend);
	free(d);
}
