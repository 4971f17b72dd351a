/* test_recbundle.c - the bundler of `allocab record` (trace/bundle.h) on raw streams built
 * here byte by byte: addresses passed between two threads are numbered in time order (a release
 * before an allocation at the same tick, a realloc's release at its own earlier time), a release
 * of an address never allocated is dropped and counted, an allocation at a live address is
 * counted as misordered, the status block's counters and end reach the end block, a stream whose
 * pid is gone and whose status says running is killed, a damaged block is counted, not fatal;
 * and the phases a command marked go to the process images that made them (marks/marks.h, rk_attribute), in each
 * image's time base, or are left out and counted. */
#include "check.h"
#include "trace/trace.h"
#include "marks/marks.h"
#include "trace/bundle.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

struct raw {
	FILE *f;
};

static void block(FILE *f, unsigned kind, uint32_t thread, const uint8_t *p, size_t len,
                  uint32_t count)
{
	uint8_t h[TRACE_BLOCK_HDR], z[4096];
	size_t n = len;

	if (kind == TRACE_K_EVENTS)
		n = ZSTD_compress(z, sizeof z, p, len, 1);
	else
		memcpy(z, p, len);
	trace_block_header(h, kind, kind == TRACE_K_EVENTS ? TRACE_F_ZSTD : 0, thread, (uint32_t)n,
	                   (uint32_t)len, count, trace_fnv32(z, n));
	fwrite(h, 1, sizeof h, f);
	fwrite(z, 1, n, f);
}

/* A stream's header and process block, its stream started at CLOCK_MONOTONIC start ns. */
static void process_at(FILE *f, uint64_t pid, uint64_t start)
{
	uint8_t p[48] = {0}, hdr[TRACE_FILE_HDR];

	trace_file_header(hdr, TRACE_RAW_MAGIC);
	fwrite(hdr, 1, sizeof hdr, f);
	trace_put64(p, pid);
	trace_put64(p + 8, 1);
	trace_put64(p + 24, start);
	trace_put32(p + 32, 4);
	memcpy(p + 36, "prog", 4);
	block(f, TRACE_K_PROCESS, 0, p, 44, 0);
}

static void process(FILE *f, uint64_t pid)
{
	process_at(f, pid, 0);
}

/* A status block: how the stream ended, its events, its duration in ns. */
static void status_for(FILE *f, uint64_t how, uint64_t events, uint64_t duration)
{
	uint8_t p[4 + 8 * TRACE_END_NCOUNTERS] = {0};

	trace_put32(p, TRACE_END_NCOUNTERS);
	trace_put64(p + 4 + 8 * TRACE_END_HOW, how);
	trace_put64(p + 4 + 8 * TRACE_END_EVENTS, events);
	trace_put64(p + 4 + 8 * TRACE_END_BOOTSTRAP, 7);
	trace_put64(p + 4 + 8 * TRACE_END_DURATION_NS, duration);
	block(f, TRACE_K_STATUS, 0, p, sizeof p, 0);
}

static void status(FILE *f, uint64_t how, uint64_t events)
{
	status_for(f, how, events, 0);
}

/* One raw events block of thread th: ev[i] = {op, ticks, fields...} with absolute ticks and
 * absolute addresses, encoded as the recorder does (time and address differences). */
static void events(FILE *f, uint32_t th, const uint64_t (*ev)[6], size_t n)
{
	uint8_t raw[4096], *p = raw + 8;
	uint64_t last = 0, addr = 0;

	trace_put64(raw, (uint64_t)1 << 32);
	for (size_t i = 0; i < n; i++) {
		unsigned op = (unsigned)ev[i][0];
		int nv = op == TRACE_OP_FREE      ? 1
		         : op == TRACE_OP_MALLOC  ? 2
		         : op == TRACE_OP_REALLOC ? 4
		                                  : 3;
		*p++ = (uint8_t)op;
		p = trace_put_varint(p, ev[i][1] - last);
		last = ev[i][1];
		for (int k = 0; k < nv; k++) {
			uint64_t v = ev[i][2 + k];
			if (trace_raw_is_address(op, k)) {
				uint64_t d = v - addr;
				addr = v;
				v = trace_zigzag(d);
			}
			p = trace_put_varint(p, v);
		}
	}
	block(f, TRACE_K_EVENTS, th, raw, (size_t)(p - raw), (uint32_t)n);
}

