/* trace.c - the checked reader of allocab traces (trace.h, docs/trace-format.md). */
#include "trace/trace.h"

#include "common/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

struct trace_reader {
	FILE *f;
	enum trace_mode mode;
	uint64_t offset;  /* of the next block */
	uint64_t nblocks; /* read so far, trailer excluded */
	uint64_t nprocs;
	uint64_t stored_total, raw_total; /* payload bytes of the blocks read, as stored and raw */
	unsigned version, last_kind;
	int compressed_only; /* events payloads are checked, not decompressed (data NULL) */
	int in_process, ended, marked, done, torn;
	uint8_t *stored; /* header + payload as read */
	uint8_t *raw;    /* decompressed payload */
	ZSTD_DCtx *dctx;
};

static const char *const op_names[TRACE_OP_COUNT] = {
    "?",        "malloc", "calloc",  "realloc",     "free", "posix_memalign", "aligned_alloc",
    "memalign", "valloc", "pvalloc", "reallocarray"};

const char *trace_op_name(unsigned op)
{
	return op > 0 && op < TRACE_OP_COUNT ? op_names[op] : "?";
}

static struct trace_reader *reader_new(FILE *f, enum trace_mode mode, char *err, size_t errlen)
{
	struct trace_reader *r = calloc(1, sizeof *r);
	const char *magic = mode == TRACE_STREAM ? TRACE_RAW_MAGIC : TRACE_FILE_MAGIC;
	unsigned oldest = mode == TRACE_STREAM ? 2 : 1; /* raw streams of 2 and 3 are alike */
	uint8_t h[TRACE_FILE_HDR];
	size_t n;

