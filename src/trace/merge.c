/* merge.c - one process of the bundler (merge.h): a cursor per thread over its raw events blocks, a
 * heap that always steps the cursor whose next step comes first in time (a release before an
 * allocation at the same tick), an address -> object id map (common/u64map.h), and an output buffer
 * per thread. */
#include "trace/merge.h"

#include "common/errmsg.h"
#include "trace/trace.h"
#include "common/u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define OUT_CAP (64u << 10)

/* ---- a thread: its input cursor and its output buffer ---- */

#define AHEAD 16 /* events decoded ahead per thread, their map slots prefetched */

/* A decoded raw event. */
struct rev {
	uint64_t ticks, v[4];
	unsigned op;
};

struct cursor {
	uint32_t thread;
	size_t blk, end_blk; /* its blocks in rm_input.b */
	uint8_t *in;         /* the current block, decompressed */
	size_t in_cap;
	const uint8_t *p, *lim;
	uint32_t left;           /* events of the current block not yet decoded */
	uint64_t dticks;         /* of the last event decoded */
	uint64_t last_addr;      /* the block's previous address (addresses are differences) */
	struct rev ahead[AHEAD]; /* decoded, not yet taken: ahead[head], ... */
	unsigned head, nahead;
	uint64_t ticks;  /* of the pending event */
	unsigned op;     /* of the pending event, 0 when the cursor is done */
	uint64_t v[4];   /* its fields as recorded */
	int phase;       /* 0: its release comes next (realloc), 1: its allocation or only step */
	uint64_t key;    /* ticks of the next step */
	uint64_t old_id; /* realloc: the object its release took */
	uint8_t *out;    /* output block: factor, then events */
	size_t used;
	uint32_t count;
	uint64_t last_ns;
};

struct merge {
	struct rm_input *in;
	uint64_t
	    factor; /* ns per tick (32.32) of the stream's last events block, for every event */
	struct rm_output *o;
	struct cursor *c;
	size_t nc;
	size_t *heap, nheap;
	struct u64map map; /* address -> object id */
	uint64_t next_id;
	uint8_t *stored;
	ZSTD_DCtx *dctx;
	ZSTD_CCtx *cctx;
	uint8_t *comp;
	char *err;
	size_t errlen;
};

