/* gate.h - the gate as a library for `allocab gate` and `allocab bench --gate` (sequential
 * sampling: bench asks after every round whether it may stop). */
#ifndef ALLOCAB_GATE_H
#define ALLOCAB_GATE_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

enum gate_outcome { GATE_PASS = 0, GATE_FAIL = 1, GATE_USAGE = 2, GATE_INCONCLUSIVE = 3 };

struct gate_spec;

/* A margin percentage "5", "5%" or "2.5%", 0 <= P < 100: 0 and *out, or -1. */
int gate_parse_pct(const char *s, double *out);

/* Parses the gate options (--candidate NAME, --baseline NAME, --min-speedup P%, --max-slowdown P%,
 * --on geomean|each, --phase NAME, --workload NAME, --against OLD, --conf L, --regime
 * steady|cold: steady by default, cold for a document that measured cold only); argv[0] is not an
 * option. One positional argument is stored in *pos when pos is not NULL, refused otherwise.
 * Returns a spec the caller frees with gate_spec_free, or NULL with a one-line reason in err. */
struct gate_spec *gate_spec_parse(int argc, char **argv, const char **pos, char *err,
                                  size_t errlen);
/* Judges an in-memory allocab-bench/1 document. Returns GATE_PASS, GATE_FAIL or GATE_INCONCLUSIVE,
 * or GATE_USAGE with a reason in err (e.g. the candidate is not in the document). Writes the
 * verdict lines to out when out is not NULL. Does not keep bench. */
enum gate_outcome gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
                                 char *err, size_t errlen);
/* Judges the results file at path as gate_spec_eval judges a document; warnings go to warn when
 * it is not NULL. */
enum gate_outcome gate_spec_judge_file(const struct gate_spec *g, const char *path, FILE *out,
                                       FILE *warn, char *err, size_t errlen);
void gate_spec_free(struct gate_spec *g);

#endif
