/* tracebuild.h - traces built byte by byte in memory for the unit tests of the trace reader and
 * the replay loader (tests/unit/common/test_trace.c, tests/unit/common/test_tracemarks.c): blocks of any kind, a process,
 * events blocks (zstd-compressed), the trailer, and the whole written to a temporary file. */
#ifndef ALLOCAB_TRACEBUILD_H
#define ALLOCAB_TRACEBUILD_H

#include "trace/trace_format.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

struct tb {
	uint8_t buf[1 << 17];
	size_t n, blocks, procs;
};

static inline void put_block(struct tb *t, unsigned kind, uint32_t thread, const uint8_t *raw,
                      size_t rawlen, uint32_t count)
{
	uint8_t *h = t->buf + t->n, *payload = h + TRACE_BLOCK_HDR;
	size_t plen = rawlen;
	unsigned flags = 0;

	if (kind == TRACE_K_EVENTS) {
		plen =
		    ZSTD_compress(payload, sizeof t->buf - t->n - TRACE_BLOCK_HDR, raw, rawlen, 1);
		flags = TRACE_F_ZSTD;
	} else {
		memcpy(payload, raw, rawlen);
	}
	trace_block_header(h, kind, flags, thread, (uint32_t)plen, (uint32_t)rawlen, count,
	                   trace_fnv32(payload, plen));
	t->n += TRACE_BLOCK_HDR + plen;
	t->blocks++;
	t->procs += kind == TRACE_K_PROCESS;
}

static inline void put_process(struct tb *t, uint64_t pid)
{
	uint8_t p[64] = {0};

	trace_put64(p, pid);
	trace_put64(p + 8, 1);
	trace_put32(p + 32, 4);
	memcpy(p + 36, "prog", 4);
	trace_put32(p + 40, 0);
	put_block(t, TRACE_K_PROCESS, 0, p, 44, 0);
}

/* An events block: ops[i] = {op, a, b, c} encoded at 100 ticks (1 ns each) from the stream's
 * start and 10 more for each event after the first. */
static inline void put_events(struct tb *t, uint32_t thread, const uint64_t (*ops)[4], size_t n)
{
	uint8_t raw[4096], *p = raw + 8;

	trace_put64(raw, (uint64_t)1 << 32);
	for (size_t i = 0; i < n; i++) {
		int nv = ops[i][0] == TRACE_OP_FREE ? 1 : ops[i][0] == TRACE_OP_MALLOC ? 2 : 3;
		*p++ = (uint8_t)ops[i][0];
		p = trace_put_varint(p, i ? 10 : 100);
		for (int k = 0; k < nv; k++)
			p = trace_put_varint(p, ops[i][1 + k]);
	}
	put_block(t, TRACE_K_EVENTS, thread, raw, (size_t)(p - raw), (uint32_t)n);
}

static inline void finish(struct tb *t)
{
	uint8_t p[16];

	trace_put64(p, t->blocks);
	trace_put64(p + 8, t->procs);
	trace_block_header(t->buf + t->n, TRACE_K_TRAILER, 0, 0, 16, 16, 0, trace_fnv32(p, 16));
	memcpy(t->buf + t->n + TRACE_BLOCK_HDR, p, 16);
	t->n += TRACE_BLOCK_HDR + 16;
}

static inline void start(struct tb *t)
{
	memset(t, 0, sizeof *t);
	trace_file_header(t->buf, TRACE_FILE_MAGIC);
	t->n = TRACE_FILE_HDR;
}

static inline int write_tmp(const struct tb *t, char *path)
{
	int fd;

	strcpy(path, "/tmp/allocab-test-trace.XXXXXX");
	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (write(fd, t->buf, t->n) != (ssize_t)t->n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

#endif
