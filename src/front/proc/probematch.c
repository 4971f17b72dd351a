/* probematch.c - a run's probe records paired with the tracker's and the connector's
 * (probematch.h). */
#include "front/proc/probematch.h"
#include "front/proc/contain.h"
#include "front/proc/probeimg.h"
#include "front/proc/proc.h"
#include "front/proc/ptrack.h"

#include <stdlib.h>
#include <string.h>

/* A started image or a tracked exec, keyed for matching the two in order per pid (the pid the
 * probe sees, in its namespace); at: the record's byte offset, or the record file's size at the
 * exec (-1: unknown). */
struct key {
	long pid;
	size_t i;
	const char *exe;
	double at;
};

static int by_pid(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

int pmatch_images(const struct pimgs *p, const struct ptrack *t, char *lost)
{
	struct key *a = calloc(p->n + 1, sizeof *a), *b = calloc(t->nimages + 1, sizeof *b);
	size_t na = 0, ia = 0;

	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].started)
			a[na++] = (struct key){p->v[i].pid, i, p->v[i].exe, p->v[i].first->valuedouble};
	for (size_t i = 0; i < t->nimages; i++)
		b[i] = (struct key){t->images[i].nspid > 0 ? t->images[i].nspid : t->images[i].pid, i,
		                    t->images[i].exe, (double)t->images[i].probe_size};
	qsort(a, na, sizeof *a, by_pid);
	qsort(b, t->nimages, sizeof *b, by_pid);
	for (size_t k = 0; k < t->nimages; k++) {
		size_t f;

		while (ia < na && a[ia].pid < b[k].pid)
			ia++;
		/* A start record written before the exec cannot be the new image's. */
		for (f = ia; f < na && a[f].pid == b[k].pid &&
		             (!same(a[f].exe, b[k].exe) || (b[k].at >= 0 && a[f].at < b[k].at));
		     f++)
			;
		if (f < na && a[f].pid == b[k].pid)
			ia = f + 1;
		else
			lost[b[k].i] = 1;
	}
	free(a);
	free(b);
	return 0;
}

static int by_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* How many times pid is in the sorted v[0..n-1]. */
static size_t count_in(const long *v, size_t n, long pid)
{
	size_t lo = 0, hi = n, k = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + k < n && v[lo + k] == pid)
		k++;
	return k;
}

int pmatch_execs(const struct contain *cn, const struct ptrack *t, char *escaped)
{
	size_t n = t ? t->nimages : 0;
	long *seen = calloc(n + 1, sizeof *seen);

	if (!seen)
		return -1;
	for (size_t i = 0; i < n; i++)
		seen[i] = t->images[i].pid;
	qsort(seen, n, sizeof *seen, by_long);
	for (size_t i = 0; t && i < cn->nexecs; i++) {
		size_t before = 0;

		for (size_t k = 0; k < i; k++)
			before += cn->execs[k].pid == cn->execs[i].pid;
		escaped[i] = count_in(seen, n, cn->execs[i].pid) <= before && !t->images_truncated;
	}
	free(seen);
	return 0;
}

long pmatch_forks(const struct contain *cn, const struct ptrack *t)
{
	long *pids, first = 0;

	if (t->procs_truncated || !cn->nforks)
		return 0;
	if (!(pids = calloc(t->nprocs + 1, sizeof *pids)))
		return -1;
	for (size_t i = 0; i < t->nprocs; i++)
		pids[i] = t->procs[i].pid;
	qsort(pids, t->nprocs, sizeof *pids, by_long);
	for (size_t i = 0; i < cn->nforks && !first; i++)
		if (!count_in(pids, t->nprocs, cn->forks[i]))
			first = cn->forks[i];
	free(pids);
	return first;
}

long pmatch_foreign(const cJSON *records, const struct ptrack *t, long *first)
{
	long *pids = calloc(2 * t->nprocs + 1, sizeof *pids), foreign = 0;
	size_t n = 0;
	const cJSON *r;

	*first = 0;
	if (!pids)
		return -1;
	for (size_t i = 0; i < t->nprocs; i++) {
		pids[n++] = t->procs[i].pid;
		pids[n++] = t->procs[i].nspid;
	}
	qsort(pids, n, sizeof *pids, by_long);
	cJSON_ArrayForEach(r, records)
	{
		long pid = pimg_num(r, "pid");

		if (!count_in(pids, n, pid) && !foreign++)
			*first = pid;
	}
	free(pids);
	return foreign;
}

int pmatch_account(const struct ptrack *t, const struct contain *cn, const struct probe_expect *e,
                   struct probe_account *a)
{
	if (cn && cn->cgroup && cn->have_usage) {
		a->charged_by = "cgroup";
		a->charged_ns = cn->usage_ns;
	} else if (e->have_wait4) {
		a->charged_by = "wait4";
		a->charged_ns = e->wait4_ns;
	} else {
		return -1;
	}
	a->checked = 1;
	a->processes = t->nprocs;
	for (size_t i = 0; i < t->nprocs; i++) {
		if (t->procs[i].have_cpu)
			a->accounted_ns += t->procs[i].cpu_ns;
		else
			a->unread++;
	}
	a->tolerance_ns = PROBE_ACCOUNT_SLACK_NS + PROBE_ACCOUNT_PER_PROC_NS * (long long)t->nprocs;
	return 0;
}
