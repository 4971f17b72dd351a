/* test_trace.c - the trace reader (trace/trace.h) on traces built here byte by byte: a valid one
 * reads back exactly; every truncation and thousands of single-byte corruptions are refused or
 * read without a crash (this file also runs under ASan+UBSan); hostile headers are refused before
 * anything is allocated; and the replay loader (workloads/lib/replay_load.h) refuses a trace whose
 * threads release each other's objects before allocating them (a replay could deadlock). */
#include "check.h"
#include "common/prng.h"
#include "trace/trace.h"
#include "tracebuild.h"
#include "workloads/lib/replay_load.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Thread 0 mallocs 1 and 2 and reallocs 2 into 3; thread 1 frees 1 and 3 (cross-thread). */
/* The process with the most events, incomplete or not. */
static const struct rp_pick pick_any = {0, RP_ALLOW_INCOMPLETE};
/* The same, refused when its stream is incomplete. */
static const struct rp_pick pick_whole = {0, 0};

static void valid_trace(struct tb *t)
{
	static const uint64_t th0[][4] = {{TRACE_OP_MALLOC, 1, 100, 0},
	                                  {TRACE_OP_MALLOC, 2, 4000, 0},
	                                  {TRACE_OP_REALLOC, 2, 3, 9000}};
	static const uint64_t th1[][4] = {
	    {TRACE_OP_FREE, 1, 0, 0}, {TRACE_OP_FREE, 3, 0, 0}, {TRACE_OP_FREE, 0, 0, 0}};
	uint8_t end[4 + 8 * TRACE_END_NCOUNTERS] = {0};

	start(t);
	put_process(t, 77);
	put_events(t, 0, th0, 3);
	put_events(t, 1, th1, 3);
	trace_put32(end, TRACE_END_NCOUNTERS);
	trace_put64(end + 4 + 8 * TRACE_END_HOW, TRACE_HOW_EXIT);
	put_block(t, TRACE_K_END, 0, end, sizeof end, 0);
	finish(t);
}

static void test_valid(void)
{
	struct tb t;
	char err[256] = "", path[64];
	struct rp_trace rp;

	valid_trace(&t);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == 0, "valid trace reads (%s)", err);
	CHECK(write_tmp(&t, path) == 0, "trace written to a file");
	CHECK(rp_load(path, pick_any, &rp, err, sizeof err) == 0, "replay loads it (%s)", err);
	CHECK(rp.nth == 2 && rp.nobj == 3 && rp.events == 6 && rp.pid == 77,
	      "2 threads, 3 objects, 6 events, pid 77");
	CHECK(rp.nth == 2 && (rp.th[1].ops[0].flags & RP_WAIT) &&
	          (rp.th[0].ops[0].flags & RP_PUBLISH),
	      "the cross-thread free waits for a published allocation");
	CHECK(rp.nleaked == 0 && rp.peak_bytes == 9100, "nothing leaked, peak 9100 bytes");
	rp_free(&rp);
	CHECK(rp_load(path, (struct rp_pick){78, 1}, &rp, err, sizeof err) == -1 &&
	          strstr(err, "no process with pid 78"),
	      "pid 78 is not in it");
	unlink(path);
}

static void test_truncations(void)
{
	struct tb t;
	char err[256];
	size_t refused = 0;

	valid_trace(&t);
	for (size_t n = 0; n < t.n; n++)
		refused += trace_check_buffer(t.buf, n, err, sizeof err) == -1;
	CHECK(refused == t.n, "every one of %zu truncations is refused (%zu)", t.n, refused);
}

static void test_corruptions(void)
{
	struct tb t, c;
	struct prng rng;
	char err[256];
	size_t refused = 0, runs = 5000;

	valid_trace(&t);
	prng_seed(&rng, 7);
	for (size_t k = 0; k < runs; k++) {
		c = t;
		c.buf[prng_below(&rng, (uint32_t)c.n)] ^= (uint8_t)(1 + prng_below(&rng, 255));
		refused += trace_check_buffer(c.buf, c.n, err, sizeof err) == -1;
	}
	CHECK(refused == runs, "every one of %zu single-byte corruptions is refused (%zu)", runs,
	      refused);
}

