/* benchopt.h - the options of `allocab bench` (benchopt.c), also read by `allocab calibrate`
 * for the options it forwards: syntax, ranges, defaults and the rules between options, with no
 * file system access. */
#ifndef ALLOCAB_BENCHOPT_H
#define ALLOCAB_BENCHOPT_H

#include "common/opt.h"
#include "front/plan/plan.h"

#include <stddef.h>
#include <stdint.h>

/* bench's options in the order of --help (rows without a name are its headings), bench_nopts
 * rows (benchoptab.c); calibrate's table takes those flagged OPT_ALSO. */
extern const struct opt bench_opt_table[];
extern const size_t bench_nopts;

/* The values of --scale (the settings keep its word). */
extern const struct opt_values bench_scale_values;



/* Parses argv[1..argc-1] (argv[0] is the subcommand name) into o, with defaults. Checks syntax,
 * ranges and combinations, not whether allocators or workloads exist. Returns 0, or -1 with a
 * one-line reason in err (no "allocab: bench: " prefix). On success the caller frees o with
 * bench_opts_free. */
int bench_parse_args(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen);
/* Its two ends, for a command whose table holds bench's rows too (calibrate: its settings begin
 * with a struct bench_opts): o with bench's defaults and room for argc list entries (0, or -1
 * with err, o freed); after the parse p, the needs and excludes of p's rows, the rules between
 * bench's options that depend on their values and the defaults that depend on others (0, or -1
 * with err; the caller frees o). */
int bench_opts_init(struct bench_opts *o, int argc, char *err, size_t errlen);
int bench_opts_finish(struct opt_parser *p, struct bench_opts *o, char *err, size_t errlen);
void bench_opts_free(struct bench_opts *o);

/* The arguments of the bench that continues this one (docs/methodology.md, "Resuming a bench"):
 * argv[1..argc-1], which bench_parse_args accepted, read by bench's rows, without the options a
 * continuation sets itself (--resume, --results-dir, --shuffle-seed) and their values; into out
 * (room for argc), in order. Returns their number. */
size_t bench_continuation_args(int argc, char **argv, const char **out);

/* The --gate options of o into *g (gateopt_parse), with one equivalence margin per bench:
 * *equivalence (the plan's, from bench's --equivalence), or the gate's, which then becomes the
 * bench's (recorded for compare); the gate uses it with --max-slowdown. Returns 0, or -1 with a
 * one-line reason in err (bad options, or two margins that differ). */
int bench_parse_gate(const struct bench_opts *o, double *equivalence, struct gate_spec *g,
                     char *err, size_t errlen);
#endif
