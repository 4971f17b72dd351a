/* gateopt.h - private to this folder: the gate's command-line options (gateopt.c), shared by
 * gate.c and bench.c (the rows it shares with compare and merge: cmdopt.h). */
#ifndef ALLOCAB_GATEOPT_H
#define ALLOCAB_GATEOPT_H

#include "common/opt.h"
#include "front/gate/gate.h"

/* `allocab gate`'s --help among argv[1..] (cmdopt_help): then its usage is on stdout. */
int gateopt_help(int argc, char **argv);

/* Reads the gate options of argv[1..] into *g (--candidate NAME, --baseline NAME, --min-speedup
 * P%, --max-slowdown P%, --on geomean|each|pooled|each-machine, --phase NAME, --workload NAME,
 * --against OLD, --conf L, --regime steady|cold, --equivalence M% with --max-slowdown only),
 * after gate_spec_init; names point into argv. One positional argument is stored in *pos when
 * pos is not NULL, refused otherwise. Returns 0, or -1 with a one-line reason in err. */
int gateopt_parse(int argc, char **argv, struct gate_spec *g, const char **pos, char *err,
                  size_t errlen);
/* The same with any number of positional arguments, stored in files (room for argc) and counted
 * in *nfiles (the files of a fleet). */
int gateopt_parse_files(int argc, char **argv, struct gate_spec *g, const char **files,
                        size_t *nfiles, char *err, size_t errlen);

#endif
