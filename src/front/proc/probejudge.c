/* probejudge.c - the judge of one run's probe records, all of it: probelog_judge (proc.h) is its
 * one entry, called once the records are read (probelog.c). What it asks of other files only
 * answers: the records grouped by image (probeimg.h), paired with what the tracker and the
 * connector saw (probematch.h), an executable's facts (elfscan.h).
 *
 * A run is verified when the first process reported, every image the tracker saw (or, without
 * it, every exec'ed or spawned program the probe recorded) reported after its exec, no LD_PRELOAD
 * entry failed to load, every image ran the expected allocator for the whole malloc family, what
 * containment saw agrees with the tracker, and (tracked) the run's CPU time is accounted for by
 * the tracked processes'. The rules run in one order (judge_all) and each kind of reason keeps
 * its first; the verdict's reason is the kept one of the first kind in enum reason_kind: the
 * table of docs/programs.md, "The probe: what "verified" means". */
#include "front/proc/proc.h"
#include "common/allocknown.h"
#include "front/proc/contain.h"
#include "front/proc/elfscan.h"
#include "front/proc/probeimg.h"
#include "front/proc/probematch.h"
#include "front/proc/ptrack.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kinds of reason, in the priority of the verdict. */
enum reason_kind {
	R_PRELOAD, R_STATIC, R_SETID, R_ESCAPE, R_CONTAIN, R_NOREPORT, R_FOREIGN,
	R_OWN, R_OTHER, R_SECOND, R_CONFIG, R_UNCHECKED, R_ACCOUNT, R_COUNT
};

/* One run's judgement: what it is judged on, and the first reason of each kind. */
struct judge {
	const struct probe_expect *e;
	const char *tail;
	const cJSON *records;
	const struct ptrack *t; /* NULL or refused: the probe's records are all there is */
	const struct contain *cn;
	int tracked;
	int have[R_COUNT];
	char reason[R_COUNT][768];
};

static int is(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "?";
}

/* Notes the reason of kind k, unless one of that kind was noted already. */
__attribute__((format(printf, 3, 4))) static void note(struct judge *j, enum reason_kind k,
                                                       const char *fmt, ...)
{
	va_list ap;

	if (j->have[k])
		return;
	j->have[k] = 1;
	va_start(ap, fmt);
	vsnprintf(j->reason[k], sizeof j->reason[k], fmt, ap);
	va_end(ap);
}

/* The dynamic linker's "cannot be preloaded" line of the stderr tail into out, or "". */
static void preload_line(const char *tail, char *out, size_t len)
{
	const char *hit = tail ? strstr(tail, "cannot be preloaded") : NULL, *b;

	out[0] = '\0';
	if (!hit)
		return;
	for (b = hit; b > tail && b[-1] != '\n'; b--)
		;
	snprintf(out, len, "%.*s", (int)strcspn(b, "\n"), b);
}

/* An image of pid that never sent a start record: path as exec'ed (searched in PATH), or the
 * tracker's /proc/PID/exe; the reason says why when the executable shows it. */
static void unreported(struct judge *j, const char *path, long pid)
{
	char buf[PATH_MAX];
	const char *exe = elfscan_find(path, buf, sizeof buf);
	const struct elf_facts *f = elfscan_facts(exe);
	char line[512];

	preload_line(j->tail, line, sizeof line);
	if (line[0])
		note(j, R_PRELOAD, "preload failed: %s", line);
	else if (f->elf && f->is_static)
		note(j, R_STATIC, "static executable %s (pid %ld) sent no probe report (LD_PRELOAD "
		     "cannot reach it)", exe, pid);
	else if (f->setid)
		note(j, R_SETID, "setuid program %s (pid %ld) runs without LD_PRELOAD (secure "
		     "execution)", exe, pid);
	else
		note(j, R_NOREPORT, "%s (pid %ld) sent no probe report", exe ? exe : "a program", pid);
}

/* ---- what each image's records say ---- */

