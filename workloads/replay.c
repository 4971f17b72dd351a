/* replay.c - replays one recorded process of an `allocab record` trace (docs/trace-format.md):
 * the same threads, each making its own calls in its recorded order; a release of an object that
 * another thread allocates waits (spin, then futex) until that allocation has happened in this
 * replay. The phases the process marked are timed: every thread passes each boundary between
 * them at once, and the last to arrive stamps the time (driver/workload.h, struct wl_marks). The
 * trace is loaded and checked in setup(), outside the timed region; the check guarantees an order
 * in which every object is allocated before it is released, boundaries included, so these waits
 * cannot deadlock (replay_load.h); when a thread fails (an allocation or a thread start), every
 * waiter is woken and gives up, so a failed replay ends with its reason. */
#include "trace/trace.h"
#include "driver/workload.h"
#include "workloads/lib/replay_load.h"
#include "workloads/lib/wlutil.h"

#include <linux/futex.h>
#include <malloc.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { P_TRACE, P_PID, P_TOUCH, P_GAPS, P_INCOMPLETE, P_MARKS };

/* clang-format off */
static const struct wl_param rp_params[] = {
	[P_TRACE] = {"trace", "file", "the trace to replay (allocab record -o FILE)", {0, 0, 0}, 0, 0,
		     WL_PARAM_STRING},
	[P_PID] = {"pid", "pid",
		   "process to replay; 0: the one with the most events (allocab trace info lists "
		   "them)", {0, 0, 0}, 0, INT64_MAX},
	[P_TOUCH] = {"touch", "mode",
		     "memory written after each allocation: 0 none, 1 first byte, 2 one byte per "
		     "4 KiB page (default: the first-touch page faults a program pays), 3 every byte",
		     {2, 2, 2}, 0, 3},
	[P_GAPS] = {"gaps", "percent",
		    "recorded time between a thread's calls reproduced by spinning, in percent "
		    "(0: off, the replay measures allocator work only)", {0, 0, 0}, 0, 10000},
	[P_INCOMPLETE] = {"incomplete", "refuse|allow",
			  "a process whose stream is incomplete (killed, still running, events "
			  "dropped): refuse (default) or allow its replay", {0, 0, 0}, 0, 0,
			  WL_PARAM_STRING},
	[P_MARKS] = {"marks", "use|ignore",
		     "the phases the process marked: time each as a phase (use, default; every "
		     "thread passes their boundaries at once) or replay as if unmarked (ignore)",
		     {0, 0, 0}, 0, 0, WL_PARAM_STRING},
};
/* clang-format on */

struct rp_state {
	struct rp_trace t;
	void **slot;             /* by object: its block in this replay */
	_Atomic uint32_t *ready; /* by object: 2 x rep generation once allocated; bit 0: waiters */
	_Atomic uint32_t *arrived; /* by boundary: threads that passed it, over every rep */
	_Atomic uint32_t *open;    /* by boundary: as ready, once every thread arrived */
	int64_t *stamp;            /* by boundary: CLOCK_MONOTONIC when the last thread arrived */
	int64_t *cpu_stamp;        /* by boundary: the process's CPU clock at that moment */
	uint32_t gen;
	int touch;
	int64_t gaps;
	_Atomic int failed;
	char err[WL_ERR_LEN];
};

struct rp_worker {
	struct rp_state *st;
	const struct rp_thread *th;
	uint64_t hash;
	uint32_t passed; /* phase boundaries this thread has arrived at */
	int rc;
	pthread_t tid;
};

/* The trace decides the footprint and the work: rp_input_cost, after loading. */
static uint64_t rp_footprint(const int64_t *p)
{
	(void)p;
	return 0;
}

