/* record_thread.c - the recorder's per-thread event buffers (record.h). Each thread appends to its
 * own 64 KiB buffer; when the buffer is full the thread compresses it (zstd level 1), appends the
 * block to the stream and updates the status block. No map, no lock, no shared state on the hot
 * path: events name addresses, and the bundler numbers the objects (docs/trace-format.md, "Raw
 * streams").
 *
 * Another thread may flush a thread's buffer only at exit, exec and _exit (flush_all). The two
 * meet in an asymmetric Dekker handshake instead of a lock: the owner raises `busy`, then checks
 * `stop`, with only a compiler barrier between (a plain store and load); a flusher raises `stop`
 * on every thread, then membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes every running thread
 * execute a full memory barrier, then it waits for `busy` to fall. So either the owner saw `stop`
 * and stepped back, or the flusher sees `busy` and waits. Where membarrier is not available the
 * owner uses a full fence itself. */
#include "preload/record.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

#define RAW_CAP  (64u << 10)
#define COMP_CAP (TRACE_BLOCK_HDR + RAW_CAP + (RAW_CAP >> 7) + 1024)
#define ZLEVEL   1

struct tstate {
	atomic_int busy; /* the owner is in its buffer */
	atomic_int stop; /* a flusher wants the buffer: the owner keeps out */
	uint32_t index;
	uint8_t *raw, *comp;
	size_t used;
	uint32_t count;
	uint64_t last_ts;
	uint64_t last_addr; /* of the block's previous event: addresses are stored as differences */
	ZSTD_CCtx *cctx;
	struct tstate *next;
};

atomic_uint_fast64_t rec_counter[TRACE_END_NCOUNTERS];
atomic_int rec_on;
atomic_uint rec_nthreads;
REC_TLS int rec_guard;

static REC_TLS struct tstate *t_state;
static pthread_key_t thread_key;
static pthread_mutex_t threads_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tstate *threads;
static int membarrier_ok; /* this process registered for private expedited membarriers */

void rec_count(int k, uint64_t n)
{
	atomic_fetch_add_explicit(&rec_counter[k], n, memory_order_relaxed);
}

void rec_spin_lock(atomic_int *l)
{
	for (unsigned n = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); n++) {
		if (n > 64)
			sched_yield();
		else
			__builtin_ia32_pause();
	}
}

