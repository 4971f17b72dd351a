/* probelog.c - reading and judging the probe's per-run records. A run is verified when the first
 * process reported, every image the process tracker saw (or, without it, every exec'ed or spawned
 * program the probe recorded) reported, no LD_PRELOAD entry failed to load, and every process
 * image ran the expected allocator for the whole malloc family. */
#include "front/run/probelog.h"
#include "common/allocknown.h"
#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/jsonstrict.h"
#include "front/run/elfscan.h"
#include "front/run/contain.h"
#include "front/run/probeimg.h"
#include "front/run/ptrack.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FACTS_CACHE 16

enum reason_kind {
	R_PRELOAD,
	R_STATIC,
	R_SETID,
	R_ESCAPE,
	R_CONTAIN,
	R_NOREPORT,
	R_FOREIGN,
	R_OWN,
	R_OTHER,
	R_SECOND,
	R_CONFIG,
	R_UNCHECKED,
	R_COUNT
};

struct judge {
	const struct probe_expect *e;
	const char *tail;
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

int probelog_read_fd(int fd, const char *name, cJSON **out, size_t *bad, char *err,
                     size_t errlen)
{
	struct stat st;
	size_t n = 0, cap;
	char *text, *p, *nl;

	*out = NULL;
	*bad = 0;
	if (fstat(fd, &st) != 0)
		return errmsg_fail(err, errlen, "probe records %s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errmsg_fail(err, errlen, "probe records %s: not a regular file", name);
	if ((size_t)st.st_size > PROBELOG_MAX_BYTES)
		return errmsg_fail(err, errlen, "probe records exceed %u MiB",
		                   PROBELOG_MAX_BYTES >> 20);
	cap = (size_t)st.st_size + 4096 < PROBELOG_MAX_BYTES + 1 ? (size_t)st.st_size + 4096
	                                                           : PROBELOG_MAX_BYTES + 1;
	if (!(text = malloc(cap + 1)))
		return errmsg_fail(err, errlen, "out of memory");
	for (;;) {
		ssize_t k = pread(fd, text + n, cap - n, (off_t)n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(text);
			return errmsg_fail(err, errlen, "probe records %s: %s", name,
			                   strerror(errno));
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (n == cap && cap == PROBELOG_MAX_BYTES + 1) {
			free(text);
			return errmsg_fail(err, errlen, "probe records exceed %u MiB",
			                   PROBELOG_MAX_BYTES >> 20);
		}
		if (n == cap) {
			size_t ncap = 2 * cap < PROBELOG_MAX_BYTES + 1 ? 2 * cap : PROBELOG_MAX_BYTES + 1;
			char *nt = realloc(text, ncap + 1);

			if (!nt) {
				free(text);
				return errmsg_fail(err, errlen, "out of memory");
			}
			text = nt;
			cap = ncap;
		}
	}
	if (!(*out = cJSON_CreateArray())) {
		free(text);
		return errmsg_fail(err, errlen, "out of memory");
	}
	for (p = text; p < text + n; p = nl + 1) {
		cJSON *r;

		if (!(nl = memchr(p, '\n', (size_t)(text + n - p))))
			nl = text + n;
		*nl = '\0';
		if (!*p)
			continue;
		r = cJSON_Parse(p);
		if (cJSON_IsObject(r) && is(pimg_str(r, "probe"), "allocab-probe/1") &&
		    jst_unique_keys(r, &(struct jst_result){0}) == 0) {
			r->valuedouble = (double)(p - text);
			cJSON_AddItemToArray(*out, r);
		} else {
			cJSON_Delete(r);
			(*bad)++;
		}
	}
	free(text);
	return 0;
}

int probelog_read(const char *path, cJSON **out, size_t *bad, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc;

	*out = NULL;
	*bad = 0;
	if (fd < 0)
		return errmsg_fail(err, errlen, "probe records %s: %s", path,
		                   errno == ELOOP ? "a symbolic link" : strerror(errno));
	rc = probelog_read_fd(fd, path, out, bad, err, errlen);
	close(fd);
	return rc;
}

/* Facts about an executable, cached by path and modification time. */
static const struct elf_facts *facts(const char *path)
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
		     c->string ? c->string : "?", a, b, base(pimg_str(r, "exe")),
		     pimg_num(r, "pid"));
	}
}

