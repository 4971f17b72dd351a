/* gateopt.h - private to this folder: the gate's command-line options (gateopt.c), shared by
 * gate.c and bench.c, and the value parsers compare.c shares with them. */
#ifndef ALLOCAB_GATEOPT_H
#define ALLOCAB_GATEOPT_H

#include "common/opt.h"
#include "front/gate/gate.h"

/* A margin percentage "5", "5%" or "2.5%", 0 <= P < 100: 0 and *out, or -1. */
int gateopt_pct(const char *s, double *out);
/* --equivalence M: a percentage as gateopt_pct (0 turns the verdict off). 0 and *out, or -1 with
 * the one-line reason in err. */
int gateopt_equivalence(const char *s, double *out, char *err, size_t errlen);
/* An interval level for --conf, 0.5 <= L < 1 (leading blanks and '+' accepted, as always): 0
 * and *out, or -1. */
int gateopt_conf(const char *s, double *out);

/* The value lists of compare's and merge's --format (the export registry), --regime and
 * --phases, for their option tables (common/opt.h). */
extern const struct opt_values gateopt_format_values, gateopt_regime_values,
    gateopt_phases_values;

/* The values compare and merge read alike, each with its one-line message in err: a margin
 * (--min-speedup, or --max-slowdown when slowdown) into *margin, a bound on
 * t_candidate/t_baseline (refused when *margin is already set: not NAN); --phases all;
 * --regime; --conf. Each returns 0, or -1 with err set. */
int gateopt_margin(const char *opt, const char *v, int slowdown, double *margin, char *err,
                   size_t errlen);
int gateopt_phases(const char *v, int *all, char *err, size_t errlen);
int gateopt_regimes(const char *v, enum cmp_regimes *r, char *err, size_t errlen);
int gateopt_level(const char *v, double *conf, char *err, size_t errlen);

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
