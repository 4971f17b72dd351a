/* stat.c - statistics of a trace for `allocab trace info` (trace.h, tracestat_*). */
#include "trace/trace.h"

#include "common/errmsg.h"
#include "common/u64map.h"
#include "trace/statmarks.h"

#include <stdlib.h>
#include <string.h>

static int is_alloc(unsigned op)
{
	return op != TRACE_OP_FREE;
}

/* Time order; at equal times allocations first (a block is allocated before it is released). */
static int by_time(const void *a, const void *b)
{
	const struct trace_rec *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return (x->op == TRACE_OP_FREE) - (y->op == TRACE_OP_FREE);
}

static int bucket(uint64_t size)
{
	int k = 0;

	while (size && k < TS_BUCKETS - 1) {
		size >>= 1;
		k++;
	}
	return k;
}

static void count_threads(struct ts_proc *s, const struct trace_rec *ev, size_t n)
{
	uint32_t *t;
	size_t nth;

	if (trace_thread_list(ev, n, &t, &nth) == 0)
		s->threads = nth;
	free(t);
}

/* a + b, saturating: a hostile trace's sizes may sum past 2^64. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Walks p's events in time order into s: operations, sizes, releases and the peak live set. */
static int walk_events(struct ts_proc *s, const struct trace_proc_events *p, char *err,
                       size_t errlen)
{
	struct u64map l = {0}; /* live object id -> the index of the event that allocated it */
	uint64_t live = 0, objects = 0, at;

	if (u64map_reserve(&l, p->n) != 0)
		return errmsg_fail(err, errlen, "out of memory for %zu live objects", p->n);
	for (size_t i = 0; i < p->n; i++) {
		const struct trace_rec *e = &p->ev[i];
		uint64_t gone = e->op == TRACE_OP_FREE ? e->id : e->old_id;

		s->ops[e->op]++;
		if (e->op == TRACE_OP_FREE && !e->id)
			s->free_null++;
		if (gone && u64map_take(&l, gone, &at)) {
			uint64_t sz = p->ev[at].size;

			s->releases++;
			s->cross_releases += p->ev[at].thread != e->thread;
			live = live > sz ? live - sz : 0;
			objects--;
		} else if (gone) {
			s->unmatched++;
		}
		if (!is_alloc(e->op))
			continue;
		s->hist[bucket(e->size)]++;
		s->bytes_allocated = add_sat(s->bytes_allocated, e->size);
		if (u64map_get(&l, e->id)) {
			u64map_free(&l);
			return errmsg_fail(err, errlen,
			                   "corrupt: process %zu allocates object %llu twice",
			                   p->index, (unsigned long long)e->id);
		}
		if (u64map_put(&l, e->id, i) < 0) {
			u64map_free(&l);
			return errmsg_fail(err, errlen, "out of memory for %zu live objects", p->n);
		}
		live = add_sat(live, e->size);
		objects++;
		if (live > s->peak_live_bytes)
			s->peak_live_bytes = live;
		if (objects > s->peak_live_objects)
			s->peak_live_objects = objects;
	}
	u64map_free(&l);
	return 0;
}

static int add_process(struct trace_proc_events *p, void *arg, char *err, size_t errlen)
{
	struct ts_result *r = arg;
	struct ts_proc *s, *np = realloc(r->procs, (r->n + 1) * sizeof *np);

	if (!np)
		return errmsg_fail(err, errlen, "out of memory");
	r->procs = np;
	s = memset(&np[r->n++], 0, sizeof *s);
	r->version = p->version;
	s->info = p->info;
	s->index = p->index;
	s->complete = p->complete;
	s->has_end = p->has_end;
	memcpy(s->end, p->end, sizeof s->end);
	s->events = p->n;
	count_threads(s, p->ev, p->n);
	qsort(p->ev, p->n, sizeof *p->ev, by_time);
	if (walk_events(s, p, err, errlen) != 0)
		return -1;
	if (ts_marks_take(s, p, p->ev, p->n) != 0)
		return errmsg_fail(err, errlen, "out of memory");
	s->duration_ns = p->n ? p->ev[p->n - 1].ts_ns : 0;
	if (p->has_end && p->end[TRACE_END_DURATION_NS] > s->duration_ns)
		s->duration_ns = p->end[TRACE_END_DURATION_NS];
	return 0;
}

int tracestat_file(const char *path, struct ts_result *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (trace_each_process(path, &(struct trace_visit){TRACE_MAX_PROC_EVENTS, add_process, out},
	                       err, errlen) != 0) {
		tracestat_free(out);
		return -1;
	}
	return 0;
}

void tracestat_free(struct ts_result *r)
{
	for (size_t i = 0; i < r->n; i++)
		ts_marks_free(&r->procs[i]);
	free(r->procs);
	r->procs = NULL;
	r->n = 0;
}