static void test_hostile(void)
{
	struct tb t;
	char err[256] = "";
	static const uint64_t bad_op[][4] = {{TRACE_OP_MALLOC, 1, 10, 0}};

	start(&t);
	trace_block_header(t.buf + t.n, TRACE_K_EVENTS, TRACE_F_ZSTD, 0, 0xffffffffu, 0xffffffffu,
	                   0xffffffffu, 0);
	t.n += TRACE_BLOCK_HDR;
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 && strstr(err, "limits"),
	      "a header declaring 4 GiB is refused from its header (%s)", err);
	start(&t);
	put_events(&t, 0, bad_op, 1);
	finish(&t);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 && strstr(err, "precedes"),
	      "events before any process are refused (%s)", err);
	start(&t);
	put_process(&t, 1);
	finish(&t);
	t.buf[t.n++] = 0;
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 &&
	          strstr(err, "after the trailer"),
	      "data after the trailer is refused (%s)", err);
	memcpy(t.buf + 8, "\x04\0\0\0", 4);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 && strstr(err, "version 4"),
	      "another version is refused (%s)", err);
}

/* Thread 0 frees object 2 before it mallocs 1; thread 1 frees 1 before it mallocs 2. */
static void test_cycle(void)
{
	static const uint64_t th0[][4] = {{TRACE_OP_FREE, 2, 0, 0}, {TRACE_OP_MALLOC, 1, 10, 0}};
	static const uint64_t th1[][4] = {{TRACE_OP_FREE, 1, 0, 0}, {TRACE_OP_MALLOC, 2, 10, 0}};
	static const uint64_t twice[][4] = {
	    {TRACE_OP_MALLOC, 1, 10, 0}, {TRACE_OP_FREE, 1, 0, 0}, {TRACE_OP_FREE, 1, 0, 0}};
	struct tb t;
	char err[256] = "", path[64];
	struct rp_trace rp;

	start(&t);
	put_process(&t, 5);
	put_events(&t, 0, th0, 2);
	put_events(&t, 1, th1, 2);
	finish(&t);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == 0, "the cycle is well-formed");
	CHECK(write_tmp(&t, path) == 0, "cycle written");
	CHECK(rp_load(path, pick_any, &rp, err, sizeof err) == -1 && strstr(err, "no replay order"),
	      "a replay that would deadlock is refused (%s)", err);
	unlink(path);
	start(&t);
	put_process(&t, 5);
	put_events(&t, 0, twice, 3);
	finish(&t);
	CHECK(write_tmp(&t, path) == 0 && rp_load(path, pick_any, &rp, err, sizeof err) == -1 &&
	          strstr(err, "released twice"),
	      "a double free is refused (%s)", err);
	unlink(path);
}

/* What the work limit counts (replay_load.h, rp_cost): calls, realloc moves, the pages and bytes
 * touch writes as replay.c's touch() does, mappings and fresh pages of blocks over RP_FRESH_MIN,
 * the longest thread's gaps, and the tables the replay keeps. */
