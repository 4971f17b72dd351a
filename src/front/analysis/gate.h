/* gate.h - the gate as a library for `allocab gate` and `allocab bench --gate` (sequential
 * sampling: bench asks after every round whether it may stop). */
#ifndef ALLOCAB_GATE_H
#define ALLOCAB_GATE_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

/* The verdicts; their exit statuses are gate_outcome_status's. */
enum gate_outcome { GATE_PASS, GATE_FAIL, GATE_INCONCLUSIVE };

/* "PASS", "FAIL" or "INCONCLUSIVE". */
const char *gate_outcome_name(enum gate_outcome o);
/* The exit status of a verdict (common/status.h): ST_OK, ST_FAIL or ST_INCONCLUSIVE. */
int gate_outcome_status(enum gate_outcome o);

struct gate_spec;

/* A margin percentage "5", "5%" or "2.5%", 0 <= P < 100: 0 and *out, or -1. */
int gate_parse_pct(const char *s, double *out);
/* An interval level for --conf, 0.5 <= L < 1 (leading blanks and '+' accepted, as always): 0
 * and *out, or -1. */
int gate_parse_conf(const char *s, double *out);

/* Parses the gate options (--candidate NAME, --baseline NAME, --min-speedup P%, --max-slowdown P%,
 * --on geomean|each, --phase NAME, --workload NAME, --against OLD, --conf L, --regime
 * steady|cold: steady by default, cold for a document that measured cold only); argv[0] is not an
 * option. One positional argument is stored in *pos when pos is not NULL, refused otherwise.
 * Returns a spec the caller frees with gate_spec_free, or NULL with a one-line reason in err. */
struct gate_spec *gate_spec_parse(int argc, char **argv, const char **pos, char *err,
                                  size_t errlen);
/* Judges an in-memory allocab-bench/1 document into *verdict. Returns 0, or -1 with a reason in
 * err when it cannot be judged (e.g. the candidate is not in the document: bad input). Writes the
 * verdict lines to out when out is not NULL. Does not keep bench. */
int gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
                   enum gate_outcome *verdict, char *err, size_t errlen);
/* Judges the results file at path as gate_spec_eval judges a document; warnings go to warn when
 * it is not NULL. Returns 0, or -1 with the reason in err. */
int gate_spec_judge_file(const struct gate_spec *g, const char *path, FILE *out, FILE *warn,
                         enum gate_outcome *verdict, char *err, size_t errlen);
void gate_spec_free(struct gate_spec *g);

#endif
