/* record_thread.c - the recorder's per-thread event buffers (record.h). Each thread appends to its
 * own 64 KiB buffer under its own lock, which only the exit and fork handlers contend for; when the
 * buffer is full the thread compresses it (zstd level 1) and appends the block to the stream. */
#include "preload/record.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <zstd.h>

#define RAW_CAP  (64u << 10)
#define COMP_CAP (TRACE_BLOCK_HDR + RAW_CAP + (RAW_CAP >> 7) + 1024)
#define ZLEVEL   1
#define ID_CHUNK 1024

struct tstate {
	atomic_int lock;
	uint32_t index;
	uint8_t *raw, *comp;
	size_t used;
	uint32_t count;
	uint64_t last_ts;
	uint64_t events;            /* recorded by this thread; summed into the end block */
	uint64_t id_next, id_limit; /* this thread's current range of object ids */
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
static atomic_uint_fast64_t next_id;

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

void *rec_map_pages(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Compresses and writes t's buffer; the caller holds t->lock with rec_guard set. */
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
	if (!t->cctx || ZSTD_isError(n) || atomic_load(&rec_stream_broken)) {
		rec_count(TRACE_END_DROPPED, t->count);
	} else {
		trace_block_header(t->comp, TRACE_K_EVENTS, TRACE_F_ZSTD, t->index, (uint32_t)n,
		                   (uint32_t)t->used, t->count,
		                   trace_fnv32(t->comp + TRACE_BLOCK_HDR, n));
		rec_write_block(t->comp, TRACE_BLOCK_HDR + n);
		if (atomic_load(&rec_stream_broken))
			rec_count(TRACE_END_DROPPED, t->count);
	}
	t->used = 8;
	t->count = 0;
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
	rec_spin_lock(&t->lock);
	if (t->raw)
		flush_locked(t);
	ZSTD_freeCCtx(t->cctx);
	t->cctx = NULL;
	if (t->raw)
		munmap(t->raw, RAW_CAP + COMP_CAP);
	t->raw = t->comp = NULL;
	rec_spin_unlock(&t->lock);
	rec_guard--;
}

int rec_thread_init(void)
{
	return pthread_key_create(&thread_key, thread_exit) == 0 ? 0 : -1;
}

void rec_emit(unsigned op, const uint64_t *v, int n)
{
	struct tstate *t = t_state;
	uint8_t *p;
	uint64_t now;

	if (!t && !(t = thread_register()))
		return;
	rec_guard++;
	rec_spin_lock(&t->lock);
	if (tstate_buffers(t) != 0 || !atomic_load_explicit(&rec_on, memory_order_relaxed)) {
		rec_spin_unlock(&t->lock);
		rec_guard--;
		return;
	}
	if (t->used + TRACE_MAX_EVENT > RAW_CAP)
		flush_locked(t);
	now = rec_stream_ticks();
	p = t->raw + t->used;
	*p++ = (uint8_t)op;
	p = trace_put_varint(p, t->count ? now - t->last_ts : now);
	for (int k = 0; k < n; k++)
		p = trace_put_varint(p, v[k]);
	t->last_ts = now;
	t->count++;
	t->used = (size_t)(p - t->raw);
	t->events++;
	rec_spin_unlock(&t->lock);
	rec_guard--;
}

uint64_t rec_new_id(void)
{
	struct tstate *t = t_state;

	if (!t && !(t = thread_register()))
		return atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed) + 1;
	if (t->id_next == t->id_limit) {
		t->id_next =
		    atomic_fetch_add_explicit(&next_id, ID_CHUNK, memory_order_relaxed) + 1;
		t->id_limit = t->id_next + ID_CHUNK;
	}
	return t->id_next++;
}

void rec_flush_all(void)
{
	rec_guard++;
	pthread_mutex_lock(&threads_mu);
	for (struct tstate *t = threads; t; t = t->next) {
		rec_spin_lock(&t->lock);
		if (t->raw)
			flush_locked(t);
		rec_spin_unlock(&t->lock);
	}
	pthread_mutex_unlock(&threads_mu);
	rec_guard--;
}

uint64_t rec_events(void)
{
	uint64_t events = 0;

	for (struct tstate *t = threads; t; t = t->next)
		events += t->events;
	return events;
}

void rec_threads_after_fork(void)
{
	struct tstate *self = t_state;

	pthread_mutex_init(&threads_mu, NULL);
	threads = NULL;
	atomic_store(&rec_nthreads, 0);
	atomic_store(&next_id, 0);
	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		atomic_store(&rec_counter[k], 0);
	if (self) {
		atomic_store(&self->lock, 0);
		self->used = 8;
		self->count = 0;
		self->events = 0;
		self->id_next = self->id_limit = 0;
		self->index = atomic_fetch_add(&rec_nthreads, 1);
		self->next = NULL;
		threads = self;
	}
}
