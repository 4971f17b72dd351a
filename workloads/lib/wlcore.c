/* wlcore.c - phase timing and error reporting for workloads, and the shared buffer helpers. */
#include "driver/workload.h"
#include "workloads/lib/wlutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t tv_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

void wl_usage_now(struct wl_usage *out)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		memset(&ru, 0, sizeof ru);
	*out = (struct wl_usage){tv_ns(ru.ru_utime), tv_ns(ru.ru_stime), ru.ru_minflt,
	                         ru.ru_majflt,       ru.ru_nvcsw,         ru.ru_nivcsw};
}

void wl_usage_delta(const struct wl_usage *a, const struct wl_usage *b, struct wl_usage *out)
{
	*out = (struct wl_usage){b->user_ns - a->user_ns, b->sys_ns - a->sys_ns,
	                         b->minflt - a->minflt,   b->majflt - a->majflt,
	                         b->nvcsw - a->nvcsw,     b->nivcsw - a->nivcsw};
}

static void usage_add(struct wl_usage *sum, const struct wl_usage *d)
{
	sum->user_ns += d->user_ns;
	sum->sys_ns += d->sys_ns;
	sum->minflt += d->minflt;
	sum->majflt += d->majflt;
	sum->nvcsw += d->nvcsw;
	sum->nivcsw += d->nivcsw;
}

void wl_phase_begin(struct wl_ctx *ctx, int i)
{
	struct wl_phase_time *t = &ctx->phase[i];

	wl_usage_now(&t->open_usage);
	t->open_cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	t->open_wall = clock_ns(CLOCK_MONOTONIC);
}

void wl_phase_end(struct wl_ctx *ctx, int i)
{
	struct wl_phase_time *t = &ctx->phase[i];
	int64_t wall = clock_ns(CLOCK_MONOTONIC);
	int64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	struct wl_usage now, d;

	t->wall_ns += wall - t->open_wall;
	t->cpu_ns += cpu - t->open_cpu;
	wl_usage_now(&now);
	wl_usage_delta(&t->open_usage, &now, &d);
	usage_add(&t->usage, &d);
}

int wl_fail(struct wl_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t ck_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t w;

	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = ck_mix(h, w);
	}
	w = 0;
	if (n)
		memcpy(&w, b, n);
	return ck_mix(h, w ^ ((uint64_t)n << 56));
}

size_t wl_round64(size_t n)
{
	if (n > SIZE_MAX - (WL_ALIGN - 1))
		return 0;
	return (n + WL_ALIGN - 1) & ~(size_t)(WL_ALIGN - 1);
}

size_t wl_pow2_ceil(size_t n)
{
	size_t p = 1;

	while (p < n) {
		if (p > SIZE_MAX / 2)
			return 0;
		p <<= 1;
	}
	return p;
}

void *wl_aligned_alloc(size_t size)
{
	size_t rounded = wl_round64(size ? size : 1);
	void *p;

	if (!rounded || posix_memalign(&p, WL_ALIGN, rounded) != 0)
		return NULL;
	return p;
}

static int buf_realloc(struct wl_buf *b, size_t cap)
{
	uint8_t *d = wl_aligned_alloc(cap);

	if (!d)
		return -1;
	if (b->len)
		memcpy(d, b->data, b->len);
	free(b->data);
	b->data = d;
	b->cap = wl_round64(cap);
	return 0;
}

int wl_buf_reserve(struct wl_buf *b, size_t extra)
{
	size_t need, cap;

	if (extra > SIZE_MAX - b->len)
		return -1;
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : WL_ALIGN;
	while (cap < need)
		cap = cap > SIZE_MAX / 3 * 2 ? need : cap + cap / 2;
	return buf_realloc(b, cap);
}

int wl_buf_append(struct wl_buf *b, const void *src, size_t n)
{
	if (wl_buf_reserve(b, n) != 0)
		return -1;
	memcpy(b->data + b->len, src, n);
	b->len += n;
	return 0;
}

int wl_buf_shrink(struct wl_buf *b)
{
	if (!b->data || wl_round64(b->len ? b->len : 1) >= b->cap)
		return 0;
	return buf_realloc(b, b->len ? b->len : 1);
}

void wl_buf_free(struct wl_buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
