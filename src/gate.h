/* gate.h - the entry points of `allocab compare` and `allocab gate`, and the gate as a library for
 * `allocab bench --gate` (sequential sampling: bench asks after every round whether it may stop). */
#ifndef ALLOCAB_GATE_H
#define ALLOCAB_GATE_H

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

enum gate_outcome { GATE_PASS = 0, GATE_FAIL = 1, GATE_USAGE = 2, GATE_INCONCLUSIVE = 3 };

/* `allocab compare ARGS` and `allocab gate ARGS` (argv[0] is the subcommand name). Return the
 * process exit status; print results on stdout and one-line errors on stderr. */
int compare_main(int argc, char **argv);
int gate_main(int argc, char **argv);

struct gate_spec;

/* Parses the gate options that `allocab bench --gate` forwards (--candidate NAME, --baseline NAME,
 * --min-speedup P%, --max-slowdown P%, --on geomean|each, --phase NAME); argv[0] is not an option.
 * Returns a spec the caller frees with gate_spec_free, or NULL with a one-line reason in err. */
struct gate_spec *gate_spec_parse(int argc, char **argv, char *err, size_t errlen);
/* Judges an in-memory allocab-bench/1 document. Returns GATE_PASS, GATE_FAIL or GATE_INCONCLUSIVE,
 * or GATE_USAGE with a reason in err (e.g. the candidate is not in the document). Writes the
 * verdict lines to out when out is not NULL. Does not keep bench. */
enum gate_outcome gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
				 char *err, size_t errlen);
void gate_spec_free(struct gate_spec *g);

#endif
