/* allocab.c - main of the front end `allocab`: dispatches to its subcommands. The front end links
 * no allocator under test and no workload; it runs the drivers as processes. */
#include "common/errmsg.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "common/utf8.h"
#include "front/cmd/commands.h"

#include <fcntl.h>
#include <signal.h>
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

/* The options of `allocab help`: --man COMMAND, its man page entries (scripts/manopts.sh);
 * --complete WORD..., bash completion's candidates (scripts/completion/allocab.bash). */
enum { H_MAN, H_COMPLETE, H_COUNT };
static const struct opt help_opts[H_COUNT] = {
    [H_MAN] = {"--man", 0, 0, NULL, .help = "the command's entries of the man page"},
    [H_COMPLETE] = {"--complete", 0, OPT_REST, "WORD...",
                    .help = "what completion offers after the words"},
};

/* `allocab help COMMAND`: the command's usage; with --man its man page entries; `help --complete
 * WORD...`: bash completion's candidates. */
static int help(int argc, char **argv)
{
	char *help_argv[] = {NULL, "--help", NULL}, err[256];
	const struct command *sc;
	const char *name = NULL, *v;
	struct opt_parser p;
	int k, man = 0;

	opt_init(&p, argc, argv, 2, help_opts, H_COUNT);
	while ((k = opt_next(&p, &v, err, sizeof err)) != OPT_DONE) {
		if (k == H_COMPLETE)
			return help_complete(argc - p.at - 1, argv + p.at + 1, commands, NSUB,
			                     main_opts, M_COUNT);
		if (k == OPT_ARG && name)
			errmsg_fail(err, sizeof err, "unexpected argument '%s'", v);
		if (k == OPT_ERROR || (k == OPT_ARG && name)) {
			errmsg_print(stderr, "help", "%s", err);
			return ST_USAGE;
		}
		if (k == OPT_ARG)
			name = v;
		man |= k == H_MAN;
	}
	if (!name || !(sc = find(name))) {
		fprintf(stderr, "allocab: help: %s%s%s (allocab --help lists them)\n",
		        name ? "unknown command '" : "give the COMMAND", name ? name : "",
		        name ? "'" : "");
		return ST_USAGE;
	}
	if (man) {
		optdoc_man(stdout, sc->doc);
		return fflush(stdout) == 0 ? ST_OK : ST_FAIL;
	}
	help_argv[0] = (char *)name;
	return sc->main(2, help_argv);
}

int main(int argc, char **argv)
{
	const struct command *sc;
	const char *cmd = argc > 1 ? argv[1] : NULL, *inl;
	int k;

	claim_std_fds();
	/* An ignored SIGCHLD is inherited through exec (a supervisor, a CI agent, a Python parent
	 * that set SIG_IGN): the kernel would then reap every child at once, and no wait for a run,
	 * a helper or a measuring child would get its status. */
	signal(SIGCHLD, SIG_DFL);

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
