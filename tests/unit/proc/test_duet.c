/* test_duet.c - duet_run really runs both sides at the same time, each pinned to its own CPU, and
 * brings back their output and what a judge made of a run in its helper; three sides at once on
 * one CPU (--one-cpu). No timing
 * is asserted: concurrency is shown by each side waiting for a file only the other side creates. */
#include "front/proc/proc.h"
#include "front/engine/engine.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A side running `sh -c cmd` on cpu, its output captured, uncontained. */
static void shell_side(struct duet_side *side, struct runner_spec *spec, char *argv[4], char *cmd,
                       int cpu)
{
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	*spec = (struct runner_spec){
	    .path = "/bin/sh", .argv = argv, .timeout_s = 60, .grace_s = 1, .capture_stdout = 1};
	*side = (struct duet_side){.spec = spec, .cpu = cpu};
}

/* A judge (struct duet_side): which process it ran in, and the run's pid it saw. */
static cJSON *judge_in_helper(void *ctx, const struct runner_result *r)
{
	cJSON *o = cJSON_CreateObject();

	(void)ctx;
	cJSON_AddNumberToObject(o, "helper", (double)getpid());
	cJSON_AddNumberToObject(o, "pid", (double)r->pid);
	return o;
}

static void test_run(void)
{
	char dir[] = "/tmp/allocab-duet.XXXXXX", cmd[2][512], err[256] = "";
	char *argv[2][4];
	struct runner_spec spec[2];
	struct duet_side side[2];
	int cpu[2];

	if (duet_cpus(cpu, 0, err, sizeof err) != 0) {
		SKIP("duet_run", err);
		return;
	}
	CHECK(cpu[0] != cpu[1], "two distinct CPUs (%d, %d)", cpu[0], cpu[1]);
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	/* Each side creates its file, then waits up to 20 s for the other's: both succeed only if
	 * they ran at the same time. */
	for (int i = 0; i < 2; i++) {
		snprintf(cmd[i], sizeof cmd[i],
		         "grep Cpus_allowed_list /proc/self/status; touch %s/%d; n=0; "
		         "while [ ! -e %s/%d ] && [ $n -lt 200 ]; do sleep 0.1; n=$((n+1)); done; "
		         "[ -e %s/%d ]",
		         dir, i, dir, 1 - i, dir, 1 - i);
		shell_side(&side[i], &spec[i], argv[i], cmd[i], cpu[i]);
		spec[i].contain = i == 0;
	}
	side[0].judge = judge_in_helper;
	side[0].judge_ctx = &side[0];
	CHECK(duet_run(side, 2, NULL, err, sizeof err) == 0, "duet_run (%s)", err);
	{
		const cJSON *hp = cJSON_GetObjectItemCaseSensitive(side[0].judged, "helper");
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(side[0].judged, "pid");

		CHECK(cJSON_IsNumber(hp) && hp->valueint != (int)getpid() && cJSON_IsNumber(pid) &&
		          pid->valuedouble == (double)side[0].r.pid && !side[1].judged,
		      "the judge ran in the helper on the run's result, and its object came back; a "
		      "side without one brings none");
		cJSON_Delete(side[0].judged);
	}
	for (int i = 0; i < 2; i++) {
		char want[64];

		snprintf(want, sizeof want, "Cpus_allowed_list:\t%d\n", cpu[i]);
		CHECK(side[i].r.end == RUNNER_EXITED && side[i].r.exit_code == 0,
		      "side %d saw the other side's file while it ran (exit %d)", i,
		      side[i].r.exit_code);
		CHECK(side[i].r.out && strcmp(side[i].r.out, want) == 0,
		      "side %d ran pinned to CPU %d (%.*s)", i, cpu[i],
		      side[i].r.out ? (int)strcspn(side[i].r.out, "\n") : 9,
		      side[i].r.out ? side[i].r.out : "no output");
		CHECK(side[i].tel[0].have_load && side[i].tel[1].have_load,
		      "side %d has telemetry before and after", i);
		runner_result_free(&side[i].r);
	}
	{
		const char *m = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(side[0].containment, "mechanism"));
		const cJSON *left =
		    cJSON_GetObjectItemCaseSensitive(side[0].containment, "left_behind");

		CHECK(m && containmode_has(m, 0) && cJSON_IsNumber(left) && left->valueint == 0,
		      "the contained side has its containment object, from its helper (%s)",
		      m ? m : "none");
		CHECK(!side[1].containment && !side[0].r.contain && !side[1].r.contain,
		      "the uncontained side has none; no helper's pointer is kept");
		cJSON_Delete(side[0].containment);
	}
	for (int i = 0; i < 2; i++) {
		char p[64];
		snprintf(p, sizeof p, "%s/%d", dir, i);
		unlink(p);
	}
	rmdir(dir);
}

