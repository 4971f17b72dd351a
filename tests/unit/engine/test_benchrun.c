/* test_benchrun.c - the bench engine (front/engine/engine.h) with a fake process runner and a fake
 * clock: the schedule (every arm once per round, in shuffled orders), the stop rules (--rounds,
 * --budget with --min-rounds, an interrupt), the sequential gate that stops a bench once it is
 * decided, and the counting of run statuses. No process is started. */
#include "check.h"
#include "common/atomicio.h"
#include "common/status.h"
#include "front/cmd/gateopt.h"
#include "front/compare/compare.h"
#include "front/results/results.h"
#include "front/engine/engine.h"
#include "front/proc/proc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CALLS 4096

/* The fake: arm i's run takes base_ns[i] (times 1 + a small deterministic wobble) of fake time,
 * exits with fail_code on the runs listed in fail_at, and sets the stop flag at run stop_at. */
struct fake {
	int64_t clock_ns;
	int64_t base_ns[4];
	int wobble;
	size_t calls;
	char arm_of_call[MAX_CALLS]; /* 'a' + arm index, in call order */
	size_t fail_at[8], nfail;
	int fail_code;
	size_t stop_at; /* 0: never */
	volatile sig_atomic_t *stop;
};

static int fake_run(void *ctx, const struct runner_spec *spec, struct runner_result *r, char *err,
                    size_t errlen)
{
	struct fake *f = ctx;
	const char *cmd = spec->argv[2]; /* sh -c COMMAND: the command is the arm's letter */
	int arm = cmd[0] - 'a';
	size_t n = f->calls++;

	(void)err;
	(void)errlen;
	memset(r, 0, sizeof *r);
	if (n < MAX_CALLS)
		f->arm_of_call[n] = cmd[0];
	if (f->stop_at && n + 1 == f->stop_at) {
		*f->stop = 1;
		r->end = RUNNER_STOPPED;
		return 0;
	}
	r->end = RUNNER_EXITED;
	for (size_t i = 0; i < f->nfail; i++)
		if (f->fail_at[i] == n)
			r->exit_code = f->fail_code;
	r->wall_ns = f->base_ns[arm];
	if (f->wobble)
		r->wall_ns += (int64_t)((n * 7919) % 13) * (f->base_ns[arm] / 1000);
	f->clock_ns += r->wall_ns;
	return 0;
}

static int64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->clock_ns;
}

struct setup {
	struct fake f;
	struct bench_runner rn;
	struct bench_arm arms[3];
	struct arm_shell_data sh[3];
	struct bench_workload wl;
	struct bench_config c;
	char *argv[2];
	volatile sig_atomic_t stop;
};

static void setup_init(struct setup *s, size_t narms)
{
	static char *cmds[] = {"a", "b", "c"};

	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < narms; i++) {
		s->sh[i] = (struct arm_shell_data){.command = cmds[i]};
		s->arms[i] = (struct bench_arm){
		    .kind = &arm_kind_command, .name = cmds[i], .data = &s->sh[i]};
		s->f.base_ns[i] = 1000000000;
	}
	s->f.stop = &s->stop;
	s->rn = (struct bench_runner){.ctx = &s->f, .run = fake_run, .now_ns = fake_now};
	s->wl = (struct bench_workload){.name = "command"};
	s->argv[0] = "bench";
	s->c = (struct bench_config){.arms = s->arms,
	                             .narms = narms,
	                             .wl = &s->wl,
	                             .nwl = 1,
	                             .rounds = 5,
	                             .warmup = 1,
	                             .min_rounds = 3,
	                             .timeout_s = 10,
	                             .grace_s = 1,
	                             .shuffle_seed = 7,
	                             .argv = s->argv,
	                             .argc = 1,
	                             .runner = &s->rn};
}