struct seen {
	struct trace_rec ev[64];
	size_t n;
	uint64_t end[TRACE_END_NCOUNTERS];
	int complete;
	size_t procs;
};

/* Bundles dir into memory (*buf, *len: free() it); returns rb_bundle's result. */
static int bundle(const char *dir, struct rb_result *res, char **buf, size_t *len, char *err,
                  size_t errlen)
{
	FILE *f = open_memstream(buf, len);
	int rc = rb_bundle(dir, NULL, f, res, err, errlen);

	fclose(f);
	return rc;
}

static int collect(struct trace_proc_events *p, void *arg, char *err, size_t errlen)
{
	struct seen *s = arg;

	(void)err;
	(void)errlen;
	s->procs++;
	if (s->procs == 1) {
		memcpy(s->ev, p->ev, (p->n < 64 ? p->n : 64) * sizeof *p->ev);
		s->n = p->n;
		memcpy(s->end, p->end, sizeof s->end);
		s->complete = p->complete;
	}
	return 0;
}

/* Thread 0 mallocs A (t 10), thread 1 frees it (t 20), thread 0 mallocs A again (t 20: after the
 * release at the same tick), thread 1 reallocs A to B (released at t 40, B at t 45), thread 0
 * frees B (t 50) and frees C, which nobody allocated (t 60), then mallocs D twice (t 70, 80). */
static const uint64_t th0[][6] = {
    {TRACE_OP_MALLOC, 10, 0x1000, 16}, {TRACE_OP_MALLOC, 20, 0x1000, 32},
    {TRACE_OP_FREE, 50, 0x2000},       {TRACE_OP_FREE, 60, 0x3000},
    {TRACE_OP_MALLOC, 70, 0x4000, 8},  {TRACE_OP_MALLOC, 80, 0x4000, 8}};
static const uint64_t th1[][6] = {{TRACE_OP_FREE, 20, 0x1000},
                                  {TRACE_OP_REALLOC, 45, 5, 0x1000, 0x2000, 64}};

static void test_numbering(const char *dir)
{
	char path[512], err[256] = "";
	struct rb_result res;
	struct seen s = {0};
	FILE *f;
	size_t len;
	char *buf;

	snprintf(path, sizeof path, "%s/s.%d.100.ats", dir, (int)getpid());
	f = fopen(path, "wb");
	process(f, (uint64_t)getpid());
	status(f, TRACE_HOW_EXIT, 8);
	events(f, 1, th1, 2);
	events(f, 0, th0, 6);
	fclose(f);
	CHECK(bundle(dir, &res, &buf, &len, err, sizeof err) == 0, "the stream bundles (%s)", err);
	CHECK(res.procs == 1 && res.events == 7 && res.foreign == 1 && res.misordered == 1,
	      "1 process, 7 events written, 1 foreign free dropped, 1 misordered allocation "
	      "(%llu %llu %llu %llu)",
	      (unsigned long long)res.procs, (unsigned long long)res.events,
	      (unsigned long long)res.foreign, (unsigned long long)res.misordered);
	CHECK(trace_each_process_mem(buf, len, &(struct trace_visit){1000, collect, &s}, err,
	                             sizeof err) == 0 &&
	          s.n == 7,
	      "the trace reads back with its 7 events (%s)", err);
	/* file order: each thread's events in its order, thread 0's block first */
	CHECK(s.n == 7 && s.ev[0].id == 1 && s.ev[1].id == 2 && s.ev[2].op == TRACE_OP_FREE &&
	          s.ev[2].id == 3 && s.ev[3].id == 4 && s.ev[4].id == 5,
	      "thread 0 mallocs 1, then 2 at the same address, frees 3, mallocs 4 and 5");
	CHECK(s.n == 7 && s.ev[5].op == TRACE_OP_FREE && s.ev[5].id == 1 &&
	          s.ev[6].op == TRACE_OP_REALLOC && s.ev[6].old_id == 2 && s.ev[6].id == 3,
	      "thread 1 frees object 1 and reallocs object 2 into 3");
	CHECK(s.n == 7 && s.ev[6].ts_ns == 45 && s.ev[5].ts_ns == 20 && s.ev[4].ts_ns == 80,
	      "times in ns as recorded");
	CHECK(s.end[TRACE_END_HOW] == TRACE_HOW_EXIT && s.end[TRACE_END_BOOTSTRAP] == 7 &&
	          s.end[TRACE_END_FOREIGN_FREES] == 1 && s.end[TRACE_END_MISORDERED] == 1 &&
	          s.complete,
	      "the end block: the status's counters, how it ended, the bundler's counts");
	rb_result_free(&res);
	free(buf);
	unlink(path);
}

