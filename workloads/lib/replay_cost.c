/* replay_cost.c - what one replay of a loaded process costs (replay_load.h): the counts of
 * rp_cost, from the trace alone, and the estimate of one rep's seconds the driver's work limit
 * judges (docs/workloads.md, replay, "Work and memory limits"). All of it happens before the timed
 * region. */
#include "workloads/lib/replay_load.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes the replay's touch writes beyond from (realloc: the old size) with one byte per page
 * (pages) or every byte (bytes), as replay.c's touch() does. */
static void touched(uint64_t from, uint64_t size, uint64_t *pages, uint64_t *bytes)
{
	uint64_t start = from ? (from + 4095) & ~(uint64_t)4095 : 0;

	*pages = size > start ? (size - start + 4095) / 4096 : 0;
	*bytes = size > from ? size - from : 0;
}

/* *a += b, saturating: sizes of a hostile trace may sum past 2^64. */
static void add_sat(uint64_t *a, uint64_t b)
{
	*a = *a > UINT64_MAX - b ? UINT64_MAX : *a + b;
}

static void cost_op(const struct rp_trace *t, const struct rp_op *o, struct rp_cost *c)
{
	int moved = o->old && (o->op == TRACE_OP_REALLOC || o->op == TRACE_OP_REALLOCARRAY);
	uint64_t pages, bytes, old_size = moved ? rp_old_size(t, o) : 0;

	c->events++;
	if (o->op == TRACE_OP_FREE)
		return;
	touched(moved ? old_size : 0, o->size, &pages, &bytes);
	if (moved)
		add_sat(&c->copy_bytes, old_size < o->size ? old_size : o->size);
	add_sat(&c->bytes, bytes);
	if (o->size > RP_FRESH_MIN) {
		c->maps++;
		add_sat(&c->fresh_pages, pages);
	} else {
		add_sat(&c->pages, pages);
	}
}

static uint64_t all_gaps(const struct rp_trace *t)
{
	uint64_t sum = 0;

	for (size_t k = 0; k < t->nth; k++)
		for (size_t i = 0; i < t->th[k].n; i++)
			sum += t->th[k].ops[i].op ? t->th[k].ops[i].gap_ns : 0;
	return sum;
}

/* The time the replay's spinning alone takes, from the recorded gaps: each thread spins an op's gap
 * and then waits for the allocation the op releases, so an op ends at the later of its thread's
 * previous end plus its gap and that allocation's end. Runs the threads as check_schedule does.
 * Returns the latest end, or when out of memory the sum of every gap (an upper bound). */
static uint64_t spun_ns(const struct rp_trace *t)
{
	size_t *pos = calloc(t->nth, sizeof *pos), *queue = malloc(t->nth * sizeof *queue), nq = 0;
	uint64_t *end = calloc(t->nth, sizeof *end),
	         *at = malloc(((size_t)t->nobj + 1) * sizeof *at);
	uint32_t *waiter = calloc((size_t)t->nobj + 1, sizeof *waiter); /* thread + 1 */
	uint64_t last = 0;

	if (!pos || !queue || !end || !at || !waiter) {
		last = all_gaps(t);
		goto out;
	}
	memset(at, 0xff, ((size_t)t->nobj + 1) * sizeof *at); /* not allocated yet */
	for (size_t k = 0; k < t->nth; k++)
		queue[nq++] = k;
	while (nq) {
		size_t th = queue[--nq];
		const struct rp_thread *r = &t->th[th];
		for (; pos[th] < r->n; pos[th]++) {
			const struct rp_op *o = &r->ops[pos[th]];
			uint32_t need = o->op == TRACE_OP_FREE ? o->obj : o->old;
			uint64_t now = end[th] + (o->op ? o->gap_ns : 0);
			if (need && at[need] == UINT64_MAX) {
				waiter[need] = (uint32_t)th + 1;
				break;
			}
			end[th] = now = need && at[need] > now ? at[need] : now;
			last = now > last ? now : last;
			if (o->op && o->op != TRACE_OP_FREE) {
				at[o->obj] = now;
				if (waiter[o->obj])
					queue[nq++] = waiter[o->obj] - 1;
			}
		}
	}
out:
	free(pos);
	free(queue);
	free(end);
	free(at);
	free(waiter);
	return last;
}

void rp_cost(const struct rp_trace *t, struct rp_cost *c)
{
	uint64_t peak_pages, first;

	memset(c, 0, sizeof *c);
	c->table_bytes = t->nth * sizeof *t->th + t->nleaked * sizeof *t->leaked +
	                 ((uint64_t)t->nobj + 1) * sizeof *t->obj_size;
	for (size_t k = 0; k < t->nth; k++) {
		for (size_t i = 0; i < t->th[k].n; i++)
			if (t->th[k].ops[i].op)
				cost_op(t, &t->th[k].ops[i], c);
		c->table_bytes += t->th[k].n * sizeof *t->th[k].ops +
		                  t->th[k].nchunk * sizeof *t->th[k].chunk;
	}
	c->crossings = (uint64_t)t->nth * t->marks.nbounds;
	c->table_bytes += t->marks.nbounds * RP_BOUND_BYTES;
	c->gap_ns = spun_ns(t);
	c->gap_sum_ns = all_gaps(t);
	peak_pages = (t->peak_bytes + 4095) / 4096;
	first = c->pages < peak_pages ? c->pages : peak_pages;
	c->fresh_pages += first;
	c->pages -= first;
}

