/* replay_load.c - loading and checking a recorded process for the replay workload
 * (replay_load.h). All of it happens before the timed region. */
#include "workloads/lib/replay_load.h"

#include "common/errmsg.h"
#include "trace/trace.h"
#include "common/u64map.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pick {
	uint64_t pid;
	unsigned flags;
	struct trace_proc_events best;
	int have;
};

static void drop(struct pick *k)
{
	free(k->best.ev);
	k->best.ev = NULL;
	trace_marks_free(&k->best.marks);
}

static int pick_process(struct trace_proc_events *p, void *arg, char *err, size_t errlen)
{
	struct pick *k = arg;

	(void)err;
	(void)errlen;
	if (k->pid && p->info.pid != k->pid)
		return 0;
	if (k->have && p->n <= k->best.n)
		return 0;
	drop(k);
	k->best = *p;
	k->have = 1;
	p->ev = NULL;
	memset(&p->marks, 0, sizeof p->marks);
	return 0;
}

size_t rp_thread_index(const uint32_t *t, size_t nth, uint32_t idx)
{
	size_t lo = 0, hi = nth;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (t[mid] <= idx)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

struct build {
	struct rp_trace *t;
	struct u64map map;       /* trace id -> dense object number */
	struct rp_op **alloc_at; /* by object: its allocating op */
	uint32_t *alloc_th;      /* by object: its allocating thread */
	uint64_t *size;          /* by object */
	unsigned char *released; /* by object */
};

static int is_alloc(unsigned op)
{
	return op != TRACE_OP_FREE;
}

/* Whether an aligned call's alignment is one no allocator must accept (posix_memalign: a power of
 * two multiple of sizeof(void *); aligned_alloc, memalign: a power of two). The recorder writes
 * only calls that succeeded, so such an alignment comes from a damaged or made-up trace. */
static int bad_alignment(const struct trace_rec *e)
{
	int pow2 = e->align && !(e->align & (e->align - 1));

	switch (e->op) {
	case TRACE_OP_POSIX_MEMALIGN:
		return !pow2 || e->align < sizeof(void *);
	case TRACE_OP_ALIGNED_ALLOC:
	case TRACE_OP_MEMALIGN:
		return !pow2;
	default:
		return 0;
	}
}

static int build_ops(struct build *b, const struct trace_rec *ev, size_t n, const uint32_t *tl,
                     char *err, size_t errlen)
{
	struct rp_trace *t = b->t;
	size_t *fill = calloc(t->nth, sizeof *fill);
	uint64_t *last_ts = calloc(t->nth, sizeof *last_ts);

	if (!fill || !last_ts) {
		free(fill);
		free(last_ts);
		return -2;
	}
	for (size_t i = 0; i < n; i++) {
		const struct trace_rec *e = &ev[i];
		size_t th = rp_thread_index(tl, t->nth, e->thread);
		struct rp_op *o = &t->th[th].ops[fill[th]++];
		uint64_t dt = fill[th] > 1 && e->ts_ns > last_ts[th] ? e->ts_ns - last_ts[th] : 0;

		last_ts[th] = e->ts_ns;
		*o = (struct rp_op){.size = e->size,
		                    .align_log2 = e->align ? (uint8_t)__builtin_ctz(e->align) : 0,
		                    .op = e->op,
		                    .gap_ns = dt > 1000000000u ? 1000000000u : (uint32_t)dt};
		if (bad_alignment(e)) {
			free(fill);
			free(last_ts);
			return errmsg_fail(
			    err, errlen, "corrupt: thread %u calls %s with alignment %u, %s",
			    e->thread, trace_op_name(e->op), e->align,
			    e->op == TRACE_OP_POSIX_MEMALIGN ? "not a power of two multiple of 8"
			                                     : "not a power of two");
		}
		if (is_alloc(e->op)) {
			if (u64map_get(&b->map, e->id)) {
				free(fill);
				free(last_ts);
				return errmsg_fail(err, errlen,
				                   "corrupt: object %llu is allocated twice",
				                   (unsigned long long)e->id);
			}
			/* Cannot fail: the map holds room for every allocation. */
			u64map_put(&b->map, e->id, o->obj = ++t->nobj);
			b->alloc_at[o->obj] = o;
			b->alloc_th[o->obj] = (uint32_t)th;
			b->size[o->obj] = e->size;
		}
	}
	free(fill);
	free(last_ts);
	return 0;
}

/* Second pass: every release names its object, waits if another thread allocates it. */
static int link_releases(struct build *b, const struct trace_rec *ev, size_t n, const uint32_t *tl,
                         char *err, size_t errlen)
{
	struct rp_trace *t = b->t;
	size_t *pos = calloc(t->nth, sizeof *pos);

	if (!pos)
		return -2;
	for (size_t i = 0; i < n; i++) {
		const struct trace_rec *e = &ev[i];
		size_t th = rp_thread_index(tl, t->nth, e->thread);
		struct rp_op *o = &t->th[th].ops[pos[th]++];
		uint64_t gone = e->op == TRACE_OP_FREE ? e->id : e->old_id;
		const uint64_t *at;
		uint32_t obj;

		if (!gone)
			continue;
		if (!(at = u64map_get(&b->map, gone))) {
			t->dropped++;
			if (e->op == TRACE_OP_FREE)
				o->op = 0;
			continue;
		}
		obj = (uint32_t)*at;
		if (b->released[obj]) {
			free(pos);
			return errmsg_fail(err, errlen, "corrupt: object %llu is released twice",
			                   (unsigned long long)gone);
		}
		b->released[obj] = 1;
		if (e->op == TRACE_OP_FREE)
			o->obj = obj;
		else
			o->old = obj;
		if (b->size[obj])
			o->flags |= RP_OLD_SIZED;
		if (b->alloc_th[obj] != th) {
			o->flags |= RP_WAIT;
			b->alloc_at[obj]->flags |= RP_PUBLISH;
		}
	}
	free(pos);
	return 0;
}

/* The end of thread r's ops in segments up to s: the first op of a later segment (*c: the chunk
 * reached so far, advanced as s grows). */
static size_t seg_end(const struct rp_thread *r, size_t *c, size_t s)
{
	if (!r->chunk)
		return r->n;
	while (*c < r->nchunk && r->chunk[*c].seg <= s)
		++*c;
	return *c < r->nchunk ? r->chunk[*c].from : r->n;
}

/* The state of check_schedule: per thread its position and chunk reached, the threads ready to
 * run, per object whether it is allocated and which thread waits for it, the live bytes. */
struct sched {
	size_t *pos, *queue, *chunk, nq;
	uint32_t *waiter; /* thread + 1 */
	unsigned char *done;
	uint64_t live;
};

/* Runs thread th up to end or until it releases an object not yet allocated, waking the threads
 * that wait for what it allocates. Returns 0, or -1 when more bytes are live than any address
 * space holds. */
static int run_thread(struct build *b, struct sched *s, size_t th, size_t end, char *err,
                      size_t errlen)
{
	struct rp_trace *t = b->t;
	struct rp_thread *r = &t->th[th];

	for (; s->pos[th] < end; s->pos[th]++) {
		const struct rp_op *o = &r->ops[s->pos[th]];
		uint32_t need = o->op == TRACE_OP_FREE ? o->obj : o->old;
		if (need && !s->done[need]) {
			s->waiter[need] = (uint32_t)th + 1;
			break;
		}
		if (need)
			s->live -= b->size[need];
		if (!o->op || !is_alloc(o->op))
			continue;
		s->done[o->obj] = 1;
		s->live += o->size;
		if (s->live > TRACE_MAX_SIZE)
			return errmsg_fail(err, errlen, "corrupt: more than 2^56 bytes live at once, "
			                                "more than any address space holds");
		if (s->live > t->peak_bytes)
			t->peak_bytes = s->live;
		if (s->waiter[o->obj])
			s->queue[s->nq++] = s->waiter[o->obj] - 1;
	}
	return 0;
}

/* Runs the threads one after another, each as far as it can go without releasing an object not
 * yet allocated, segment by segment (no op of a later segment before every thread is done with
 * the earlier ones, as the replay passes phase boundaries); fails if they all get stuck in a
 * segment (no schedule exists, so a replay could deadlock). */
static int check_schedule(struct build *b, char *err, size_t errlen)
{
	struct rp_trace *t = b->t;
	struct sched s = {0};
	size_t stuck = 0;
	int rc = 0;

	s.pos = calloc(t->nth, sizeof *s.pos);
	s.queue = malloc(t->nth * sizeof *s.queue);
	s.chunk = calloc(t->nth, sizeof *s.chunk);
	s.waiter = calloc((size_t)t->nobj + 1, sizeof *s.waiter);
	s.done = calloc((size_t)t->nobj + 1, 1);
	if (!s.pos || !s.queue || !s.chunk || !s.waiter || !s.done)
		rc = -2;
	for (size_t seg = 0; rc == 0 && seg <= t->marks.nbounds && !stuck; seg++) {
		for (size_t k = 0; k < t->nth; k++)
			s.queue[s.nq++] = k;
		while (rc == 0 && s.nq) {
			size_t th = s.queue[--s.nq];
			size_t end = seg_end(&t->th[th], &s.chunk[th], seg);

			rc = run_thread(b, &s, th, end, err, errlen);
		}
		for (size_t k = 0; rc == 0 && k < t->nth; k++)
			stuck += s.pos[k] < seg_end(&t->th[k], &s.chunk[k], seg);
	}
	if (rc == 0 && stuck && t->marks.nbounds)
		rc = errmsg_fail(err, errlen,
		                 "%zu of %zu threads wait across a phase boundary for an allocation "
		                 "after it (--param marks=ignore replays without the phases)",
		                 stuck, t->nth);
	else if (rc == 0 && stuck)
		rc = errmsg_fail(err, errlen,
		                 "corrupt: %zu of %zu threads release objects that are never "
		                 "allocated before (no replay order exists)",
		                 stuck, t->nth);
	free(s.pos);
	free(s.queue);
	free(s.chunk);
	free(s.waiter);
	free(s.done);
	return rc;
}

static int list_leaked(struct build *b)
{
	struct rp_trace *t = b->t;
	size_t n = 0;

	for (uint32_t k = 1; k <= t->nobj; k++)
		n += !b->released[k];
	if (!(t->leaked = malloc((n ? n : 1) * sizeof *t->leaked)))
		return -2;
	for (uint32_t k = 1; k <= t->nobj; k++)
		if (!b->released[k])
			t->leaked[t->nleaked++] = k;
	return 0;
}

static int build(struct rp_trace *t, const struct trace_rec *ev, size_t n,
                 const struct trace_marks *marks, char *err, size_t errlen)
{
	struct build b = {.t = t};
	uint32_t *tl;
	size_t nalloc = 0;
	int rc = -2;

	if (trace_thread_list(ev, n, &tl, &t->nth) != 0)
		goto out;
	if (t->nth > RP_MAX_THREADS) {
		rc = errmsg_fail(err, errlen, "%zu threads, more than the %u a replay starts",
		                 t->nth, RP_MAX_THREADS);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		nalloc += is_alloc(ev[i].op);
	b.alloc_at = malloc((nalloc + 1) * sizeof *b.alloc_at);
	b.alloc_th = malloc((nalloc + 1) * sizeof *b.alloc_th);
	b.size = calloc(nalloc + 1, sizeof *b.size);
	b.released = calloc(nalloc + 1, 1);
	t->th = calloc(t->nth ? t->nth : 1, sizeof *t->th);
	if (u64map_reserve(&b.map, nalloc) != 0 || !b.alloc_at || !b.alloc_th || !b.size ||
	    !b.released || !t->th)
		goto out;
	for (size_t i = 0; i < n; i++)
		t->th[rp_thread_index(tl, t->nth, ev[i].thread)].n++;
	for (size_t k = 0; k < t->nth; k++)
		if (!(t->th[k].ops = malloc(t->th[k].n * sizeof *t->th[k].ops)))
			goto out;
	if ((rc = build_ops(&b, ev, n, tl, err, errlen)) != 0 ||
	    (rc = link_releases(&b, ev, n, tl, err, errlen)) != 0 ||
	    (marks && (rc = rp_marks_build(t, marks, &(struct rp_events){ev, n, tl}, err,
	                                   errlen)) != 0) ||
	    (rc = check_schedule(&b, err, errlen)) != 0)
		goto out;
	rc = list_leaked(&b);
	t->obj_size = b.size;
	b.size = NULL;
out:
	if (rc == -2 && !*err)
		errmsg_fail(err, errlen, "out of memory preparing %zu events", n);
	free(tl);
	u64map_free(&b.map);
	free(b.alloc_at);
	free(b.alloc_th);
	free(b.size);
	free(b.released);
	return rc;
}

/* Builds t from the process pick_process chose; name prefixes the reasons (NULL: none). */
static int load_picked(struct pick *k, const char *name, struct rp_trace *t, char *err,
                       size_t errlen)
{
	int rc;

	if (!k->have || !k->best.n) {
		drop(k);
		if (k->pid)
			return errmsg_fail(err, errlen,
			                   "%s%sno process with pid %llu and events (`allocab "
			                   "trace info` lists them)",
			                   name ? name : "", name ? ": " : "",
			                   (unsigned long long)k->pid);
		return errmsg_fail(err, errlen, "%s%sno process in it made a call",
		                   name ? name : "", name ? ": " : "");
	}
	t->pid = k->best.info.pid;
	t->index = k->best.index;
	t->events = k->best.n;
	t->info = k->best.info;
	t->duration_ns = k->best.has_end ? (int64_t)k->best.end[TRACE_END_DURATION_NS] : -1;
	t->how = k->best.has_end ? k->best.end[TRACE_END_HOW] : TRACE_HOW_KILLED;
	if (!k->best.complete && !(k->flags & RP_ALLOW_INCOMPLETE)) {
		char why[256];
		trace_loss(k->best.has_end, k->best.end, why, sizeof why);
		drop(k);
		return errmsg_fail(err, errlen,
		                   "%s%sprocess %zu (pid %llu) is incomplete: %s; replay it anyway "
		                   "with --param incomplete=allow",
		                   name ? name : "", name ? ": " : "", t->index,
		                   (unsigned long long)t->pid, why);
	}
	err[0] = '\0';
	rc = build(t, k->best.ev, k->best.n, k->flags & RP_NO_MARKS ? NULL : &k->best.marks, err,
	           errlen);
	drop(k);
	if (rc != 0) {
		char why[400];
		snprintf(why, sizeof why, "%s", err);
		errmsg_fail(err, errlen, "%s%sprocess %zu (pid %llu): %s", name ? name : "",
		            name ? ": " : "", t->index, (unsigned long long)t->pid, why);
		rp_free(t);
	}
	return rc;
}

int rp_load(const char *path, struct rp_pick which, struct rp_trace *t, char *err, size_t errlen)
{
	struct pick k = {.pid = which.pid, .flags = which.flags};
	struct trace_visit visit = {TRACE_MAX_PROC_EVENTS, pick_process, &k};

	memset(t, 0, sizeof *t);
	if (trace_each_process(path, &visit, err, errlen) != 0)
		return drop(&k), -1;
	return load_picked(&k, path, t, err, errlen);
}

int rp_load_mem(const void *data, size_t n, struct rp_pick which, struct rp_trace *t, char *err,
                size_t errlen)
{
	struct pick k = {.pid = which.pid, .flags = which.flags};
	struct trace_visit visit = {TRACE_MAX_PROC_EVENTS, pick_process, &k};

	memset(t, 0, sizeof *t);
	if (trace_each_process_mem(data, n, &visit, err, errlen) != 0)
		return drop(&k), -1;
	return load_picked(&k, NULL, t, err, errlen);
}

void rp_describe(const struct rp_trace *t, struct wl_input_desc *d)
{
	d->index = (int64_t)t->index;
	d->pid = (int64_t)t->pid;
	d->threads = (int64_t)t->nth;
	d->events = (int64_t)t->events;
	d->duration_ns = t->duration_ns;
	snprintf(d->exe, sizeof d->exe, "%s", t->info.exe);
	snprintf(d->command, sizeof d->command, "%s", t->info.args);
	snprintf(d->ended, sizeof d->ended, "%s", trace_how_name(t->how));
}

void rp_reset_peak_rss(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "5", 1) < 0)
		(void)0;
	close(fd);
}

void rp_free(struct rp_trace *t)
{
	rp_marks_free(t);
	for (size_t k = 0; t->th && k < t->nth; k++)
		free(t->th[k].ops);
	free(t->th);
	free(t->leaked);
	free(t->obj_size);
	memset(t, 0, sizeof *t);
}
