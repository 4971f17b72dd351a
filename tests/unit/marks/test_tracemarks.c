/* test_tracemarks.c - the phases a process marked, as a trace holds them (docs/trace-format.md,
 * "Layout": the marks block of version 3): written and read back exactly, handed over with their
 * process by the loader, every malformed or misplaced marks block refused with one reason; and as
 * the replay loader splits the process by them (workloads/lib/replay_load.h, struct rp_marks):
 * the calls of each span, phases it cannot time, and a trace whose threads would wait across a
 * boundary refused (this file also runs under ASan+UBSan). */
#include "check.h"
#include "trace/trace.h"
#include "tracebuild.h"
#include "workloads/lib/replay_load.h"

#include <stdlib.h>
#include <string.h>

static char err[512];
/* The process with the most events, with and without its marks. */
static const struct rp_pick pick_whole = {0, 0};
static const struct rp_pick pick_unmarked = {0, RP_NO_MARKS};

/* A marks block of the phases "setup" (one span) and "epoch" (n spans of 20 ns, 10 apart). */
static void put_marks(struct tb *t, size_t n)
{
	static struct trace_span sp[TRACE_MARKS_MAX_SPANS + 1];
	static uint8_t block[TRACE_BLOCK_HDR + TRACE_MAX_MARKS];
	struct trace_marks m = {.nphases = 2, .nspans = 1 + n};
	size_t len;

	sp[0] = (struct trace_span){90, 100};
	for (size_t i = 0; i < n; i++)
		sp[1 + i] = (struct trace_span){100 + 30 * i, 120 + 30 * i};
	strcpy(m.phase[0].name, "setup");
	m.phase[0].span = sp;
	m.phase[0].n = 1;
	strcpy(m.phase[1].name, "epoch");
	m.phase[1].span = sp + 1;
	m.phase[1].n = n;
	len = trace_marks_block(&m, block, sizeof block);
	memcpy(t->buf + t->n, block, len);
	t->n += len;
	t->blocks++;
}

static void put_end(struct tb *t)
{
	uint8_t end[4 + 8 * TRACE_END_NCOUNTERS] = {0};

	trace_put32(end, TRACE_END_NCOUNTERS);
	trace_put64(end + 4 + 8 * TRACE_END_HOW, TRACE_HOW_EXIT);
	put_block(t, TRACE_K_END, 0, end, sizeof end, 0);
}

static const uint64_t ops[][4] = {{TRACE_OP_MALLOC, 1, 16, 0}, {TRACE_OP_FREE, 1, 0, 0}};

static int keep(struct trace_proc_events *p, void *arg, char *e, size_t elen)
{
	(void)e;
	(void)elen;
	*(struct trace_marks *)arg = p->marks;
	memset(&p->marks, 0, sizeof p->marks);
	return 0;
}

static void roundtrip(void)
{
	static struct tb t;
	struct trace_marks m = {0};

	start(&t);
	put_process(&t, 7);
	put_events(&t, 0, ops, 2);
	put_marks(&t, 3);
	put_end(&t);
	finish(&t);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == 0,
	      "a version 3 trace with a marks block reads (%s)", err);
	CHECK(trace_each_process_mem(t.buf, t.n, &(struct trace_visit){100, keep, &m}, err,
	                             sizeof err) == 0 &&
	          m.nphases == 2,
	      "the loader hands the marks over with their process (%s)", err);
	CHECK(strcmp(m.phase[0].name, "setup") == 0 && m.phase[0].n == 1 &&
	          m.phase[0].span[0].begin_ns == 90 && m.phase[0].span[0].end_ns == 100,
	      "setup: one span, 90..100 ns");
	CHECK(strcmp(m.phase[1].name, "epoch") == 0 && m.phase[1].n == 3 &&
	          m.phase[1].span[2].begin_ns == 160 && m.phase[1].span[2].end_ns == 180 &&
	          m.nspans == 4,
	      "epoch: three spans, the last 160..180 ns; 4 spans in all");
	trace_marks_free(&m);
	start(&t);
	put_process(&t, 7);
	put_marks(&t, TRACE_MARKS_MAX_SPANS - 1);
	put_end(&t);
	finish(&t);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == 0,
	      "the most spans a marks file may hold fit one block (%s)", err);
	memcpy(t.buf + 8, "\x02\0\0\0", 4);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 &&
	          strstr(err, "unknown block kind 6"),
	      "a version 2 trace has no marks blocks (%s)", err);
}

