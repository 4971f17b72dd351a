/* record.c - build/liballocab-record.so, the LD_PRELOAD library behind `allocab record`: it wraps
 * every allocation call of the process, gives each returned block an object id, and writes the
 * calls per thread as zstd-compressed blocks to one stream file per process in
 * $ALLOCAB_RECORD_DIR (docs/trace-format.md). Without that variable it records nothing.
 *
 * Hot path: a per-thread buffer guarded by a per-thread lock that only the exit and fork handlers
 * ever contend for; the address-to-id map is sharded (64 shards, one spinlock each). A thread
 * compresses and appends its own block (one write() to an O_APPEND file) when its buffer fills. */
#include "common/trace_format.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define TLS         __attribute__((tls_model("initial-exec"))) __thread
#define EXPORT      __attribute__((visibility("default")))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define RAW_CAP     (64u << 10)
#define COMP_CAP    (TRACE_BLOCK_HDR + RAW_CAP + (RAW_CAP >> 7) + 1024)
#define ARENA_BYTES (256u << 10)
#define NSHARDS     64
#define ZLEVEL      1

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);
static size_t (*real_usable_size)(void *);

/* ---- bootstrap arena: serves dlsym's own calls until the real functions are known ---- */

static atomic_uint_fast64_t counter[TRACE_END_NCOUNTERS];
static _Alignas(64) unsigned char arena[ARENA_BYTES];
static atomic_size_t arena_used;

static int in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_BYTES;
}

static void *arena_alloc(size_t n, size_t align)
{
	size_t a = align < 16 ? 16 : align, off, start;

	if (n > ARENA_BYTES || a > 4096)
		return NULL;
	do {
		off = atomic_load(&arena_used);
		start = (off + 16 + a - 1) & ~(a - 1);
		if (start + n > ARENA_BYTES)
			return NULL;
	} while (!atomic_compare_exchange_weak(&arena_used, &off, start + n));
	memcpy(arena + start - 8, &n, sizeof n);
	atomic_fetch_add_explicit(&counter[TRACE_END_BOOTSTRAP], 1, memory_order_relaxed);
	return arena + start;
}

static size_t arena_size(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - 8, sizeof n);
	return n;
}

/* ---- process state ---- */

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

struct slot {
	uintptr_t key;
	uint64_t id;
};

struct shard {
	atomic_int lock;
	size_t cap, used;
	struct slot *tab;
} __attribute__((aligned(64)));

static TLS struct tstate *t_state;
static TLS int t_guard, t_resolving;

static atomic_int resolve_state; /* 0 not yet, 1 in progress, 2 done */
static atomic_int rec_on;
static int stream_fd = -1;
static uint64_t stream_start;
static char record_dir[3072];
static pthread_key_t thread_key;
static pthread_mutex_t threads_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tstate *threads;
static atomic_uint nthreads;
static atomic_uint_fast64_t next_id;
static atomic_int stream_broken;
static struct shard shards[NSHARDS];

#define ID_CHUNK 1024

/* Event times are in ticks of the time-stamp counter when it is invariant (ticks since the
 * stream's start); each events block carries the ticks-to-ns factor measured at its flush. */
static int use_tsc;
static uint64_t tsc_start;

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static uint64_t ticks_now(void)
{
	return use_tsc ? __rdtsc() : 0;
}
#else
static uint64_t ticks_now(void)
{
	return 0;
}
#endif

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ticks since the stream started: TSC ticks, or ns when the TSC is not used. */
static uint64_t stream_ticks(void)
{
	return use_tsc ? ticks_now() - tsc_start : mono_ns() - stream_start;
}

/* ns per tick as a 32.32 fixed-point factor, measured over the stream so far. */
static uint64_t tick_factor(void)
{
	uint64_t dt, dn;

	if (!use_tsc)
		return (uint64_t)1 << 32;
	dn = mono_ns() - stream_start;
	dt = ticks_now() - tsc_start;
	return dt ? (uint64_t)(((unsigned __int128)dn << 32) / dt) : (uint64_t)1 << 32;
}

/* Whether /proc/cpuinfo says the TSC ticks at a constant rate through sleep states. */
static int tsc_invariant(void)
{
	static char buf[8192];
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, " constant_tsc") && strstr(buf, " nonstop_tsc");
}

static void count(int k, uint64_t n)
{
	atomic_fetch_add_explicit(&counter[k], n, memory_order_relaxed);
}

