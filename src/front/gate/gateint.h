/* gateint.h - private to the gate module (gate.c, gatefleet.c): what judging one file and
 * judging a fleet share. gate.h is the public API. */
#ifndef ALLOCAB_GATEINT_H
#define ALLOCAB_GATEINT_H

#include "front/gate/gate.h"

#include <stdio.h>

/* What a gate compares: its arms, workload, phase (total by default), level and regime. */
struct cmp_opts gate_cmp_opts(const struct gate_spec *g);

/* The speedup convention of compare (CMP_CONVENTION) for a gate line: the speedup, its interval
 * at the level it reached, rel and the bound as a speedup; the ratio (named ratio, e.g.
 * "t_cand/t_base") in parentheses. */
void gate_print_interval(FILE *out, const char *ratio, const struct stats_interval *iv,
                         const char *rel, double bound);

/* The verdict of one comparison against the log bound m: PASS when its interval at the gate's
 * level lies wholly within the bound, FAIL when its interval at the family level (fam,
 * Bonferroni over the comparisons gated; the row itself when one is gated) lies wholly beyond
 * it, INCONCLUSIVE otherwise or when an interval cannot reach its level. */
enum gate_outcome gate_row_verdict(const struct gate_spec *g, const struct cmp_row *row,
                                   const struct cmp_row *fam, double fam_conf, double m);

#endif
