/* mktrace.c - writes a synthetic allocab trace (docs/trace-format.md) for the replay tests
 * (tests/e2e/e2e_limits.sh, tests/e2e/e2e_record_phases.sh): one process of one thread making 2 x PAIRS
 * events, each GAP_NS nanoseconds after the one before: PAIRS times malloc(SIZE) then free, or
 * with `realloc` one malloc(SIZE), a chain of reallocs alternating between SIZE + 4096 and SIZE,
 * and a free; with `marks=N` the events split into N spans of the phase "step", back to back,
 * the first from the first event on. Events blocks are stored uncompressed. Usage: mktrace OUT
 * PAIRS SIZE GAP_NS [realloc] [marks=N]. Exits 0, or 2 with one line on stderr. */
#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_BLOCK_EVENTS 4096

struct mt {
	FILE *f;
	uint64_t blocks;
	int chain; /* realloc chain instead of malloc/free pairs */
};

static int put_block(struct mt *m, unsigned kind, const uint8_t *payload, size_t len,
                     uint32_t count)
{
	uint8_t h[TRACE_BLOCK_HDR];

	trace_block_header(h, kind, 0, 0, (uint32_t)len, (uint32_t)len, count,
	                   trace_fnv32(payload, len));
	m->blocks++;
	return fwrite(h, 1, sizeof h, m->f) == sizeof h && fwrite(payload, 1, len, m->f) == len
	           ? 0
	           : -1;
}

static int put_process(struct mt *m)
{
	uint8_t p[48] = {0};

	trace_put64(p, 4242);
	trace_put64(p + 8, 1);
	trace_put32(p + 32, 7);
	memcpy(p + 36, "mktrace", 7);
	trace_put32(p + 43, 0);
	return put_block(m, TRACE_K_PROCESS, p, 47, 0);
}

/* Event i of n: in pairs, event 2k mallocs object k + 1 and event 2k + 1 frees it; in a chain,
 * object i + 1 is the block after event i. */
static uint8_t *put_event(const struct mt *m, uint8_t *p, uint64_t i, uint64_t n, uint64_t size)
{
	if (!m->chain) {
		p = trace_put_varint(p, i / 2 + 1);
		return i % 2 ? p : trace_put_varint(p, size);
	}
	p = trace_put_varint(p, i == 0 ? 1 : i);
	if (i == 0)
		return trace_put_varint(p, size);
	if (i == n - 1)
		return p;
	p = trace_put_varint(p, i + 1);
	return trace_put_varint(p, size + (i % 2) * 4096);
}

static unsigned op_of(const struct mt *m, uint64_t i, uint64_t n)
{
	if (!m->chain)
		return i % 2 ? TRACE_OP_FREE : TRACE_OP_MALLOC;
	return i == 0 ? TRACE_OP_MALLOC : i == n - 1 ? TRACE_OP_FREE : TRACE_OP_REALLOC;
}

/* Events [from, to) of n, in one events block. */
static int put_events(struct mt *m, uint64_t from, uint64_t to, uint64_t n, uint64_t size,
                      uint64_t gap)
{
	static uint8_t raw[8 + MT_BLOCK_EVENTS * TRACE_MAX_EVENT];
	uint8_t *p = raw + 8;

	trace_put64(raw, (uint64_t)1 << 32);
	for (uint64_t i = from; i < to; i++) {
		*p++ = (uint8_t)op_of(m, i, n);
		p = trace_put_varint(p, i == from ? gap * (i + 1) : gap);
		p = put_event(m, p, i, n, size);
	}
	return put_block(m, TRACE_K_EVENTS, raw, (size_t)(p - raw), (uint32_t)(to - from));
}

