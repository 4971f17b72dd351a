/* probeimg.c - a run's probe records grouped by process image (probeimg.h). */
#include "front/proc/probeimg.h"
#include "front/proc/proc.h"

#include "common/u64map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *pimg_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long pimg_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

static double fnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The image pid runs now in m (pid -> index + 1; 0: none), added as none when m lacks it. m holds
 * room for every pid a build adds, so an insertion neither fails nor moves another value. */
static uint64_t *slot(struct u64map *m, long pid)
{
	uint64_t *v = u64map_get(m, (uint64_t)pid);

	if (!v) {
		u64map_put(m, (uint64_t)pid, 0);
		v = u64map_get(m, (uint64_t)pid);
	}
	return v;
}

static int is(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* The calls of a counts object: every function of the malloc family. */
static double calls_of(const cJSON *counts)
{
	static const char *const fns[] = {"malloc",   "free",           "calloc",
	                                  "realloc",  "posix_memalign", "aligned_alloc",
	                                  "memalign", "valloc",         "pvalloc"};
	double n = 0;

	if (!cJSON_IsObject(counts))
		return NAN;
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		double v = fnum(counts, fns[i]);
		n += isnan(v) ? 0 : v;
	}
	return n;
}

/* The growth of the clock k from g's first record to r (NAN when either lacks it). An exit
 * record holds the user and system times once, in its rusage; one written before the probe
 * wrote them once holds them beside it too, the same times. */
static double grown(const struct pimg *g, const cJSON *r, const char *k)
{
	double a = fnum(g->first, k), b = fnum(r, k);

	if (isnan(b))
		b = fnum(cJSON_GetObjectItemCaseSensitive(r, "rusage"), k);

	return !isnan(a) && !isnan(b) && b >= a ? b - a : NAN;
}

/* Attaches an exec or exit record r to image g: its work so far, and the CPU time it used. */
static void attach(struct pimg *g, const cJSON *r)
{
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(r, "counts");
	double cpu = grown(g, r, "cpu_ns"), user = grown(g, r, "user_ns"),
	       sys = grown(g, r, "sys_ns");

	if (is(pimg_str(r, "event"), "exit"))
		g->exit = r;
	else
		g->replaced = 1;
	if (counts) {
		g->work = r;
		g->calls = calls_of(counts);
	}
	if (!isnan(cpu))
		g->cpu_ns = cpu;
	if (!isnan(user) && !isnan(sys)) {
		g->user_ns = user;
		g->sys_ns = sys;
	}
}

/* A new image of the pid of record r; prev is the pid's image so far (or NULL). */
static void open_image(struct pimgs *p, const cJSON *r, struct pimg *prev, uint64_t *cur,
                       const struct probe_expect *e, const struct u64map *m)
{
	struct pimg *g = &p->v[p->n];
	long pid = pimg_num(r, "pid"), ppid = pimg_num(r, "ppid");
	int started = is(pimg_str(r, "event"), "start");
	const uint64_t *parent;

	*g = (struct pimg){.first = r,
	                   .pid = pid,
	                   .exe = pimg_str(r, "exe"),
	                   .started = started,
	                   .cpu_ns = NAN,
	                   .user_ns = NAN,
	                   .sys_ns = NAN,
	                   .calls = NAN};
	/* An exec keeps the process's CPU clock: the image before it ran until this one started. */
	if (prev && started && !prev->exit && pimg_num(prev->first, "ppid") == ppid)
		attach(prev, r);
	if (e && e->launcher > 0) {
		if (started)
			g->exempt = pid == e->launcher && !prev && is(g->exe, e->launcher_exe);
		else if (ppid > 0 && (parent = u64map_get(m, (uint64_t)ppid)) && *parent)
			g->exempt = p->v[*parent - 1].exempt;
	}
	*cur = ++p->n;
}

int pimgs_build(const cJSON *records, const struct probe_expect *e, struct pimgs *out)
{
	size_t n = (size_t)cJSON_GetArraySize(records);
	struct u64map m = {0};
	const cJSON *r;

	memset(out, 0, sizeof *out);
	if (u64map_reserve(&m, n + 1) != 0 || !(out->v = calloc(n + 1, sizeof *out->v))) {
		u64map_free(&m);
		return -1;
	}
	cJSON_ArrayForEach(r, records)
	{
		const char *ev = pimg_str(r, "event");
		long pid = pimg_num(r, "pid");
		uint64_t *cur;
		struct pimg *g;

		if (pid <= 0)
			continue;
		cur = slot(&m, pid);
		g = *cur ? &out->v[*cur - 1] : NULL;
		if (is(ev, "start") || is(ev, "fork")) {
			out->pids += !*cur;
			open_image(out, r, g, cur, e, &m);
		} else if (g && (is(ev, "exit") || is(ev, "exec"))) {
			attach(g, r);
		}
	}
	u64map_free(&m);
	return 0;
}

void pimgs_free(struct pimgs *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}

int pimg_started_after(const cJSON *records, const cJSON *r, long pid)
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