static int in_preload(const char *preload, const char *object)
{
	const char *b = base(object);

	return preload && (strstr(preload, object) || strstr(preload, b));
}

/* "1", "percpu": a requested or read-back value as text. */
static void value_text(const cJSON *v, char *buf, size_t len)
{
	if (cJSON_IsString(v))
		snprintf(buf, len, "%s", v->valuestring);
	else if (cJSON_IsNumber(v))
		snprintf(buf, len, "%.17g", v->valuedouble);
	else
		snprintf(buf, len, "?");
}

/* The exit record's read-back of a configured arm: a setting read back with another value than
 * the one requested is not in force (for a setting whose effect cannot be read, "read_back" is the
 * library's own parse of the request: another value means it did not take it); one that could not
 * be read back proves nothing either way. */
static void judge_config(struct judge *j, const cJSON *r)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "config"))
	{
		const cJSON *want = cJSON_GetObjectItemCaseSensitive(c, "requested");
		const cJSON *got = cJSON_GetObjectItemCaseSensitive(c, "in_force");
		char a[64], b[64];

		if (!got)
			got = cJSON_GetObjectItemCaseSensitive(c, "read_back");
		if (!got || (want && cJSON_Compare(want, got, 1)))
			continue;
		value_text(want, a, sizeof a);
		value_text(got, b, sizeof b);
		note(j, R_CONFIG, "configuration not in force: %s=%s read back %s in %s (pid %ld)",
		     c->string ? c->string : "?", a, b, base(pimg_str(r, "exe")), pimg_num(r, "pid"));
	}
}

/* Record r's allocator, when the exe's own one and the expected one have not settled it. */
static void judge_served(struct judge *j, const cJSON *r, const char *alloc, const char *obj)
{
	const char *exe = pimg_str(r, "exe"), *want = j->e->allocator;
	long pid = pimg_num(r, "pid");

	if (is(alloc, "mixed")) {
		const cJSON *sv = cJSON_GetObjectItemCaseSensitive(r, "serves");
		note(j, R_OTHER, "malloc family split in %s (pid %ld): malloc from %s, free from %s",
		     exe, pid, base(pimg_str(sv, "malloc")), base(pimg_str(sv, "free")));
	} else if (is(alloc, "executable")) {
		note(j, R_OWN, "program links its own allocator (defines malloc): %s", exe);
	} else if (obj && alloc_known_by_object(obj) &&
	           !alloc_known_platform(alloc_known_by_object(obj)) &&
	           !in_preload(pimg_str(r, "preload"), obj)) {
		note(j, R_OWN, "program links its own allocator (%s, %s): %s", alloc, base(obj), exe);
	} else {
		note(j, R_OTHER, "other allocator serves malloc: %s in %s (pid %ld), expected %s",
		     base(obj), exe, pid, want ? want : base(j->e->object));
	}
}

/* One start, fork or exit record r: preloading, the program's own allocator, the one serving. */
static void judge_image(struct judge *j, const cJSON *r)
{
	const struct probe_expect *e = j->e;
	const char *exe = pimg_str(r, "exe"), *alloc = pimg_str(r, "allocator"),
	           *obj = pimg_str(r, "object");
	const char *exe_alloc = pimg_str(r, "exe_allocator"), *want = e->allocator;
	const cJSON *missing = cJSON_GetObjectItemCaseSensitive(r, "preload_missing");
	char line[512];

	if (cJSON_GetArraySize(missing) > 0) {
		const cJSON *m = cJSON_GetArrayItem(missing, 0);

		preload_line(j->tail, line, sizeof line);
		if (line[0])
			note(j, R_PRELOAD, "preload failed: %s", line);
		else
			note(j, R_PRELOAD, "preload failed: ld.so could not load %s in %s (pid %ld)",
			     cJSON_IsString(m) ? m->valuestring : "?", base(exe), pimg_num(r, "pid"));
	}
	if (!exe_alloc && elfscan_facts(exe)->unscanned) {
		note(j, R_OWN, "cannot tell whether %s links its own allocator: %s", exe,
		     elfscan_facts(exe)->unscanned);
		return;
	}
	if (!exe_alloc)
		exe_alloc = elfscan_facts(exe)->allocator;
	if (exe_alloc && !is(exe_alloc, want)) {
		note(j, R_OWN, "program links its own allocator (%s): %s", exe_alloc, exe);
		return;
	}
	if (exe_alloc && e->exe_counts)
		return;
	if ((!want || is(alloc, want)) && (!e->object || is(obj, e->object)))
		return;
	judge_served(j, r, alloc, obj);
}

