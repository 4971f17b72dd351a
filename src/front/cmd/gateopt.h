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
/* Positional arguments: stored in v[0..cap), n of them. */
struct gateopt_pos {
	const char **v;
	size_t cap, n;
};
/* The same with any number of positional arguments (the files of a fleet), stored in files->v
 * (room for argc: files->cap is set so) and counted in files->n. */
int gateopt_parse_files(int argc, char **argv, struct gate_spec *g, struct gateopt_pos *files,
                        char *err, size_t errlen);

#endif
