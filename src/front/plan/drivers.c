/* drivers.c - the drivers a command may run and what they declare (plan.h): the executables
 * allocab-NAME of the driver directory, each backend's flags from its `list --json` (a baseline,
 * a calibration backend), and the one path by which bench and calibrate choose their workloads. */
#include "front/plan/planint.h"

#include "common/errmsg.h"
#include "common/status.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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
		qsort(v, n, sizeof *v, by_name);
	*names = v;
	return (int)n;
}

void bench_drivers_free(struct bench_drivers *d)
{
	bench_free_list(d->names, d->n);
	free(d->flags);
	d->names = NULL;
	d->flags = NULL;
	d->n = 0;
}

/* The baseline first, then by name: the order of a default bench's arms. */
static void baseline_first(struct bench_drivers *d)
{
	for (size_t i = 1; i < d->n; i++)
		if (d->flags[i] & BENCH_BACKEND_BASELINE) {
			char *name = d->names[i];
			unsigned fl = d->flags[i];
			memmove(d->names + 1, d->names, i * sizeof *d->names);
			memmove(d->flags + 1, d->flags, i * sizeof *d->flags);
			d->names[0] = name;
			d->flags[0] = fl;
			return;
		}
}

enum status bench_drivers_find(const char *given, const volatile sig_atomic_t *stop,
                               struct bench_drivers *d, char *err, size_t errlen)
{
	char path[sizeof d->dir + 256];
	int n;

	*d = (struct bench_drivers){0};
	if (bench_driver_dir(given, d->dir, sizeof d->dir, err, errlen) != 0 ||
	    (n = bench_find_drivers(d->dir, &d->names, err, errlen)) < 0)
		return ST_FAIL;
	d->n = (size_t)n;
	if (!(d->flags = calloc(d->n + 1, sizeof *d->flags)))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (size_t i = 0; i < d->n; i++) {
		struct bench_wl_list l;
		snprintf(path, sizeof path, "%s/allocab-%s", d->dir, d->names[i]);
		if (bench_list_workloads(path, stop, &l, err, errlen) != 0)
			return ST_FAIL;
		d->flags[i] = l.backend_flags;
		bench_wl_list_free(&l);
	}
	baseline_first(d);
	return ST_OK;
}

long bench_drivers_index(const struct bench_drivers *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->names[i], name) == 0)
			return (long)i;
	return -1;
}

void bench_drivers_join(const struct bench_drivers *d, char *buf, size_t len)
{
	size_t k = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < d->n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", d->names[i]);
	if (!d->n)
		snprintf(buf, len, "none");
}

enum status plan_workloads(struct bench_plan *s, const char *workloads, char *err, size_t errlen)
{
	struct bench_wl_list *list = &s->list;
	char **sel, have[1024] = "";
	const char *bad;
	enum bench_route route;
	struct arm_run_args q = {0};
	int n, rc = ST_OK;
	size_t k = 0;

	bench_arm_args(&s->c.arms[0], &q);
	if (bench_list_workloads(q.path, s->stop, list, err, errlen) != 0)
		return ST_FAIL;
	for (size_t i = 0; i < list->n && k < sizeof have; i++)
		k += (size_t)snprintf(have + k, sizeof have - k, "%s%s", i ? ", " : "",
		                      list->names[i]);
	sel = list->defaults;
	n = (int)list->ndefaults;
	if (workloads && (n = bench_split_list(workloads, "-w", &sel, err, errlen)) < 0)
		return ST_USAGE;
	route = bench_route_workloads(&s->c, sel, (size_t)n, list, &bad);
	if (route == BENCH_ROUTE_NOMEM)
		rc = errmsg_status(ST_FAIL, err, errlen, "out of memory");
	else if (route == BENCH_ROUTE_UNKNOWN_WL)
		rc = errmsg_status(ST_USAGE, err, errlen, "-w: unknown workload '%s' (%s)", bad,
		                   have);
	else if (route == BENCH_ROUTE_UNUSED_PARAM)
		rc = errmsg_status(ST_USAGE, err, errlen,
		                   "--param %.*s: no selected workload has this parameter",
		                   (int)strcspn(bad, "="), bad);
	if (sel != list->defaults)
		bench_free_list(sel, (size_t)n);
	return rc;
}