static int by_offset(const void *a, const void *b)
{
	double x = (*(const cJSON *const *)a)->valuedouble, y = (*(const cJSON *const *)b)->valuedouble;

	return x < y ? -1 : x > y;
}

/* The read-backs of the exit records in the order they were written: the first process to end
 * with a setting not in force is named (a shell that waits for its program ends after it). */
static void judge_configs(struct judge *j, const struct pimgs *p)
{
	const cJSON **v = calloc(p->n + 1, sizeof *v);
	size_t n = 0;

	if (!v) {
		note(j, R_CONFIG, "out of memory while reading the configuration read-backs");
		return;
	}
	for (size_t i = 0; i < p->n; i++)
		if (!p->v[i].exempt && p->v[i].exit)
			v[n++] = p->v[i].exit;
	qsort(v, n, sizeof *v, by_offset);
	for (size_t i = 0; i < n; i++)
		judge_config(j, v[i]);
	free(v);
}

/* Every image's findings at start and exit; --cmd: some image besides the launcher's. */
static void judge_images(struct judge *j, const struct pimgs *p)
{
	size_t others = 0;

	judge_configs(j, p);
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].exempt)
			continue;
		others++;
		judge_image(j, p->v[i].first);
		if (p->v[i].exit)
			judge_image(j, p->v[i].exit);
	}
	if (j->e->launcher > 0 && p->n && !others)
		note(j, R_NOREPORT,
		     "the program sent no probe report (only the bench's own shell reported)");
}

/* The probe's own exec and spawn records whose program never reported. */
static void judge_execs(struct judge *j)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, j->records)
	{
		const char *ev = pimg_str(r, "event");
		long pid = pimg_num(r, "pid");

		if (is(ev, "exec") && pimg_started_after(j->records, r, pid) == 0)
			unreported(j, pimg_str(r, "path"), pid);
		else if (is(ev, "spawn") &&
		         !pimg_started_after(j->records, NULL, pimg_num(r, "child")))
			unreported(j, pimg_str(r, "path"), pimg_num(r, "child"));
	}
}

/* Every image the tracker saw must have reported. */
static void judge_tracked(struct judge *j, const struct pimgs *p)
{
	const struct ptrack *t = j->t;
	char *lost = calloc(t->nimages + 1, 1);

	if (!lost || pmatch_images(p, t, lost) != 0) {
		note(j, R_NOREPORT, "out of memory while matching the tracked processes");
	} else {
		for (size_t i = 0; i < t->nimages; i++)
			if (lost[i])
				unreported(j, t->images[i].exe, t->images[i].pid);
	}
	if (t->images_truncated)
		note(j, R_NOREPORT, "process tracking kept only the first %zu images of the run",
		     t->nimages);
	free(lost);
}

/* ---- what containment and the tracker saw ---- */

/* Every exec the connector saw in the run was seen by the tracker too (per pid, as many); without
 * the tracker, every one of them sent a start record. */
