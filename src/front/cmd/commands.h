/* commands.h - the subcommands of the front end `allocab`, one file each in this folder, named
 * after the command (front/allocab.c dispatches). Each takes argv with argv[0] the subcommand's
 * name, prints results on stdout and one-line errors on stderr, and returns the process exit
 * status. */
#ifndef ALLOCAB_COMMANDS_H
#define ALLOCAB_COMMANDS_H

#include "common/optdoc.h"
#include "common/status.h"

#include <stddef.h>

int bench_main(int argc, char **argv);
int compare_main(int argc, char **argv);
int merge_main(int argc, char **argv);
int gate_main(int argc, char **argv);
int calibrate_main(int argc, char **argv);
int record_main(int argc, char **argv);
int trace_main(int argc, char **argv);

/* Each command's usage and option table (common/optdoc.h), defined beside the table: the gate's
 * in gateopt.c, bench's in benchopt.c, the others in the command's file. */
extern const struct opt_doc bench_doc, compare_doc, merge_doc, gate_doc, record_doc,
    trace_doc;
/* calibrate's: its table holds bench's rows flagged OPT_ALSO, put in before main runs. */
extern struct opt_doc calibrate_doc;

/* A subcommand of the front end: front/allocab.c lists them in commands[]. */
struct command {
	const char *name;
	int (*main)(int argc, char **argv); /* argv[0] is the subcommand name */
	const struct opt_doc *doc;
	const char *summary; /* one line for `allocab --help` */
};

/* `allocab help --complete WORD...` (help.c): what bash completion offers for the last of the
 * words that follow `allocab` on a command line being typed (scripts/completion/allocab.bash).
 * Prints "words" and then each candidate that starts with the last word, one a line; or "files"
 * or "dirs" when the shell should complete a file or directory name. The commands of cmds and
 * the options of main's table (main_opts) come first. Returns ST_OK, or ST_FAIL when stdout
 * could not be written. */
enum status help_complete(int nwords, char **words, const struct command *cmds, size_t ncmds,
                          const struct opt *main_opts, size_t nmain);

#endif
