/* phase_fixture.c - a program that marks its phases with phase/allocab_phase.h, for
 * tests/e2e/e2e_phases.sh: "setup" once, then EPOCHS "epoch" spans of allocation work; other modes
 * write marks that break the protocol, as a broken or hostile program would.
 * Usage: phase_fixture [EPOCHS [MODE]]; MODE: ok, none, unbalanced, garbage, badname, realtime,
 * huge, cut, swap (epoch and setup under each other's name, for a different set of names). */
#include "phase/allocab_phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long work(int n)
{
	unsigned long sum = 0;

	for (int i = 0; i < n; i++) {
		char *p = malloc((size_t)(64 + i % 4000));
		p[0] = (char)i;
		sum += (unsigned char)p[0];
		free(p);
	}
	return sum;
}

static void raw(const char *line)
{
	const char *path = getenv("ALLOCAB_PHASE_FILE");
	FILE *f = path ? fopen(path, "a") : NULL;

	if (f) {
		fputs(line, f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	int epochs = argc > 1 ? atoi(argv[1]) : 6;
	const char *mode = argc > 2 ? argv[2] : "ok";
	const char *epoch = strcmp(mode, "swap") == 0 ? "train" : "epoch";
	unsigned long sum = 0;

	if (strcmp(mode, "none") != 0) {
		allocab_phase_begin("setup");
		sum += work(20000);
		allocab_phase_end("setup");
	}
	for (int e = 0; e < epochs; e++) {
		if (strcmp(mode, "none") != 0)
			allocab_phase_begin(epoch);
		sum += work(40000);
		if (strcmp(mode, "none") != 0 && !(strcmp(mode, "unbalanced") == 0 && e == epochs - 1))
			allocab_phase_end(epoch);
	}
	if (strcmp(mode, "garbage") == 0)
		raw("hello world\n");
	if (strcmp(mode, "badname") == 0)
		allocab_phase_begin("total");
	if (strcmp(mode, "realtime") == 0) {
		char line[96];
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(line, sizeof line, "begin late %lld\nend late %lld\n",
		         (long long)ts.tv_sec * 1000000000LL, (long long)ts.tv_sec * 1000000000LL + 5);
		raw(line);
	}
	if (strcmp(mode, "huge") == 0)
		for (int i = 0; i < 120000; i++)
			raw("begin pad 1\n");
	if (strcmp(mode, "cut") == 0)
		raw("begin epoch 12");
	printf("checksum %lu\n", sum);
	return 0;
}