static void judge_escapes(struct judge *j)
{
	const struct contain *cn = j->cn;
	char *escaped = calloc(cn->nexecs + 1, 1);

	if (cn->lost)
		note(j, R_CONTAIN, "the proc connector lost events (its buffer overflowed): processes "
		     "that escaped tracking cannot be excluded");
	if (cn->execs_truncated)
		note(j, R_CONTAIN, "the proc connector's record kept only the first %zu execs",
		     cn->nexecs);
	if (!escaped || pmatch_execs(cn, j->tracked ? j->t : NULL, escaped) != 0) {
		note(j, R_CONTAIN, "out of memory while matching the run's execs");
		free(escaped);
		return;
	}
	for (size_t i = 0; i < cn->nexecs; i++) {
		const struct contain_exec *x = &cn->execs[i];

		if (j->tracked && escaped[i])
			note(j, R_ESCAPE, "%s (pid %ld) escaped process tracking (CLONE_UNTRACED)",
			     x->exe, x->pid);
		else if (!j->tracked && !pimg_started_after(j->records, NULL, x->nspid))
			unreported(j, x->exe, x->pid);
	}
	free(escaped);
}

/* Every process the connector saw join the run's tree was one the tracker saw. */
static void judge_forks(struct judge *j)
{
	long first;

	if (j->cn->forks_truncated)
		note(j, R_CONTAIN, "the proc connector's record kept only the first %zu processes",
		     j->cn->nforks);
	if ((first = pmatch_forks(j->cn, j->t)) < 0)
		note(j, R_CONTAIN, "out of memory while matching the run's processes");
	else if (first > 0)
		note(j, R_ESCAPE, "process %ld of the run escaped process tracking (CLONE_UNTRACED)",
		     first);
}

/* A tracked run accepts the records of its own processes only (pids as the probe sees them). */
static void judge_foreign(struct judge *j)
{
	long first, n = pmatch_foreign(j->records, j->t, &first);
	size_t foreign = n > 0 ? (size_t)n : 0;

	if (n < 0)
		note(j, R_FOREIGN, "out of memory while matching the records' processes");
	else if (foreign && !j->t->procs_truncated)
		note(j, R_FOREIGN,
		     "%zu probe record%s name%s processes the run did not start (pid %ld first): "
		     "records the probe did not write",
		     foreign, foreign == 1 ? "" : "s", foreign == 1 ? "s" : "", first);
}

/* No process mapped a known allocator's library other than the arm's. */
static void judge_libs(struct judge *j)
{
	for (size_t i = 0; i < j->t->nlibs; i++) {
		const struct ptrack_lib *l = &j->t->libs[i];
		const struct alloc_known *k = alloc_known_by_object(l->object);

		if ((j->e->allocator && k && is(k->name, j->e->allocator)) ||
		    (j->e->object && is(l->object, j->e->object)))
			continue;
		note(j, R_SECOND, "second allocator loaded: %s in %s (pid %ld), expected %s only",
		     base(l->object), l->exe, l->pid,
		     j->e->allocator ? j->e->allocator : base(j->e->object));
	}
}

/* Containment's findings (cn may be NULL) and the tracker's maps and processes. */
static void judge_contained(struct judge *j)
{
	const struct contain *cn = j->cn;

	if (cn && cn->not_emptied)
		note(j, R_CONTAIN, "the run's cgroup still held processes after they were killed");
	if (cn && cn->strays)
		note(j, R_CONTAIN,
		     "%zu process%s of the run left its cgroup (killed at the end of the run)",
		     cn->strays, cn->strays == 1 ? "" : "es");
	if (cn && cn->connector)
		judge_escapes(j);
	if (cn && cn->connector && j->tracked)
		judge_forks(j);
	if (j->tracked) {
		if (j->t->nprocs)
			judge_foreign(j);
		judge_libs(j);
	}
}

static double ms(long long ns) { return (double)ns / 1e6; }

/* A tracked run's accounting (proc.h, struct probe_account): a difference beyond the tolerance
 * either way is noted. */
