/* benchopt.h - the options of `allocab bench` (benchopt.c), also read by `allocab calibrate`
 * for the options it forwards: syntax, ranges, defaults and the rules between options, with no
 * file system access. */
#ifndef ALLOCAB_BENCHOPT_H
#define ALLOCAB_BENCHOPT_H

#include "common/opt.h"
#include "front/plan/plan.h"

#include <stddef.h>
#include <stdint.h>

/* The values of --scale and --reps, which calibrate passes on to bench. */
extern const struct opt_values bench_scale_values, bench_reps_values;



/* Parses argv[1..argc-1] (argv[0] is the subcommand name) into o, with defaults; rounds is the
 * rounds when --rounds and --budget are not given (calibrate's own default; 0: bench's, its
 * row's). Checks syntax, ranges and combinations, not whether allocators or workloads exist.
 * Returns 0, or -1 with a one-line reason in err (no "allocab: bench: " prefix). On success the
 * caller frees o with bench_opts_free. */
int bench_parse_args(int argc, char **argv, unsigned rounds, struct bench_opts *o, char *err,
                     size_t errlen);
void bench_opts_free(struct bench_opts *o);

/* The arguments of the bench that continues this one (docs/methodology.md, "Resuming a bench"):
 * argv[1..argc-1], which bench_parse_args accepted, read by bench's rows, without the options a
 * continuation sets itself (--resume, --results-dir, --shuffle-seed) and their values; into out
 * (room for argc), in order. Returns their number. */
size_t bench_continuation_args(int argc, char **argv, const char **out);

/* The --gate options of o into *g (gateopt_parse), with one equivalence margin per bench: bench's
 * --equivalence, or the gate's (which then becomes the bench's, recorded for compare); the gate
 * uses it with --max-slowdown. Returns 0, or -1 with a one-line reason in err (bad options, or
 * two margins that differ). */
int bench_parse_gate(struct bench_opts *o, struct gate_spec *g, char *err, size_t errlen);
#endif