/* A stream whose status says running, of a pid that is gone, with a damaged last block. */
static void test_killed(const char *dir)
{
	char path[512], err[256] = "";
	struct rb_result res;
	struct seen s = {0};
	FILE *f;
	size_t len;
	char *buf;
	struct stat st;

	snprintf(path, sizeof path, "%s/s.999999999.200.ats", dir);
	f = fopen(path, "wb");
	process(f, 999999999);
	status(f, TRACE_HOW_RUNNING, 2);
	events(f, 0, th0, 1);
	events(f, 0, th0 + 2, 1);
	fclose(f);
	CHECK(stat(path, &st) == 0 && truncate(path, st.st_size - 3) == 0, "its last block cut");
	CHECK(bundle(dir, &res, &buf, &len, err, sizeof err) == 0, "a killed stream bundles (%s)",
	      err);
	CHECK(res.nlost == 1 && res.lost[0].end[TRACE_END_HOW] == TRACE_HOW_KILLED &&
	          res.lost[0].end[TRACE_END_TORN_BYTES] > 0,
	      "it is reported lost: killed, with a torn tail");
	CHECK(trace_each_process_mem(buf, len, &(struct trace_visit){1000, collect, &s}, err,
	                             sizeof err) == 0 &&
	          s.n == 1 && !s.complete,
	      "its first block's event is in the trace, marked incomplete (%s)", err);
	rb_result_free(&res);
	free(buf);
	unlink(path);
}

static int keep_marks(struct trace_proc_events *p, void *arg, char *err, size_t errlen)
{
	struct trace_marks *m = arg;

	(void)err;
	(void)errlen;
	m[p->index - 1] = p->marks;
	memset(&p->marks, 0, sizeof p->marks);
	return 0;
}