static void judge_account(struct judge *j, struct probe_account *a)
{
	long long gap;

	memset(a, 0, sizeof *a);
	if (!j->tracked || pmatch_account(j->t, j->cn, j->e, a) != 0)
		return;
	gap = a->charged_ns - a->accounted_ns;
	if (gap > a->tolerance_ns)
		note(j, R_ACCOUNT,
		     "%.1f ms of the run's CPU time (%s: %.1f ms) belongs to no process the "
		     "tracker proved (theirs: %.1f ms over %zu process%s%s): work hidden from "
		     "process tracking",
		     ms(gap), a->charged_by, ms(a->charged_ns), ms(a->accounted_ns), a->processes,
		     a->processes == 1 ? "" : "es", a->unread ? ", some never read" : "");
	else if (-gap > a->tolerance_ns)
		note(j, R_ACCOUNT,
		     "the run's processes used %.1f ms of CPU time, %s counted %.1f ms: "
		     "%.1f ms of work %s",
		     ms(a->accounted_ns), a->charged_by, ms(a->charged_ns), ms(-gap),
		     j->cn && j->cn->cgroup && j->cn->have_usage
		         ? "moved out of the run's cgroup"
		         : "done in processes the run never waited for");
}

/* A configured arm: every exec'ed image that did not exec again read its settings back. */
static void judge_unchecked(struct judge *j, const struct pimgs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct pimg *g = &p->v[i];

		if (g->exempt || !g->started || g->replaced)
			continue;
		if (!g->exit || !cJSON_GetObjectItemCaseSensitive(g->exit, "config"))
			note(j, R_UNCHECKED,
			     "configuration unchecked: %s (pid %ld) ended without a read-back",
			     g->exe ? g->exe : "?", g->pid);
	}
}

/* The run's first process reported. */
static void judge_top(struct judge *j, pid_t top)
{
	char line[512];

	if (pimg_started_after(j->records, NULL, (long)top))
		return;
	preload_line(j->tail, line, sizeof line);
	if (line[0])
		note(j, R_PRELOAD, "preload failed: %s", line);
	else
		note(j, R_NOREPORT, "the program sent no probe report (the probe was not loaded: "
		     "static executable, setuid program or LD_PRELOAD removed)");
}

/* The rules in their order; the verdict is the first kind noted. */
static void judge_all(struct judge *j, const struct pimgs *p, pid_t top, struct probe_verdict *v)
{
	static const int deterministic[R_COUNT] = {[R_PRELOAD] = 1, [R_STATIC] = 1, [R_SETID] = 1,
	                                           [R_OWN] = 1,     [R_OTHER] = 1,  [R_SECOND] = 1};

	judge_images(j, p);
	judge_execs(j);
	if (j->tracked)
		judge_tracked(j, p);
	judge_contained(j);
	judge_account(j, &v->account);
	if (j->e->configured)
		judge_unchecked(j, p);
	judge_top(j, top);
	for (int k = 0; k < R_COUNT; k++)
		if (j->have[k]) {
			snprintf(v->reason, sizeof v->reason, "%s", j->reason[k]);
			v->deterministic = deterministic[k];
			return;
		}
	v->verified = 1;
}

void probelog_judge(const cJSON *records, const struct probe_expect *e,
                    const struct runner_result *r, struct probe_verdict *v)
{
	const struct ptrack *t = r->track;
	struct judge j = {.e = e, .tail = r->tail, .records = records, .t = t, .cn = r->contain,
	                  .tracked = t && t->mode == PTRACK_TRACED};
	struct pimgs p;

	memset(v, 0, sizeof *v);
	v->records = (size_t)cJSON_GetArraySize(records);
	ptrack_describe(t, v->tracking, sizeof v->tracking);
	if (pimgs_build(records, e, &p) != 0) {
		snprintf(v->reason, sizeof v->reason, "out of memory while judging the probe records");
		return;
	}
	v->tracked = j.tracked;
	v->images = p.n;
	v->processes = j.tracked ? t->processes : p.pids;
	v->threads = j.tracked ? t->threads : 0;
	judge_all(&j, &p, (pid_t)r->pid, v);
	pimgs_free(&p);
}
