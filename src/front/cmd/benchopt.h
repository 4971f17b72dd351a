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

/* Parsed command line, before any file system lookup. Strings point into argv. */
struct bench_opts {
	const char *allocators; /* -a as given, or NULL */
	const char *workloads;  /* -w as given, or NULL */
	const char *scale;
	int scale_index; /* --scale: its index in bench_scale_values */
	uint64_t seed;
	int seed_set;
	const char **params; /* --param KEY=VALUE, checked for syntax and duplicate keys */
	size_t nparams;
	unsigned reps;
	int reps_set;
	int time;                 /* --time: the time compare uses, enum rf_time_policy */
	int allocation;           /* --allocation: 1 sequential (default), 0 none */
	int allocation_set;
	unsigned rounds;
	int rounds_set;
	double budget_s;
	unsigned warmup;
	unsigned min_rounds;
	int min_rounds_set;
	double timeout_s;
	uint64_t shuffle_seed;
	int shuffle_seed_set;
	size_t pad_max;
	const char *out;
	const char *results_dir;
	const char *resume; /* --resume FILE: the results file of the bench continued, or NULL */
	const char *driver_dir;
	const char *label; /* --label: the machine's name in a fleet (docs/fleet.md), or NULL */
	const char *shard; /* --shard: the task's index in its job array, or NULL */
	int quiet;
	int duet, one_cpu, one_cpu_threads;
	double solo_share; /* --solo-share */
	int help;
	const char *
	    *arm_specs; /* --arm LABEL=BACKEND[:KEY=VALUE]... as given (front/engine/engine.h) */
	size_t narm_specs;
	const char **cmd_names; /* --cmd NAME=COMMAND split at the first '=' (names are copies) */
	const char **cmd_lines;
	size_t ncmds;
	/* --program, --preload, --expect, --count-calls (prog.allocators is -a once parsed) */
	struct bench_program_opts prog;
	char **gate_argv; /* "--gate" and what follows, or NULL */
	int gate_argc;
	double equivalence; /* --equivalence M, NAN when not given */
	const char *primary; /* --primary ROWS as given (checked), or NULL */
};

/* The plan of a bench: the settings of struct bench_config that come from the options, the same
 * for bench and calibrate (the arms, workloads, outputs and task are the caller's). */
void bench_plan(const struct bench_opts *o, struct bench_config *c);

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
/* The smallest plan whose last look can give the sequential gate g a decision: at its FAIL
 * level, Bonferroni over the comparisons it gates (each of nwl workloads, or one; times narms
 * with --against and no --candidate). */
unsigned bench_gate_need(const struct gate_spec *g, size_t nwl, size_t narms);

/* The rounds rule (docs/methodology.md, "How many rounds"): with m comparisons at alpha 0.05,
 * need = stats_signrank_min_n(0.05, m), the fewest rounds whose simultaneous intervals reach
 * their level. gate_need (0 without --gate): the smallest plan whose last look can give the
 * sequential gate a decision (stats_seq_min_planned at the gate's FAIL level). Without --rounds
 * and --budget the bench runs max(10, need + 3, gate_need + 3, --min-rounds) rounds; with
 * --budget and neither --rounds, --min-rounds nor --gate, at least need rounds whatever the
 * budget. Returns need; when --rounds was given below it (and no --gate), or below gate_need
 * (with --gate), a one-line warning in warn (printed unless --quiet), else warn is "". */
unsigned bench_rounds_rule(struct bench_opts *o, size_t m, unsigned gate_need, char *warn,
                           size_t len);

#endif
