/* gateopt.h - private to this folder: the gate's command-line options (gateopt.c), shared by
 * gate.c and bench.c, and the value parsers compare.c shares with them. */
#ifndef ALLOCAB_GATEOPT_H
#define ALLOCAB_GATEOPT_H

#include "front/gate/gate.h"

/* A margin percentage "5", "5%" or "2.5%", 0 <= P < 100: 0 and *out, or -1. */
int gateopt_pct(const char *s, double *out);
/* --equivalence M: a percentage as gateopt_pct (0 turns the verdict off). 0 and *out, or -1 with
 * the one-line reason in err. */
int gateopt_equivalence(const char *s, double *out, char *err, size_t errlen);
/* An interval level for --conf, 0.5 <= L < 1 (leading blanks and '+' accepted, as always): 0
 * and *out, or -1. */
int gateopt_conf(const char *s, double *out);

/* Reads the gate options of argv[1..] into *g (--candidate NAME, --baseline NAME, --min-speedup
 * P%, --max-slowdown P%, --on geomean|each, --phase NAME, --workload NAME, --against OLD, --conf
 * L, --regime steady|cold, --equivalence M% with --max-slowdown only), after gate_spec_init; names point into argv. One positional argument
 * is stored in *pos when pos is not NULL, refused otherwise. Returns 0, or -1 with a one-line
 * reason in err. */
int gateopt_parse(int argc, char **argv, struct gate_spec *g, const char **pos, char *err,
                  size_t errlen);

#endif