static int by_thread(const void *a, const void *b)
{
	const struct rm_block *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Reads and decompresses the cursor's next block; returns 0, or -1 when it has none left (or the
 * block no longer reads back: counted as damaged, the thread's later blocks with it). */
static int next_block(struct merge *m, struct cursor *c)
{
	const struct rm_block *b;
	size_t n;

	if (c->blk == c->end_blk)
		return -1;
	b = &m->in->b[c->blk++];
	if (b->raw_len > c->in_cap) {
		uint8_t *t = realloc(c->in, b->raw_len);
		if (!t)
			goto damaged;
		c->in = t;
		c->in_cap = b->raw_len;
	}
	if (pread(m->in->fd, m->stored, b->nbytes, (off_t)b->off) != (ssize_t)b->nbytes)
		goto damaged;
	n = ZSTD_decompressDCtx(m->dctx, c->in, b->raw_len, m->stored + TRACE_BLOCK_HDR,
	                        b->nbytes - TRACE_BLOCK_HDR);
	if (ZSTD_isError(n) || n != b->raw_len || n < 8)
		goto damaged;
	c->p = c->in + 8;
	c->lim = c->in + n;
	c->left = trace_get32(m->stored + 20);
	c->dticks = 0;
	c->last_addr = 0;
	return 0;
damaged:
	for (size_t i = c->blk - 1; i < c->end_blk; i++)
		m->o->damaged_bytes += m->in->b[i].nbytes;
	c->blk = c->end_blk;
	return -1;
}

/* An LEB128 varint at *p (before lim): 0, or -1 when it runs past lim or 64 bits. */
static inline int varint(const uint8_t **p, const uint8_t *lim, uint64_t *v)
{
	const uint8_t *q = *p;

	if (q < lim && *q < 0x80) {
		*v = *q;
		*p = q + 1;
		return 0;
	}
	return trace_varint(p, lim, v);
}

/* Decodes the thread's next raw event into e; returns 0, or -1 when it has no more. A block whose
 * rest does not decode is dropped and counted as damaged. */
static int decode(struct merge *m, struct cursor *c, struct rev *e)
{
	uint64_t dt;
	int nv;

	for (;;) {
		while (!c->left)
			if (next_block(m, c) != 0)
				return -1;
		c->left--;
		e->op = c->p < c->lim ? *c->p++ : 0;
		nv = e->op == TRACE_OP_FREE                                        ? 1
		     : e->op == TRACE_OP_MALLOC || e->op == TRACE_OP_CALLOC        ? 2
		     : e->op == TRACE_OP_REALLOC || e->op == TRACE_OP_REALLOCARRAY ? 4
		     : e->op > 0 && e->op < TRACE_OP_COUNT                         ? 3
		                                                                   : 0;
		if (nv && varint(&c->p, c->lim, &dt) == 0) {
			int k = 0;
			for (; k < nv && varint(&c->p, c->lim, &e->v[k]) == 0; k++)
				if (trace_raw_is_address(e->op, k))
					e->v[k] = c->last_addr += trace_unzigzag(e->v[k]);
			if (k == nv) {
				e->ticks = c->dticks += dt;
				return 0;
			}
		}
		c->left = 0;
		m->o->damaged_bytes += (uint64_t)(c->lim - c->p);
	}
}

/* Takes the cursor's next event (c->op, c->v, c->ticks) and its first step's key, decoding ahead
 * and prefetching the map slots of what it decodes; c->op = 0 when the thread has no more. */
static void next_event(struct merge *m, struct cursor *c)
{
	const struct rev *e;

	while (c->nahead < AHEAD) {
		struct rev *d = &c->ahead[(c->head + c->nahead) % AHEAD];
		if (decode(m, c, d) != 0)
			break;
		c->nahead++;
		u64map_prefetch(&m->map, trace_raw_is_address(d->op, 0) ? d->v[0] : d->v[1]);
	}
	c->op = 0;
	if (!c->nahead)
		return;
	e = &c->ahead[c->head];
	c->head = (c->head + 1) % AHEAD;
	c->nahead--;
	c->op = e->op;
	memcpy(c->v, e->v, sizeof c->v);
	c->ticks = e->ticks;
	c->phase = c->op == TRACE_OP_FREE ? 0 : 1;
	c->key = c->ticks;
	if (c->op == TRACE_OP_REALLOC || c->op == TRACE_OP_REALLOCARRAY) {
		c->phase = 0;
		c->key = c->v[0] < c->ticks ? c->ticks - c->v[0] : 0;
		u64map_prefetch(&m->map, c->v[2]);
	}
}

/* Whether cursor a steps before cursor b: earlier ticks, a release before an allocation, then the
 * lower thread. */
static int before(const struct cursor *a, const struct cursor *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->phase != b->phase)
		return a->phase < b->phase;
	return a->thread < b->thread;
}

static void sift_down(struct merge *m, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, best = i;
		if (l < m->nheap && before(&m->c[m->heap[l]], &m->c[m->heap[best]]))
			best = l;
		if (r < m->nheap && before(&m->c[m->heap[r]], &m->c[m->heap[best]]))
			best = r;
		if (best == i)
			return;
		size_t t = m->heap[i];
		m->heap[i] = m->heap[best];
		m->heap[best] = t;
		i = best;
	}
}

/* ---- output ---- */

static int write_failed(struct merge *m)
{
	return errmsg_fail(m->err, m->errlen, "%s", strerror(errno ? errno : EIO));
}