static uint64_t bucket_low(int k)
{
	return k == 0 ? 0 : (uint64_t)1 << (k - 1);
}

static double cross_share(const struct ts_proc *s)
{
	return s->releases ? (double)s->cross_releases / (double)s->releases : 0.0;
}

/* The end block's counters as recorder{} (null without an end block), with how the stream ended
 * and what it lacks (loss: null when nothing). */
static void recorder_json(cJSON *o, const struct ts_proc *s)
{
	static const char *const end_names[TRACE_END_NCOUNTERS] = {"events",
	                                                           "threads",
	                                                           "bootstrap_allocations",
	                                                           "foreign_frees",
	                                                           "failed_allocations",
	                                                           "duration_ns",
	                                                           "dropped_events",
	                                                           "usable_size_calls",
	                                                           "how",
	                                                           "write_errno",
	                                                           "torn_bytes",
	                                                           "misordered_allocations"};
	cJSON *c = cJSON_AddObjectToObject(o, "recorder");
	char why[256];

	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		if (!s->has_end)
			cJSON_AddNullToObject(c, end_names[k]);
		else if (k == TRACE_END_HOW)
			cJSON_AddStringToObject(c, end_names[k], trace_how_name(s->end[k]));
		else
			cJSON_AddNumberToObject(c, end_names[k], (double)s->end[k]);
	if (trace_loss(s->has_end, s->end, why, sizeof why))
		cJSON_AddStringToObject(o, "loss", why);
	else
		cJSON_AddNullToObject(o, "loss");
}

static cJSON *proc_json(const struct ts_proc *s)
{
	cJSON *o = cJSON_CreateObject(), *ops, *h;

	cJSON_AddNumberToObject(o, "index", (double)s->index);
	cJSON_AddNumberToObject(o, "pid", (double)s->info.pid);
	cJSON_AddNumberToObject(o, "ppid", (double)s->info.ppid);
	cJSON_AddStringToObject(o, "exe", s->info.exe);
	cJSON_AddStringToObject(o, "args", s->info.args);
	cJSON_AddBoolToObject(o, "complete", s->complete);
	cJSON_AddNumberToObject(o, "threads", (double)s->threads);
	cJSON_AddNumberToObject(o, "events", (double)s->events);
	ops = cJSON_AddObjectToObject(o, "ops");
	for (unsigned k = 1; k < TRACE_OP_COUNT; k++)
		cJSON_AddNumberToObject(ops, trace_op_name(k), (double)s->ops[k]);
	cJSON_AddNumberToObject(o, "free_null", (double)s->free_null);
	cJSON_AddNumberToObject(o, "releases", (double)s->releases);
	cJSON_AddNumberToObject(o, "cross_thread_releases", (double)s->cross_releases);
	cJSON_AddNumberToObject(o, "cross_thread_share", cross_share(s));
	cJSON_AddNumberToObject(o, "unmatched_releases", (double)s->unmatched);
	cJSON_AddNumberToObject(o, "bytes_allocated", (double)s->bytes_allocated);
	cJSON_AddNumberToObject(o, "peak_live_bytes", (double)s->peak_live_bytes);
	cJSON_AddNumberToObject(o, "peak_live_objects", (double)s->peak_live_objects);
	cJSON_AddNumberToObject(o, "duration_ns", (double)s->duration_ns);
	h = cJSON_AddArrayToObject(o, "size_histogram");
	for (int k = 0; k < TS_BUCKETS; k++) {
		cJSON *b;
		if (!s->hist[k])
			continue;
		b = cJSON_CreateObject();
		cJSON_AddNumberToObject(b, "min_bytes", (double)bucket_low(k));
		cJSON_AddNumberToObject(b, "count", (double)s->hist[k]);
		cJSON_AddItemToArray(h, b);
	}
	recorder_json(o, s);
	ts_marks_json(o, s);
	return o;
}

cJSON *tracestat_json(const struct ts_result *r, const char *path)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	uint64_t ops[TRACE_OP_COUNT] = {0}, ev = 0;

	cJSON_AddStringToObject(root, "schema", "allocab-trace-info/1");
	cJSON_AddStringToObject(root, "trace", path);
	cJSON_AddNumberToObject(root, "format_version", r->version);
	cJSON_AddNumberToObject(root, "processes", (double)r->n);
	arr = cJSON_AddArrayToObject(root, "process");
	for (size_t i = 0; i < r->n; i++) {
		cJSON_AddItemToArray(arr, proc_json(&r->procs[i]));
		ev += r->procs[i].events;
		for (unsigned k = 1; k < TRACE_OP_COUNT; k++)
			ops[k] += r->procs[i].ops[k];
	}
	cJSON_AddNumberToObject(root, "events", (double)ev);
	arr = cJSON_AddObjectToObject(root, "ops");
	for (unsigned k = 1; k < TRACE_OP_COUNT; k++)
		cJSON_AddNumberToObject(arr, trace_op_name(k), (double)ops[k]);
	return root;
}

