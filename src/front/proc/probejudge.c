/* probejudge.c - the helpers of a run's judgement (probejudge.h) and the parts that containment
 * and the tracker's own evidence add: escapes the proc connector saw (execs and processes the
 * tracker did not), records of processes the run did not start, second allocators mapped at
 * exit, configurations never read back, and the run's accounting (its CPU time against the
 * tracked processes' clocks). */
#include "front/proc/probejudge.h"
#include "common/allocknown.h"
#include "front/proc/contain.h"
#include "front/proc/probeimg.h"
#include "front/proc/proc.h"
#include "front/proc/ptrack.h"

#include "front/proc/elfscan.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FACTS_CACHE 16

void pjudge_note(struct judge *j, enum reason_kind k, const char *fmt, ...)
{
	va_list ap;

	if (j->have[k])
		return;
	j->have[k] = 1;
	va_start(ap, fmt);
	vsnprintf(j->reason[k], sizeof j->reason[k], fmt, ap);
	va_end(ap);
}

/* Facts about an executable, cached by path and modification time. */
const struct elf_facts *pjudge_facts(const char *path)
{
	static struct {
		char path[PATH_MAX];
		struct timespec mtime;
		struct elf_facts f;
	} cache[FACTS_CACHE];
	static size_t next;
	static struct elf_facts none;
	struct stat st;

	if (!path || stat(path, &st) != 0)
		return &none;
	for (size_t i = 0; i < FACTS_CACHE; i++)
		if (strcmp(cache[i].path, path) == 0 &&
		    cache[i].mtime.tv_sec == st.st_mtim.tv_sec &&
		    cache[i].mtime.tv_nsec == st.st_mtim.tv_nsec)
			return &cache[i].f;
	size_t i = next++ % FACTS_CACHE;
	snprintf(cache[i].path, sizeof cache[i].path, "%s", path);
	cache[i].mtime = st.st_mtim;
	elfscan_file(path, &cache[i].f);
	return &cache[i].f;
}

/* The dynamic linker's "cannot be preloaded" line of the stderr tail into out, or "". */
void pjudge_preload_line(const char *tail, char *out, size_t len)
{
	const char *hit = tail ? strstr(tail, "cannot be preloaded") : NULL, *b;

	out[0] = '\0';
	if (!hit)
		return;
	for (b = hit; b > tail && b[-1] != '\n'; b--)
		;
	snprintf(out, len, "%.*s", (int)strcspn(b, "\n"), b);
}

/* A start record of pid after item r (or anywhere when r is NULL), before an exec_failed of it. */
int pjudge_started_after(const cJSON *records, const cJSON *r, long pid)
{
	const cJSON *x = r ? r->next : records->child;

	for (; x; x = x->next) {
		if (pimg_num(x, "pid") != pid)
			continue;
		if (pjudge_is(pimg_str(x, "event"), "start"))
			return 1;
		if (r && pjudge_is(pimg_str(x, "event"), "exec_failed"))
			return -1;
	}
	return 0;
}

/* path as execvp would find it, into out. */
static const char *find_exe(const char *path, char *out, size_t len)
{
	const char *p = getenv("PATH");

	if (!path || strchr(path, '/') || !p)
		return path;
	while (*p) {
		size_t n = strcspn(p, ":");

		snprintf(out, len, "%.*s/%s", (int)n, p, path);
		if (access(out, X_OK) == 0)
			return out;
		p += n + (p[n] == ':');
	}
	return path;
}

/* An image of pid that never sent a start record: path as exec'ed (searched in PATH), or the
 * tracker's /proc/PID/exe. */
void pjudge_unreported(struct judge *j, const char *path, long pid)
{
	char buf[PATH_MAX];
	const char *exe = find_exe(path, buf, sizeof buf);
	const struct elf_facts *f = pjudge_facts(exe);
	char line[512];

	pjudge_preload_line(j->tail, line, sizeof line);
	if (line[0])
		pjudge_note(j, R_PRELOAD, "preload failed: %s", line);
	else if (f->elf && f->is_static)
		pjudge_note(j, R_STATIC,
		     "static executable %s (pid %ld) sent no probe report (LD_PRELOAD cannot "
		     "reach it)",
		     exe, pid);
	else if (f->setid)
		pjudge_note(j, R_SETID,
		     "setuid program %s (pid %ld) runs without LD_PRELOAD (secure execution)", exe,
		     pid);
	else
		pjudge_note(j, R_NOREPORT, "%s (pid %ld) sent no probe report", exe ? exe : "a program",
		     pid);
}