/* --one-cpu: three sides at once on one CPU; each waits for both others' files. */
static void test_shared(void)
{
	char dir[] = "/tmp/allocab-duet.XXXXXX", cmd[3][768], err[256] = "";
	char *argv[3][4];
	struct runner_spec spec[3];
	struct duet_side side[3];
	int cpu[2], ok = 1;

	if (duet_cpus(cpu, 1, err, sizeof err) != 0 || !mkdtemp(dir)) {
		CHECK(0, "duet_cpus shared, mkdtemp (%s)", err);
		return;
	}
	for (int i = 0; i < 3; i++) {
		int a = (i + 1) % 3, b = (i + 2) % 3;

		snprintf(cmd[i], sizeof cmd[i],
		         "grep Cpus_allowed_list /proc/self/status; touch %s/%d; n=0; "
		         "while { [ ! -e %s/%d ] || [ ! -e %s/%d ]; } && [ $n -lt 200 ]; do sleep 0.1; "
		         "n=$((n+1)); done; [ -e %s/%d ] && [ -e %s/%d ]",
		         dir, i, dir, a, dir, b, dir, a, dir, b);
		shell_side(&side[i], &spec[i], argv[i], cmd[i], cpu[0]);
	}
	CHECK(duet_run(side, 3, NULL, err, sizeof err) == 0, "duet_run of 3 sides (%s)", err);
	for (int i = 0; i < 3; i++) {
		char want[64], p[64];

		snprintf(want, sizeof want, "Cpus_allowed_list:\t%d\n", cpu[0]);
		ok &= side[i].r.end == RUNNER_EXITED && side[i].r.exit_code == 0 && side[i].r.out &&
		      strcmp(side[i].r.out, want) == 0;
		runner_result_free(&side[i].r);
		snprintf(p, sizeof p, "%s/%d", dir, i);
		unlink(p);
	}
	CHECK(ok, "3 sides ran at once, each pinned to the one CPU %d", cpu[0]);
	CHECK(duet_run(side, 1, NULL, err, sizeof err) == -1 &&
	          duet_run(side, DUET_MAX_SIDES + 1, NULL, err, sizeof err) == -1,
	      "fewer than 2 or more than %d sides refused (%s)", DUET_MAX_SIDES, err);
	rmdir(dir);
}

/* The CPU assignment of each round is a draw from the shuffle seed: reproducible, not alternating,
 * and over many rounds both assignments come up about equally often. */
static void test_round_swap(void)
{
	unsigned swaps = 0, changes = 0, same = 1, differs = 0;
	const unsigned n = 400;

	for (unsigned r = 0; r < n; r++) {
		int s = duet_round_swap(12345, r);

		swaps += (unsigned)s;
		same &= s == duet_round_swap(12345, r);
		differs |= s != duet_round_swap(12346, r);
		changes += r > 0 && s != duet_round_swap(12345, r - 1);
	}
	CHECK(same, "duet_round_swap: the same seed and round give the same assignment");
	CHECK(differs, "duet_round_swap: another shuffle seed gives other assignments");
	CHECK(changes > n / 4 && changes < 3 * n / 4,
	      "duet_round_swap: not alternation (%u changes in %u rounds)", changes, n);
	CHECK(swaps > n / 4 && swaps < 3 * n / 4,
	      "duet_round_swap: both assignments drawn (%u of %u swapped)", swaps, n);
	for (uint64_t seed = 0; seed < 64; seed++) {
		int first = duet_round_swap(seed, 0), alt = 1;
		for (unsigned r = 1; r < 7; r++)
			alt &= duet_round_swap(seed, r) == (first ^ (int)(r & 1));
		if (alt && seed == 63)
			CHECK(0, "duet_round_swap: 64 seeds all alternate");
	}
}

int main(void)
{
	test_round_swap();
	test_run();
	test_shared();
	return CHECK_DONE();
}