static int rp_check(struct wl_ctx *ctx)
{
	const char *inc = ctx->str ? ctx->str[P_INCOMPLETE] : NULL;
	const char *marks = ctx->str ? ctx->str[P_MARKS] : NULL;

	if (!ctx->str || !ctx->str[P_TRACE] || !*ctx->str[P_TRACE])
		return wl_fail(ctx, "give the trace: --param trace=FILE (allocab record -o FILE)");
	if (inc && *inc && strcmp(inc, "allow") != 0 && strcmp(inc, "refuse") != 0)
		return wl_fail(ctx, "--param incomplete: '%s' is not refuse or allow", inc);
	if (marks && *marks && strcmp(marks, "use") != 0 && strcmp(marks, "ignore") != 0)
		return wl_fail(ctx, "--param marks: '%s' is not use or ignore", marks);
	return 0;
}

/* The loading flags of the string parameters. */
static unsigned load_flags(const struct wl_ctx *ctx)
{
	const char *inc = ctx->str[P_INCOMPLETE], *marks = ctx->str[P_MARKS];

	return (inc && strcmp(inc, "allow") == 0 ? RP_ALLOW_INCOMPLETE : 0) |
	       (marks && strcmp(marks, "ignore") == 0 ? RP_NO_MARKS : 0);
}

static void free_state(struct rp_state *st)
{
	rp_free(&st->t);
	free(st->slot);
	free((void *)st->ready);
	free((void *)st->arrived);
	free((void *)st->open);
	free(st->stamp);
	free(st->cpu_stamp);
	free(st);
}

static int rp_setup(struct wl_ctx *ctx)
{
	struct rp_state *st = calloc(1, sizeof *st);
	int rc;

	if (!st)
		return wl_fail(ctx, "out of memory"), -2;
	rc = rp_load(ctx->str[P_TRACE], (struct rp_pick){(uint64_t)ctx->p[P_PID], load_flags(ctx)},
	             &st->t, ctx->err, sizeof ctx->err);
	if (rc == 0) {
		size_t nb = st->t.marks.nbounds ? st->t.marks.nbounds : 1;
		st->slot = calloc((size_t)st->t.nobj + 1, sizeof *st->slot);
		st->ready = calloc((size_t)st->t.nobj + 1, sizeof *st->ready);
		st->arrived = calloc(nb, sizeof *st->arrived);
		st->open = calloc(nb, sizeof *st->open);
		st->stamp = calloc(nb, sizeof *st->stamp);
		st->cpu_stamp = calloc(nb, sizeof *st->cpu_stamp);
		if (!st->slot || !st->ready || !st->arrived || !st->open || !st->stamp ||
		    !st->cpu_stamp)
			rc = wl_fail(ctx, "out of memory for %u objects", st->t.nobj) - 1;
	}
	if (rc != 0) {
		free_state(st);
		return rc;
	}
	st->touch = (int)ctx->p[P_TOUCH];
	st->gaps = ctx->p[P_GAPS];
	rp_marks_describe(&st->t, st->stamp, st->cpu_stamp, &ctx->marks);
	ctx->state = st;
	rp_reset_peak_rss();
	return 0;
}

/* The recorded process the replay runs, for the record (docs/results-format.md). */
static void rp_describe_input(const struct wl_ctx *ctx, struct wl_input_desc *d)
{
	rp_describe(&((const struct rp_state *)ctx->state)->t, d);
}

static double gib(uint64_t n)
{
	return (double)n / (1024.0 * 1024 * 1024);
}

/* The loaded trace's footprint (its peak of live requested bytes, the replay's tables) and one
 * rep's estimated seconds (rp_estimate). */
static void rp_input_cost(const struct wl_ctx *ctx, struct wl_input_cost *c)
{
	const struct rp_state *st = ctx->state;
	struct rp_cost k;
	uint64_t tables;

	rp_cost(&st->t, &k);
	tables = k.table_bytes +
	         ((uint64_t)st->t.nobj + 1) * (sizeof *st->slot + sizeof *st->ready) +
	         st->t.nth * sizeof(struct rp_worker);
	_Static_assert(RP_BOUND_BYTES == sizeof *st->arrived + sizeof *st->open + sizeof *st->stamp +
	                                     sizeof *st->cpu_stamp,
	               "what a boundary costs the replay");
	c->footprint = st->t.peak_bytes + tables;
	snprintf(c->memory, sizeof c->memory,
	         "%.1f GiB live at the recorded peak, %.1f GiB of replay tables",
	         gib(st->t.peak_bytes), gib(tables));
	rp_estimate(&st->t, &k, st->touch, st->gaps, c);
}