static int by_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* Whether pid is in the sorted v[0..n-1]; with count, how many times. */
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

/* Every exec the connector saw in the run was seen by the tracker too (per pid, as many); without
 * the tracker, every one of them sent a start record. */
static void judge_escapes(struct judge *j, const cJSON *records, const struct ptrack *t,
                          const struct contain *cn)
{
	int tracked = t && t->mode == PTRACK_TRACED;
	long *seen;
	size_t n = tracked ? t->nimages : 0;

	if (cn->lost)
		pjudge_note(j, R_CONTAIN,
		     "the proc connector lost events (its buffer overflowed): processes that "
		     "escaped tracking cannot be excluded");
	if (cn->execs_truncated)
		pjudge_note(j, R_CONTAIN, "the proc connector's record kept only the first %zu execs",
		     cn->nexecs);
	if (!(seen = calloc(n + 1, sizeof *seen))) {
		pjudge_note(j, R_CONTAIN, "out of memory while matching the run's execs");
		return;
	}
	for (size_t i = 0; i < n; i++)
		seen[i] = t->images[i].pid;
	qsort(seen, n, sizeof *seen, by_long);
	for (size_t i = 0; i < cn->nexecs; i++) {
		const struct contain_exec *x = &cn->execs[i];
		size_t before = 0;

		for (size_t k = 0; k < i; k++)
			before += cn->execs[k].pid == x->pid;
		if (tracked && count_in(seen, n, x->pid) <= before && !t->images_truncated)
			pjudge_note(j, R_ESCAPE, "%s (pid %ld) escaped process tracking (CLONE_UNTRACED)",
			     x->exe, x->pid);
		else if (!tracked && !pjudge_started_after(records, NULL, x->nspid))
			pjudge_unreported(j, x->exe, x->pid);
	}
	free(seen);
}

/* Every process the connector saw join the run's tree was one the tracker saw. */
static void judge_forks(struct judge *j, const struct ptrack *t, const struct contain *cn)
{
	long *pids;

	if (cn->forks_truncated)
		pjudge_note(j, R_CONTAIN, "the proc connector's record kept only the first %zu processes",
		            cn->nforks);
	if (t->procs_truncated || !cn->nforks)
		return;
	if (!(pids = calloc(t->nprocs + 1, sizeof *pids))) {
		pjudge_note(j, R_CONTAIN, "out of memory while matching the run's processes");
		return;
	}
	for (size_t i = 0; i < t->nprocs; i++)
		pids[i] = t->procs[i].pid;
	qsort(pids, t->nprocs, sizeof *pids, by_long);
	for (size_t i = 0; i < cn->nforks; i++)
		if (!count_in(pids, t->nprocs, cn->forks[i]))
			pjudge_note(j, R_ESCAPE,
			            "process %ld of the run escaped process tracking (CLONE_UNTRACED)",
			            cn->forks[i]);
	free(pids);
}

/* A tracked run accepts the records of its own processes only (pids as the probe sees them). */
static void judge_foreign(struct judge *j, const cJSON *records, const struct ptrack *t)
{
	long *pids = calloc(2 * t->nprocs + 1, sizeof *pids);
	size_t n = 0, foreign = 0;
	long first = 0;
	const cJSON *r;

	if (!pids) {
		pjudge_note(j, R_FOREIGN, "out of memory while matching the records' processes");
		return;
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		pids[n++] = t->procs[i].pid;
		pids[n++] = t->procs[i].nspid;
	}
	qsort(pids, n, sizeof *pids, by_long);
	cJSON_ArrayForEach(r, records)
	{
		long pid = pimg_num(r, "pid");

		if (!count_in(pids, n, pid) && !foreign++)
			first = pid;
	}
	if (foreign && !t->procs_truncated)
		pjudge_note(j, R_FOREIGN,
		     "%zu probe record%s name%s processes the run did not start (pid %ld first): "
		     "records the probe did not write",
		     foreign, foreign == 1 ? "" : "s", foreign == 1 ? "s" : "", first);
	free(pids);
}