/* Two images: pid 5 from 1000 to 1500 ns, pid 6 from 1200 to 1300 (a child). */
static void test_marks(const char *dir)
{
	static const char text[] =
	    "begin epoch 1100 5\nend epoch 1150 5\nbegin load 1210 6\nend load 1250 6\n"
	    "begin epoch 1160 5\nend epoch 1400 5\nbegin other 1300\nend other 1350\n"
	    "begin other 1360 9\nend other 1370 9\nbegin other 1380\nend other 1390 5\n"
	    "begin other 1210\nend other 1220\nbegin load 1400 5\nend load 1490 5\n"
	    "begin load 1390 5\nend load 1395 5\nbegin load 1420 5\nend load 1430 5\n";
	char a[512], b[512], err[256] = "";
	struct phasemark_set set;
	struct trace_marks m[2] = {{0}};
	struct rb_result res;
	char *buf;
	size_t len;
	FILE *f;

	CHECK(phasemark_parse(text, strlen(text), (struct phasemark_window){0, 0}, &set, err,
	                      sizeof err) == 0,
	      "the marks parse (%s)", err);
	snprintf(a, sizeof a, "%s/s.5.1000.ats", dir);
	snprintf(b, sizeof b, "%s/s.6.1200.ats", dir);
	f = fopen(a, "wb");
	process_at(f, 5, 1000);
	status_for(f, TRACE_HOW_EXIT, 1, 500);
	events(f, 0, th0, 1);
	fclose(f);
	f = fopen(b, "wb");
	process_at(f, 6, 1200);
	status_for(f, TRACE_HOW_EXIT, 1, 100);
	events(f, 0, th0, 1);
	fclose(f);
	f = open_memstream(&buf, &len);
	CHECK(rb_bundle(dir, &set, f, &res, err, sizeof err) == 0, "bundled with marks (%s)", err);
	fclose(f);
	CHECK(res.marked_procs == 2 && res.marked_spans == 7 && res.marked_phases == 3,
	      "7 spans of 3 phases in 2 processes (%llu %llu %llu)",
	      (unsigned long long)res.marked_spans, (unsigned long long)res.marked_phases,
	      (unsigned long long)res.marked_procs);
	CHECK(res.left_spans == 3 && res.left_pid == 9 && res.left_without_pid == 1 &&
	          res.left_overlapping == 1,
	      "left out: pid 9's span, a pid-less span while both ran, a span of 'load' begun "
	      "inside another (%llu %llu %llu %llu)",
	      (unsigned long long)res.left_spans, (unsigned long long)res.left_pid,
	      (unsigned long long)res.left_without_pid, (unsigned long long)res.left_overlapping);
	CHECK(trace_each_process_mem(buf, len, &(struct trace_visit){100, keep_marks, m}, err,
	                             sizeof err) == 0,
	      "the trace reads back (%s)", err);
	CHECK(m[0].nphases == 3 && strcmp(m[0].phase[0].name, "epoch") == 0 &&
	          m[0].phase[0].n == 2 && m[0].phase[0].span[0].begin_ns == 100 &&
	          m[0].phase[0].span[1].end_ns == 400,
	      "pid 5: epoch twice, 100..150 and 160..400 ns since its start");
	CHECK(m[0].nphases == 3 && strcmp(m[0].phase[1].name, "load") == 0 &&
	          m[0].phase[1].n == 2 && m[0].phase[1].span[0].begin_ns == 390 &&
	          m[0].phase[1].span[1].begin_ns == 400,
	      "pid 5: load in the order it began (390, 400), the one begun inside 400..490 out");
	CHECK(m[0].nphases == 3 && strcmp(m[0].phase[2].name, "other") == 0 &&
	          m[0].phase[2].n == 2 && m[0].phase[2].span[0].begin_ns == 300,
	      "pid 5: other, a pid-less span only it held and one ended with its pid");
	CHECK(m[1].nphases == 1 && strcmp(m[1].phase[0].name, "load") == 0 &&
	          m[1].phase[0].n == 1 && m[1].phase[0].span[0].begin_ns == 10 &&
	          m[1].phase[0].span[0].end_ns == 50,
	      "pid 6: load once, 10..50 ns since its own start");
	trace_marks_free(&m[0]);
	trace_marks_free(&m[1]);
	phasemark_free(&set);
	rb_result_free(&res);
	free(buf);
	unlink(a);
	unlink(b);
}

int main(void)
{
	char dir[] = "/tmp/allocab-test-bundle.XXXXXX";
	char err[256];
	struct rb_result res;

	CHECK(mkdtemp(dir) != NULL, "a stream directory");
	CHECK(rb_bundle(dir, NULL, stdout, &res, err, sizeof err) == -2 &&
	          strstr(err, "wrote nothing"),
	      "an empty directory: nothing written (%s)", err);
	test_numbering(dir);
	test_killed(dir);
	test_marks(dir);
	rmdir(dir);
	return CHECK_DONE();
}