static void print_proc(const struct ts_proc *s, FILE *f)
{
	char why[256];
	const char *loss = trace_loss(s->has_end, s->end, why, sizeof why);

	fprintf(f, "process %zu: pid %llu (parent %llu), ended: %s\n  %s\n", s->index,
	        (unsigned long long)s->info.pid, (unsigned long long)s->info.ppid,
	        s->has_end ? trace_how_name(s->end[TRACE_END_HOW]) : "no end record",
	        *s->info.args ? s->info.args : s->info.exe);
	if (loss)
		fprintf(f, "  incomplete: %s\n", loss);
	fprintf(f, "  threads %llu, events %llu, duration %.3f s\n", (unsigned long long)s->threads,
	        (unsigned long long)s->events, (double)s->duration_ns / 1e9);
	fprintf(f, "  ops:");
	for (unsigned k = 1; k < TRACE_OP_COUNT; k++)
		if (s->ops[k])
			fprintf(f, " %s %llu", trace_op_name(k), (unsigned long long)s->ops[k]);
	fprintf(f, " (free(NULL) %llu)\n", (unsigned long long)s->free_null);
	fprintf(f, "  peak live %llu bytes in %llu objects; %llu bytes requested in all\n",
	        (unsigned long long)s->peak_live_bytes, (unsigned long long)s->peak_live_objects,
	        (unsigned long long)s->bytes_allocated);
	fprintf(f, "  cross-thread frees %.1f%% (%llu of %llu); unmatched frees %llu",
	        100 * cross_share(s), (unsigned long long)s->cross_releases,
	        (unsigned long long)s->releases, (unsigned long long)s->unmatched);
	if (s->has_end)
		fprintf(f, "; recorder: %llu bootstrap, %llu foreign frees, %llu dropped",
		        (unsigned long long)s->end[TRACE_END_BOOTSTRAP],
		        (unsigned long long)s->end[TRACE_END_FOREIGN_FREES],
		        (unsigned long long)s->end[TRACE_END_DROPPED]);
	fprintf(f, "\n  sizes:");
	for (int k = 0; k < TS_BUCKETS; k++)
		if (s->hist[k])
			fprintf(f, " >=%llu:%llu", (unsigned long long)bucket_low(k),
			        (unsigned long long)s->hist[k]);
	fprintf(f, "\n");
	ts_marks_print(s, f);
}

/* Most events first; the earlier process on a tie. */
static int by_work(const void *a, const void *b)
{
	const struct ts_proc *x = *(const struct ts_proc *const *)a,
	                     *y = *(const struct ts_proc *const *)b;

	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* One line on the processes that are not shown: how many, their events, how many incomplete. */
static void print_rest(const struct ts_proc *const *by, size_t from, size_t n, FILE *f)
{
	uint64_t ev = 0, incomplete = 0;

	for (size_t i = from; i < n; i++) {
		ev += by[i]->events;
		incomplete += !by[i]->complete;
	}
	fprintf(f,
	        "... and %zu more processes with %llu events in all (at most %llu each), %llu of "
	        "them incomplete: --all shows each, --json lists every one\n",
	        n - from, (unsigned long long)ev, (unsigned long long)by[from]->events,
	        (unsigned long long)incomplete);
}

void tracestat_print(const struct ts_result *r, const char *path, int all, FILE *f)
{
	const struct ts_proc **by = malloc((r->n ? r->n : 1) * sizeof *by);
	size_t show = all || r->n <= TS_SHOW + 1 ? r->n : TS_SHOW, incomplete = 0;
	uint64_t ev = 0;

	for (size_t i = 0; i < r->n; i++) {
		ev += r->procs[i].events;
		incomplete += !r->procs[i].complete;
	}
	fprintf(f, "%s: allocab trace version %u, %zu process%s (%zu incomplete), %llu event%s%s\n",
	        path, r->version, r->n, r->n == 1 ? "" : "es", incomplete, (unsigned long long)ev,
	        ev == 1 ? "" : "s", r->n > 1 ? "; the busiest first" : "");
	if (!by) {
		for (size_t i = 0; i < r->n; i++)
			print_proc(&r->procs[i], f);
		return;
	}
	for (size_t i = 0; i < r->n; i++)
		by[i] = &r->procs[i];
	qsort(by, r->n, sizeof *by, by_work);
	for (size_t i = 0; i < show; i++)
		print_proc(by[i], f);
	if (show < r->n)
		print_rest(by, show, r->n, f);
	free(by);
}