static void rp_teardown(struct wl_ctx *ctx)
{
	if (!ctx->state)
		return;
	free_state(ctx->state);
	memset(&ctx->marks, 0, sizeof ctx->marks);
	ctx->state = NULL;
}

static void futex(_Atomic uint32_t *addr, int op, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)addr, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* Sets flag f to 2 x the rep's generation (done) and wakes whoever sleeps on it. */
static void publish_flag(struct rp_state *st, _Atomic uint32_t *f)
{
	uint32_t old = atomic_exchange_explicit(f, 2 * st->gen, memory_order_release);

	if (old & 1)
		futex(f, FUTEX_WAKE, INT32_MAX);
}

/* Waits until flag f is set in this rep; gives up (returns -1) once the replay failed. A failing
 * thread wakes every sleeper (fail_all); a sleep also ends after 50 ms, so a waiter that went to
 * sleep just after that wake-up still sees the failure. */
static int await_flag(struct rp_state *st, _Atomic uint32_t *f)
{
	static const struct timespec nap = {0, 50000000};
	uint32_t want = 2 * st->gen;

	for (unsigned n = 0;; n++) {
		uint32_t v = atomic_load_explicit(f, memory_order_acquire);
		if (v == want)
			return 0;
		if (atomic_load_explicit(&st->failed, memory_order_acquire))
			return -1;
		if (n < 200) {
			__builtin_ia32_pause();
			continue;
		}
		if (!(v & 1) && !atomic_compare_exchange_weak(f, &v, v | 1))
			continue;
		syscall(SYS_futex, (uint32_t *)f, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, v | 1, &nap, NULL,
		        0);
	}
}

static void publish(struct rp_state *st, uint32_t obj)
{
	publish_flag(st, &st->ready[obj]);
}

/* Waits until obj has been allocated in this rep (await_flag). */
static int await(struct rp_state *st, uint32_t obj)
{
	return await_flag(st, &st->ready[obj]);
}

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* This thread is done with every op before boundary j; the last thread to say so stamps the time
 * and opens it. */
static void arrive(struct rp_state *st, uint32_t j)
{
	uint32_t n = atomic_fetch_add_explicit(&st->arrived[j], 1, memory_order_acq_rel) + 1;

	if (n == st->gen * (uint32_t)st->t.nth) {
		st->stamp[j] = now_ns(CLOCK_MONOTONIC);
		st->cpu_stamp[j] = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		publish_flag(st, &st->open[j]);
	}
}

/* Takes w from the boundaries it passed to segment seg: arrives at those in between and waits
 * until the last of them is open. */
static int cross(struct rp_state *st, struct rp_worker *w, uint32_t seg)
{
	for (; w->passed < seg; w->passed++)
		arrive(st, w->passed);
	return seg ? await_flag(st, &st->open[seg - 1]) : 0;
}

/* Marks the replay failed with its reason (the first one wins) and wakes every waiter. */
static int fail_all(struct rp_state *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail_all(struct rp_state *st, const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&st->failed, 1))
		return -1;
	va_start(ap, fmt);
	vsnprintf(st->err, sizeof st->err, fmt, ap);
	va_end(ap);
	for (uint32_t k = 1; k <= st->t.nobj; k++)
		if (atomic_load_explicit(&st->ready[k], memory_order_relaxed) & 1)
			futex(&st->ready[k], FUTEX_WAKE, INT32_MAX);
	for (size_t j = 0; j < st->t.marks.nbounds; j++)
		if (atomic_load_explicit(&st->open[j], memory_order_relaxed) & 1)
			futex(&st->open[j], FUTEX_WAKE, INT32_MAX);
	return -1;
}

