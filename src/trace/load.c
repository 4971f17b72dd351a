/* load.c - a bundled trace loaded one process at a time (trace.h: trace_each_process) or
 * checked whole (trace_check_buffer), the distinct threads of a loaded process, and the trailer
 * a bundle ends with. */
#include "trace/trace.h"

#include "common/errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends the events of one block to p->ev, growing it within max. */
static int load_events(const struct trace_block *b, struct trace_proc_events *p, size_t *cap,
                       size_t max, char *err, size_t errlen)
{
	struct trace_cursor c;
	struct trace_event ev;
	int rc;

	if (b->count > max - p->n)
		return errmsg_fail(
		    err, errlen,
		    "process %zu (pid %llu) has more than %zu events: too large to load", p->index,
		    (unsigned long long)p->info.pid, max);
	if (p->n + b->count > *cap) {
		size_t ncap = *cap ? *cap : 4096;
		struct trace_rec *t;
		while (ncap < p->n + b->count)
			ncap *= 2;
		if (ncap > max)
			ncap = max;
		if (!(t = realloc(p->ev, ncap * sizeof *t)))
			return errmsg_fail(err, errlen, "out of memory loading %zu events", ncap);
		p->ev = t;
		*cap = ncap;
	}
	if (trace_events_begin(b, &c, err, errlen) != 0)
		return -1;
	while ((rc = trace_events_next(&c, &ev, err, errlen)) == 1) {
		if (ev.align > TRACE_MAX_ALIGN)
			return errmsg_fail(err, errlen, "corrupt: alignment %llu above 2^30",
			                   (unsigned long long)ev.align);
		p->ev[p->n++] =
		    (struct trace_rec){ev.ts_ns,           ev.id,     ev.old_id,     ev.size,
		                       (uint32_t)ev.align, b->thread, (uint8_t)ev.op};
	}
	return rc;
}

static int each_block(struct trace_reader *r, const struct trace_visit *v, char *err, size_t errlen)
{
	struct trace_proc_events p = {0};
	struct trace_block b;
	size_t cap = 0, nproc = 0;
	int rc, have = 0;

	while ((rc = trace_next(r, &b, err, errlen)) >= 0) {
		if ((rc == 0 || b.kind == TRACE_K_PROCESS) && have) {
			char why[256];
			p.complete = !trace_loss(p.has_end, p.end, why, sizeof why);
			if (v->fn(&p, v->arg, err, errlen) != 0)
				break;
			free(p.ev);
			trace_marks_free(&p.marks);
			have = 0;
		}
		if (rc == 0)
			return 0;
		if (b.kind == TRACE_K_PROCESS) {
			p = (struct trace_proc_events){.index = ++nproc,
			                               .version = trace_version(r)};
			cap = 0;
			have = 1;
			if (trace_parse_process(&b, &p.info, err, errlen) != 0)
				break;
		} else if (b.kind == TRACE_K_END) {
			p.has_end = 1;
			if (trace_parse_end(&b, p.end, err, errlen) != 0)
				break;
			if (trace_version(r) == 1)
				p.end[TRACE_END_HOW] = TRACE_HOW_EXIT;
		} else if (b.kind == TRACE_K_MARKS) {
			if (trace_parse_marks(b.data, b.len, &p.marks, err, errlen) != 0)
				break;
		} else if (load_events(&b, &p, &cap, v->max_events, err, errlen) != 0) {
			break;
		}
	}
	free(p.ev);
	trace_marks_free(&p.marks);
	return -1;
}

/* Runs each_block over r, closes it, and prefixes a failure's reason with name. */
static int each_process(struct trace_reader *r, const char *name, const struct trace_visit *v,
                        char *err, size_t errlen)
{
	struct trace_visit capped = *v;
	char why[512];
	int rc;

	if (!r)
		return -1;
	if (capped.max_events > TRACE_MAX_PROC_EVENTS)
		capped.max_events = TRACE_MAX_PROC_EVENTS;
	rc = each_block(r, &capped, err, errlen);
	trace_close(r);
	if (rc != 0 && name) {
		snprintf(why, sizeof why, "%s", err);
		errmsg_fail(err, errlen, "%s: %s", name, why);
	}
	return rc;
}

int trace_each_process(const char *path, const struct trace_visit *v, char *err, size_t errlen)
{
	return each_process(trace_open(path, TRACE_BUNDLE, err, errlen), path, v, err, errlen);
}

int trace_each_process_mem(const void *data, size_t n, const struct trace_visit *v, char *err,
                           size_t errlen)
{
	return each_process(trace_open_mem(data, n, TRACE_BUNDLE, err, errlen), NULL, v, err,
	                    errlen);
}