/* Compresses and writes c's output buffer as one events block. */
static int flush_out(struct merge *m, struct cursor *c)
{
	size_t n;

	if (!c->count)
		return 0;
	trace_put64(c->out, (uint64_t)1 << 32);
	n = ZSTD_compressCCtx(m->cctx, m->comp + TRACE_BLOCK_HDR, TRACE_MAX_PAYLOAD, c->out,
	                      c->used, 1);
	if (ZSTD_isError(n))
		return errmsg_fail(m->err, m->errlen, "zstd: %s", ZSTD_getErrorName(n));
	trace_block_header(m->comp, TRACE_K_EVENTS, TRACE_F_ZSTD, c->thread, (uint32_t)n,
	                   (uint32_t)c->used, c->count, trace_fnv32(m->comp + TRACE_BLOCK_HDR, n));
	errno = 0;
	if (fwrite(m->comp, 1, TRACE_BLOCK_HDR + n, m->o->out) != TRACE_BLOCK_HDR + n)
		return write_failed(m);
	m->o->blocks++;
	m->o->events += c->count;
	c->used = 8;
	c->count = 0;
	return 0;
}

/* Appends an event of c's thread at ticks: op, then the varints v[0..n-1]. */
static int emit(struct merge *m, struct cursor *c, unsigned op, uint64_t ticks, const uint64_t *v,
                int n)
{
	uint64_t ns = (uint64_t)(((unsigned __int128)ticks * m->factor) >> 32);
	uint8_t *p;

	if (!c->out && !(c->out = malloc(OUT_CAP)))
		return errmsg_fail(m->err, m->errlen, "out of memory");
	if (!c->count)
		c->used = 8;
	else if (c->used + TRACE_MAX_EVENT > OUT_CAP && flush_out(m, c) != 0)
		return -1;
	ns = ns < c->last_ns ? c->last_ns : ns;
	p = c->out + c->used;
	*p++ = (uint8_t)op;
	p = trace_put_varint(p, c->count ? ns - c->last_ns : ns);
	for (int k = 0; k < n; k++)
		p = trace_put_varint(p, v[k]);
	c->last_ns = ns;
	c->count++;
	c->used = (size_t)(p - c->out);
	return 0;
}

/* ---- the merge ---- */

/* A fresh object at address a. */
static int allocate(struct merge *m, uint64_t a, uint64_t *id)
{
	int was = u64map_put(&m->map, a, *id = ++m->next_id);

	if (was < 0)
		return errmsg_fail(m->err, m->errlen, "out of memory numbering objects");
	m->o->misordered += (uint64_t)was;
	return 0;
}

/* The object at address a, released (0 for NULL, and for an address never allocated here). */
static uint64_t release(struct merge *m, uint64_t a)
{
	uint64_t id = 0;

	if (a)
		u64map_take(&m->map, a, &id);

	m->o->foreign += a && !id;
	return id;
}

/* Takes c's next step; afterwards c holds its next event or step. */
static int step(struct merge *m, struct cursor *c)
{
	uint64_t w[3];
	unsigned op = c->op;

	if (op == TRACE_OP_REALLOC || op == TRACE_OP_REALLOCARRAY) {
		if (c->phase == 0) {
			c->old_id = release(m, c->v[1]);
			c->phase = 1;
			c->key = c->ticks;
			return 0;
		}
		w[0] = c->old_id;
		w[2] = c->v[3];
		if (allocate(m, c->v[2], &w[1]) != 0 || emit(m, c, op, c->ticks, w, 3) != 0)
			return -1;
	} else if (op == TRACE_OP_FREE) {
		w[0] = release(m, c->v[0]);
		if ((w[0] || !c->v[0]) && emit(m, c, op, c->ticks, w, 1) != 0)
			return -1;
	} else {
		w[1] = c->v[1];
		w[2] = c->v[2];
		if (allocate(m, c->v[0], &w[0]) != 0 ||
		    emit(m, c, op, c->ticks, w,
		         op == TRACE_OP_MALLOC || op == TRACE_OP_CALLOC ? 2 : 3) != 0)
			return -1;
	}
	next_event(m, c);
	return 0;
}