static void judge_image(struct judge *j, const cJSON *r)
{
	const struct probe_expect *e = j->e;
	const char *exe = pimg_str(r, "exe"), *alloc = pimg_str(r, "allocator"),
	           *obj = pimg_str(r, "object");
	const char *exe_alloc = pimg_str(r, "exe_allocator"), *want = e->allocator;
	const cJSON *missing = cJSON_GetObjectItemCaseSensitive(r, "preload_missing");
	long pid = pimg_num(r, "pid");
	char line[512];

	if (cJSON_GetArraySize(missing) > 0) {
		const cJSON *m = cJSON_GetArrayItem(missing, 0);

		preload_line(j->tail, line, sizeof line);
		if (line[0])
			note(j, R_PRELOAD, "preload failed: %s", line);
		else
			note(j, R_PRELOAD,
			     "preload failed: ld.so could not load %s in %s (pid %ld)",
			     cJSON_IsString(m) ? m->valuestring : "?", base(exe), pid);
	}
	if (!exe_alloc)
		exe_alloc = facts(exe)->allocator;
	if (exe_alloc && !is(exe_alloc, want)) {
		note(j, R_OWN, "program links its own allocator (%s): %s", exe_alloc, exe);
		return;
	}
	if (exe_alloc && e->exe_counts)
		return;
	if ((!want || is(alloc, want)) && (!e->object || is(obj, e->object)))
		return;
	if (is(alloc, "mixed")) {
		const cJSON *sv = cJSON_GetObjectItemCaseSensitive(r, "serves");
		note(j, R_OTHER,
		     "malloc family split in %s (pid %ld): malloc from %s, free from %s", exe, pid,
		     base(pimg_str(sv, "malloc")), base(pimg_str(sv, "free")));
	} else if (is(alloc, "executable")) {
		note(j, R_OWN, "program links its own allocator (defines malloc): %s", exe);
	} else if (obj && alloc_known_by_object(obj) &&
	           !alloc_known_platform(alloc_known_by_object(obj)) &&
	           !in_preload(pimg_str(r, "preload"), obj)) {
		note(j, R_OWN, "program links its own allocator (%s, %s): %s", alloc, base(obj),
		     exe);
	} else {
		note(j, R_OTHER, "other allocator serves malloc: %s in %s (pid %ld), expected %s",
		     base(obj), exe, pid, want ? want : base(e->object));
	}
}