static void spin_lock(atomic_int *l)
{
	for (unsigned n = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); n++) {
		if (n > 64)
			sched_yield();
		else
			__builtin_ia32_pause();
	}
}

static void spin_unlock(atomic_int *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

static void *map_pages(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int resolve(void)
{
	int expect = 0;

	if (atomic_load_explicit(&resolve_state, memory_order_acquire) == 2)
		return 0;
	if (!atomic_compare_exchange_strong(&resolve_state, &expect, 1)) {
		while (atomic_load(&resolve_state) != 2)
			sched_yield();
		return 0;
	}
	t_resolving = 1;
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_malloc = dlsym(RTLD_NEXT, "malloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_valloc = dlsym(RTLD_NEXT, "valloc");
	real_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	real_reallocarray = dlsym(RTLD_NEXT, "reallocarray");
	real_usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");
	t_resolving = 0;
	atomic_store_explicit(&resolve_state, 2, memory_order_release);
	return real_malloc && real_free && real_calloc && real_realloc ? 0 : -1;
}

/* Whether this call must be served from the arena (the real functions are not known yet). */
static int bootstrapping(void)
{
	if (UNLIKELY(atomic_load_explicit(&resolve_state, memory_order_acquire) != 2)) {
		if (t_resolving)
			return 1;
		return resolve() != 0;
	}
	return 0;
}

/* ---- address -> object id: sharded open addressing, backward-shift deletion ---- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int shard_grow(struct shard *s)
{
	size_t ncap = s->cap ? s->cap * 2 : 1024;
	struct slot *nt = map_pages(ncap * sizeof *nt);

	if (!nt)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->tab[i].key)
			continue;
		size_t j = mix64(s->tab[i].key) & (ncap - 1);
		while (nt[j].key)
			j = (j + 1) & (ncap - 1);
		nt[j] = s->tab[i];
	}
	if (s->tab)
		munmap(s->tab, s->cap * sizeof *s->tab);
	s->tab = nt;
	s->cap = ncap;
	return 0;
}

static void map_insert(const void *p, uint64_t id)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = mix64(key);
	struct shard *s = &shards[h >> 58];
	size_t j;

	spin_lock(&s->lock);
	if ((s->used + 1) * 10 > s->cap * 7 && shard_grow(s) != 0) {
		spin_unlock(&s->lock);
		return;
	}
	for (j = h & (s->cap - 1); s->tab[j].key && s->tab[j].key != key;
	     j = (j + 1) & (s->cap - 1))
		;
	if (!s->tab[j].key)
		s->used++;
	s->tab[j] = (struct slot){key, id};
	spin_unlock(&s->lock);
}

/* Removes p; returns its id, or 0 when the recorder never saw it allocated. */
static uint64_t map_remove(const void *p)
{
	uintptr_t key = (uintptr_t)p;
	uint64_t h = mix64(key), id = 0;
	struct shard *s = &shards[h >> 58];
	size_t mask, i, j;

	spin_lock(&s->lock);
	if (!s->cap)
		goto out;
	mask = s->cap - 1;
	for (i = h & mask; s->tab[i].key && s->tab[i].key != key; i = (i + 1) & mask)
		;
	if (!s->tab[i].key)
		goto out;
	id = s->tab[i].id;
	s->used--;
	for (j = (i + 1) & mask; s->tab[j].key; j = (j + 1) & mask) {
		size_t home = mix64(s->tab[j].key) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			s->tab[i] = s->tab[j];
			i = j;
		}
	}
	s->tab[i].key = 0;
out:
	spin_unlock(&s->lock);
	return id;
}

static void map_reset(void)
{
	for (int k = 0; k < NSHARDS; k++) {
		if (shards[k].tab)
			munmap(shards[k].tab, shards[k].cap * sizeof(struct slot));
		shards[k] = (struct shard){0};
	}
}

/* ---- stream output ---- */

static void write_block(uint8_t *block, size_t n)
{
	ssize_t w;

	if (atomic_load(&stream_broken) || stream_fd < 0)
		return;
	do
		w = write(stream_fd, block, n);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)n)
		atomic_store(&stream_broken, 1);
}

/* Writes a block whose payload is stored uncompressed (process, end). */
static void write_meta(unsigned kind, const uint8_t *payload, uint32_t len)
{
	uint8_t block[TRACE_BLOCK_HDR + TRACE_MAX_META];

	if (len > TRACE_MAX_META)
		return;
	trace_block_header(block, kind, 0, 0, len, len, 0, trace_fnv32(payload, len));
	memcpy(block + TRACE_BLOCK_HDR, payload, len);
	write_block(block, TRACE_BLOCK_HDR + len);
}