/* One cursor per thread over its blocks (in->b sorted by thread, then order). */
static int make_cursors(struct merge *m)
{
	struct rm_input *in = m->in;

	qsort(in->b, in->n, sizeof *in->b, by_thread);
	for (size_t i = 0; i < in->n; i++)
		m->nc += i == 0 || in->b[i].thread != in->b[i - 1].thread;
	m->c = calloc(m->nc ? m->nc : 1, sizeof *m->c);
	m->heap = malloc((m->nc ? m->nc : 1) * sizeof *m->heap);
	if (!m->c || !m->heap)
		return errmsg_fail(m->err, m->errlen, "out of memory");
	for (size_t i = 0, k = 0; i < in->n; i++) {
		if (i && in->b[i].thread == in->b[i - 1].thread)
			continue;
		m->c[k].thread = in->b[i].thread;
		m->c[k].blk = i;
		if (k)
			m->c[k - 1].end_blk = i;
		k++;
	}
	if (m->nc)
		m->c[m->nc - 1].end_blk = in->n;
	for (size_t k = 0; k < m->nc; k++) {
		next_event(m, &m->c[k]);
		if (m->c[k].op)
			m->heap[m->nheap++] = k;
	}
	for (size_t i = m->nheap; i-- > 0;)
		sift_down(m, i);
	return 0;
}

/* The clock factor of the stream's last events block (the longest measurement): every event is
 * converted with it, so that the times of different threads stay in the order of their ticks. */
static void take_factor(struct merge *m)
{
	const struct rm_block *last = NULL;
	struct cursor c = {0};

	m->factor = (uint64_t)1 << 32;
	for (size_t i = 0; i < m->in->n; i++)
		if (!last || m->in->b[i].seq > last->seq)
			last = &m->in->b[i];
	if (!last)
		return;
	c.blk = (size_t)(last - m->in->b);
	c.end_blk = c.blk + 1;
	if (next_block(m, &c) == 0)
		m->factor = trace_get64(c.in);
	else
		m->o->damaged_bytes -= last->nbytes; /* counted again when its thread reads it */
	free(c.in);
}

static int run(struct merge *m)
{
	take_factor(m);
	if (make_cursors(m) != 0)
		return -1;
	while (m->nheap) {
		struct cursor *c = &m->c[m->heap[0]];
		if (step(m, c) != 0)
			return -1;
		if (!c->op)
			m->heap[0] = m->heap[--m->nheap];
		sift_down(m, 0);
	}
	for (size_t k = 0; k < m->nc; k++)
		if (flush_out(m, &m->c[k]) != 0)
			return -1;
	return 0;
}

int rm_merge(struct rm_input *in, struct rm_output *o, char *err, size_t errlen)
{
	struct merge m = {.in = in, .o = o, .err = err, .errlen = errlen};
	int rc = -1;

	m.stored = malloc(TRACE_BLOCK_HDR + TRACE_MAX_PAYLOAD);
	m.comp = malloc(TRACE_BLOCK_HDR + TRACE_MAX_PAYLOAD);
	m.dctx = ZSTD_createDCtx();
	m.cctx = ZSTD_createCCtx();
	if (!m.stored || !m.comp || !m.dctx || !m.cctx)
		errmsg_fail(err, errlen, "out of memory");
	else
		rc = run(&m);
	for (size_t k = 0; k < m.nc; k++) {
		free(m.c[k].in);
		free(m.c[k].out);
	}
	free(m.c);
	free(m.heap);
	u64map_free(&m.map);
	free(m.stored);
	free(m.comp);
	ZSTD_freeDCtx(m.dctx);
	ZSTD_freeCCtx(m.cctx);
	return rc;
}
