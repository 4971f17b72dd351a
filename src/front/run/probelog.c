/* probelog.c - reading and judging the probe's per-run records. A run is verified when the first
 * process reported, every exec'ed or spawned program reported, no LD_PRELOAD entry failed to
 * load, and every process image ran the expected allocator for the whole malloc family. */
#include "front/run/probelog.h"
#include "common/allocknown.h"
#include "common/atomicio.h"
#include "common/errmsg.h"
#include "front/run/elfscan.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LISTED  64
#define FACTS_CACHE 16

enum reason_kind { R_PRELOAD, R_STATIC, R_SETID, R_NOREPORT, R_OWN, R_OTHER, R_CONFIG, R_COUNT };

struct judge {
	const struct probe_expect *e;
	const char *tail;
	int have[R_COUNT];
	char reason[R_COUNT][768];
};

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static long num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

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

int probelog_read(const char *path, cJSON **out, size_t *bad, char *err, size_t errlen)
{
	struct stat st;
	size_t n = 0;
	char *text, *p, *nl;

	*out = NULL;
	*bad = 0;
	if (stat(path, &st) == 0 && (size_t)st.st_size > PROBELOG_MAX_BYTES)
		return errmsg_fail(err, errlen, "probe records exceed %u MiB",
		                   PROBELOG_MAX_BYTES >> 20);
	if (!(text = read_file(path, &n)))
		return errmsg_fail(err, errlen, "probe records %s: %s", path, strerror(errno));
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
		if (cJSON_IsObject(r) && is(str(r, "probe"), "allocab-probe/1"))
			cJSON_AddItemToArray(*out, r);
		else {
			cJSON_Delete(r);
			(*bad)++;
		}
	}
	free(text);
	return 0;
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
 * the one requested is not in force; one that could not be read back proves nothing either way. */
static void judge_config(struct judge *j, const cJSON *r)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "config"))
	{
		const cJSON *want = cJSON_GetObjectItemCaseSensitive(c, "requested");
		const cJSON *got = cJSON_GetObjectItemCaseSensitive(c, "in_force");
		char a[64], b[64];

		if (!got || (want && cJSON_Compare(want, got, 1)))
			continue;
		value_text(want, a, sizeof a);
		value_text(got, b, sizeof b);
		note(j, R_CONFIG, "configuration not in force: %s=%s read back %s in %s (pid %ld)",
		     c->string ? c->string : "?", a, b, base(str(r, "exe")), num(r, "pid"));
	}
}

static void judge_image(struct judge *j, const cJSON *r)
{
	const struct probe_expect *e = j->e;
	const char *exe = str(r, "exe"), *alloc = str(r, "allocator"), *obj = str(r, "object");
	const char *exe_alloc = str(r, "exe_allocator"), *want = e->allocator;
	const cJSON *missing = cJSON_GetObjectItemCaseSensitive(r, "preload_missing");
	long pid = num(r, "pid");
	char line[512];

	if (e->launcher > 0 && is(exe, e->launcher_exe) &&
	    (pid == e->launcher || num(r, "ppid") == e->launcher))
		return;
	judge_config(j, r);
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
		     base(str(sv, "malloc")), base(str(sv, "free")));
	} else if (is(alloc, "executable")) {
		note(j, R_OWN, "program links its own allocator (defines malloc): %s", exe);
	} else if (obj && alloc_known_by_object(obj) && !is(alloc, "system") &&
	           !in_preload(str(r, "preload"), obj)) {
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
		if (num(x, "pid") != pid)
			continue;
		if (is(str(x, "event"), "start"))
			return 1;
		if (r && is(str(x, "event"), "exec_failed"))
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

static void judge_unreported(struct judge *j, const char *path)
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
		     "static executable %s sent no probe report (LD_PRELOAD cannot "
		     "reach it)",
		     exe);
	else if (f->setid)
		note(j, R_SETID, "setuid program %s runs without LD_PRELOAD (secure execution)",
		     exe);
	else
		note(j, R_NOREPORT, "%s sent no probe report", exe ? exe : "a program");
}

