/* payload.c - the decoding of a checked block's payload (trace.h, docs/trace-format.md): the
 * events of an events block, a process block, an end or status block. Every length and value is
 * checked against the block; a bad one is "corrupt: ...". */
#include "trace/trace.h"

#include "common/errmsg.h"

#include <string.h>

int trace_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		uint8_t c = *(*p)++;
		if (shift == 63 && c > 1)
			return -1;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int decode(const uint8_t **p, const uint8_t *end, uint64_t prev_ts, struct trace_event *ev,
                  char *err, size_t errlen)
{
	uint64_t v[3] = {0, 0, 0}, dt;
	unsigned op;
	int n;

	if (*p >= end)
		return errmsg_fail(err, errlen, "corrupt: events block ends early");
	op = *(*p)++;
	switch (op) {
	case TRACE_OP_FREE:
		n = 1;
		break;
	case TRACE_OP_MALLOC:
	case TRACE_OP_CALLOC:
		n = 2;
		break;
	case TRACE_OP_REALLOC:
	case TRACE_OP_REALLOCARRAY:
	case TRACE_OP_POSIX_MEMALIGN:
	case TRACE_OP_ALIGNED_ALLOC:
	case TRACE_OP_MEMALIGN:
	case TRACE_OP_VALLOC:
	case TRACE_OP_PVALLOC:
		n = 3;
		break;
	default:
		return errmsg_fail(err, errlen, "corrupt: unknown operation %u", op);
	}
	if (trace_varint(p, end, &dt) != 0 || dt > UINT64_MAX - prev_ts)
		return errmsg_fail(err, errlen, "corrupt: bad time in a %s event",
		                   trace_op_name(op));
	for (int k = 0; k < n; k++)
		if (trace_varint(p, end, &v[k]) != 0)
			return errmsg_fail(err, errlen, "corrupt: bad field in a %s event",
			                   trace_op_name(op));
	memset(ev, 0, sizeof *ev);
	ev->op = op;
	ev->ts_ns = prev_ts + dt;
	if (op == TRACE_OP_REALLOC || op == TRACE_OP_REALLOCARRAY) {
		ev->old_id = v[0];
		ev->id = v[1];
		ev->size = v[2];
	} else {
		ev->id = v[0];
		ev->size = v[1];
		ev->align = v[2];
	}
	if (op != TRACE_OP_FREE && ev->id == 0)
		return errmsg_fail(err, errlen, "corrupt: a %s event returns object 0",
		                   trace_op_name(op));
	if (ev->size > TRACE_MAX_SIZE)
		return errmsg_fail(err, errlen,
		                   "corrupt: a %s of %llu bytes succeeded, more than any address "
		                   "space holds (2^56)",
		                   trace_op_name(op), (unsigned long long)ev->size);
	return 0;
}

/* The length of the well-formed UTF-8 sequence at p (at most n bytes), or 0 when it is not one
 * (a stray byte, an overlong form, a surrogate, a code point above U+10FFFF). */
static size_t utf8_len(const uint8_t *p, size_t n)
{
	size_t len = 0;
	uint32_t cp;

	if (p[0] < 0x80)
		len = 1;
	else if (p[0] >= 0xc2 && p[0] < 0xe0)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] < 0xf0)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] < 0xf5)
		len = 4;
	if (!len || len > n)
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if (len == 3) {
		cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6;
		if (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))
			return 0;
	} else if (len == 4) {
		cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12;
		if (cp < 0x10000 || cp > 0x10ffff)
			return 0;
	}
	return len;
}

/* Copies a length-prefixed string of the process payload: NULs shown as spaces, other control
 * bytes and bytes that are not well-formed UTF-8 as '?', so every report prints valid text. */
static int take_string(const uint8_t **p, const uint8_t *end, char *out, size_t cap)
{
	uint32_t n;
	size_t k = 0, i = 0, len;

	if (end - *p < 4)
		return -1;
	n = trace_get32(*p);
	*p += 4;
	if ((size_t)(end - *p) < n)
		return -1;
	while (i < n && k + 1 < cap) {
		const uint8_t *c = *p + i;
		len = utf8_len(c, n - i);
		if (len > 1 && k + len < cap) {
			memcpy(out + k, c, len);
			k += len;
			i += len;
			continue;
		}
		out[k++] = *c == '\0' ? ' ' : (*c < 32 || *c == 127 || len != 1) ? '?' : (char)*c;
		i += len > 1 ? len : 1;
	}
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
	*p += n;
	return 0;
}

/* Largest factor accepted: 1024 ns per tick. */
#define TRACE_MAX_FACTOR ((uint64_t)1 << 42)

int trace_events_begin(const struct trace_block *b, struct trace_cursor *c, char *err,
                       size_t errlen)
{
	if (b->kind != TRACE_K_EVENTS || b->len < 8 + (size_t)b->count * TRACE_MIN_EVENT)
		return errmsg_fail(err, errlen, "corrupt: events block too short for %u events",
		                   b->count);
	c->factor = trace_get64(b->data);
	if (c->factor == 0 || c->factor > TRACE_MAX_FACTOR)
		return errmsg_fail(err, errlen, "corrupt: events block with a bad clock factor");
	c->p = b->data + 8;
	c->end = b->data + b->len;
	c->ticks = 0;
	c->left = b->count;
	return 0;
}

int trace_events_next(struct trace_cursor *c, struct trace_event *ev, char *err, size_t errlen)
{
	unsigned __int128 ns;

	if (!c->left) {
		if (c->p != c->end)
			return errmsg_fail(err, errlen, "corrupt: events block has trailing bytes");
		return 0;
	}
	if (decode(&c->p, c->end, c->ticks, ev, err, errlen) != 0)
		return -1;
	c->left--;
	c->ticks = ev->ts_ns;
	ns = ((unsigned __int128)c->ticks * c->factor) >> 32;
	if (ns > INT64_MAX)
		return errmsg_fail(err, errlen, "corrupt: event time out of range");
	ev->ts_ns = (uint64_t)ns;
	return 1;
}

int trace_parse_process(const struct trace_block *b, struct trace_process *pr, char *err,
                        size_t errlen)
{
	const uint8_t *p = b->data + 32, *end = b->data + b->len;

	memset(pr, 0, sizeof *pr);
	if (b->kind != TRACE_K_PROCESS || b->len < 32 ||
	    take_string(&p, end, pr->exe, sizeof pr->exe) != 0 ||
	    take_string(&p, end, pr->args, sizeof pr->args) != 0)
		return errmsg_fail(err, errlen, "corrupt: bad process block");
	pr->pid = trace_get64(b->data);
	pr->ppid = trace_get64(b->data + 8);
	pr->start_realtime_ns = trace_get64(b->data + 16);
	pr->start_mono_ns = trace_get64(b->data + 24);
	return 0;
}

int trace_parse_end(const struct trace_block *b, uint64_t *c, char *err, size_t errlen)
{
	uint32_t n;

	memset(c, 0, TRACE_END_NCOUNTERS * sizeof *c);
	if ((b->kind != TRACE_K_END && b->kind != TRACE_K_STATUS) || b->len < 4 ||
	    (n = trace_get32(b->data)) > (b->len - 4) / 8 || b->len != 4 + 8 * (size_t)n)
		return errmsg_fail(err, errlen, "corrupt: bad end block");
	for (uint32_t k = 0; k < n && k < TRACE_END_NCOUNTERS; k++)
		c[k] = trace_get64(b->data + 4 + 8 * k);
	return 0;
}