static void test_schedule(void)
{
	struct setup s;
	struct bench_result r;
	char err[512];
	int each_once = 1, orders_differ = 0;

	setup_init(&s, 3);
	CHECK(bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err) == ST_OK, "rounds: runs (%s)",
	      err);
	CHECK(strcmp(r.status, "complete") == 0 && r.rounds_done == 6 && r.measured == 5,
	      "rounds: 1 warm-up + 5 measured rounds, complete (%s, %u, %u)", r.status,
	      r.rounds_done, r.measured);
	CHECK(s.f.calls == 18 && r.runs == 18 && r.failed == 0, "rounds: 3 arms x 6 rounds runs");
	for (size_t round = 0; round < 6; round++) {
		const char *o = s.f.arm_of_call + 3 * round;
		each_once &= memchr(o, 'a', 3) && memchr(o, 'b', 3) && memchr(o, 'c', 3);
		orders_differ |= memcmp(o, s.f.arm_of_call, 3) != 0;
	}
	CHECK(each_once, "schedule: every arm exactly once per round (%.18s)", s.f.arm_of_call);
	CHECK(orders_differ, "schedule: the order is shuffled between rounds (%.18s)",
	      s.f.arm_of_call);
	CHECK(r.elapsed_s == 18.0, "elapsed time from the runner's clock (%g s)", r.elapsed_s);

	struct setup t;
	setup_init(&t, 3);
	bench_run(&t.c, &t.stop, NULL, &r, err, sizeof err);
	CHECK(memcmp(s.f.arm_of_call, t.f.arm_of_call, 18) == 0,
	      "schedule: the same shuffle seed gives the same orders");
	setup_init(&t, 3);
	t.c.shuffle_seed = 8;
	bench_run(&t.c, &t.stop, NULL, &r, err, sizeof err);
	CHECK(memcmp(s.f.arm_of_call, t.f.arm_of_call, 18) != 0,
	      "schedule: another shuffle seed, other orders");
}

static void test_budget(void)
{
	struct setup s;
	struct bench_result r;
	char err[512];

	/* Rounds of 2 s: the budget of 10 s holds 5 rounds (1 warm-up + 4 measured); a sixth
	 * would end at 12 s. */
	setup_init(&s, 2);
	s.c.rounds = 0;
	s.c.budget_s = 10;
	CHECK(bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err) == ST_OK, "budget: runs");
	CHECK(strcmp(r.status, "budget") == 0 && r.rounds_done == 5 && r.measured == 4 &&
	          r.elapsed_s <= 10,
	      "budget: stops before the round that would end past it (%s, %u rounds, %g s)",
	      r.status, r.rounds_done, r.elapsed_s);

	setup_init(&s, 2);
	s.c.rounds = 0;
	s.c.budget_s = 3;
	s.c.min_rounds = 4;
	bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err);
	CHECK(strcmp(r.status, "budget") == 0 && r.measured == 4,
	      "budget: --min-rounds measured rounds run whatever the budget (%u)", r.measured);
}

static void test_interrupt(void)
{
	struct setup s;
	struct bench_result r;
	char err[512];

	setup_init(&s, 2);
	s.f.stop_at = 8; /* the second run of the fourth round */
	CHECK(bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err) == ST_OK, "interrupt: runs");
	CHECK(strcmp(r.status, "interrupted") == 0 && r.rounds_done == 3 && r.measured == 2 &&
	          r.runs == 6,
	      "interrupt: the unfinished round is discarded (%s, %u rounds, %zu runs)", r.status,
	      r.rounds_done, r.runs);
	CHECK(s.f.calls == 8, "interrupt: nothing runs after the stop (%zu calls)", s.f.calls);
}

