/* trace_format.h - the allocab trace format (docs/trace-format.md) as constants and inline
 * encoders, shared by the recorder (src/preload/record*.c, which links nothing else of the
 * project), the bundler (trace/bundle.h) and the reader (trace/trace.h). Every integer on
 * disk is little-endian. */
#ifndef ALLOCAB_TRACE_FORMAT_H
#define ALLOCAB_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TRACE_FILE_MAGIC  "ALLOCTRC" /* a bundled trace */
#define TRACE_RAW_MAGIC   "ALLOCRAW" /* a raw stream: one process image, for the bundler */
#define TRACE_VERSION     3
#define TRACE_FILE_HDR    16          /* magic[8], u32 version, u32 reserved (0) */
#define TRACE_BLOCK_MAGIC 0x31425441u /* "ATB1" */
#define TRACE_BLOCK_HDR   32
#define TRACE_MAX_RAW     (1u << 20) /* largest decompressed block payload the reader accepts */
#define TRACE_MAX_PAYLOAD                                                                          \
	(TRACE_MAX_RAW + (TRACE_MAX_RAW >> 7) + 1024) /* >= ZSTD_compressBound                     \
	                                               */
#define TRACE_MAX_META  16384                         /* largest process / end / trailer payload */
#define TRACE_MAX_EVENT 41                            /* op byte + 4 varints of at most 10 bytes */
#define TRACE_MIN_EVENT 3                             /* op byte + two one-byte varints */

enum trace_kind {
	TRACE_K_PROCESS = 1, /* starts a process stream: pid, ppid, clocks, executable, arguments */
	TRACE_K_EVENTS = 2,  /* events of one thread of the current process, a zstd frame */
	TRACE_K_END = 3,     /* the process's counters and how its stream ended (version 1: only
	                        written when it ended normally) */
	TRACE_K_TRAILER =
	    4, /* last block of a bundled trace: how many blocks and processes precede */
	TRACE_K_STATUS = 5, /* raw streams only, right after the process block: the end block's
	                       counters so far, rewritten in place as the process runs */
	TRACE_K_MARKS = 6,  /* version 3, bundles only: the phases the process marked, in its own
	                       time base; after its events blocks, right before its end block */
};

#define TRACE_F_ZSTD 1u /* block flag: the payload is one zstd frame of raw_len bytes */

enum trace_op {
	TRACE_OP_MALLOC = 1,
	TRACE_OP_CALLOC,
	TRACE_OP_REALLOC,
	TRACE_OP_FREE,
	TRACE_OP_POSIX_MEMALIGN,
	TRACE_OP_ALIGNED_ALLOC,
	TRACE_OP_MEMALIGN,
	TRACE_OP_VALLOC,
	TRACE_OP_PVALLOC,
	TRACE_OP_REALLOCARRAY,
	TRACE_OP_COUNT /* one past the last */
};

/* End-block counters, in payload order (u32 count, then count u64 values; readers ignore extra
 * ones and take missing ones as 0). */
enum trace_end_counter {
	TRACE_END_EVENTS,        /* events recorded (written or not) */
	TRACE_END_THREADS,       /* threads that recorded at least one event */
	TRACE_END_BOOTSTRAP,     /* allocations served from the bootstrap arena (not recorded) */
	TRACE_END_FOREIGN_FREES, /* frees/reallocs of memory the recorder never saw allocated */
	TRACE_END_FAILED,        /* allocations that returned NULL (not recorded) */
	TRACE_END_DURATION_NS,   /* monotonic ns from the stream's start to the end block */
	TRACE_END_DROPPED,       /* events lost because a block could not be written */
	TRACE_END_USABLE_SIZE,   /* malloc_usable_size calls (counted, not recorded) */
	TRACE_END_HOW,           /* how the stream ended: enum trace_how (version 2) */
	TRACE_END_WRITE_ERRNO,   /* errno of the first block write that failed, 0 if none */
	TRACE_END_TORN_BYTES,    /* bytes of a torn or unreadable stream tail the bundler dropped */
	TRACE_END_MISORDERED,    /* allocations at an address still live when numbered: the clocks
	                            of two threads disagreed */
	TRACE_END_NCOUNTERS
};

/* How a process's stream ended (TRACE_END_HOW). */
enum trace_how {
	TRACE_HOW_UNKNOWN = 0, /* a version 1 trace: the end block says only that it ended */
	TRACE_HOW_EXIT = 1,    /* exit() or a return from main: every event flushed */
	TRACE_HOW_EXEC = 2,    /* the image was replaced by exec: every event flushed before it */
	TRACE_HOW__EXIT = 3,   /* _exit() or _Exit(): every event flushed before it */
	TRACE_HOW_KILLED = 4,  /* gone without an end: killed by a signal or crashed; the events
	                          its threads had not flushed yet are lost */
	TRACE_HOW_RUNNING = 5, /* still running when the trace was bundled: cut there */
	TRACE_HOW_COUNT
};

static inline void trace_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void trace_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t trace_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t trace_get64(const uint8_t *p)
{
	return (uint64_t)trace_get32(p) | (uint64_t)trace_get32(p + 4) << 32;
}

/* FNV-1a, 32 bits: the header and payload checks of a block. */
static inline uint32_t trace_fnv32(const void *data, size_t n)
{
	const uint8_t *b = data;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* Appends v as an LEB128 varint at p; returns the byte after it (at most 10 bytes written). */
static inline uint8_t *trace_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A signed difference of two addresses as an unsigned varint value: 0, -1, 1, -2, ... -> 0, 1, 2,
 * 3, ... (raw streams store each address as the difference from the one before it in its
 * block). */
static inline uint64_t trace_zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t trace_unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Whether field k (after the time) of a raw stream's op is an address: free, the allocations:
 * field 0; realloc, reallocarray (release ticks, old address, new address, size): 1 and 2. */
static inline int trace_raw_is_address(unsigned op, int k)
{
	if (op == TRACE_OP_REALLOC || op == TRACE_OP_REALLOCARRAY)
		return k == 1 || k == 2;
	return k == 0;
}

/* Block header fields (offsets in bytes): 0 magic u32, 4 kind u8, 5 flags u8, 6 reserved u16 (0),
 * 8 thread u32, 12 payload_len u32, 16 raw_len u32, 20 count u32, 24 payload FNV-1a u32,
 * 28 FNV-1a u32 of bytes 0..27. */
static inline void trace_block_header(uint8_t h[TRACE_BLOCK_HDR], unsigned kind, unsigned flags,
                                      uint32_t thread, uint32_t payload_len, uint32_t raw_len,
                                      uint32_t count, uint32_t payload_check)
{
	memset(h, 0, TRACE_BLOCK_HDR);
	trace_put32(h, TRACE_BLOCK_MAGIC);
	h[4] = (uint8_t)kind;
	h[5] = (uint8_t)flags;
	trace_put32(h + 8, thread);
	trace_put32(h + 12, payload_len);
	trace_put32(h + 16, raw_len);
	trace_put32(h + 20, count);
	trace_put32(h + 24, payload_check);
	trace_put32(h + 28, trace_fnv32(h, 28));
}

/* magic: TRACE_FILE_MAGIC or TRACE_RAW_MAGIC. */
static inline void trace_file_header(uint8_t h[TRACE_FILE_HDR], const char *magic)
{
	memcpy(h, magic, 8);
	trace_put32(h + 8, TRACE_VERSION);
	trace_put32(h + 12, 0);
}

#endif
