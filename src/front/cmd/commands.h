/* commands.h - the subcommands of the front end `allocab`, one file each in this folder, named
 * after the command (front/allocab.c dispatches). Each takes argv with argv[0] the subcommand's
 * name, prints results on stdout and one-line errors on stderr, and returns the process exit
 * status. */
#ifndef ALLOCAB_COMMANDS_H
#define ALLOCAB_COMMANDS_H

int bench_main(int argc, char **argv);
int compare_main(int argc, char **argv);
int merge_main(int argc, char **argv);
int gate_main(int argc, char **argv);
int calibrate_main(int argc, char **argv);
int record_main(int argc, char **argv);
int trace_main(int argc, char **argv);

#endif