static void test_statuses(void)
{
	struct setup s;
	struct bench_result r;
	char err[512];

	setup_init(&s, 2);
	s.f.fail_at[0] = 3, s.f.fail_at[1] = 5, s.f.nfail = 2;
	s.f.fail_code = 1;
	bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err);
	CHECK(r.failed == 2 && r.by_status[1] == 2 && r.runs == 12,
	      "statuses: failed runs counted (%zu failed, %zu %s)", r.failed, r.by_status[1],
	      bench_run_status_name(1));
	setup_init(&s, 2);
	s.f.fail_at[0] = 4, s.f.nfail = 1;
	s.f.fail_code = 128 + 11;
	bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err);
	CHECK(r.failed == 1 && r.by_status[3] == 1 &&
	          strcmp(bench_run_status_name(3), "crashed") == 0,
	      "statuses: a command killed by SIGSEGV (exit 139 from sh) counts as crashed");
}

/* Runs the bench with stdout (the gate's verdict lines) captured into out. */
static int run_captured(struct setup *s, struct bench_result *r, cJSON **doc, char *out, size_t len,
                        char *err, size_t errlen)
{
	FILE *tmp = tmpfile();
	int saved, rc;
	size_t n = 0;

	fflush(stdout);
	saved = dup(1);
	dup2(fileno(tmp), 1);
	rc = bench_run(&s->c, &s->stop, doc, r, err, errlen);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return rc;
}

/* The gate after every measured round from --min-rounds on: b takes half of a's time. */
static void test_gate(void)
{
	static char *args[] = {"--gate", "--candidate",   "b", "--baseline",
	                       "a",      "--min-speedup", "5%"};
	static char *zero[] = {"--gate", "--candidate", "b", "--min-speedup", "0"};
	struct setup s;
	struct bench_result r;
	char err[512] = "", out[2048];
	cJSON *doc = NULL;

	setup_init(&s, 2);
	s.f.base_ns[1] = s.f.base_ns[0] / 2;
	s.f.wobble = 1;
	s.c.rounds = 50;
	s.c.min_rounds = 6;
	struct gate_spec g;

	s.c.gate = gateopt_parse(7, args, &g, NULL, err, sizeof err) == 0 ? &g : NULL;
	s.c.gate_argv = args + 1;
	s.c.gate_argc = 6;
	CHECK(s.c.gate != NULL, "gate: options parsed (%s)", err);
	CHECK(run_captured(&s, &r, &doc, out, sizeof out, err, sizeof err) == ST_OK,
	      "gate: runs (%s)", err);
	CHECK(strstr(out, "gate: PASS") != NULL, "gate: the verdict is printed on stdout");
	struct stats_seq_plan plan = {.planned = 50, .first_look = 6};
	size_t first = stats_seq_first_decision(&plan, 0.05);
	CHECK(strcmp(r.status, "decided") == 0 && r.gate == GATE_PASS && r.measured == first,
	      "gate: a clear speedup stops the bench at the first look its plan of 50 rounds can "
	      "decide at (%s, %u, want %zu)",
	      r.status, r.measured, first);
	cJSON *seq = doc ? cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "config"), "sequential")
	                 : NULL;
	cJSON *dec = doc ? cJSON_GetObjectItem(doc, "gate_decision") : NULL;
	CHECK(seq && cJSON_GetObjectItem(seq, "planned_rounds")->valuedouble == 50 &&
	          cJSON_GetObjectItem(seq, "first_look")->valuedouble == 6,
	      "gate: the document records the plan: 50 rounds, first look after 6");
	CHECK(dec && cJSON_GetObjectItem(dec, "looks")->valuedouble == (double)(first - 5) &&
	          cJSON_GetObjectItem(dec, "rounds")->valuedouble == (double)first &&
	          cJSON_GetArraySize(cJSON_GetObjectItem(dec, "lines")) == 2 &&
	          strstr(cJSON_GetArrayItem(cJSON_GetObjectItem(dec, "lines"), 1)->valuestring,
	                 "sequential: after round"),
	      "gate: the document records the decision: rounds, looks and the gate's lines");
	CHECK(r.planned == 50 && r.looks == first - 5, "gate: the result counts plan and looks");
	CHECK(doc && cJSON_IsString(cJSON_GetObjectItem(doc, "gate_outcome")) &&
	          strcmp(cJSON_GetObjectItem(doc, "gate_outcome")->valuestring, "PASS") == 0,
	      "gate: the document records the outcome");
	cJSON_Delete(doc);

	s.f = (struct fake){.base_ns = {1000000000, 1000000000}, .wobble = 1, .stop = &s.stop};
	s.c.rounds = 8;
	s.c.gate = gateopt_parse(5, zero, &g, NULL, err, sizeof err) == 0 ? &g : NULL;
	CHECK(
	    run_captured(&s, &r, NULL, out, sizeof out, err, sizeof err) == ST_OK &&
	        strcmp(r.status, "complete") == 0 && r.gate == GATE_INCONCLUSIVE && r.measured == 8,
	    "gate: equal arms straddle a 0%% margin; --rounds ends the bench INCONCLUSIVE (%s, %u)",
	    r.status, r.measured);

	/* --budget alone: the plan is fixed at the first look from the mean round time (2 s of fake
	 * time and a little more, 14 s spent of 30: 7 more rounds) and the bench stops when it is
	 * spent. */
	s.f = (struct fake){.base_ns = {1000000000, 1000000000}, .wobble = 1, .stop = &s.stop};
	s.c.rounds = 0;
	s.c.budget_s = 30;
	CHECK(run_captured(&s, &r, &doc, out, sizeof out, err, sizeof err) == ST_OK &&
	          r.planned == 13 && r.measured == 13 && strcmp(r.status, "budget") == 0 &&
	          r.gate == GATE_INCONCLUSIVE,
	      "gate with --budget: a plan of the rounds the budget holds at the first look, "
	      "run to its end (%zu planned, %u run, %s)",
	      r.planned, r.measured, r.status);
	seq = doc ? cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "config"), "sequential") : NULL;
	CHECK(seq && cJSON_GetObjectItem(seq, "planned_rounds")->valuedouble == 13,
	      "gate with --budget: the plan is recorded");
	cJSON_Delete(doc);
	s.c.budget_s = 0;

	static char *unknown[] = {"--gate", "--candidate", "z", "--min-speedup", "5"};
	s.c.gate = gateopt_parse(5, unknown, &g, NULL, err, sizeof err) == 0 ? &g : NULL;
	s.f.calls = 0;
	CHECK(bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err) == ST_USAGE && s.f.calls == 0,
	      "gate: an arm the gate cannot find is refused before any run (%s)", err);
}

