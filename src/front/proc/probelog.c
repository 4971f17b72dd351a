/* probelog.c - reading and judging the probe's per-run records. A run is verified when the first
 * process reported, every image the process tracker saw (or, without it, every exec'ed or spawned
 * program the probe recorded) reported, no LD_PRELOAD entry failed to load, every process image
 * ran the expected allocator for the whole malloc family, and (tracked) the run's CPU time is
 * accounted for by the tracked processes' (probejudge.c). */
#include "front/proc/proc.h"
#include "common/allocknown.h"
#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/jsonstrict.h"
#include "front/proc/elfscan.h"
#include "front/proc/probeimg.h"
#include "front/proc/probejudge.h"
#include "front/proc/ptrack.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t probelog_max_bytes(size_t processes)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t cap = pages > 0 && page > 0 ? (size_t)pages / 32 * (size_t)page : PROBELOG_MAX_BYTES;

	if (cap < PROBELOG_MAX_BYTES)
		cap = PROBELOG_MAX_BYTES;
	if (processes > (cap - PROBELOG_MAX_BYTES) / PROBELOG_BYTES_PER_PROCESS)
		return cap;
	return PROBELOG_MAX_BYTES + processes * PROBELOG_BYTES_PER_PROCESS;
}

int probelog_read_fd(int fd, const char *name, size_t max, cJSON **out, size_t *bad, char *err,
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
	if ((size_t)st.st_size > max)
		return errmsg_fail(err, errlen, "probe records exceed %.1f MiB (%zu bytes)",
		                   (double)max / (1 << 20), (size_t)st.st_size);
	cap = (size_t)st.st_size + 4096 < max + 1 ? (size_t)st.st_size + 4096
	                                                           : max + 1;
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
		if (n == cap && cap == max + 1) {
			free(text);
			return errmsg_fail(err, errlen, "probe records exceed %.1f MiB",
			                   (double)max / (1 << 20));
		}
		if (n == cap) {
			size_t ncap = 2 * cap < max + 1 ? 2 * cap : max + 1;
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
		if (cJSON_IsObject(r) && pjudge_is(pimg_str(r, "probe"), "allocab-probe/1") &&
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

int probelog_read(const char *path, size_t max, cJSON **out, size_t *bad, char *err,
                  size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc;

	*out = NULL;
	*bad = 0;
	if (fd < 0)
		return errmsg_fail(err, errlen, "probe records %s: %s", path,
		                   errno == ELOOP ? "a symbolic link" : strerror(errno));
	rc = probelog_read_fd(fd, path, max, out, bad, err, errlen);
	close(fd);
	return rc;
}

static int in_preload(const char *preload, const char *object)
{
	const char *b = pjudge_base(object);

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
		pjudge_note(j, R_CONFIG, "configuration not in force: %s=%s read back %s in %s (pid %ld)",
		     c->string ? c->string : "?", a, b, pjudge_base(pimg_str(r, "exe")),
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

		pjudge_preload_line(j->tail, line, sizeof line);
		if (line[0])
			pjudge_note(j, R_PRELOAD, "preload failed: %s", line);
		else
			pjudge_note(j, R_PRELOAD,
			     "preload failed: ld.so could not load %s in %s (pid %ld)",
			     cJSON_IsString(m) ? m->valuestring : "?", pjudge_base(exe), pid);
	}
	if (!exe_alloc && pjudge_facts(exe)->unscanned) {
		pjudge_note(j, R_OWN, "cannot tell whether %s links its own allocator: %s", exe,
		            pjudge_facts(exe)->unscanned);
		return;
	}
	if (!exe_alloc)
		exe_alloc = pjudge_facts(exe)->allocator;
	if (exe_alloc && !pjudge_is(exe_alloc, want)) {
		pjudge_note(j, R_OWN, "program links its own allocator (%s): %s", exe_alloc, exe);
		return;
	}
	if (exe_alloc && e->exe_counts)
		return;
	if ((!want || pjudge_is(alloc, want)) && (!e->object || pjudge_is(obj, e->object)))
		return;
	if (pjudge_is(alloc, "mixed")) {
		const cJSON *sv = cJSON_GetObjectItemCaseSensitive(r, "serves");
		pjudge_note(j, R_OTHER,
		     "malloc family split in %s (pid %ld): malloc from %s, free from %s", exe, pid,
		     pjudge_base(pimg_str(sv, "malloc")), pjudge_base(pimg_str(sv, "free")));
	} else if (pjudge_is(alloc, "executable")) {
		pjudge_note(j, R_OWN, "program links its own allocator (defines malloc): %s", exe);
	} else if (obj && alloc_known_by_object(obj) &&
	           !alloc_known_platform(alloc_known_by_object(obj)) &&
	           !in_preload(pimg_str(r, "preload"), obj)) {
		pjudge_note(j, R_OWN, "program links its own allocator (%s, %s): %s", alloc, pjudge_base(obj),
		     exe);
	} else {
		pjudge_note(j, R_OTHER, "other allocator serves malloc: %s in %s (pid %ld), expected %s",
		     pjudge_base(obj), exe, pid, want ? want : pjudge_base(e->object));
	}
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
		             (!pjudge_is(a[f].exe, b[k].exe) || (b[k].at >= 0 && a[f].at < b[k].at));
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
		pjudge_note(j, R_NOREPORT, "out of memory while matching the tracked processes");
	} else {
		for (size_t i = 0; i < t->nimages; i++)
			if (lost[i])
				pjudge_unreported(j, t->images[i].exe, t->images[i].pid);
	}
	if (t->images_truncated)
		pjudge_note(j, R_NOREPORT, "process tracking kept only the first %zu images of the run",
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
		pjudge_note(j, R_CONFIG, "out of memory while reading the configuration read-backs");
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
		pjudge_note(j, R_NOREPORT,
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

		if (pjudge_is(ev, "exec") && pjudge_started_after(records, r, pid) == 0)
			pjudge_unreported(j, pimg_str(r, "path"), pid);
		else if (pjudge_is(ev, "spawn") && !pjudge_started_after(records, NULL, pimg_num(r, "child")))
			pjudge_unreported(j, pimg_str(r, "path"), pimg_num(r, "child"));
	}
}

static void judge_top(struct judge *j, const cJSON *records, pid_t top)
{
	char line[512];

	if (pjudge_started_after(records, NULL, (long)top))
		return;
	pjudge_preload_line(j->tail, line, sizeof line);
	if (line[0])
		pjudge_note(j, R_PRELOAD, "preload failed: %s", line);
	else
		pjudge_note(j, R_NOREPORT,
		     "the program sent no probe report (the probe was not "
		     "loaded: static executable, setuid program or LD_PRELOAD removed)");
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
	pjudge_contained(&j, records, track, cn);
	pjudge_account(&j, track, cn, &v->account);
	if (e->configured)
		pjudge_unchecked(&j, &p);
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
