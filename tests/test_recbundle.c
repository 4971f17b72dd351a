/* test_recbundle.c - the bundler of `allocab record` (front/cmd/recbundle.h) on raw streams built
 * here byte by byte: addresses passed between two threads are numbered in time order (a release
 * before an allocation at the same tick, a realloc's release at its own earlier time), a release
 * of an address never allocated is dropped and counted, an allocation at a live address is
 * counted as misordered, the status block's counters and end reach the end block, a stream whose
 * pid is gone and whose status says running is killed, and a damaged block is counted, not
 * fatal. */
#include "check.h"
#include "common/trace.h"
#include "front/cmd/recbundle.h"

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

static void process(FILE *f, uint64_t pid)
{
	uint8_t p[48] = {0}, hdr[TRACE_FILE_HDR];

	trace_file_header(hdr, TRACE_RAW_MAGIC);
	fwrite(hdr, 1, sizeof hdr, f);
	trace_put64(p, pid);
	trace_put64(p + 8, 1);
	trace_put32(p + 32, 4);
	memcpy(p + 36, "prog", 4);
	block(f, TRACE_K_PROCESS, 0, p, 44, 0);
}

static void status(FILE *f, uint64_t how, uint64_t events)
{
	uint8_t p[4 + 8 * TRACE_END_NCOUNTERS] = {0};

	trace_put32(p, TRACE_END_NCOUNTERS);
	trace_put64(p + 4 + 8 * TRACE_END_HOW, how);
	trace_put64(p + 4 + 8 * TRACE_END_EVENTS, events);
	trace_put64(p + 4 + 8 * TRACE_END_BOOTSTRAP, 7);
	block(f, TRACE_K_STATUS, 0, p, sizeof p, 0);
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
	int rc = rb_bundle(dir, f, res, err, errlen);

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
	CHECK(trace_each_process_mem(buf, len, 1000, collect, &s, err, sizeof err) == 0 && s.n == 7,
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
	CHECK(trace_each_process_mem(buf, len, 1000, collect, &s, err, sizeof err) == 0 &&
	          s.n == 1 && !s.complete,
	      "its first block's event is in the trace, marked incomplete (%s)", err);
	rb_result_free(&res);
	free(buf);
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/allocab-test-bundle.XXXXXX";
	char err[256];
	struct rb_result res;

	CHECK(mkdtemp(dir) != NULL, "a stream directory");
	CHECK(rb_bundle(dir, stdout, &res, err, sizeof err) == -2 && strstr(err, "wrote nothing"),
	      "an empty directory: nothing written (%s)", err);
	test_numbering(dir);
	test_killed(dir);
	rmdir(dir);
	return CHECK_DONE();
}