/* The file (allocab-bench/2: a header line, a line per round, update lines) read back as one
 * document (rf_bench_read) is the engine's document; an interrupted bench's file holds the rounds
 * up to the last whole one and a closing update that says so. */
static int file_is_doc(const char *path, const cJSON *doc, const char *status)
{
	struct rf_file info;
	enum jl_why why;
	char err[512];
	cJSON *got = NULL;
	char *text = read_file(path, NULL);
	size_t n = text ? strlen(text) : 0;
	int same = rf_bench_read(path, &got, &info, &why, err, sizeof err) == 0 && info.lines &&
	           !info.torn && doc && cJSON_Compare(got, doc, 1) && n && text[n - 1] == '\n' &&
	           strncmp(text, "{\"schema\":\"allocab-bench/2\"", 27) == 0 &&
	           strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(got, "status")), status) == 0;

	cJSON_Delete(got);
	cJSON_Delete(info.disk);
	free(text);
	return same;
}

static void test_text(void)
{
	struct setup s;
	struct bench_result r;
	char err[512] = "", dir[] = "/tmp/allocab-benchtext.XXXXXX", path[64], *paths[1] = {path};
	cJSON *doc = NULL;

	setup_init(&s, 3);
	s.c.rounds = 4;
	CHECK(mkdtemp(dir) != NULL, "text: a scratch directory");
	snprintf(path, sizeof path, "%s/r.json", dir);
	s.c.out_paths = paths;
	s.c.nout = 1;
	CHECK(bench_run(&s.c, &s.stop, &doc, &r, err, sizeof err) == ST_OK && doc,
	      "text: the bench runs (%s)", err);
	CHECK(file_is_doc(path, doc, "complete"),
	      "text: the file's lines read back as one document are the engine's document");
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "rounds")) == 5,
	      "text: its rounds (warm-up and 4)");
	cJSON_Delete(doc);

	s.f = (struct fake){.base_ns = {1000000000, 1000000000, 1000000000},
	                    .stop = &s.stop,
	                    .stop_at = 11};
	s.stop = 0;
	CHECK(bench_run(&s.c, &s.stop, &doc, &r, err, sizeof err) == ST_OK &&
	          strcmp(r.status, "interrupted") == 0,
	      "text: an interrupted bench (%s)", r.status);
	CHECK(file_is_doc(path, doc, "interrupted"),
	      "text: an interrupted bench's file is its document, rounds up to the last whole one");
	cJSON_Delete(doc);
	unlink(path);
	rmdir(dir);
}