/* No process mapped a known allocator's library other than the arm's. */
static void judge_libs(struct judge *j, const struct ptrack *t)
{
	for (size_t i = 0; i < t->nlibs; i++) {
		const struct ptrack_lib *l = &t->libs[i];
		const struct alloc_known *k = alloc_known_by_object(l->object);

		if ((j->e->allocator && k && pjudge_is(k->name, j->e->allocator)) ||
		    (j->e->object && pjudge_is(l->object, j->e->object)))
			continue;
		pjudge_note(j, R_SECOND,
		     "second allocator loaded: %s in %s (pid %ld), expected %s only",
		     pjudge_base(l->object), l->exe, l->pid,
		     j->e->allocator ? j->e->allocator : pjudge_base(j->e->object));
	}
}

/* A configured arm: every exec'ed image that did not exec again read its settings back. */
void pjudge_unchecked(struct judge *j, const struct pimgs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct pimg *g = &p->v[i];

		if (g->exempt || !g->started || g->replaced)
			continue;
		if (!g->exit || !cJSON_GetObjectItemCaseSensitive(g->exit, "config"))
			pjudge_note(j, R_UNCHECKED,
			     "configuration unchecked: %s (pid %ld) ended without a read-back",
			     g->exe ? g->exe : "?", g->pid);
	}
}

void pjudge_contained(struct judge *j, const cJSON *records, const struct ptrack *t,
                            const struct contain *cn)
{
	if (cn && cn->not_emptied)
		pjudge_note(j, R_CONTAIN, "the run's cgroup still held processes after they were killed");
	if (cn && cn->strays)
		pjudge_note(j, R_CONTAIN,
		            "%zu process%s of the run left its cgroup (killed at the end of the run)",
		            cn->strays, cn->strays == 1 ? "" : "es");
	if (cn && cn->connector)
		judge_escapes(j, records, t, cn);
	if (cn && cn->connector && t && t->mode == PTRACK_TRACED)
		judge_forks(j, t, cn);
	if (t && t->mode == PTRACK_TRACED) {
		if (t->nprocs)
			judge_foreign(j, records, t);
		judge_libs(j, t);
	}
}

static double ms(long long ns)
{
	return (double)ns / 1e6;
}

void pjudge_account(struct judge *j, const struct ptrack *t, const struct contain *cn,
                    struct probe_account *a)
{
	long long gap;

	memset(a, 0, sizeof *a);
	if (!t || t->mode != PTRACK_TRACED)
		return;
	if (cn && cn->cgroup && cn->have_usage) {
		a->charged_by = "cgroup";
		a->charged_ns = cn->usage_ns;
	} else if (j->e->have_wait4) {
		a->charged_by = "wait4";
		a->charged_ns = j->e->wait4_ns;
	} else {
		return;
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
	gap = a->charged_ns - a->accounted_ns;
	if (gap > a->tolerance_ns)
		pjudge_note(j, R_ACCOUNT,
		            "%.1f ms of the run's CPU time (%s: %.1f ms) belongs to no process the "
		            "tracker proved (theirs: %.1f ms over %zu process%s%s): work hidden from "
		            "process tracking",
		            ms(gap), a->charged_by, ms(a->charged_ns), ms(a->accounted_ns),
		            a->processes, a->processes == 1 ? "" : "es",
		            a->unread ? ", some never read" : "");
	else if (-gap > a->tolerance_ns)
		pjudge_note(j, R_ACCOUNT,
		            "the run's processes used %.1f ms of CPU time, %s counted %.1f ms: "
		            "%.1f ms of work %s",
		            ms(a->accounted_ns), a->charged_by, ms(a->charged_ns), ms(-gap),
		            cn && cn->cgroup && cn->have_usage
		                ? "moved out of the run's cgroup"
		                : "done in processes the run never waited for");
}
