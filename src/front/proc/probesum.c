/* probesum.c - the "probe" object a run keeps in the results document (proc.h): the verdict,
 * the counts, and the images, cut to PROBELOG_LISTED with the ones that did the most work kept. */
#include "front/proc/probeimg.h"
#include "front/proc/proc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Images kept whatever their place: the ones with the most calls (with --count-calls), else the
 * most CPU time. */
#define KEEP_BUSIEST 8

static const char *const count_keys[] = {"malloc",         "free",          "calloc",   "realloc",
                                         "posix_memalign", "aligned_alloc", "memalign", "valloc",
                                         "pvalloc",        "bytes"};

static void copy_field(cJSON *to, const cJSON *from, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, k);

	if (v)
		cJSON_AddItemToObject(to, k, cJSON_Duplicate(v, 1));
}

static double work_of(const struct pimg *g, int by_calls)
{
	double w = by_calls ? g->calls : g->cpu_ns;

	return isnan(w) ? -1 : w;
}

/* Marks in keep[] the images to list: all when they fit, else the KEEP_BUSIEST busiest and the
 * first ones in order up to PROBELOG_LISTED. Returns how many. */
static size_t choose(const struct pimgs *p, char *keep)
{
	int by_calls = 0;
	size_t listed = 0;

	for (size_t i = 0; i < p->n; i++)
		by_calls |= !isnan(p->v[i].calls);
	for (size_t k = 0; k < KEEP_BUSIEST && p->n > PROBELOG_LISTED; k++) {
		size_t best = p->n;

		for (size_t i = 0; i < p->n; i++)
			if (!keep[i] && work_of(&p->v[i], by_calls) >= 0 &&
			    (best == p->n ||
			     work_of(&p->v[i], by_calls) > work_of(&p->v[best], by_calls)))
				best = i;
		if (best == p->n)
			break;
		keep[best] = 1;
		listed++;
	}
	for (size_t i = 0; i < p->n && listed < PROBELOG_LISTED; i++)
		if (!keep[i]) {
			keep[i] = 1;
			listed++;
		}
	return listed;
}

static void add_or_null(cJSON *o, const char *k, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, v);
}

/* The CPU time of every image (listed or not), user and system apart, and how many images it
 * covers: NULL when none reported both. */
static cJSON *cpu_total(const struct pimgs *p)
{
	double user = 0, sys = 0;
	size_t n = 0;
	cJSON *o;

	for (size_t i = 0; i < p->n; i++)
		if (!isnan(p->v[i].user_ns) && !isnan(p->v[i].sys_ns)) {
			user += p->v[i].user_ns;
			sys += p->v[i].sys_ns;
			n++;
		}
	if (!n || !(o = cJSON_CreateObject()))
		return NULL;
	cJSON_AddNumberToObject(o, "user_ns", user);
	cJSON_AddNumberToObject(o, "sys_ns", sys);
	cJSON_AddNumberToObject(o, "images", (double)n);
	return o;
}

static cJSON *image_json(const struct pimg *g)
{
	static const char *const fields[] = {"event",     "pid",     "ppid",   "exe",
	                                     "allocator", "version", "object", "exe_allocator"};
	cJSON *o = cJSON_CreateObject();
	const cJSON *counts = g->work ? cJSON_GetObjectItemCaseSensitive(g->work, "counts") : NULL;

	if (!o)
		return NULL;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		copy_field(o, g->first, fields[i]);
	cJSON_AddBoolToObject(o, "exited", g->exit != NULL);
	if (isnan(g->cpu_ns))
		cJSON_AddNullToObject(o, "cpu_ns");
	else
		cJSON_AddNumberToObject(o, "cpu_ns", g->cpu_ns);
	add_or_null(o, "user_ns", g->user_ns);
	add_or_null(o, "sys_ns", g->sys_ns);
	if (counts)
		cJSON_AddItemToObject(o, "counts", cJSON_Duplicate(counts, 1));
	if (g->exit) {
		copy_field(o, g->exit, "config");
		copy_field(o, g->exit, "rusage");
	}
	return o;
}

/* The sum over the processes that reached their exit record (an image that exec'd has none, so
 * each process counts once) of their "rusage", or NULL when none has one. */
static cJSON *rusage_total(const struct pimgs *p)
{
	static const char *const keys[] = {"minflt", "majflt", "nvcsw", "nivcsw", "user_ns",
	                                   "sys_ns"};
	double sum[sizeof keys / sizeof keys[0]] = {0};
	size_t n = 0;
	cJSON *o;

	for (size_t i = 0; i < p->n; i++) {
		const cJSON *u =
		    p->v[i].exit ? cJSON_GetObjectItemCaseSensitive(p->v[i].exit, "rusage") : NULL;
		if (!cJSON_IsObject(u))
			continue;
		n++;
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(u, keys[k]);
			sum[k] += cJSON_IsNumber(v) ? v->valuedouble : 0;
		}
	}
	if (!n || !(o = cJSON_CreateObject()))
		return NULL;
	cJSON_AddNumberToObject(o, "processes", (double)n);
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		cJSON_AddNumberToObject(o, keys[k], sum[k]);
	return o;
}