/* A rule for the tests (not a valid sequential decision): the comparisons of candidate `who`
 * ("*": every one) are decided once they have `after` usable rounds. */
struct fake_rule {
	const char *who;
	size_t after;
};

static int fake_decided(void *ctx, const struct cmp_row *row)
{
	const struct fake_rule *f = ctx;

	return (strcmp(f->who, "*") == 0 || strcmp(row->candidate, f->who) == 0) &&
	       row->n >= f->after;
}

/* The row of candidate cand in doc's comparison (commands mode: one workload). */
static size_t rounds_of(const cJSON *doc, const char *cand)
{
	char err[512];
	struct rf_doc *d = rf_from_json(doc, "doc", err, sizeof err);
	struct cmp_opts o = {.conf = 0.95};
	struct cmp_report *r = NULL;
	size_t n = 0;

	if (d && cmp_build(d, NULL, &o, &r, err, sizeof err) == ST_OK)
		for (size_t i = 0; i < r->nrows; i++)
			if (strcmp(r->rows[i].candidate, cand) == 0)
				n = r->rows[i].n;
	if (!d)
		printf("# %s\n", err);
	cmp_free(r);
	rf_free(d);
	return n;
}

/* Adaptive allocation: a decided candidate's cell leaves the rounds, later rounds list it under
 * "left", the reader and compare take such rounds, and the bench ends "decided" once no cell
 * is needed. */