static void test_cost(void)
{
	static const uint64_t big[][4] = {{TRACE_OP_MALLOC, 1, 64 << 20, 0},
	                                  {TRACE_OP_REALLOC, 1, 2, (64 << 20) + 1},
	                                  {TRACE_OP_MALLOC, 3, RP_FRESH_MIN, 0},
	                                  {TRACE_OP_FREE, 2, 0, 0}};
	/* thread 1 frees 1 and allocates 2, thread 2 frees 2 and allocates 3, thread 0 frees 3 */
	static const uint64_t chain0[][4] = {{TRACE_OP_MALLOC, 1, 8, 0}, {TRACE_OP_FREE, 3, 0, 0}};
	static const uint64_t chain1[][4] = {{TRACE_OP_FREE, 1, 0, 0}, {TRACE_OP_MALLOC, 2, 8, 0}};
	static const uint64_t chain2[][4] = {{TRACE_OP_FREE, 2, 0, 0}, {TRACE_OP_MALLOC, 3, 8, 0}};
	struct tb t;
	char err[256] = "", path[64];
	struct rp_trace rp;
	struct rp_cost c;

	valid_trace(&t);
	CHECK(write_tmp(&t, path) == 0 && rp_load(path, pick_any, &rp, err, sizeof err) == 0,
	      "valid trace loads (%s)", err);
	unlink(path);
	rp_cost(&rp, &c);
	CHECK(c.events == 6 && c.maps == 0, "6 calls, no large block");
	CHECK(c.copy_bytes == 4000, "the realloc may move its 4000 bytes (%llu)",
	      (unsigned long long)c.copy_bytes);
	CHECK(c.fresh_pages == 3 && c.pages == 1 && c.bytes == 9100,
	      "touch writes 1 + 1 + 2 pages, 3 of them fresh (the 9100-byte peak), 100 + 4000 + "
	      "5000 bytes (%llu, %llu, %llu)",
	      (unsigned long long)c.fresh_pages, (unsigned long long)c.pages,
	      (unsigned long long)c.bytes);
	CHECK(c.gap_ns == 30,
	      "spun time 30 ns: thread 1's second free waits for thread 0's realloc at 20 ns, "
	      "then its free(NULL) spins 10 more (%llu)",
	      (unsigned long long)c.gap_ns);
	CHECK(c.table_bytes == 2 * sizeof(struct rp_thread) + 6 * sizeof(struct rp_op) + 4 * 8,
	      "tables: 2 threads, 6 ops, the sizes of objects 0..3 (%llu bytes)",
	      (unsigned long long)c.table_bytes);
	CHECK(sizeof(struct rp_op) == 24, "an op takes 24 bytes");
	rp_free(&rp);
	start(&t);
	put_process(&t, 8);
	put_events(&t, 0, chain0, 2);
	put_events(&t, 1, chain1, 2);
	put_events(&t, 2, chain2, 2);
	finish(&t);
	CHECK(write_tmp(&t, path) == 0 && rp_load(path, pick_any, &rp, err, sizeof err) == 0,
	      "a chain of waits across 3 threads loads (%s)", err);
	unlink(path);
	rp_cost(&rp, &c);
	CHECK(c.gap_ns == 20, "its spun time is the chain's 20 ns, not one thread's 10 (%llu)",
	      (unsigned long long)c.gap_ns);
	rp_free(&rp);
	start(&t);
	put_process(&t, 9);
	put_events(&t, 0, big, 4);
	finish(&t);
	CHECK(write_tmp(&t, path) == 0 && rp_load(path, pick_any, &rp, err, sizeof err) == 0,
	      "a trace of 64 MiB blocks loads (%s)", err);
	unlink(path);
	rp_cost(&rp, &c);
	CHECK(c.maps == 2 && c.fresh_pages == 16384 + 1 + RP_FRESH_MIN / 4096 && c.pages == 0,
	      "blocks over 7 MiB are fresh mappings: 16384 pages, then the 1 page a realloc adds; "
	      "a 7 MiB block within the peak is fresh too (%llu, %llu, %llu)",
	      (unsigned long long)c.maps, (unsigned long long)c.fresh_pages,
	      (unsigned long long)c.pages);
	CHECK(c.copy_bytes == 64 << 20 && c.bytes == (64 << 20) + 1 + RP_FRESH_MIN,
	      "the realloc moves 64 MiB and touches 1 byte more");
	CHECK(rp.nleaked == 1 && c.table_bytes == sizeof(struct rp_thread) +
	                                              4 * sizeof(struct rp_op) + sizeof(uint32_t) +
	                                              4 * 8,
	      "the leaked 7 MiB block is in the tables");
	rp_free(&rp);
}

/* Thread 0xffffffff (the old thread list's end marker) is a thread like any other. */
static void test_thread_max(void)
{
	static const uint64_t a[][4] = {{TRACE_OP_MALLOC, 1, 16, 0}};
	static const uint64_t b[][4] = {{TRACE_OP_FREE, 1, 0, 0}};
	struct tb t;
	char err[256] = "";
	struct rp_trace rp;

	start(&t);
	put_process(&t, 3);
	put_events(&t, 0xffffffffu, a, 1);
	finish(&t);
	CHECK(rp_load_mem(t.buf, t.n, pick_any, &rp, err, sizeof err) == 0 && rp.nth == 1 &&
	          rp.th[0].n == 1,
	      "thread 0xffffffff alone is one thread (%s)", err);
	rp_free(&rp);
	start(&t);
	put_process(&t, 3);
	put_events(&t, 0xffffffffu, a, 1);
	put_events(&t, 0, b, 1);
	finish(&t);
	CHECK(rp_load_mem(t.buf, t.n, pick_any, &rp, err, sizeof err) == 0 && rp.nth == 2 &&
	          (rp.th[0].ops[0].flags & RP_WAIT),
	      "threads 0xffffffff and 0 stay two, the free waits for the other's malloc (%s)", err);
	rp_free(&rp);
}