/* Costs of one replay on the 2-core machine of docs/workloads.md (replay, "Work and memory
 * limits"), in nanoseconds: a call, a block larger than RP_FRESH_MIN (a fresh mapping and its
 * release), a page touched for the first time (a page fault) or again, a byte written or moved. */
#define RP_NS_CALL  25.0
#define RP_NS_MAP   5000.0
#define RP_NS_FAULT 1500.0
#define RP_NS_PAGE  5.0
#define RP_NS_BYTE  0.05
/* A phase boundary passed by one thread: alone, an atomic add and a clock read; with others, the
 * wait for the last of them and a futex wake (measured with tests/fixtures/hostile/gen_marks_trace.py). */
#define RP_NS_CROSS_ALONE 50.0
#define RP_NS_CROSS       6000.0

/* Seconds for a refusal's detail into b (24 bytes): "<1 ms" or "%.3g s". Returns b. */
static const char *secs(char b[24], double s)
{
	if (s < 0.001)
		snprintf(b, 24, "<1 ms");
	else
		snprintf(b, 24, "%.3g s", s);
	return b;
}

/* Appends ", " and the formatted text to buf (of len bytes) when it fits. */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < len) {
		memcpy(buf + n, ", ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* CPUs this process may run on. */
static int cpu_count(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Seconds one rep spins for gaps=P: the longest chain of gaps (waits chain the threads), or the
 * gaps of every thread shared among the CPUs (spinning threads compete for them), whichever is
 * longer. *cpus gets the CPU count. */
static double spun_s(const struct rp_cost *k, int64_t gaps, int *cpus)
{
	double chain = (double)k->gap_ns, shared;

	*cpus = cpu_count();
	shared = (double)k->gap_sum_ns / *cpus;
	return (chain > shared ? chain : shared) * (double)gaps / 100 * 1e-9;
}

void rp_estimate(const struct rp_trace *t, const struct rp_cost *k, int touch, int64_t gaps,
                 struct wl_input_cost *c)
{
	double calls, maps, moved, mem = 0, spun, crossed;
	char tx[6][24];
	int cpus;

	calls = (double)k->events * RP_NS_CALL * 1e-9;
	maps = (double)k->maps * RP_NS_MAP * 1e-9;
	moved = (double)k->copy_bytes * RP_NS_BYTE * 1e-9;
	if (touch >= RP_TOUCH_PAGES)
		mem = ((double)k->fresh_pages * RP_NS_FAULT + (double)k->pages * RP_NS_PAGE) * 1e-9;
	if (touch == RP_TOUCH_ALL)
		mem += (double)k->bytes * RP_NS_BYTE * 1e-9;
	spun = spun_s(k, gaps, &cpus);
	crossed = (double)k->crossings * (t->nth > 1 ? RP_NS_CROSS : RP_NS_CROSS_ALONE) * 1e-9;
	c->run_s = calls + maps + moved + mem + spun + crossed;
	c->work[0] = 0;
	add(c->work, sizeof c->work, "per rep %.3g calls %s", (double)k->events, secs(tx[0], calls));
	if (k->maps)
		add(c->work, sizeof c->work, "%.3g blocks over 7 MiB %s", (double)k->maps,
		    secs(tx[1], maps));
	if (k->copy_bytes)
		add(c->work, sizeof c->work, "realloc moves %.3g bytes %s", (double)k->copy_bytes,
		    secs(tx[2], moved));
	if (touch == RP_TOUCH_PAGES)
		add(c->work, sizeof c->work, "touch=2 %.3g pages (%.3g fresh) %s",
		    (double)(k->pages + k->fresh_pages), (double)k->fresh_pages, secs(tx[3], mem));
	if (touch == RP_TOUCH_ALL)
		add(c->work, sizeof c->work, "touch=3 %.3g bytes (%.3g fresh pages) %s",
		    (double)k->bytes, (double)k->fresh_pages, secs(tx[3], mem));
	if (gaps)
		add(c->work, sizeof c->work, "gaps=%lld spins %s (%zu threads on %d CPU%s)",
		    (long long)gaps, secs(tx[4], spun), t->nth, cpus, cpus == 1 ? "" : "s");
	if (k->crossings)
		add(c->work, sizeof c->work, "%zu phase boundaries x %zu threads %s",
		    t->marks.nbounds, t->nth, secs(tx[5], crossed));
}
