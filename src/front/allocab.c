/* allocab.c - main of the front end `allocab`: dispatches to its subcommands. The front end links
 * no allocator under test and no workload; it runs the drivers as processes. */
#include "common/errmsg.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "common/utf8.h"
#include "front/cmd/commands.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* Adding a subcommand is one line here (its usage and options: its opt_doc, commands.h). */
static const struct command commands[] = {
    {"bench", bench_main, &bench_doc,
     "run allocators (or commands) in interleaved rounds; write results"},
    {"compare", compare_main, &compare_doc,
     "speedups with confidence intervals from results files"},
    {"merge", merge_main, &merge_doc,
     "results of several machines: per machine, pooled, and the odd ones"},
    {"gate", gate_main, &gate_doc,
     "PASS / FAIL / INCONCLUSIVE against a speedup or slowdown margin"},
    {"calibrate", calibrate_main, &calibrate_doc,
     "noise floor of this machine: one backend against itself"},
    {"record", record_main, &record_doc,
     "record a program's allocation calls into a trace (replay workload)"},
    {"trace", trace_main, &trace_doc,
     "describe a recorded trace: processes, threads, operations, sizes"},
};

#define NSUB (sizeof commands / sizeof commands[0])

/* main's own options, besides `help COMMAND` (read before any command). */
enum { M_HELP, M_VERSION, M_COUNT };
static const struct opt main_opts[M_COUNT] = {
    [M_HELP] = {"--help", 'h', 0, NULL, .help = "this text"},
    [M_VERSION] = {"--version", 0, 0, NULL, .help = "the version"},
};

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

/* `allocab help COMMAND`: the command's usage; `help --man COMMAND`: its man page entries
 * (scripts/manopts.sh); `help --complete WORD...`: bash completion's candidates. */
static int help(int argc, char **argv)
{
	char *help_argv[] = {argv[2], "--help", NULL};
	const struct command *sc;

	if (strcmp(argv[2], "--complete") == 0)
		return help_complete(argc - 3, argv + 3, commands, NSUB, main_opts, M_COUNT);
	if (strcmp(argv[2], "--man") == 0 && argc == 4) {
		if (!(sc = find(argv[3]))) {
			errmsg_print(stderr, "help", "unknown command '%s'", argv[3]);
			return ST_USAGE;
		}
		optdoc_man(stdout, sc->doc);
		return fflush(stdout) == 0 ? ST_OK : ST_FAIL;
	}
	if (argc > 3) {
		errmsg_print(stderr, "help", "unexpected argument '%s'", argv[3]);
		return ST_USAGE;
	}
	if (!(sc = find(argv[2]))) {
		fprintf(stderr, "allocab: help: unknown command '%s' (allocab --help lists them)\n",
		        argv[2]);
		return ST_USAGE;
	}
	return sc->main(2, help_argv);
}

int main(int argc, char **argv)
{
	const struct command *sc;
	const char *cmd = argc > 1 ? argv[1] : NULL, *inl;
	int k;

	claim_std_fds();

	if (!cmd) {
		usage(stderr);
		return ST_USAGE;
	}
	k = opt_find(main_opts, M_COUNT, cmd, &inl);
	if ((k == M_HELP && !inl) || (strcmp(cmd, "help") == 0 && argc == 2)) {
		usage(stdout);
		return ST_OK;
	}
	if (k == M_VERSION && !inl) {
		printf("allocab %s\n", ALLOCAB_VERSION);
		return ST_OK;
	}
	if (strcmp(cmd, "help") == 0)
		return help(argc, argv);
	if (!(sc = find(cmd))) {
		char shown[256];

		fprintf(stderr, "allocab: unknown command '%s' (allocab --help lists them)\n",
		        utf8_quote(shown, sizeof shown, cmd));
		return ST_USAGE;
	}
	return sc->main(argc - 1, argv + 1);
}