/* A start record of pid after item r (or anywhere when r is NULL), before an exec_failed of it. */
static int started_after(const cJSON *records, const cJSON *r, long pid)
{
	const cJSON *x = r ? r->next : records->child;

	for (; x; x = x->next) {
		if (pimg_num(x, "pid") != pid)
			continue;
		if (is(pimg_str(x, "event"), "start"))
			return 1;
		if (r && is(pimg_str(x, "event"), "exec_failed"))
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
static void judge_unreported(struct judge *j, const char *path, long pid)
{
	char buf[PATH_MAX];
	const char *exe = find_exe(path, buf, sizeof buf);
	const struct elf_facts *f = facts(exe);
	char line[512];

	preload_line(j->tail, line, sizeof line);
	if (line[0])
		note(j, R_PRELOAD, "preload failed: %s", line);
	else if (f->elf && f->is_static)
		note(j, R_STATIC,
		     "static executable %s (pid %ld) sent no probe report (LD_PRELOAD cannot "
		     "reach it)",
		     exe, pid);
	else if (f->setid)
		note(j, R_SETID,
		     "setuid program %s (pid %ld) runs without LD_PRELOAD (secure execution)", exe,
		     pid);
	else
		note(j, R_NOREPORT, "%s (pid %ld) sent no probe report", exe ? exe : "a program",
		     pid);
}

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

/* Marks in lost[] every tracked image with no start record of the same pid and executable, in
 * order (a pid may exec several times). Returns 0, or -1 when memory ran out. */
static int match_tracked(const struct pimgs *p, const struct ptrack *t, char *lost)
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
		                    t->images[i].exe,
		                    (double)t->images[i].probe_size};
	qsort(a, na, sizeof *a, by_pid);
	qsort(b, t->nimages, sizeof *b, by_pid);
	for (size_t k = 0; k < t->nimages; k++) {
		size_t f;

		while (ia < na && a[ia].pid < b[k].pid)
			ia++;
		/* A start record written before the exec cannot be the new image's. */
		for (f = ia; f < na && a[f].pid == b[k].pid &&
		             (!is(a[f].exe, b[k].exe) || (b[k].at >= 0 && a[f].at < b[k].at));
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

/* Every image the tracker saw must have reported. */
static void judge_tracked(struct judge *j, const struct pimgs *p, const struct ptrack *t)
{
	char *lost = calloc(t->nimages + 1, 1);

	if (!lost || match_tracked(p, t, lost) != 0) {
		note(j, R_NOREPORT, "out of memory while matching the tracked processes");
	} else {
		for (size_t i = 0; i < t->nimages; i++)
			if (lost[i])
				judge_unreported(j, t->images[i].exe, t->images[i].pid);
	}
	if (t->images_truncated)
		note(j, R_NOREPORT, "process tracking kept only the first %zu images of the run",
		     t->nimages);
	free(lost);
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
static void judge_execs(struct judge *j, const cJSON *records)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, records)
	{
		const char *ev = pimg_str(r, "event");
		long pid = pimg_num(r, "pid");

		if (is(ev, "exec") && started_after(records, r, pid) == 0)
			judge_unreported(j, pimg_str(r, "path"), pid);
		else if (is(ev, "spawn") && !started_after(records, NULL, pimg_num(r, "child")))
			judge_unreported(j, pimg_str(r, "path"), pimg_num(r, "child"));
	}
}

static void judge_top(struct judge *j, const cJSON *records, pid_t top)
{
	char line[512];

	if (started_after(records, NULL, (long)top))
		return;
	preload_line(j->tail, line, sizeof line);
	if (line[0])
		note(j, R_PRELOAD, "preload failed: %s", line);
	else
		note(j, R_NOREPORT,
		     "the program sent no probe report (the probe was not "
		     "loaded: static executable, setuid program or LD_PRELOAD removed)");
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
		note(j, R_CONTAIN,
		     "the proc connector lost events (its buffer overflowed): processes that "
		     "escaped tracking cannot be excluded");
	if (cn->execs_truncated)
		note(j, R_CONTAIN, "the proc connector's record kept only the first %zu execs",
		     cn->nexecs);
	if (!(seen = calloc(n + 1, sizeof *seen))) {
		note(j, R_CONTAIN, "out of memory while matching the run's execs");
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
			note(j, R_ESCAPE, "%s (pid %ld) escaped process tracking (CLONE_UNTRACED)",
			     x->exe, x->pid);
		else if (!tracked && !started_after(records, NULL, x->nspid))
			judge_unreported(j, x->exe, x->pid);
	}
	free(seen);
}

/* A tracked run accepts the records of its own processes only (pids as the probe sees them). */
static void judge_foreign(struct judge *j, const cJSON *records, const struct ptrack *t)
{
	long *pids = calloc(2 * t->nprocs + 1, sizeof *pids);
	size_t n = 0, foreign = 0;
	long first = 0;
	const cJSON *r;

	if (!pids) {
		note(j, R_FOREIGN, "out of memory while matching the records' processes");
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
		note(j, R_FOREIGN,
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

		if ((j->e->allocator && k && is(k->name, j->e->allocator)) ||
		    (j->e->object && is(l->object, j->e->object)))
			continue;
		note(j, R_SECOND,
		     "second allocator loaded: %s in %s (pid %ld), expected %s only",
		     base(l->object), l->exe, l->pid,
		     j->e->allocator ? j->e->allocator : base(j->e->object));
	}
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

static void judge_contained(struct judge *j, const cJSON *records, const struct ptrack *t,
                            const struct contain *cn)
{
	if (cn && cn->not_emptied)
		note(j, R_CONTAIN, "the run's cgroup still held processes after they were killed");
	if (cn && cn->connector)
		judge_escapes(j, records, t, cn);
	if (t && t->mode == PTRACK_TRACED) {
		if (t->nprocs)
			judge_foreign(j, records, t);
		judge_libs(j, t);
	}
}

void probelog_judge(const cJSON *records, const struct probe_expect *e, pid_t top, const char *tail,
                    const struct ptrack *track, const struct contain *cn,
                    struct probe_verdict *v)
{
	static const int deterministic[R_COUNT] = {[R_PRELOAD] = 1, [R_STATIC] = 1, [R_SETID] = 1,
	                                           [R_OWN] = 1,     [R_OTHER] = 1,  [R_SECOND] = 1};
	struct judge j = {.e = e, .tail = tail};
	struct pimgs p;
	int tracked = track && track->mode == PTRACK_TRACED;

	memset(v, 0, sizeof *v);
	v->records = (size_t)cJSON_GetArraySize(records);
	ptrack_describe(track, v->tracking, sizeof v->tracking);
	if (pimgs_build(records, e, &p) != 0) {
		snprintf(v->reason, sizeof v->reason,
		         "out of memory while judging the probe records");
		return;
	}
	v->tracked = tracked;
	v->images = p.n;
	v->processes = tracked ? track->processes : p.pids;
	v->threads = tracked ? track->threads : 0;
	judge_images(&j, &p);
	judge_execs(&j, records);
	if (tracked)
		judge_tracked(&j, &p, track);
	judge_contained(&j, records, track, cn);
	if (e->configured)
		judge_unchecked(&j, &p);
	judge_top(&j, records, top);
	pimgs_free(&p);
	for (int k = 0; k < R_COUNT; k++)
		if (j.have[k]) {
			snprintf(v->reason, sizeof v->reason, "%s", j.reason[k]);
			v->deterministic = deterministic[k];
			return;
		}
	v->verified = 1;
}