void rec_spin_unlock(atomic_int *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

/* The owner enters its buffer: raises busy, and steps back while a flusher holds it. */
static void owner_enter(struct tstate *t)
{
	for (;;) {
		atomic_store_explicit(&t->busy, 1, memory_order_relaxed);
		if (membarrier_ok)
			atomic_signal_fence(memory_order_seq_cst);
		else
			atomic_thread_fence(memory_order_seq_cst);
		if (!atomic_load_explicit(&t->stop, memory_order_acquire))
			return;
		atomic_store_explicit(&t->busy, 0, memory_order_release);
		while (atomic_load_explicit(&t->stop, memory_order_acquire))
			sched_yield();
	}
}

static void owner_leave(struct tstate *t)
{
	atomic_store_explicit(&t->busy, 0, memory_order_release);
}

static void register_membarrier(void)
{
	membarrier_ok =
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void *rec_map_pages(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Compresses and writes t's buffer, counts its events (written or dropped) and updates the
 * status block; the caller owns the buffer (its thread, or a flusher that stopped it) with
 * rec_guard set. */
static void flush_locked(struct tstate *t)
{
	size_t n;

	if (!t->count)
		return;
	trace_put64(t->raw, rec_tick_factor());
	if (!t->cctx)
		t->cctx = ZSTD_createCCtx();
	n = t->cctx ? ZSTD_compressCCtx(t->cctx, t->comp + TRACE_BLOCK_HDR,
	                                COMP_CAP - TRACE_BLOCK_HDR, t->raw, t->used, ZLEVEL)
	            : 0;
	rec_count(TRACE_END_EVENTS, t->count);
	if (!t->cctx || ZSTD_isError(n)) {
		rec_count(TRACE_END_DROPPED, t->count);
	} else {
		trace_block_header(t->comp, TRACE_K_EVENTS, TRACE_F_ZSTD, t->index, (uint32_t)n,
		                   (uint32_t)t->used, t->count,
		                   trace_fnv32(t->comp + TRACE_BLOCK_HDR, n));
		if (rec_write_block(t->comp, TRACE_BLOCK_HDR + n) != 0)
			rec_count(TRACE_END_DROPPED, t->count);
	}
	t->used = 8;
	t->count = 0;
	t->last_addr = 0;
	rec_status_write(TRACE_HOW_RUNNING);
}

static int tstate_buffers(struct tstate *t)
{
	if (t->raw)
		return 0;
	t->raw = rec_map_pages(RAW_CAP + COMP_CAP);
	t->comp = t->raw ? t->raw + RAW_CAP : NULL;
	t->used = 8;
	return t->raw ? 0 : -1;
}

static struct tstate *thread_register(void)
{
	struct tstate *t = rec_map_pages(sizeof *t);

	if (!t)
		return NULL;
	t->index = atomic_fetch_add(&rec_nthreads, 1);
	pthread_mutex_lock(&threads_mu);
	t->next = threads;
	threads = t;
	pthread_mutex_unlock(&threads_mu);
	t_state = t;
	pthread_setspecific(thread_key, t);
	return t;
}

/* Thread exit: flush, then give back the compression context and buffers (re-made if the thread
 * allocates again in a later destructor). */
static void thread_exit(void *arg)
{
	struct tstate *t = arg;

	rec_guard++;
	owner_enter(t);
	if (t->raw)
		flush_locked(t);
	ZSTD_freeCCtx(t->cctx);
	t->cctx = NULL;
	if (t->raw)
		munmap(t->raw, RAW_CAP + COMP_CAP);
	t->raw = t->comp = NULL;
	owner_leave(t);
	rec_guard--;
}

int rec_thread_init(void)
{
	register_membarrier();
	return pthread_key_create(&thread_key, thread_exit) == 0 ? 0 : -1;
}

void rec_emit(unsigned op, uint64_t now, const uint64_t *v, int n)
{
	struct tstate *t = t_state;
	uint8_t *p;

	if (REC_UNLIKELY(!t) && !(t = thread_register()))
		return;
	rec_guard++;
	owner_enter(t);
	if (REC_UNLIKELY(tstate_buffers(t) != 0) ||
	    !atomic_load_explicit(&rec_on, memory_order_relaxed)) {
		owner_leave(t);
		rec_guard--;
		return;
	}
	if (t->used + REC_MAX_EVENT > RAW_CAP)
		flush_locked(t);
	if (now < t->last_ts) /* clocks of two CPUs a few ticks apart: keep the thread's order */
		now = t->last_ts;
	p = t->raw + t->used;
	*p++ = (uint8_t)op;
	p = trace_put_varint(p, t->count ? now - t->last_ts : now);
	for (int k = 0; k < n; k++) {
		uint64_t x = v[k];
		if (trace_raw_is_address(op, k)) {
			x = trace_zigzag(x - t->last_addr);
			t->last_addr = v[k];
		}
		p = trace_put_varint(p, x);
	}
	t->last_ts = now;
	t->count++;
	t->used = (size_t)(p - t->raw);
	owner_leave(t);
	rec_guard--;
}

void rec_flush_all(void)
{
	rec_guard++;
	pthread_mutex_lock(&threads_mu);
	for (struct tstate *t = threads; t; t = t->next)
		atomic_store(&t->stop, 1);
	if (membarrier_ok)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	for (struct tstate *t = threads; t; t = t->next) {
		while (atomic_load(&t->busy))
			sched_yield();
		if (t->raw)
			flush_locked(t);
		atomic_store_explicit(&t->stop, 0, memory_order_release);
	}
	pthread_mutex_unlock(&threads_mu);
	rec_guard--;
}

void rec_threads_after_fork(void)
{
	struct tstate *self = t_state;

	pthread_mutex_init(&threads_mu, NULL);
	threads = NULL;
	atomic_store(&rec_nthreads, 0);
	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		atomic_store(&rec_counter[k], 0);
	register_membarrier();
	if (self) {
		atomic_store(&self->busy, 0);
		atomic_store(&self->stop, 0);
		self->used = 8;
		self->count = 0;
		self->last_ts = 0;
		self->last_addr = 0;
		self->index = atomic_fetch_add(&rec_nthreads, 1);
		self->next = NULL;
		threads = self;
	}
}