void probelog_judge(const cJSON *records, const struct probe_expect *e, pid_t top, const char *tail,
                    struct probe_verdict *v)
{
	struct judge j = {.e = e, .tail = tail};
	const cJSON *r;
	char line[512];
	long pids[256];
	size_t npids = 0;

	memset(v, 0, sizeof *v);
	v->records = (size_t)cJSON_GetArraySize(records);
	cJSON_ArrayForEach(r, records)
	{
		const char *ev = str(r, "event");
		long pid = num(r, "pid");

		if (is(ev, "start") || is(ev, "fork") || is(ev, "exit")) {
			size_t i = 0;
			while (i < npids && pids[i] != pid)
				i++;
			if (i == npids && !is(ev, "exit")) {
				if (npids < sizeof pids / sizeof pids[0])
					pids[npids++] = pid;
				v->processes++;
			}
			judge_image(&j, r);
		} else if (is(ev, "exec") && started_after(records, r, pid) == 0) {
			judge_unreported(&j, str(r, "path"));
		} else if (is(ev, "spawn") && !started_after(records, NULL, num(r, "child"))) {
			judge_unreported(&j, str(r, "path"));
		}
	}
	if (!started_after(records, NULL, (long)top)) {
		preload_line(tail, line, sizeof line);
		if (line[0])
			note(&j, R_PRELOAD, "preload failed: %s", line);
		else
			note(&j, R_NOREPORT,
			     "the program sent no probe report (the probe was not "
			     "loaded: static executable, setuid program or LD_PRELOAD removed)");
	}
	for (int k = 0; k < R_COUNT; k++)
		if (j.have[k]) {
			snprintf(v->reason, sizeof v->reason, "%s", j.reason[k]);
			return;
		}
	v->verified = 1;
}

static void copy_field(cJSON *to, const cJSON *from, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, k);

	if (v)
		cJSON_AddItemToObject(to, k, cJSON_Duplicate(v, 1));
}

cJSON *probelog_summary(const cJSON *records, const struct probe_verdict *v)
{
	static const char *const fields[] = {"event",     "pid",     "ppid",   "exe",
	                                     "allocator", "version", "object", "exe_allocator"};
	cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
	const cJSON *r;
	size_t listed = 0;

	if (!o || !list) {
		cJSON_Delete(o);
		cJSON_Delete(list);
		return NULL;
	}
	cJSON_AddBoolToObject(o, "verified", v->verified);
	if (v->verified)
		cJSON_AddNullToObject(o, "reason");
	else
		cJSON_AddStringToObject(o, "reason", v->reason);
	cJSON_AddNumberToObject(o, "process_count", (double)v->processes);
	cJSON_AddNumberToObject(o, "record_count", (double)v->records);
	cJSON_ArrayForEach(r, records)
	{
		const char *ev = str(r, "event");
		cJSON *p, *last = NULL, *x;

		if (is(ev, "exit")) {
			cJSON_ArrayForEach(x, list) if (num(x, "pid") == num(r, "pid")) last = x;
			if (last) {
				cJSON_ReplaceItemInObjectCaseSensitive(last, "exited",
				                                       cJSON_CreateTrue());
				copy_field(last, r, "counts");
				copy_field(last, r, "config");
			}
			continue;
		}
		if (!(is(ev, "start") || is(ev, "fork")) || listed >= MAX_LISTED)
			continue;
		if (!(p = cJSON_CreateObject()))
			break;
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
			copy_field(p, r, fields[i]);
		cJSON_AddFalseToObject(p, "exited");
		cJSON_AddItemToArray(list, p);
		listed++;
	}
	cJSON_AddBoolToObject(o, "processes_truncated", v->processes > listed);
	cJSON_AddItemToObject(o, "processes", list);
	return o;
}
