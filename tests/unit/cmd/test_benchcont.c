/* test_benchcont.c - the arguments of the bench that continues one (bench_continuation_args,
 * front/cmd/benchopt.h): read by bench's rows, the options a continuation sets itself dropped with
 * their values in every spelling, everything else kept in order, a value that looks like a dropped
 * option kept as the value it is, and the gate's arguments after --gate kept whole. */
#include "check.h"
#include "front/cmd/benchopt.h"

#include <stdio.h>
#include <string.h>

/* The continuation of the space-separated words of line (argv[0] "bench"), joined by spaces. */
static const char *continued(const char *line)
{
	static char buf[512], out[512];
	char *argv[64], *save = NULL;
	const char *keep[64];
	int argc = 0;
	size_t n, used = 0;

	snprintf(buf, sizeof buf, "bench %s", line);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 63; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	n = bench_continuation_args(argc, argv, keep);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used +=
		    (size_t)snprintf(out + used, sizeof out - used, "%s%s", i ? " " : "", keep[i]);
	return out;
}

static void expect(const char *line, const char *want)
{
	const char *got = continued(line);

	CHECK(strcmp(got, want) == 0, "continuation of '%s': '%s' (want '%s')", line, got, want);
}

int main(void)
{
	expect("-a system,jemalloc --rounds 5", "-a system,jemalloc --rounds 5");
	expect("--resume r.json -a system --results-dir d --shuffle-seed 7 -q", "-a system -q");
	expect("--resume=r.json --results-dir=d --shuffle-seed=7 --rounds=3", "--rounds=3");
	expect("--label --resume --rounds 4", "--label --resume --rounds 4");
	expect("-w --shuffle-seed -a system", "-w --shuffle-seed -a system");
	expect("--rounds 30 --gate --candidate jemalloc --resume x",
	       "--rounds 30 --gate --candidate jemalloc --resume x");
	expect("--cmd a=true --cmd b=true --resume r.json", "--cmd a=true --cmd b=true");
	expect("", "");
	return CHECK_DONE();
}