const char *trace_how_name(uint64_t how)
{
	static const char *const names[TRACE_HOW_COUNT] = {"unknown", "exit",   "exec",
	                                                   "_exit",   "killed", "running"};

	return how < TRACE_HOW_COUNT ? names[how] : "unknown";
}

/* Appends "; " (unless at the start) and the formatted text to buf at *k, within len. */
static void say(char *buf, size_t len, size_t *k, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(char *buf, size_t len, size_t *k, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*k && *k + 2 < len) {
		memcpy(buf + *k, "; ", 3);
		*k += 2;
	}
	if (*k >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *k, len - *k, fmt, ap);
	va_end(ap);
	*k = n < 0 ? *k : *k + (size_t)n < len ? *k + (size_t)n : len - 1;
}

const char *trace_loss(int has_end, const uint64_t *end, char *buf, size_t len)
{
	uint64_t how = end[TRACE_END_HOW];
	size_t k = 0;

	buf[0] = '\0';
	if (!has_end)
		say(buf, len, &k,
		    "no end record (killed, _exit or exec: a version 1 trace does not "
		    "say which)");
	else if (how == TRACE_HOW_KILLED)
		say(buf, len, &k,
		    "killed or crashed: the events its threads had not flushed are lost");
	else if (how == TRACE_HOW_RUNNING)
		say(buf, len, &k, "still running when recorded: its stream is cut there");
	else if (how != TRACE_HOW_EXIT && how != TRACE_HOW_EXEC && how != TRACE_HOW__EXIT)
		say(buf, len, &k, "ended in an unknown way (%llu)", (unsigned long long)how);
	if (end[TRACE_END_DROPPED])
		say(buf, len, &k,
		    "%llu of %llu events dropped: its stream could not be written (%s)",
		    (unsigned long long)end[TRACE_END_DROPPED],
		    (unsigned long long)end[TRACE_END_EVENTS],
		    end[TRACE_END_WRITE_ERRNO] && end[TRACE_END_WRITE_ERRNO] < 4096
		        ? strerror((int)end[TRACE_END_WRITE_ERRNO])
		        : "a write failed");
	if (end[TRACE_END_TORN_BYTES])
		say(buf, len, &k, "a torn tail of %llu bytes dropped",
		    (unsigned long long)end[TRACE_END_TORN_BYTES]);
	return k ? buf : NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int trace_thread_list(const struct trace_rec *ev, size_t n, uint32_t **out, size_t *nth)
{
	uint32_t *t = malloc((n ? n : 1) * sizeof *t);
	size_t k = 0, u = 0;

	*out = t;
	*nth = 0;
	if (!t)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || ev[i].thread != ev[i - 1].thread)
			t[k++] = ev[i].thread;
	qsort(t, k, sizeof *t, cmp_u32);
	for (size_t i = 0; i < k; i++)
		if (!u || t[u - 1] != t[i])
			t[u++] = t[i];
	*nth = u;
	return 0;
}

int trace_check_buffer(const void *data, size_t n, char *err, size_t errlen)
{
	struct trace_reader *r = trace_open_mem(data, n, TRACE_BUNDLE, err, errlen);
	struct trace_block b;
	struct trace_process pr;
	struct trace_event ev;
	struct trace_marks m;
	uint64_t c[TRACE_END_NCOUNTERS];
	int rc = 0;

	if (!r)
		return -1;
	while (rc == 0 && (rc = trace_next(r, &b, err, errlen)) == 1) {
		rc = 0;
		if (b.kind == TRACE_K_PROCESS)
			rc = trace_parse_process(&b, &pr, err, errlen);
		else if (b.kind == TRACE_K_END)
			rc = trace_parse_end(&b, c, err, errlen);
		else if (b.kind == TRACE_K_MARKS &&
		         (rc = trace_parse_marks(b.data, b.len, &m, err, errlen)) == 0)
			trace_marks_free(&m);
		if (rc == 0 && b.kind == TRACE_K_EVENTS) {
			struct trace_cursor cur;
			rc = trace_events_begin(&b, &cur, err, errlen);
			while (rc == 0 && (rc = trace_events_next(&cur, &ev, err, errlen)) == 1)
				rc = 0;
		}
	}
	trace_close(r);
	return rc < 0 ? -1 : 0;
}

int trace_write_trailer(FILE *f, uint64_t nblocks, uint64_t nprocs)
{
	uint8_t b[TRACE_BLOCK_HDR + 16];

	trace_put64(b + TRACE_BLOCK_HDR, nblocks);
	trace_put64(b + TRACE_BLOCK_HDR + 8, nprocs);
	trace_block_header(b, TRACE_K_TRAILER, 0, 0, 16, 16, 0,
	                   trace_fnv32(b + TRACE_BLOCK_HDR, 16));
	return fwrite(b, 1, sizeof b, f) == sizeof b ? 0 : -1;
}