/* Reads up to cap bytes of a /proc file into buf without allocating; returns the length. */
static uint32_t read_proc(const char *path, uint8_t *buf, uint32_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, cap) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? (uint32_t)n : 0;
}

static void write_process_block(void)
{
	uint8_t p[TRACE_MAX_META];
	struct timespec rt;
	ssize_t n;
	uint32_t len = 36, a;

	clock_gettime(CLOCK_REALTIME, &rt);
	trace_put64(p, (uint64_t)getpid());
	trace_put64(p + 8, (uint64_t)getppid());
	trace_put64(p + 16, (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec);
	trace_put64(p + 24, stream_start);
	n = readlink("/proc/self/exe", (char *)p + 36, 4096);
	trace_put32(p + 32, n > 0 ? (uint32_t)n : 0);
	len += n > 0 ? (uint32_t)n : 0;
	a = read_proc("/proc/self/cmdline", p + len + 4, 4096);
	trace_put32(p + len, a);
	write_meta(TRACE_K_PROCESS, p, len + 4 + a);
}

static int open_stream(void)
{
	char path[sizeof record_dir + 64];
	uint8_t hdr[TRACE_FILE_HDR];

	stream_start = mono_ns();
	tsc_start = ticks_now();
	snprintf(path, sizeof path, "%s/s.%ld.%llu.ats", record_dir, (long)getpid(),
	         (unsigned long long)stream_start);
	stream_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
	if (stream_fd < 0)
		return -1;
	trace_file_header(hdr);
	write_block(hdr, sizeof hdr);
	write_process_block();
	return 0;
}

static void write_end_block(void)
{
	uint8_t p[4 + 8 * TRACE_END_NCOUNTERS];

	uint64_t events = 0;

	for (struct tstate *t = threads; t; t = t->next)
		events += t->events;
	counter[TRACE_END_EVENTS] = events;
	counter[TRACE_END_THREADS] = atomic_load(&nthreads);
	counter[TRACE_END_DURATION_NS] = mono_ns() - stream_start;
	trace_put32(p, TRACE_END_NCOUNTERS);
	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		trace_put64(p + 4 + 8 * k, atomic_load(&counter[k]));
	write_meta(TRACE_K_END, p, sizeof p);
}

/* Compresses and writes t's buffer; the caller holds t->lock with t_guard set. */
static void flush_locked(struct tstate *t)
{
	size_t n;

	if (!t->count)
		return;
	trace_put64(t->raw, tick_factor());
	if (!t->cctx)
		t->cctx = ZSTD_createCCtx();
	n = t->cctx ? ZSTD_compressCCtx(t->cctx, t->comp + TRACE_BLOCK_HDR,
	                                COMP_CAP - TRACE_BLOCK_HDR, t->raw, t->used, ZLEVEL)
	            : 0;
	if (!t->cctx || ZSTD_isError(n) || atomic_load(&stream_broken)) {
		count(TRACE_END_DROPPED, t->count);
	} else {
		trace_block_header(t->comp, TRACE_K_EVENTS, TRACE_F_ZSTD, t->index, (uint32_t)n,
		                   (uint32_t)t->used, t->count,
		                   trace_fnv32(t->comp + TRACE_BLOCK_HDR, n));
		write_block(t->comp, TRACE_BLOCK_HDR + n);
		if (atomic_load(&stream_broken))
			count(TRACE_END_DROPPED, t->count);
	}
	t->used = 8;
	t->count = 0;
}

static int tstate_buffers(struct tstate *t)
{
	if (t->raw)
		return 0;
	t->raw = map_pages(RAW_CAP + COMP_CAP);
	t->comp = t->raw ? t->raw + RAW_CAP : NULL;
	t->used = 8;
	return t->raw ? 0 : -1;
}

static struct tstate *thread_register(void)
{
	struct tstate *t = map_pages(sizeof *t);

	if (!t)
		return NULL;
	t->index = atomic_fetch_add(&nthreads, 1);
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

	t_guard++;
	spin_lock(&t->lock);
	if (t->raw)
		flush_locked(t);
	ZSTD_freeCCtx(t->cctx);
	t->cctx = NULL;
	if (t->raw)
		munmap(t->raw, RAW_CAP + COMP_CAP);
	t->raw = t->comp = NULL;
	spin_unlock(&t->lock);
	t_guard--;
}

/* Appends one event: op, then the varints in v[0..n-1] after the time delta. */
static void emit(unsigned op, const uint64_t *v, int n)
{
	struct tstate *t = t_state;
	uint8_t *p;
	uint64_t now;

	if (!t && !(t = thread_register()))
		return;
	t_guard++;
	spin_lock(&t->lock);
	if (tstate_buffers(t) != 0 || !atomic_load_explicit(&rec_on, memory_order_relaxed)) {
		spin_unlock(&t->lock);
		t_guard--;
		return;
	}
	if (t->used + TRACE_MAX_EVENT > RAW_CAP)
		flush_locked(t);
	now = stream_ticks();
	p = t->raw + t->used;
	*p++ = (uint8_t)op;
	p = trace_put_varint(p, t->count ? now - t->last_ts : now);
	for (int k = 0; k < n; k++)
		p = trace_put_varint(p, v[k]);
	t->last_ts = now;
	t->count++;
	t->used = (size_t)(p - t->raw);
	t->events++;
	spin_unlock(&t->lock);
	t_guard--;
}

/* A fresh object id from the calling thread's range. */
static uint64_t new_id(void)
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

static int recording(void)
{
	return !t_guard && atomic_load_explicit(&rec_on, memory_order_relaxed);
}

static void record_alloc(unsigned op, void *p, size_t size, size_t align)
{
	uint64_t v[3];

	if (!p) {
		count(TRACE_END_FAILED, 1);
		return;
	}
	v[0] = new_id();
	v[1] = size;
	v[2] = align;
	map_insert(p, v[0]);
	emit(op, v, align ? 3 : 2);
}

/* ---- fork, start, exit ---- */

static void flush_all(void)
{
	t_guard++;
	pthread_mutex_lock(&threads_mu);
	for (struct tstate *t = threads; t; t = t->next) {
		spin_lock(&t->lock);
		if (t->raw)
			flush_locked(t);
		spin_unlock(&t->lock);
	}
	pthread_mutex_unlock(&threads_mu);
	t_guard--;
}

/* The child keeps only the forking thread; its buffer holds the parent's events. */
static void atfork_child(void)
{
	struct tstate *self = t_state;

	if (!atomic_load(&rec_on))
		return;
	atomic_store(&rec_on, 0);
	pthread_mutex_init(&threads_mu, NULL);
	threads = NULL;
	atomic_store(&nthreads, 0);
	atomic_store(&next_id, 0);
	atomic_store(&stream_broken, 0);
	for (int k = 0; k < TRACE_END_NCOUNTERS; k++)
		atomic_store(&counter[k], 0);
	map_reset();
	if (self) {
		atomic_store(&self->lock, 0);
		self->used = 8;
		self->count = 0;
		self->events = 0;
		self->id_next = self->id_limit = 0;
		self->index = atomic_fetch_add(&nthreads, 1);
		self->next = NULL;
		threads = self;
	}
	close(stream_fd);
	stream_fd = -1;
	if (open_stream() == 0)
		atomic_store(&rec_on, 1);
}

__attribute__((constructor)) static void record_start(void)
{
	const char *dir = getenv("ALLOCAB_RECORD_DIR");

	if (bootstrapping() || !dir || !*dir || strlen(dir) >= sizeof record_dir)
		return;
	strcpy(record_dir, dir);
	use_tsc = tsc_invariant();
	if (pthread_key_create(&thread_key, thread_exit) != 0)
		return;
	pthread_atfork(NULL, NULL, atfork_child);
	if (open_stream() != 0) {
		char msg[256];
		int n = snprintf(msg, sizeof msg, "allocab-record: %s: %s (not recording)\n", dir,
		                 strerror(errno));
		if (write(2, msg, (size_t)n) < 0)
			return;
		return;
	}
	atomic_store(&rec_on, 1);
}

__attribute__((destructor)) static void record_stop(void)
{
	if (!atomic_load(&rec_on))
		return;
	flush_all();
	atomic_store(&rec_on, 0);
	write_end_block();
	close(stream_fd);
	stream_fd = -1;
}

/* ---- the interposed functions ---- */

EXPORT void *malloc(size_t n)
{
	void *p;

	if (bootstrapping())
		return arena_alloc(n, 16);
	p = real_malloc(n);
	if (recording())
		record_alloc(TRACE_OP_MALLOC, p, n, 0);
	return p;
}

EXPORT void *calloc(size_t nmemb, size_t size)
{
	void *p;

	if (bootstrapping())
		return size && nmemb > SIZE_MAX / size ? NULL : arena_alloc(nmemb * size, 16);
	p = real_calloc(nmemb, size);
	if (recording())
		record_alloc(TRACE_OP_CALLOC, p, nmemb * size, 0);
	return p;
}

EXPORT void free(void *p)
{
	uint64_t id;

	if (!p || in_arena(p)) {
		if (!p && recording())
			emit(TRACE_OP_FREE, &(uint64_t){0}, 1);
		return;
	}
	if (bootstrapping())
		return;
	if (recording()) {
		if ((id = map_remove(p)))
			emit(TRACE_OP_FREE, &id, 1);
		else
			count(TRACE_END_FOREIGN_FREES, 1);
	}
	real_free(p);
}

/* realloc and reallocarray: op says which; size is the product already checked for overflow. */
static void *resize(unsigned op, void *p, size_t nmemb, size_t size)
{
	uint64_t v[3];
	void *q;

	if (!recording())
		return op == TRACE_OP_REALLOC ? real_realloc(p, size)
		                              : real_reallocarray(p, nmemb, size);
	v[0] = p ? map_remove(p) : 0;
	if (p && !v[0])
		count(TRACE_END_FOREIGN_FREES, 1);
	q = op == TRACE_OP_REALLOC ? real_realloc(p, size) : real_reallocarray(p, nmemb, size);
	size = op == TRACE_OP_REALLOC ? size : nmemb * size;
	if (!q && p && size == 0) {
		if (v[0])
			emit(TRACE_OP_FREE, v, 1);
		return NULL;
	}
	if (!q) {
		if (v[0])
			map_insert(p, v[0]);
		count(TRACE_END_FAILED, 1);
		return NULL;
	}
	v[1] = new_id();
	v[2] = size;
	map_insert(q, v[1]);
	emit(op, v, 3);
	return q;
}

EXPORT void *realloc(void *p, size_t n)
{
	if (bootstrapping() || (p && in_arena(p))) {
		void *q = bootstrapping() ? arena_alloc(n, 16) : malloc(n);
		if (q && p)
			memcpy(q, p, arena_size(p) < n ? arena_size(p) : n);
		return q;
	}
	return resize(TRACE_OP_REALLOC, p, 1, n);
}

EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if (bootstrapping() || (p && in_arena(p)) || !real_reallocarray)
		return realloc(p, nmemb * size);
	return resize(TRACE_OP_REALLOCARRAY, p, nmemb, size);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int rc;

	if (bootstrapping()) {
		*out = arena_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	rc = real_posix_memalign(out, align, n);
	if (recording() && rc == 0)
		record_alloc(TRACE_OP_POSIX_MEMALIGN, *out, n, align);
	return rc;
}

/* aligned_alloc, memalign, valloc, pvalloc: op names the call, align its alignment. */
static void *aligned(unsigned op, size_t align, size_t n)
{
	void *p;

	if (bootstrapping())
		return arena_alloc(n, align ? align : 4096);
	switch (op) {
	case TRACE_OP_ALIGNED_ALLOC:
		p = real_aligned_alloc(align, n);
		break;
	case TRACE_OP_MEMALIGN:
		p = real_memalign(align, n);
		break;
	case TRACE_OP_VALLOC:
		p = real_valloc(n);
		break;
	default:
		p = real_pvalloc(n);
	}
	if (recording())
		record_alloc(op, p, n, align ? align : (size_t)sysconf(_SC_PAGESIZE));
	return p;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return aligned(TRACE_OP_ALIGNED_ALLOC, align, n);
}

EXPORT void *memalign(size_t align, size_t n)
{
	return aligned(TRACE_OP_MEMALIGN, align, n);
}

EXPORT void *valloc(size_t n)
{
	return aligned(TRACE_OP_VALLOC, 0, n);
}

EXPORT void *pvalloc(size_t n)
{
	return aligned(TRACE_OP_PVALLOC, 0, n);
}

EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (in_arena(p))
		return arena_size(p);
	if (bootstrapping() || !real_usable_size)
		return 0;
	count(TRACE_END_USABLE_SIZE, 1);
	return real_usable_size(p);
}
