/* block.c - the marks block of a trace (marks.h; docs/trace-format.md, "Layout"): the phases a
 * process marked, read with every field checked, and written. */
#include "marks/marks.h"

#include "common/errmsg.h"
#include "trace/trace_format.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(TRACE_MAX_MARKS <= TRACE_MAX_RAW, "a marks block is an ordinary block");

void trace_marks_free(struct trace_marks *m)
{
	free(m->all);
	memset(m, 0, sizeof *m);
}

/* What is wrong with span s after prev (NULL: the first), or NULL. */
static const char *span_problem(const struct trace_span *s, const struct trace_span *prev)
{
	if (s->end_ns == s->begin_ns)
		return "is empty (a span lasts 1 to 10^15 ns)";
	if (s->end_ns < s->begin_ns)
		return "ends before it begins";
	if (s->end_ns - s->begin_ns > TRACE_MARKS_MAX_NS)
		return "lasts more than 10^15 ns";
	if (s->end_ns > INT64_MAX)
		return "ends past 2^63 ns";
	if (prev && s->begin_ns < prev->end_ns)
		return "begins before the span before it ended";
	return NULL;
}

/* The spans of one phase at *p (n of them), checked, appended to m->all. */
static int take_spans(const uint8_t **p, size_t n, struct trace_marks *m, char *err,
                      size_t errlen)
{
	struct trace_span *all;
	const char *name = m->phase[m->nphases].name;

	if (n == 0 || n > TRACE_MARKS_MAX_SPANS - m->nspans)
		return errmsg_fail(err, errlen, "corrupt: marks: '%s' has %zu spans (1 to %d in all)",
		                   name, n, TRACE_MARKS_MAX_SPANS);
	if (!(all = realloc(m->all, (m->nspans + n) * sizeof *all)))
		return errmsg_fail(err, errlen, "out of memory");
	m->all = all;
	for (size_t i = 0; i < n; i++, *p += 16) {
		struct trace_span s = {trace_get64(*p), trace_get64(*p + 8)};
		const char *why = span_problem(&s, i ? &all[m->nspans + i - 1] : NULL);
		if (why)
			return errmsg_fail(err, errlen,
			                   "corrupt: marks: span %zu of '%s' (%llu..%llu ns) %s", i + 1,
			                   name, (unsigned long long)s.begin_ns,
			                   (unsigned long long)s.end_ns, why);
		all[m->nspans + i] = s;
	}
	m->nspans += n;
	return 0;
}

/* One phase at *p before end: its name and spans. */
static int take_phase(const uint8_t **p, const uint8_t *end, struct trace_marks *m, char *err,
                      size_t errlen)
{
	uint32_t len, n;
	char *name = m->phase[m->nphases].name;

	if (end - *p < 4 || (len = trace_get32(*p)) > (size_t)(end - *p) - 4 ||
	    !phasemark_valid_name((const char *)*p + 4, len))
		return errmsg_fail(err, errlen, "corrupt: marks: phase %zu has no valid name",
		                   m->nphases + 1);
	memcpy(name, *p + 4, len);
	name[len] = '\0';
	*p += 4 + len;
	for (size_t i = 0; i < m->nphases; i++)
		if (strcmp(m->phase[i].name, name) == 0)
			return errmsg_fail(err, errlen, "corrupt: marks: '%s' listed twice", name);
	if (end - *p < 4 || (n = trace_get32(*p)) > (size_t)(end - *p - 4) / 16)
		return errmsg_fail(err, errlen, "corrupt: marks: the spans of '%s' run past the block",
		                   name);
	*p += 4;
	if (take_spans(p, n, m, err, errlen) != 0)
		return -1;
	m->phase[m->nphases++].n = n;
	return 0;
}

int trace_parse_marks(const uint8_t *data, size_t len, struct trace_marks *m, char *err,
                      size_t errlen)
{
	const uint8_t *p = data, *end = data + len;
	uint32_t n;
	size_t at = 0;

	memset(m, 0, sizeof *m);
	if (len < 4 || (n = trace_get32(p)) < 1 ||
	    n > TRACE_MARKS_MAX_PHASES)
		return errmsg_fail(err, errlen, "corrupt: marks: not 1 to %d phases",
		                   TRACE_MARKS_MAX_PHASES);
	p += 4;
	while (m->nphases < n)
		if (take_phase(&p, end, m, err, errlen) != 0) {
			trace_marks_free(m);
			return -1;
		}
	if (p != end) {
		trace_marks_free(m);
		return errmsg_fail(err, errlen, "corrupt: marks: %zu bytes after the last phase",
		                   (size_t)(end - p));
	}
	for (size_t i = 0; i < m->nphases; at += m->phase[i++].n)
		m->phase[i].span = m->all + at;
	return 0;
}

size_t trace_marks_block(const struct trace_marks *m, uint8_t *buf, size_t cap)
{
	uint8_t *p = buf + TRACE_BLOCK_HDR;
	size_t len = 4;

	for (size_t i = 0; i < m->nphases; i++)
		len += 8 + strlen(m->phase[i].name) + 16 * m->phase[i].n;
	if (m->nphases == 0 || cap < TRACE_BLOCK_HDR || len > cap - TRACE_BLOCK_HDR ||
	    len > TRACE_MAX_MARKS)
		return 0;
	trace_put32(p, (uint32_t)m->nphases);
	p += 4;
	for (size_t i = 0; i < m->nphases; i++) {
		size_t k = strlen(m->phase[i].name);
		trace_put32(p, (uint32_t)k);
		memcpy(p + 4, m->phase[i].name, k);
		p += 4 + k;
		trace_put32(p, (uint32_t)m->phase[i].n);
		p += 4;
		for (size_t j = 0; j < m->phase[i].n; j++, p += 16) {
			trace_put64(p, m->phase[i].span[j].begin_ns);
			trace_put64(p + 8, m->phase[i].span[j].end_ns);
		}
	}
	trace_block_header(buf, TRACE_K_MARKS, 0, 0, (uint32_t)len, (uint32_t)len, 0,
	                   trace_fnv32(buf + TRACE_BLOCK_HDR, len));
	return TRACE_BLOCK_HDR + len;
}
