/* allocab.c - main of the front end `allocab`: dispatches to its subcommands. The front end links
 * no allocator under test and no workload; it runs the drivers as processes. */
#include "common/status.h"
#include "front/cmd/commands.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

struct command {
	const char *name;
	int (*main)(int argc, char **argv); /* argv[0] is the subcommand name */
	const char *summary;
};

/* Adding a subcommand is one line here. */
static const struct command commands[] = {
    {"bench", bench_main, "run allocators (or commands) in interleaved rounds; write results"},
    {"compare", compare_main, "speedups with confidence intervals from results files"},
    {"merge", merge_main, "results of several machines: per machine, pooled, and the odd ones"},
    {"gate", gate_main, "PASS / FAIL / INCONCLUSIVE against a speedup or slowdown margin"},
    {"calibrate", calibrate_main, "noise floor of this machine: one backend against itself"},
    {"record", record_main, "record a program's allocation calls into a trace (replay workload)"},
    {"trace", trace_main, "describe a recorded trace: processes, threads, operations, sizes"},
};

#define NSUB (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: allocab COMMAND [ARGS...]\n"
	    "       allocab help COMMAND | --help | --version\n"
	    "\n"
	    "Tells whether swapping malloc speeds up your workload, with numbers you can trust.\n"
	    "\n"
	    "Commands:\n");
	for (size_t i = 0; i < NSUB; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
	        "\n`allocab COMMAND --help` describes a command, its options and exit status.\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NSUB; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* Pipes made for a child must not land on fds 0-2 (dup2 onto itself would keep O_CLOEXEC and the
 * child would lose its stdout): occupy any closed one with /dev/null first. */
static void claim_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) < 0)
			return;
}

int main(int argc, char **argv)
{
	const struct command *sc;
	const char *cmd = argc > 1 ? argv[1] : NULL;

	claim_std_fds();

	if (!cmd) {
		usage(stderr);
		return ST_USAGE;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
	    (strcmp(cmd, "help") == 0 && argc == 2)) {
		usage(stdout);
		return ST_OK;
	}
	if (strcmp(cmd, "--version") == 0) {
		printf("allocab %s\n", ALLOCAB_VERSION);
		return ST_OK;
	}
	if (strcmp(cmd, "help") == 0) {
		char *help_argv[] = {argv[2], "--help", NULL};

		if (argc > 3) {
			fprintf(stderr, "allocab: help: unexpected argument '%s'\n", argv[3]);
			return ST_USAGE;
		}
		if (!(sc = find(argv[2]))) {
			fprintf(stderr,
			        "allocab: help: unknown command '%s' (allocab --help lists them)\n",
			        argv[2]);
			return ST_USAGE;
		}
		return sc->main(2, help_argv);
	}
	if (!(sc = find(cmd))) {
		fprintf(stderr, "allocab: unknown command '%s' (allocab --help lists them)\n", cmd);
		return ST_USAGE;
	}
	return sc->main(argc - 1, argv + 1);
}