	if (!r || !(r->stored = malloc(TRACE_BLOCK_HDR + TRACE_MAX_PAYLOAD)) ||
	    !(r->raw = malloc(TRACE_MAX_RAW)) || !(r->dctx = ZSTD_createDCtx())) {
		errmsg_fail(err, errlen, "out of memory for the trace reader");
		goto fail;
	}
	r->f = f;
	r->mode = mode;
	n = fread(h, 1, sizeof h, f);
	if (n < sizeof h || memcmp(h, magic, 8) != 0) {
		errmsg_fail(err, errlen, "not an allocab %s (no %s header)",
		            mode == TRACE_STREAM ? "raw stream" : "trace", magic);
		goto fail;
	}
	r->version = trace_get32(h + 8);
	if (r->version < oldest || r->version > TRACE_VERSION || trace_get32(h + 12) != 0) {
		errmsg_fail(
		    err, errlen,
		    "trace format version %u (flags %u), this allocab reads versions %u to %d",
		    r->version, trace_get32(h + 12), oldest, TRACE_VERSION);
		goto fail;
	}
	r->offset = TRACE_FILE_HDR;
	return r;
fail:
	if (r) {
		r->f = NULL;
		trace_close(r);
	}
	fclose(f);
	return NULL;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* Opens path for reading without blocking on a FIFO or a device, and refuses anything but a
 * regular file before reading a byte. */
static FILE *open_regular(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st = {0};
	FILE *f;

	if (fd < 0)
		return errmsg_fail(err, errlen, "%s: %s", path, strerror(errno)), NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		errmsg_fail(err, errlen, "%s: %s, not a regular file: refused", path,
		            file_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(f = fdopen(fd, "rb"))) {
		errmsg_fail(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

struct trace_reader *trace_open(const char *path, enum trace_mode mode, char *err, size_t errlen)
{
	FILE *f = open_regular(path, err, errlen);
	struct trace_reader *r;

	if (!f)
		return NULL;
	r = reader_new(f, mode, err, errlen);
	if (!r) {
		char why[256];
		snprintf(why, sizeof why, "%s", err);
		errmsg_fail(err, errlen, "%s: %s", path, why);
	}
	return r;
}

struct trace_reader *trace_open_mem(const void *data, size_t n, enum trace_mode mode, char *err,
                                    size_t errlen)
{
	FILE *f = n ? fmemopen((void *)data, n, "rb") : NULL;

	if (!n)
		return errmsg_fail(err, errlen, "empty trace"), NULL;
	if (!f)
		return errmsg_fail(err, errlen, "cannot read trace from memory"), NULL;
	return reader_new(f, mode, err, errlen);
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	ZSTD_freeDCtx(r->dctx);
	free(r->stored);
	free(r->raw);
	free(r);
}

int trace_torn(const struct trace_reader *r)
{
	return r->torn;
}

void trace_compressed_only(struct trace_reader *r)
{
	r->compressed_only = 1;
}

unsigned trace_version(const struct trace_reader *r)
{
	return r->version;
}

uint64_t trace_offset(const struct trace_reader *r)
{
	return r->offset;
}

/* End of input where a block should start or continue: the end of a stream, or an error. */
static int short_read(struct trace_reader *r, size_t got, char *err, size_t errlen)
{
	if (r->mode == TRACE_STREAM) {
		r->torn = got > 0;
		r->done = 1;
		return 0;
	}
	if (got == 0)
		return errmsg_fail(err, errlen,
		                   "truncated: ends after %llu blocks without its trailer block",
		                   (unsigned long long)r->nblocks);
	return errmsg_fail(err, errlen, "truncated: block at byte %llu is incomplete",
	                   (unsigned long long)r->offset);
}

/* Bundles hold process, events, end and trailer blocks, and from version 3 on marks blocks; raw
 * streams process, status, events. */
static int kind_known(const struct trace_reader *r, unsigned kind)
{
	if (r->mode == TRACE_STREAM)
		return kind == TRACE_K_PROCESS || kind == TRACE_K_STATUS || kind == TRACE_K_EVENTS;
	return (kind >= TRACE_K_PROCESS && kind <= TRACE_K_TRAILER) ||
	       (kind == TRACE_K_MARKS && r->version >= 3);
}

static int check_header(struct trace_reader *r, const uint8_t *h, char *err, size_t errlen)
{
	unsigned kind = h[4], flags = h[5];
	uint32_t plen = trace_get32(h + 12), rlen = trace_get32(h + 16);
	unsigned long long at = (unsigned long long)r->offset;

	if (trace_get32(h) != TRACE_BLOCK_MAGIC || trace_get32(h + 28) != trace_fnv32(h, 28))
		return errmsg_fail(err, errlen, "corrupt: bad block header at byte %llu", at);
	if (!kind_known(r, kind) || (flags & ~TRACE_F_ZSTD) || h[6] || h[7])
		return errmsg_fail(err, errlen,
		                   "corrupt: unknown block kind %u (flags %u) at byte %llu", kind,
		                   flags, at);
	if (kind != TRACE_K_EVENTS && flags)
		return errmsg_fail(err, errlen,
		                   "corrupt: block at byte %llu (kind %u) has the zstd flag: only "
		                   "event blocks are compressed",
		                   at, kind);
	if (plen > TRACE_MAX_PAYLOAD || rlen > TRACE_MAX_RAW ||
	    (kind != TRACE_K_EVENTS &&
	     (rlen > (kind == TRACE_K_MARKS ? TRACE_MAX_MARKS : TRACE_MAX_META) || flags)) ||
	    (!(flags & TRACE_F_ZSTD) && plen != rlen))
		return errmsg_fail(err, errlen,
		                   "corrupt: block at byte %llu declares %u stored / %u raw bytes "
		                   "(limits %u / %u)",
		                   at, plen, rlen, TRACE_MAX_PAYLOAD, TRACE_MAX_RAW);
	if (kind == TRACE_K_EVENTS &&
	    (trace_get32(h + 20) == 0 || trace_get32(h + 20) > rlen / TRACE_MIN_EVENT))
		return errmsg_fail(err, errlen,
		                   "corrupt: block at byte %llu declares %u events in %u bytes", at,
		                   trace_get32(h + 20), rlen);
	return 0;
}

static int check_order(struct trace_reader *r, unsigned kind, char *err, size_t errlen)
{
	unsigned long long at = (unsigned long long)r->offset;

	unsigned last = r->last_kind;

	r->last_kind = kind;
	if (kind == TRACE_K_PROCESS && r->mode == TRACE_STREAM && r->in_process)
		return errmsg_fail(err, errlen, "corrupt: a second process block at byte %llu", at);
	if (last == TRACE_K_MARKS && kind != TRACE_K_END)
		return errmsg_fail(err, errlen,
		                   "corrupt: block at byte %llu follows a marks block, which only an "
		                   "end block may",
		                   at);
	if (kind == TRACE_K_PROCESS) {
		r->in_process = 1;
		r->ended = r->marked = 0;
		r->nprocs++;
		return 0;
	}
	if (kind == TRACE_K_STATUS && last != TRACE_K_PROCESS)
		return errmsg_fail(
		    err, errlen,
		    "corrupt: the status block at byte %llu does not follow the process "
		    "block",
		    at);
	if (!r->in_process && kind != TRACE_K_TRAILER)
		return errmsg_fail(err, errlen, "corrupt: block at byte %llu precedes any process",
		                   at);
	if (r->ended && kind != TRACE_K_TRAILER)
		return errmsg_fail(
		    err, errlen, "corrupt: block at byte %llu follows its process's end block", at);
	if (kind == TRACE_K_END)
		r->ended = 1;
	if (kind == TRACE_K_MARKS && r->marked++)
		return errmsg_fail(err, errlen, "corrupt: a second marks block at byte %llu", at);
	if (kind == TRACE_K_TRAILER && r->mode == TRACE_STREAM)
		return errmsg_fail(err, errlen, "a bundled trace, not a raw stream");
	return 0;
}

/* Counts the block's stored and raw bytes; refuses them beyond the decompression limits
 * (trace.h), before the payload is decompressed. */
static int check_expansion(struct trace_reader *r, const uint8_t *h, char *err, size_t errlen)
{
	uint64_t stored = r->stored_total + trace_get32(h + 12),
	         raw = r->raw_total + trace_get32(h + 16);

	r->stored_total = stored;
	r->raw_total = raw;
	if (raw > TRACE_MAX_TOTAL_RAW)
		return errmsg_fail(
		    err, errlen,
		    "too large: its blocks through the one at byte %llu decompress to more "
		    "than %llu bytes (the readers' limit)",
		    (unsigned long long)r->offset, (unsigned long long)TRACE_MAX_TOTAL_RAW);
	if (raw > TRACE_RAW_FLOOR && raw / TRACE_MAX_EXPANSION > stored)
		return errmsg_fail(
		    err, errlen,
		    "corrupt: its blocks through the one at byte %llu decompress to %llu "
		    "bytes from %llu stored, more than %dx (a compression bomb, not a "
		    "recording)",
		    (unsigned long long)r->offset, (unsigned long long)raw,
		    (unsigned long long)stored, TRACE_MAX_EXPANSION);
	return 0;
}

static int load_payload(struct trace_reader *r, struct trace_block *b, char *err, size_t errlen)
{
	const uint8_t *h = r->stored;
	uint32_t plen = trace_get32(h + 12), rlen = trace_get32(h + 16);
	const uint8_t *payload = h + TRACE_BLOCK_HDR;
	size_t n;

	if ((h[5] & TRACE_F_ZSTD) && r->compressed_only && h[4] == TRACE_K_EVENTS) {
		b->data = NULL;
		b->len = rlen;
		return 0;
	}
	if (trace_fnv32(payload, plen) != trace_get32(h + 24))
		return errmsg_fail(err, errlen,
		                   "corrupt: block at byte %llu fails its payload check",
		                   (unsigned long long)r->offset);
	if (h[5] & TRACE_F_ZSTD) {
		unsigned long long want = ZSTD_getFrameContentSize(payload, plen);
		if (want != rlen)
			return errmsg_fail(err, errlen,
			                   "corrupt: block at byte %llu: zstd frame size does not "
			                   "match its header",
			                   (unsigned long long)r->offset);
		n = ZSTD_decompressDCtx(r->dctx, r->raw, TRACE_MAX_RAW, payload, plen);
		if (ZSTD_isError(n) || n != rlen)
			return errmsg_fail(err, errlen, "corrupt: block at byte %llu: zstd: %s",
			                   (unsigned long long)r->offset,
			                   ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short frame");
		b->data = r->raw;
	} else {
		b->data = payload;
	}
	b->len = rlen;
	return 0;
}

int trace_next(struct trace_reader *r, struct trace_block *b, char *err, size_t errlen)
{
	uint8_t *h = r->stored;
	uint32_t plen;
	size_t got;
	int c;

	if (r->done)
		return 0;
	got = fread(h, 1, TRACE_BLOCK_HDR, r->f);
	if (got < TRACE_BLOCK_HDR)
		return short_read(r, got, err, errlen);
	if (check_header(r, h, err, errlen) != 0)
		return -1;
	plen = trace_get32(h + 12);
	got = fread(h + TRACE_BLOCK_HDR, 1, plen, r->f);
	if (got < plen)
		return short_read(r, TRACE_BLOCK_HDR + got, err, errlen);
	if (check_order(r, h[4], err, errlen) != 0 || check_expansion(r, h, err, errlen) != 0 ||
	    load_payload(r, b, err, errlen) != 0)
		return -1;
	b->kind = h[4];
	b->thread = trace_get32(h + 8);
	b->count = trace_get32(h + 20);
	b->bytes = h;
	b->nbytes = TRACE_BLOCK_HDR + plen;
	if (b->kind == TRACE_K_TRAILER) {
		if (b->len != 16 || trace_get64(b->data) != r->nblocks ||
		    trace_get64(b->data + 8) != r->nprocs)
			return errmsg_fail(
			    err, errlen, "corrupt: the trailer does not match the %llu blocks read",
			    (unsigned long long)r->nblocks);
		if ((c = fgetc(r->f)) != EOF)
			return errmsg_fail(err, errlen, "corrupt: data after the trailer block");
		r->done = 1;
		return 0;
	}
	r->offset += b->nbytes;
	r->nblocks++;
	return 1;
}