/* Trace with a marks block whose payload (after its phase count) is body[0..n). */
static int refused_payload(const uint8_t *body, size_t n, uint32_t nphases, const char *want)
{
	static struct tb t;
	uint8_t p[512];

	trace_put32(p, nphases);
	memcpy(p + 4, body, n);
	start(&t);
	put_process(&t, 7);
	put_block(&t, TRACE_K_MARKS, 0, p, 4 + n, 0);
	put_end(&t);
	finish(&t);
	if (trace_check_buffer(t.buf, t.n, err, sizeof err) == 0 || !strstr(err, want)) {
		printf("# got '%s'\n", err);
		return 0;
	}
	return 1;
}

/* A phase entry: name, then spans (begin, end) pairs. */
static size_t phase(uint8_t *p, const char *name, const uint64_t *se, uint32_t n)
{
	size_t k = strlen(name);

	trace_put32(p, (uint32_t)k);
	memcpy(p + 4, name, k);
	trace_put32(p + 4 + k, n);
	for (uint32_t i = 0; i < 2 * n; i++)
		trace_put64(p + 8 + k + 8 * i, se[i]);
	return 8 + k + 16 * n;
}

/* A marks block within every size limit but with the zstd flag: the message names the flag. */
static void zstd_flagged_marks(void)
{
	static struct tb t;
	static const uint64_t ok[] = {10, 20};
	uint8_t p[512];
	size_t n, at;

	trace_put32(p, 1);
	n = phase(p + 4, "epoch", ok, 1);
	start(&t);
	put_process(&t, 7);
	at = t.n;
	put_block(&t, TRACE_K_MARKS, 0, p, 4 + n, 0);
	t.buf[at + 5] = TRACE_F_ZSTD;
	trace_put32(t.buf + at + 28, trace_fnv32(t.buf + at, 28));
	put_end(&t);
	finish(&t);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) != 0 &&
	          strstr(err, "has the zstd flag: only event blocks are compressed") &&
	          !strstr(err, "limits"),
	      "a marks block with the zstd flag: the flag is named (%s)", err);
}

static void payloads(void)
{
	uint8_t b[512] = {0};
	size_t n;
	static const uint64_t ok[] = {10, 20, 20, 40}, overlap[] = {10, 30, 20, 40},
	                      empty[] = {10, 10}, backwards[] = {20, 10},
	                      huge[] = {0, 1000000000000001ULL};

	CHECK(refused_payload(b, 0, 0, "not 1 to 7 phases"), "no phase");
	CHECK(refused_payload(b, 0, 8, "not 1 to 7 phases"), "eight phases");
	n = phase(b, "epoch", overlap, 2);
	CHECK(refused_payload(b, n, 1, "span 2 of 'epoch' (20..40 ns) begins before the span"),
	      "spans that overlap");
	n = phase(b, "epoch", empty, 1);
	CHECK(refused_payload(b, n, 1, "(10..10 ns) is empty (a span lasts 1 to 10^15 ns)"),
	      "a span of no time is called empty");
	n = phase(b, "epoch", backwards, 1);
	CHECK(refused_payload(b, n, 1, "(20..10 ns) ends before it begins"),
	      "a span that ends before it begins");
	n = phase(b, "epoch", huge, 1);
	CHECK(refused_payload(b, n, 1, "lasts more than 10^15 ns"), "a span beyond 10^15 ns");
	n = phase(b, "total", ok, 2);
	CHECK(refused_payload(b, n, 1, "phase 1 has no valid name"), "'total' is no phase name");
	n = phase(b, "ep\x1b[2J", ok, 2);
	CHECK(refused_payload(b, n, 1, "phase 1 has no valid name"), "control bytes in a name");
	n = phase(b, "epoch", ok, 2);
	n += phase(b + n, "epoch", ok, 1);
	CHECK(refused_payload(b, n, 2, "'epoch' listed twice"), "a name twice");
	n = phase(b, "epoch", ok, 2);
	CHECK(refused_payload(b, n, 2, "phase 2 has no valid name"), "fewer phases than declared");
	b[n] = 0;
	CHECK(refused_payload(b, n + 1, 1, "1 bytes after the last phase"), "trailing bytes");
	n = phase(b, "epoch", ok, 0);
	CHECK(refused_payload(b, n, 1, "'epoch' has 0 spans"), "a phase without spans");
	n = phase(b, "epoch", ok, 2);
	trace_put32(b + 9, 1000000);
	CHECK(refused_payload(b, n, 1, "run past the block"), "more spans than the block holds");
}