static void spin_ns(uint64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((uint64_t)((b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec)) < ns);
}

/* Writes the object's mark where the touch mode says, from byte `from` on. */
static void touch(int mode, uint8_t *p, uint64_t from, uint64_t size, uint8_t mark)
{
	if (!p || !size || mode == RP_TOUCH_NONE)
		return;
	if (mode == RP_TOUCH_ALL) {
		if (size > from)
			memset(p + from, mark, size - from);
	} else if (mode == RP_TOUCH_PAGES) {
		for (uint64_t k = from ? (from + 4095) & ~(uint64_t)4095 : 0; k < size; k += 4096)
			p[k] = mark;
	}
	p[0] = mark;
}

/* The allocation o makes; NULL with errno set when it fails. */
static void *allocate(const struct rp_op *o)
{
	void *p = NULL;
	int rc;

	switch (o->op) {
	case TRACE_OP_MALLOC:
		return malloc(o->size);
	case TRACE_OP_CALLOC:
		return calloc(1, o->size);
	case TRACE_OP_POSIX_MEMALIGN:
		if ((rc = posix_memalign(&p, (size_t)1 << o->align_log2, o->size)) != 0)
			errno = rc;
		return rc == 0 ? p : NULL;
	case TRACE_OP_ALIGNED_ALLOC:
		return aligned_alloc((size_t)1 << o->align_log2, o->size);
	case TRACE_OP_MEMALIGN:
		return memalign((size_t)1 << o->align_log2, o->size);
	case TRACE_OP_VALLOC:
		return valloc(o->size);
	default:
		return pvalloc(o->size);
	}
}

/* A failed allocation: out of memory, or what else the allocator said (errno e). */
static int fail_alloc(struct rp_state *st, const struct rp_op *o, int e)
{
	const char *what = o->op == TRACE_OP_REALLOCARRAY ? "realloc" : trace_op_name(o->op);

	if (e == ENOMEM || e == 0)
		return fail_all(st, "out of memory allocating %llu bytes for a %s",
		                (unsigned long long)o->size, what);
	return fail_all(st, "a %s of %llu bytes (alignment %llu) failed: %s", what,
	                (unsigned long long)o->size, 1ull << o->align_log2, strerror(e));
}

/* One op; mixes what it did (never an address) into *h. */
static int step(struct rp_state *st, const struct rp_op *o, uint64_t *h)
{
	uint8_t *p;

	if (st->gaps && o->gap_ns)
		spin_ns((uint64_t)o->gap_ns * (uint64_t)st->gaps / 100);
	*h = ck_mix(*h, (uint64_t)o->op << 56 ^ o->size);
	if (o->op == TRACE_OP_FREE) {
		if (o->obj && (o->flags & RP_WAIT) && await(st, o->obj) != 0)
			return -1;
		p = o->obj ? st->slot[o->obj] : NULL;
		if (p && st->touch && (o->flags & RP_OLD_SIZED))
			*h = ck_mix(*h, p[0]);
		free(p);
		if (o->obj)
			st->slot[o->obj] = NULL;
		return 0;
	}
	if (o->op == TRACE_OP_REALLOC || o->op == TRACE_OP_REALLOCARRAY) {
		void *old = NULL;
		if (o->old && (o->flags & RP_WAIT) && await(st, o->old) != 0)
			return -1;
		old = o->old ? st->slot[o->old] : NULL;
		errno = 0;
		p = realloc(old, o->size);
		if (!p && o->size)
			return fail_alloc(st, o, errno);
		if (o->old)
			st->slot[o->old] = NULL;
		if (p && old && st->touch && o->size && (o->flags & RP_OLD_SIZED))
			*h = ck_mix(*h, p[0]);
		touch(st->touch, p, old ? rp_old_size(&st->t, o) : 0, o->size, (uint8_t)o->obj);
	} else {
		errno = 0;
		p = allocate(o);
		if (!p && o->size)
			return fail_alloc(st, o, errno);
		touch(st->touch, p, 0, o->size, (uint8_t)o->obj);
	}
	st->slot[o->obj] = p;
	if (o->flags & RP_PUBLISH)
		publish(st, o->obj);
	return 0;
}