/* The sum of every image's counts, or NULL when no image has any. */
static cJSON *counts_total(const struct pimgs *p)
{
	double sum[sizeof count_keys / sizeof count_keys[0]] = {0};
	int any = 0;
	cJSON *o;

	for (size_t i = 0; i < p->n; i++) {
		const cJSON *c =
		    p->v[i].work ? cJSON_GetObjectItemCaseSensitive(p->v[i].work, "counts") : NULL;

		if (!cJSON_IsObject(c))
			continue;
		any = 1;
		for (size_t k = 0; k < sizeof count_keys / sizeof count_keys[0]; k++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, count_keys[k]);
			sum[k] += cJSON_IsNumber(v) ? v->valuedouble : 0;
		}
	}
	if (!any || !(o = cJSON_CreateObject()))
		return NULL;
	for (size_t k = 0; k < sizeof count_keys / sizeof count_keys[0]; k++)
		cJSON_AddNumberToObject(o, count_keys[k], sum[k]);
	return o;
}

/* "accounting": the kernel's CPU time of the run against the tracked processes' (null when
 * unchecked). */
static void add_account(cJSON *o, const struct probe_account *a)
{
	cJSON *x;

	if (!a->checked || !(x = cJSON_AddObjectToObject(o, "accounting"))) {
		cJSON_AddNullToObject(o, "accounting");
		return;
	}
	cJSON_AddStringToObject(x, "charged_by", a->charged_by);
	cJSON_AddNumberToObject(x, "charged_ns", (double)a->charged_ns);
	cJSON_AddNumberToObject(x, "accounted_ns", (double)a->accounted_ns);
	cJSON_AddNumberToObject(x, "unaccounted_ns", (double)(a->charged_ns - a->accounted_ns));
	cJSON_AddNumberToObject(x, "tolerance_ns", (double)a->tolerance_ns);
	cJSON_AddNumberToObject(x, "processes", (double)a->processes);
	cJSON_AddNumberToObject(x, "unread", (double)a->unread);
}

static void add_verdict(cJSON *o, const struct probe_verdict *v)
{
	cJSON_AddBoolToObject(o, "verified", v->verified);
	if (v->verified)
		cJSON_AddNullToObject(o, "reason");
	else
		cJSON_AddStringToObject(o, "reason", v->reason);
	cJSON_AddBoolToObject(o, "deterministic", !v->verified && v->deterministic);
	cJSON_AddStringToObject(o, "tracking", v->tracking);
	cJSON_AddNumberToObject(o, "process_count", (double)v->processes);
	if (v->tracked)
		cJSON_AddNumberToObject(o, "thread_count", (double)v->threads);
	else
		cJSON_AddNullToObject(o, "thread_count");
	cJSON_AddNumberToObject(o, "image_count", (double)v->images);
	cJSON_AddNumberToObject(o, "record_count", (double)v->records);
	add_account(o, &v->account);
}

cJSON *probelog_summary(const cJSON *records, const struct probe_expect *e,
                        const struct probe_verdict *v)
{
	cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray(), *total;
	struct pimgs p;
	char *keep = NULL;
	size_t listed = 0;

	if (!o || !list || pimgs_build(records, e, &p) != 0) {
		cJSON_Delete(o);
		cJSON_Delete(list);
		return NULL;
	}
	if (!(keep = calloc(p.n + 1, 1))) {
		pimgs_free(&p);
		cJSON_Delete(o);
		cJSON_Delete(list);
		return NULL;
	}
	add_verdict(o, v);
	if ((total = counts_total(&p)))
		cJSON_AddItemToObject(o, "counts_total", total);
	if ((total = cpu_total(&p)))
		cJSON_AddItemToObject(o, "cpu_total", total);
	if ((total = rusage_total(&p)))
		cJSON_AddItemToObject(o, "rusage_total", total);
	listed = choose(&p, keep);
	for (size_t i = 0; i < p.n; i++) {
		cJSON *g = keep[i] ? image_json(&p.v[i]) : NULL;

		if (g)
			cJSON_AddItemToArray(list, g);
	}
	cJSON_AddBoolToObject(o, "processes_truncated", p.n > listed);
	cJSON_AddNumberToObject(o, "processes_omitted", (double)(p.n - listed));
	cJSON_AddItemToObject(o, "processes", list);
	free(keep);
	pimgs_free(&p);
	return o;
}