/* A trace of the blocks of layout ('p' process, 'e' events, 'm' marks, 'x' end) and a trailer. */
static void layout_trace(struct tb *t, const char *layout)
{
	start(t);
	for (const char *c = layout; *c; c++)
		if (*c == 'p')
			put_process(t, 7);
		else if (*c == 'e')
			put_events(t, 0, ops, 2);
		else if (*c == 'm')
			put_marks(t, 1);
		else
			put_end(t);
	finish(t);
}

/* Marks blocks in the wrong place, twice, or too large. */
static void placement(void)
{
	static const struct {
		const char *layout, *want, *name;
	} c[] = {
	    {"pmex", "follows a marks block", "events after the marks block"},
	    {"pmmx", "follows a marks block", "two marks blocks"},
	    {"pxm", "follows its process's end block", "a marks block after the end block"},
	    {"m", "precedes", "a marks block before any process"},
	    {"pm", "follows a marks block", "a marks block without its end block"},
	};
	static struct tb t;
	uint8_t big[TRACE_MAX_MARKS + 8] = {0};

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		layout_trace(&t, c[i].layout);
		CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 && strstr(err, c[i].want),
		      "%s is refused (%s)", c[i].name, err);
	}
	start(&t);
	put_process(&t, 7);
	trace_put32(big, 1);
	put_block(&t, TRACE_K_MARKS, 0, big, sizeof big, 0);
	finish(&t);
	CHECK(trace_check_buffer(t.buf, t.n, err, sizeof err) == -1 && strstr(err, "declares"),
	      "a marks block over its cap is refused from its header (%s)", err);
}

/* A process: its events blocks (ops0 on thread 0, ops1 on thread 1 when n1), then the marks
 * block of the phases ph (name, spans as begin, end pairs). */
struct phase_spec {
	const char *name;
	uint64_t se[8];
	size_t n;
};

static void marked(struct tb *t, const uint64_t (*ops0)[4], size_t n0, const uint64_t (*ops1)[4],
                   size_t n1, const struct phase_spec *ph, size_t nph)
{
	static struct trace_span sp[32];
	static uint8_t block[TRACE_BLOCK_HDR + TRACE_MAX_MARKS];
	struct trace_marks m = {.nphases = nph, .all = sp};
	size_t len, k = 0;

	for (size_t p = 0; p < nph; p++) {
		strcpy(m.phase[p].name, ph[p].name);
		m.phase[p].span = sp + k;
		m.phase[p].n = ph[p].n;
		for (size_t j = 0; j < ph[p].n; j++)
			sp[k++] = (struct trace_span){ph[p].se[2 * j], ph[p].se[2 * j + 1]};
	}
	m.nspans = k;
	start(t);
	put_process(t, 9);
	put_events(t, 0, ops0, n0);
	if (n1)
		put_events(t, 1, ops1, n1);
	len = trace_marks_block(&m, block, sizeof block);
	memcpy(t->buf + t->n, block, len);
	t->n += len;
	t->blocks++;
	put_end(t);
	finish(t);
}