static int put_end(struct mt *m, uint64_t events)
{
	uint8_t e[4 + 8 * TRACE_END_NCOUNTERS] = {0};

	trace_put32(e, TRACE_END_NCOUNTERS);
	trace_put64(e + 4 + 8 * TRACE_END_EVENTS, events);
	trace_put64(e + 4 + 8 * TRACE_END_THREADS, 1);
	trace_put64(e + 4 + 8 * TRACE_END_HOW, TRACE_HOW_EXIT);
	return put_block(m, TRACE_K_END, e, sizeof e, 0);
}

/* N spans of "step" over the n events (event i at (i + 1) x gap ns), back to back. */
static int put_marks(struct mt *m, uint64_t nspans, uint64_t n, uint64_t gap)
{
	static struct trace_span sp[TRACE_MARKS_MAX_SPANS];
	static uint8_t block[TRACE_BLOCK_HDR + TRACE_MAX_MARKS];
	struct trace_marks k = {.nphases = 1, .nspans = nspans, .all = sp};
	size_t len;

	for (uint64_t i = 0; i < nspans; i++)
		sp[i] = (struct trace_span){gap * (1 + n * i / nspans), gap * (1 + n * (i + 1) / nspans)};
	strcpy(k.phase[0].name, "step");
	k.phase[0].span = sp;
	k.phase[0].n = nspans;
	len = trace_marks_block(&k, block, sizeof block);
	m->blocks++;
	return len && fwrite(block, 1, len, m->f) == len ? 0 : -1;
}

static int put_trailer(struct mt *m)
{
	uint8_t t[16];
	uint8_t h[TRACE_BLOCK_HDR];

	trace_put64(t, m->blocks);
	trace_put64(t + 8, 1);
	trace_block_header(h, TRACE_K_TRAILER, 0, 0, 16, 16, 0, trace_fnv32(t, 16));
	return fwrite(h, 1, sizeof h, m->f) == sizeof h && fwrite(t, 1, 16, m->f) == 16 ? 0 : -1;
}

static int number(const char *s, uint64_t *v)
{
	char *end;

	*v = strtoull(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint8_t hdr[TRACE_FILE_HDR];
	uint64_t pairs, size, gap, n, marks = 0;
	struct mt m = {0};
	int rc = 0, bad = argc < 5;

	for (int i = 5; i < argc; i++)
		if (strcmp(argv[i], "realloc") == 0)
			m.chain = 1;
		else if (strncmp(argv[i], "marks=", 6) != 0 || number(argv[i] + 6, &marks) ||
		         !marks || marks > TRACE_MARKS_MAX_SPANS)
			bad = 1;
	if (bad || number(argv[2], &pairs) || number(argv[3], &size) || number(argv[4], &gap) ||
	    !pairs || pairs > (1u << 24) || gap < !!marks || gap > 1000000000u ||
	    marks > 2 * pairs) {
		fprintf(stderr, "usage: mktrace OUT PAIRS(1..2^24) SIZE GAP_NS(0..1e9) [realloc] "
		                "[marks=N(1..4096, <= 2 PAIRS, GAP_NS >= 1)]\n");
		return 2;
	}
	if (!(m.f = fopen(argv[1], "wb"))) {
		perror(argv[1]);
		return 2;
	}
	n = 2 * pairs;
	trace_file_header(hdr, TRACE_FILE_MAGIC);
	rc |= fwrite(hdr, 1, sizeof hdr, m.f) == sizeof hdr ? 0 : -1;
	rc |= put_process(&m);
	for (uint64_t i = 0; i < n && !rc; i += MT_BLOCK_EVENTS)
		rc |= put_events(&m, i, i + MT_BLOCK_EVENTS < n ? i + MT_BLOCK_EVENTS : n, n, size,
		                 gap);
	if (marks)
		rc |= put_marks(&m, marks, n, gap);
	rc |= put_end(&m, n);
	rc |= put_trailer(&m);
	if (fclose(m.f) != 0 || rc) {
		fprintf(stderr, "mktrace: cannot write %s\n", argv[1]);
		return 2;
	}
	return 0;
}
