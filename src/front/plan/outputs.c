/* outputs.c - where a plan's results go (front/plan/plan.h): a bench's -o or results directory
 * with its stamped and latest files, calibrate's runs beside its calibration, each checked
 * writable before anything runs; the file a --resume continues; the machine's lock in the
 * directory of the results. */
#include "front/plan/planint.h"
#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* -o path: the one output, checked; its directory holds the lock (the working directory for a
 * path written in place, as for "-"). Returns 0, or -1 with err. */
static int out_given(struct bench_plan *s, const char *out, char *err, size_t errlen)
{
	const char *slash = strrchr(out, '/');
	int fd, kind = atomic_target(out, &fd, err, errlen);
	char dir[4096];
	struct stat st;

	if (kind < 0)
		return -1;
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		return errmsg_fail(err, errlen, "-o %s: Is a directory", out);
	if (!slash || kind != AT_REPLACE)
		strcpy(dir, ".");
	else if (slash == out)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
	if (bench_dir_writable(dir, out, err, errlen) != 0)
		return -1;
	snprintf(s->outdir, sizeof s->outdir, "%s", dir);
	if (!(s->paths[0] = strdup(out)))
		return errmsg_fail(err, errlen, "out of memory");
	s->c.nout = 1;
	s->c.out_paths = s->paths;
	return 0;
}

/* A bench's outputs: -o, else DIR/<stamp>[-LABEL].json and DIR/latest[-LABEL].json (DIR made
 * first); s->outdir the directory of the lock. Returns 0, or -1 with err. */
static int bench_outputs(struct bench_plan *s, const struct bench_opts *o, char *err,
                         size_t errlen)
{
	const char *rdir = o->results_dir; /* its row's default unless given */
	/* a task label given by the flag or the environment names the files, so that the tasks of
	 * an array that share a results directory never overwrite each other's latest.json */
	int tagged = s->task.label_from && strcmp(s->task.label_from, "hostname") != 0;
	const char *sep = tagged ? "-" : "", *tag = tagged ? s->task.label : "";
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (o->out)
		return out_given(s, o->out, err, errlen);
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

/* What -o path names, decided before anything is run or written (atomicio.h, atomic_target):
 * -1 with err for a path allocab must not write; 0 with dir set to the directory a new file
 * would be made in, or to "" for a path written in place (a FIFO, /dev/null, a terminal, "-"). */
static int dir_of_out(const char *path, char *dir, size_t len, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	int fd, kind = atomic_target(path, &fd, err, errlen);

	if (kind < 0)
		return -1;
	if (kind != AT_REPLACE)
		snprintf(dir, len, "%s", "");
	else
		snprintf(dir, len, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		         slash ? path : ".");
	return 0;
}

int plan_out_writable(const char *path, int make_dir, char *err, size_t errlen)
{
	char dir[4096];

	if (dir_of_out(path, dir, sizeof dir, err, errlen) != 0)
		return -1;
	if (!dir[0])
		return 0;
	if (make_dir && mkdir(dir, 0777) != 0 && errno != EEXIST)
		return errmsg_fail(err, errlen, "cannot create %s: %s", dir, strerror(errno));
	return bench_dir_writable(dir, path, err, errlen);
}

/* calibrate's outputs: the calibration and its runs writable, the task resolved and the
 * machine's lock taken in the directory of the runs (the current one for a path written in
 * place), as a bench takes it: an A/A bench beside another bench measures neither. Returns
 * ST_OK, ST_USAGE (a bad label in the environment) or ST_FAIL with err set. */
static enum status aa_outputs(struct bench_plan *s, const struct bench_opts *o, char *err,
                              size_t errlen)
{
	if (plan_out_writable(o->aa_out, o->aa_make_dir, err, errlen) != 0 ||
	    plan_out_writable(o->aa_runs, o->aa_make_dir, err, errlen) != 0 ||
	    dir_of_out(o->aa_runs, s->outdir, sizeof s->outdir, err, errlen) != 0)
		return ST_FAIL;
	if (!s->outdir[0])
		snprintf(s->outdir, sizeof s->outdir, ".");
	if (!(s->paths[0] = strdup(o->aa_runs)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	s->c.out_paths = s->paths;
	s->c.nout = 1;
	if (bench_task_resolve(&s->task, NULL, NULL, err, errlen) != 0)
		return ST_USAGE;
	return bench_task_lock(&s->task, s->outdir, err, errlen);
}

enum status plan_outputs(struct bench_plan *s, const struct bench_opts *o, char *err,
                         size_t errlen)
{
	enum status rc = ST_OK;

	if (o->aa_runs)
		return aa_outputs(s, o, err, errlen);
	if (o->resume)
		rc = bench_resume_load(&s->c, o->resume, o->out, err, errlen);
	if (rc == ST_OK && bench_outputs(s, o, err, errlen) != 0)
		rc = ST_FAIL;
	if (rc == ST_OK)
		rc = bench_task_lock(&s->task, s->outdir, err, errlen);
	return rc;
}