/* One thread, calls at 100, 110, ..., 150 ns. */
static void replay_phases(void)
{
	static const uint64_t six[][4] = {{TRACE_OP_MALLOC, 1, 16, 0}, {TRACE_OP_FREE, 1, 0, 0},
	                                  {TRACE_OP_MALLOC, 2, 16, 0}, {TRACE_OP_FREE, 2, 0, 0},
	                                  {TRACE_OP_MALLOC, 3, 16, 0}, {TRACE_OP_FREE, 3, 0, 0}};
	static const struct phase_spec ph[] = {{"load", {100, 125}, 1},
	                                       {"epoch", {125, 140, 140, 151, 300, 400}, 3},
	                                       {"idle", {200, 250}, 1}};
	static struct tb t;
	struct rp_trace rp;
	struct rp_cost c;
	const struct rp_marks *k = &rp.marks;

	marked(&t, six, 6, NULL, 0, ph, 3);
	CHECK(rp_load_mem(t.buf, t.n, pick_whole, &rp, err, sizeof err) == 0,
	      "a marked process loads (%s)", err);
	CHECK(k->nphases == 2 && strcmp(k->name[0], "load") == 0 &&
	          strcmp(k->name[1], "epoch") == 0 && k->nspans[0] == 1 && k->nspans[1] == 2,
	      "load and epoch timed, epoch's two spans with calls");
	CHECK(k->calls[0] == 3 && k->calls[1] == 1 && k->calls[2] == 2,
	      "calls by their time: 3 in load (100, 110, 120), 1 and 2 in the epochs (130; 140, "
	      "150) (%llu %llu %llu)",
	      (unsigned long long)k->calls[0], (unsigned long long)k->calls[1],
	      (unsigned long long)k->calls[2]);
	CHECK(k->skipped[1] == 1 && k->nuntimed == 1 && strcmp(k->untimed[0], "idle") == 0 &&
	          strstr(k->why[0], "first span holds no call"),
	      "epoch's third span is skipped; idle, without a call, is not timed (%s)", k->why[0]);
	CHECK(k->nbounds == 8 && k->bound[0] == 0 && k->bound[1] == 1 && k->bound[2] == 1 &&
	          k->bound[3] == 2 && k->bound[4] == 2 && k->bound[5] == 3,
	      "8 boundaries; load from the first to the second, the epochs from the second to the "
	      "third and from the third to the fourth");
	CHECK(rp.th[0].nchunk == 3 && rp.th[0].chunk[0].seg == 1 && rp.th[0].chunk[1].from == 3 &&
	          rp.th[0].chunk[1].seg == 2 && rp.th[0].chunk[2].from == 4 &&
	          rp.th[0].chunk[2].seg == 3,
	      "the thread's ops in segments 1 (ops 0-2), 2 (op 3) and 3 (ops 4-5)");
	rp_cost(&rp, &c);
	CHECK(c.crossings == 8, "one thread passes 8 boundaries");
	rp_free(&rp);
	CHECK(rp_load_mem(t.buf, t.n, pick_unmarked, &rp, err, sizeof err) == 0 &&
	          rp.marks.nphases == 0 && rp.marks.nbounds == 0 && !rp.th[0].chunk,
	      "RP_NO_MARKS: no phase, no boundary (%s)", err);
	rp_free(&rp);
}

/* Thread 1 frees object 1 at 100 ns, thread 0 allocates it at 110: a boundary at 105 puts the
 * release before it in every replay that passes boundaries at once. */
static void replay_deadlock(void)
{
	static const uint64_t ops0[][4] = {{TRACE_OP_MALLOC, 2, 16, 0}, {TRACE_OP_MALLOC, 1, 16, 0}};
	static const uint64_t ops1[][4] = {{TRACE_OP_FREE, 1, 0, 0}};
	static const struct phase_spec ph[] = {{"late", {105, 200}, 1}};
	static const struct phase_spec ok[] = {{"early", {90, 200}, 1}};
	static struct tb t;
	struct rp_trace rp;

	marked(&t, ops0, 2, ops1, 1, ph, 1);
	CHECK(rp_load_mem(t.buf, t.n, pick_whole, &rp, err, sizeof err) == -1 &&
	          strstr(err, "wait across a phase boundary") && strstr(err, "marks=ignore"),
	      "a release that would wait across a boundary is refused (%s)", err);
	CHECK(rp_load_mem(t.buf, t.n, pick_unmarked, &rp, err, sizeof err) == 0,
	      "and replayed without the marks (%s)", err);
	rp_free(&rp);
	marked(&t, ops0, 2, ops1, 1, ok, 1);
	CHECK(rp_load_mem(t.buf, t.n, pick_whole, &rp, err, sizeof err) == 0 &&
	          rp.marks.nphases == 1 && rp.marks.calls[0] == 3,
	      "with the boundary before both, the span holds all 3 calls (%s)", err);
	rp_free(&rp);
}

int main(void)
{
	roundtrip();
	replay_phases();
	replay_deadlock();
	payloads();
	zstd_flagged_marks();
	placement();
	return CHECK_DONE();
}
