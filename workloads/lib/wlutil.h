/* wlutil.h - helpers shared by the workloads: content checksums and Arrow-style growable,
 * 64-byte-aligned buffers. All allocation goes through the process's malloc so the allocator under
 * test serves it; nothing here allocates behind the caller's back. */
#ifndef ALLOCAB_WLUTIL_H
#define ALLOCAB_WLUTIL_H

#include <stddef.h>
#include <stdint.h>

#define WL_ALIGN 64

/* Checksum: an order-dependent 64-bit mix of values. Feed contents, never addresses. */
static inline uint64_t ck_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

/* Mixes n bytes of p into h, reading 8 bytes at a time. */
uint64_t ck_bytes(uint64_t h, const void *p, size_t n);

/* a * b and a + b, saturating at UINT64_MAX: footprints of extreme parameters. */
static inline uint64_t wl_sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static inline uint64_t wl_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Rounds n up to a multiple of 64; returns 0 on overflow. */
size_t wl_round64(size_t n);
/* Smallest power of two >= n (n >= 1); returns 0 on overflow. */
size_t wl_pow2_ceil(size_t n);

/* 64-byte-aligned allocation of wl_round64(size) bytes via posix_memalign; NULL on failure.
 * Release with free(). */
void *wl_aligned_alloc(size_t size);

/* A growable 64-byte-aligned buffer, grown ×1.5 by alloc + copy + free like an Arrow builder.
 * Owns data; release with wl_buf_free (accepts a zeroed or freed buffer). */
struct wl_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Makes room for at least `extra` more bytes. Returns 0, or -1 (buffer unchanged) on failure. */
int wl_buf_reserve(struct wl_buf *b, size_t extra);
/* Appends n bytes. Returns 0, or -1 (buffer unchanged) on failure. */
int wl_buf_append(struct wl_buf *b, const void *src, size_t n);
/* Shrinks capacity to wl_round64(len) by alloc + copy + free, as builders do on finish. */
int wl_buf_shrink(struct wl_buf *b);
void wl_buf_free(struct wl_buf *b);

#endif