/* Runs ops [from, to) of w's thread. */
static int run_ops(struct rp_worker *w, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (w->th->ops[i].op && step(w->st, &w->th->ops[i], &w->hash) != 0)
			return -1;
	return 0;
}

/* One replay thread: its ops segment by segment, each segment once every thread is done with the
 * ones before (cross), then past every boundary left. */
static void *worker_main(void *arg)
{
	struct rp_worker *w = arg;
	const struct rp_thread *th = w->th;
	size_t c = 0;

	w->hash = ck_mix(0, th->n);
	if (!th->chunk)
		w->rc = run_ops(w, 0, th->n);
	for (; c < th->nchunk && w->rc == 0; c++) {
		size_t end = c + 1 < th->nchunk ? th->chunk[c + 1].from : th->n;
		if (cross(w->st, w, th->chunk[c].seg) != 0 ||
		    run_ops(w, th->chunk[c].from, end) != 0)
			w->rc = -1;
	}
	for (; w->passed < w->st->t.marks.nbounds; w->passed++)
		arrive(w->st, w->passed);
	return NULL;
}

static int rp_run(struct wl_ctx *ctx, uint64_t *checksum)
{
	struct rp_state *st = ctx->state;
	struct rp_worker *w = calloc(st->t.nth, sizeof *w);
	size_t started = 1;
	uint64_t h = 0;
	int rc = 0;

	if (!w)
		return wl_fail(ctx, "out of memory allocating %zu bytes for replay threads",
		               st->t.nth * sizeof *w);
	st->gen++;
	st->failed = 0;
	for (size_t k = 0; k < st->t.nth; k++)
		w[k] = (struct rp_worker){.st = st, .th = &st->t.th[k]};
	for (; started < st->t.nth; started++) {
		int e = pthread_create(&w[started].tid, NULL, worker_main, &w[started]);
		if (e != 0) {
			fail_all(st, "cannot start replay thread %zu of %zu: %s", started + 1,
			         st->t.nth, strerror(e));
			break;
		}
	}
	if (!st->failed)
		worker_main(&w[0]);
	for (size_t k = 1; k < started; k++)
		pthread_join(w[k].tid, NULL);
	for (size_t k = 0; k < st->t.nth; k++) {
		h = ck_mix(h, w[k].hash);
		rc |= w[k].rc;
	}
	for (size_t k = 0; k < st->t.nleaked; k++) {
		free(st->slot[st->t.leaked[k]]);
		st->slot[st->t.leaked[k]] = NULL;
	}
	free(w);
	if (rc || st->failed) {
		for (uint32_t k = 1; k <= st->t.nobj; k++) {
			free(st->slot[k]);
			st->slot[k] = NULL;
		}
		return wl_fail(ctx, "%s", st->err[0] ? st->err : "replay failed");
	}
	*checksum = ck_mix(h, st->t.events);
	return 0;
}

const struct workload wl_replay = {
    .name = "replay",
    .description = "a recorded program's allocation calls (allocab record), same threads and "
                   "order",
    .params = rp_params,
    .flags = WL_NEEDS_INPUT,
    .nparams = sizeof rp_params / sizeof rp_params[0],
    .phases = NULL,
    .footprint = rp_footprint,
    .check = rp_check,
    .run = rp_run,
    .setup = rp_setup,
    .teardown = rp_teardown,
    .input_cost = rp_input_cost,
    .describe_input = rp_describe_input,
};