/* A block that declares far more than it stores is refused before it is decompressed. */
static void test_bomb(void)
{
	static struct tb t;
	static uint8_t raw[1 << 20];
	char err[256] = "";
	uint32_t n = (uint32_t)((sizeof raw - 8) / 3);

	trace_put64(raw, (uint64_t)1 << 32);
	for (uint32_t i = 0; i < n; i++)
		raw[8 + 3 * i] = TRACE_OP_FREE;
	start(&t);
	put_process(&t, 1);
	put_block(&t, TRACE_K_EVENTS, 0, raw, 8 + 3 * (size_t)n, n);
	finish(&t);
	CHECK(t.n < 4096, "1 MiB of free(NULL) compresses to %zu bytes", t.n);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 &&
	          strstr(err, "compression bomb"),
	      "refused as a compression bomb (%s)", err);
}

/* A FIFO is refused without waiting for a writer. */
static void test_fifo(void)
{
	char path[] = "/tmp/allocab-test-fifo.XXXXXX", err[256] = "";
	int fd = mkstemp(path);

	CHECK(fd >= 0 && close(fd) == 0 && unlink(path) == 0 && mkfifo(path, 0600) == 0,
	      "a FIFO made");
	CHECK(trace_open(path, TRACE_BUNDLE, err, sizeof err) == NULL && strstr(err, "a FIFO"),
	      "trace_open refuses it at once (%s)", err);
	unlink(path);
}

/* A process without a complete stream is refused unless allowed, and says why; a version 1
 * trace is still read (its end block means exit). */
static void test_incomplete(void)
{
	static const uint64_t a[][4] = {{TRACE_OP_MALLOC, 1, 16, 0}};
	struct tb t;
	char err[256] = "";
	struct rp_trace rp;
	uint8_t end[4 + 8 * TRACE_END_NCOUNTERS] = {0};

	start(&t);
	put_process(&t, 6);
	put_events(&t, 0, a, 1);
	trace_put32(end, TRACE_END_NCOUNTERS);
	trace_put64(end + 4 + 8 * TRACE_END_HOW, TRACE_HOW_KILLED);
	put_block(&t, TRACE_K_END, 0, end, sizeof end, 0);
	finish(&t);
	CHECK(rp_load_mem(t.buf, t.n, pick_whole, &rp, err, sizeof err) == -1 &&
	          strstr(err, "is incomplete: killed or crashed") &&
	          strstr(err, "incomplete=allow"),
	      "a killed process is refused (%s)", err);
	CHECK(rp_load_mem(t.buf, t.n, pick_any, &rp, err, sizeof err) == 0, "and allowed (%s)", err);
	rp_free(&rp);
	trace_put64(end + 4 + 8 * TRACE_END_HOW, TRACE_HOW_EXEC);
	trace_put64(end + 4 + 8 * TRACE_END_DROPPED, 5);
	trace_put64(end + 4 + 8 * TRACE_END_EVENTS, 6);
	trace_put64(end + 4 + 8 * TRACE_END_WRITE_ERRNO, 28);
	start(&t);
	put_process(&t, 6);
	put_events(&t, 0, a, 1);
	put_block(&t, TRACE_K_END, 0, end, sizeof end, 0);
	finish(&t);
	CHECK(rp_load_mem(t.buf, t.n, pick_whole, &rp, err, sizeof err) == -1 &&
	          strstr(err, "5 of 6 events dropped: its stream could not be written (No space"),
	      "an exec'd process whose blocks were dropped is refused (%s)", err);
	trace_put64(end + 4 + 8 * TRACE_END_DROPPED, 0);
	start(&t);
	put_process(&t, 6);
	put_events(&t, 0, a, 1);
	put_block(&t, TRACE_K_END, 0, end, sizeof end, 0);
	finish(&t);
	CHECK(rp_load_mem(t.buf, t.n, pick_whole, &rp, err, sizeof err) == 0,
	      "an image that ended in an exec is complete (%s)", err);
	rp_free(&rp);
	memcpy(t.buf + 8, "\x01\0\0\0", 4);
	CHECK(rp_load_mem(t.buf, t.n, pick_whole, &rp, err, sizeof err) == 0,
	      "a version 1 trace with an end block is read as complete (%s)", err);
	rp_free(&rp);
}

int main(void)
{
	test_valid();
	test_truncations();
	test_corruptions();
	test_hostile();
	test_cycle();
	test_cost();
	test_thread_max();
	test_bomb();
	test_fifo();
	test_incomplete();
	return CHECK_DONE();
}