static void test_allocation(void)
{
	struct fake_rule fr = {"c", 4};
	struct bench_rule rule = {"test", fake_decided, &fr};
	struct bench_alloc alloc;
	struct setup s;
	struct bench_result r;
	char err[512] = "";
	cJSON *doc = NULL, *round, *left;

	bench_alloc_by_rule(&alloc, &rule);
	setup_init(&s, 3);
	s.c.rounds = 8;
	s.c.alloc = &alloc;
	CHECK(bench_run(&s.c, &s.stop, &doc, &r, err, sizeof err) == ST_OK && doc,
	      "allocation: runs (%s)", err);
	CHECK(strcmp(r.status, "complete") == 0 && r.measured == 8,
	      "allocation: the undecided comparison keeps the bench going (%s, %u)", r.status,
	      r.measured);
	CHECK(s.f.calls == 3 * 5 + 2 * 4 && r.runs == s.f.calls,
	      "allocation: arm c leaves after measured round 4 (%zu calls, %zu runs)", s.f.calls,
	      r.runs);
	round = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rounds"), 5);
	left = cJSON_GetObjectItem(round, "left");
	CHECK(cJSON_GetArraySize(left) == 1 &&
	          strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(left, 0),
	                                                          "arm")),
	                 "c") == 0 &&
	          cJSON_GetArraySize(cJSON_GetObjectItem(round, "runs")) == 2,
	      "allocation: a later round lists the cell that left and holds the other runs");
	CHECK(!cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rounds"), 4),
	                           "left"),
	      "allocation: rounds where every cell ran list none");
	CHECK(rounds_of(doc, "c") == 4 && rounds_of(doc, "b") == 8,
	      "allocation: compare pairs c in the 4 rounds it ran, b in all 8 (%zu, %zu)",
	      rounds_of(doc, "c"), rounds_of(doc, "b"));
	CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "config"),
	                                                      "allocation")),
	             "test") == 0,
	      "allocation: config.allocation names the rule");
	cJSON_Delete(doc);

	fr = (struct fake_rule){"*", 5};
	setup_init(&s, 3);
	s.c.rounds = 20;
	s.c.alloc = &alloc;
	CHECK(bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err) == ST_OK &&
	          strcmp(r.status, "decided") == 0 && r.measured == 5 && s.f.calls == 18,
	      "allocation: with every comparison decided the bench ends 'decided' (%s, %u, %zu)",
	      r.status, r.measured, s.f.calls);

	/* Rounds of 3 s with 3 arms, 2 s once c left. The plan is fixed at the first look, after 3
	 * measured rounds (12 s of 20 spent): 3 + 8/3 = 5 rounds; the two rounds of a and b then
	 * take 4 s and the bench ends at its plan, 4 s early. */
	fr = (struct fake_rule){"c", 3};
	setup_init(&s, 3);
	s.c.rounds = 0;
	s.c.budget_s = 20;
	s.c.alloc = &alloc;
	CHECK(bench_run(&s.c, &s.stop, &doc, &r, err, sizeof err) == ST_OK &&
	          strcmp(r.status, "budget") == 0 && r.measured == 5 && r.planned == 5 &&
	          r.elapsed_s == 16,
	      "allocation: the plan fixed at the first look from whole rounds ends the bench, the "
	      "shorter rounds after c left end it sooner (%s, %u of %zu, %g s)",
	      r.status, r.measured, r.planned, r.elapsed_s);
	CHECK(doc && cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "config"),
	                                                     "sequential"),
	                                 "planned_rounds")
	                     ->valuedouble == 5,
	      "allocation: the document records the plan");
	cJSON_Delete(doc);

	/* the budget's estimate of the next round counts only the cells left: 3 rounds of 3 s (and
	 * the warm-up), then c leaves; with 13 s left, rounds of 2 s */
	setup_init(&s, 3);
	s.c.rounds = 0;
	s.c.budget_s = 25;
	s.c.alloc = &alloc;
	CHECK(bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err) == ST_OK && r.planned == 7 &&
	          r.measured == 7 && r.elapsed_s == 20,
	      "allocation: a plan of 7 (3 + 13/3) run in rounds of 2 s once c left (%u of %zu, "
	      "%g s)",
	      r.measured, r.planned, r.elapsed_s);

	/* the valid rule: a clear effect on three arms is decided by its sequential interval */
	struct bench_alloc seq;
	bench_alloc_by_rule(&seq, &bench_rule_sequential);
	setup_init(&s, 3);
	s.f.base_ns[1] = s.f.base_ns[0] / 2;
	s.f.base_ns[2] = s.f.base_ns[0] * 2;
	s.f.wobble = 1;
	s.c.rounds = 40;
	s.c.alloc = &seq;
	CHECK(bench_run(&s.c, &s.stop, NULL, &r, err, sizeof err) == ST_OK &&
	          strcmp(r.status, "decided") == 0 && r.measured < 40 && r.planned == 40,
	      "allocation by the sequential rule: both comparisons decided before the plan of 40 "
	      "(%s, %u)",
	      r.status, r.measured);
}

int main(void)
{
	test_allocation();
	test_schedule();
	test_budget();
	test_interrupt();
	test_statuses();
	test_gate();
	test_text();
	return CHECK_DONE();
}
