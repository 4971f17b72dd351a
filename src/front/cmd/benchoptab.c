/* benchoptab.c - the option table of `allocab bench` (its --help, man page entries and shell
 * completion are generated from it: common/optdoc.h), the values its options take, and the
 * setters of the rows whose value needs more than a type and a range. */
#include "front/cmd/benchoptab.h"
#include "front/cmd/benchopt.h"
#include "front/cmd/commands.h"
#include "front/cmd/cmdopt.h"
#include "common/optdoc.h"
#include "common/errmsg.h"
#include "front/compare/compare.h"
#include "front/plan/plan.h"

#include <string.h>

#include <stddef.h>

static const char *const scales[] = {"small", "default", "large", NULL};
static const char *const reps_words[] = {"auto", NULL};
static const char *const allocation_words[] = {"sequential", "none", NULL};
static const int allocation_map[] = {1, 0};
static const struct opt_values bench_allocation_values = {allocation_words, NULL};
const struct opt_values bench_scale_values = {scales, NULL};
static const struct opt_values bench_reps_values = {reps_words, NULL};

#define B(settings) ((struct bench_opts *)(settings))

static int bench_set_param(void *settings, const struct opt *o, const char *kv, char *err,
                           size_t errlen)
{
	struct bench_opts *b = B(settings);
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;

	(void)o;
	if (!eq || klen == 0 || eq[1] == '\0')
		return errmsg_fail(err, errlen, "--param: '%s' is not KEY=VALUE", kv);
	if (strspn(kv, "abcdefghijklmnopqrstuvwxyz0123456789_") != klen)
		return errmsg_fail(err, errlen, "--param: '%.*s' is not a parameter name",
		                   (int)klen, kv);
	for (size_t i = 0; i < b->cfg.nparams; i++)
		if (strncmp(b->cfg.params[i], kv, klen + 1) == 0)
			return errmsg_fail(err, errlen, "--param: %.*s is given twice", (int)klen,
			                   kv);
	b->cfg.params[b->cfg.nparams++] = (char *)kv;
	return 0;
}

static int bench_set_reps(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	struct opt whole = *o;

	if (strcmp(v, bench_reps_values.words[0]) == 0) {
		B(settings)->cfg.reps = 0;
		return 0;
	}
	whole.set = NULL;
	return opt_store(&whole, settings, v, err, errlen);
}

static int bench_set_primary(void *settings, const struct opt *o, const char *v, char *err,
                             size_t errlen)
{
	struct cmp_primary p;

	(void)o;
	if (cmp_primary_parse(v, &p, err, errlen) != 0)
		return -1;
	B(settings)->cfg.primary = v;
	return 0;
}

static int bench_set_out(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	(void)o;
	if (strcmp(v, "-") == 0)
		return errmsg_fail(err, errlen,
		                   "-o: needs a file name (the results are rewritten after every "
		                   "round)");
	B(settings)->out = v;
	return 0;
}

static int bench_set_label(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	(void)o;
	if (!bench_task_valid_label(v))
		return errmsg_fail(err, errlen,
		                   "--label '%.40s': want 1 to %d characters of [A-Za-z0-9_.:@+-]", v,
		                   BENCH_TASK_LABEL_MAX);
	B(settings)->label = v;
	return 0;
}

static int bench_set_shard(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	uint64_t u;

	(void)o;
	if (bench_task_parse_shard(v, &u) != 0)
		return errmsg_fail(err, errlen, "--shard: %s is out of range [0, %llu]", v,
		                   (unsigned long long)BENCH_TASK_SHARD_MAX);
	B(settings)->shard = v;
	return 0;
}

static int bench_set_cmd(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	struct bench_opts *b = B(settings);
	const char *eq = strchr(v, '=');
	size_t n = eq ? (size_t)(eq - v) : 0;
	char *name;

	(void)o;
	if (!eq || !bench_valid_name(v, n) || v[0] == '-')
		return errmsg_fail(
		    err, errlen,
		    "--cmd: '%s' is not NAME=COMMAND with NAME in [A-Za-z0-9_.-], not "
		    "starting with '-'",
		    v);
	if (strspn(eq + 1, " \t") == strlen(eq + 1))
		return errmsg_fail(err, errlen, "--cmd %.*s: empty command", (int)n, v);
	for (size_t i = 0; i < b->ncmds; i++)
		if (strlen(b->cmd_names[i]) == n && strncmp(b->cmd_names[i], v, n) == 0)
			return errmsg_fail(err, errlen, "--cmd: name '%.*s' is given twice", (int)n,
			                   v);
	if (!(name = strndup(v, n)))
		return errmsg_fail(err, errlen, "out of memory");
	b->cmd_names[b->ncmds] = name;
	b->cmd_lines[b->ncmds++] = eq + 1;
	return 0;
}

/* The list of NAME=VALUE pairs an option appends to: names and values, their count. */
struct pairs {
	const char **names, **values;
	size_t *n;
};

/* --preload NAME=LIB and --expect NAME=ALLOCATOR: split at the first '=', names unique. */
static int add_pair(const char *opt, struct pairs l, const char *v, char *err, size_t errlen)
{
	const char **names = l.names, **values = l.values;
	size_t *n = l.n;
	const char *eq = strchr(v, '=');
	size_t len = eq ? (size_t)(eq - v) : 0;
	char *name;

	if (!eq || !bench_valid_name(v, len) || v[0] == '-' || !eq[1])
		return errmsg_fail(err, errlen,
		                   "%s: '%s' is not NAME=%s with NAME in [A-Za-z0-9_.-], not "
		                   "starting with '-'",
		                   opt, v, strcmp(opt, "--expect") == 0 ? "ALLOCATOR" : "LIBRARY");
	for (size_t i = 0; i < *n; i++)
		if (strlen(names[i]) == len && strncmp(names[i], v, len) == 0)
			return errmsg_fail(err, errlen, "%s: name '%.*s' is given twice", opt,
			                   (int)len, v);
	if (!(name = strndup(v, len)))
		return errmsg_fail(err, errlen, "out of memory");
	names[*n] = name;
	values[(*n)++] = eq + 1;
	return 0;
}

static int bench_set_program(void *settings, const struct opt *o, const char *v, char *err,
                             size_t errlen)
{
	(void)o;
	if (strspn(v, " \t") == strlen(v))
		return errmsg_fail(err, errlen, "--program: empty command");
	B(settings)->prog.program = v;
	return 0;
}

static int bench_set_preload(void *settings, const struct opt *o, const char *v, char *err,
                             size_t errlen)
{
	struct bench_program_opts *p = &B(settings)->prog;

	return add_pair(o->name, (struct pairs){p->preload_names, p->preload_paths, &p->npreloads}, v,
	                err, errlen);
}

static int bench_set_expect(void *settings, const struct opt *o, const char *v, char *err,
                            size_t errlen)
{
	struct bench_program_opts *p = &B(settings)->prog;

	return add_pair(o->name, (struct pairs){p->expect_names, p->expect_allocs, &p->nexpects}, v,
	                err, errlen);
}

#undef B

#define STR_(x) #x
#define STR(x)  STR_(x)
#define B struct bench_opts

const struct opt bench_opt_table[] = {
    {"--allocators", 'a', OPT_VALUE | OPT_ALLOCATOR, "LIST",
     .help = "allocators to compare, comma-separated: drivers allocab-NAME in the "
             "driver directory",
     .def_doc = "every one found there, system first; calibration backends only if "
                "named",
     OPT_STRING(B, allocators)},
    {"--arm", 0, OPT_VALUE | OPT_REPEAT, "LABEL=BACKEND[:KEY=VALUE]...",
     .help = "a configured arm named LABEL: driver allocab-BACKEND run with --config "
             "KEY=VALUE for each setting (docs/tuning.md); repeatable, with or without "
             "-a (then only the --arm arms run); with --program the settings go into "
             "the program's environment",
     OPT_LIST(B, arm_specs, narm_specs)},
    {"--workloads", 'w', OPT_VALUE | OPT_WORKLOAD | OPT_ALSO, "LIST",
     .help = "workloads, comma-separated; with --cmd or --program, one name for the "
             "program's workload",
     .def_doc = "every workload the drivers list but those that need an input; with "
                "--cmd or --program: command",
     OPT_STRING(B, workloads)},
    {"--scale", 0, OPT_VALUE | OPT_ALSO, NULL, .help = "preset of the workloads' parameters",
     .values = &bench_scale_values, OPT_ENUM(B, scale_index), OPT_DEF_U(1)},
    {"--seed", 0, OPT_VALUE | OPT_ALSO, "N", .help = "workload seed, the same for every run",
     OPT_U64(B, cfg.seed), OPT_GIVEN(B, seed_set), .lo = 0, .hi = BENCH_SEED_MAX,
     OPT_DEF_U(DEFAULT_SEED)},
    {"--param", 0, OPT_VALUE | OPT_REPEAT | OPT_ALSO, "KEY=VALUE",
     .help = "workload parameter, given to the selected workloads that have it; "
             "repeatable",
     OPT_LIST(B, cfg.params, cfg.nparams), .set = bench_set_param},
    {"--reps", 0, OPT_VALUE | OPT_ALSO, "N|auto",
     .help = "repetitions inside each driver process: auto measures the first as "
             "cold start, then repeats until steady state (at most 20); N fixes the "
             "count (1: cold start only)",
     .values = &bench_reps_values, OPT_UINT(B, cfg.reps), OPT_GIVEN(B, reps_set),
     .lo = 1, .hi = BENCH_REPS_MAX, .def_doc = "auto", .set = bench_set_reps},
    {"--time", 0, OPT_VALUE, NULL,
     .help = "the time compare uses, recorded as config.time: cpu (the process's CPU "
             "time, every thread, user and system; a --cmd or --program run's, every "
             "process of the run; the drivers' steady rule then judges CPU times), "
             "auto (CPU time for single-threaded workloads and commands whose "
             "CPU/wall ratio stays at most 1.1, wall time for the others) or wall "
             "(docs/methodology.md, \"Which time\")",
     .values = &cmdopt_time_values, .map = cmdopt_time_map, OPT_ENUM(B, cfg.time),
     OPT_DEF_U(RF_POLICY_CPU)},
    {"--driver-dir", 0, OPT_VALUE | OPT_DIR | OPT_ALSO, "DIR", .help = "where the drivers are",
     .def_doc = "$ALLOCAB_DRIVER_DIR, else the directory of the allocab executable",
     OPT_STRING(B, driver_dir)},
    {"--duet", 0, OPT_REPEAT, NULL,
     .help = "run the two arms of a pair at the same time, each pinned to its "
             "own CPU, drawn per round from --shuffle-seed: for workloads that "
             "`allocab-system list` marks single-threaded, and for a program or "
             "command that runs on one thread (docs/methodology.md, \"Duet runs\")",
     OPT_FLAG(B, duet)},
    {"--one-cpu", 0, OPT_REPEAT, NULL,
     .help = "run every arm of a workload at the same time on one CPU, which the "
             "kernel shares among them, drawn per round from --shuffle-seed: "
             "whatever slows that CPU slows each arm alike; on CPU time, for "
             "what runs on one thread, as --duet (docs/methodology.md, \"Runs on "
             "one CPU\")",
     OPT_FLAG(B, one_cpu), .excludes = OPT_NAMES("--duet"),
     .why = "--duet gives each of two arms its own CPU"},
    {"--solo-share", 0, OPT_VALUE, "F",
     .help = "with --one-cpu or --duet, the share of measured rounds that run "
             "the arms one after the other, as a plain bench does: one round "
             "in every round(1/F), its place drawn from --shuffle-seed; compare "
             "checks the shared rounds against them and lets these decide "
             "where the two disagree; 0: none (docs/methodology.md, \"Solo "
             "anchor rounds\")",
     OPT_DOUBLE(B, cfg.solo_share), .lo = 0, .hi = 1, OPT_DEF_D(DEFAULT_SOLO_SHARE),
     .needs = OPT_NAMES("--duet", "--one-cpu")},
    {"--one-cpu-threads", 0, OPT_REPEAT, NULL,
     .help = "let --one-cpu run a program that starts threads, which then "
             "take turns on the one CPU (refused otherwise, after the "
             "first round that shows them); compare says so of every "
             "result",
     OPT_FLAG(B, cfg.threads_ok), .needs = OPT_NAMES("--one-cpu")},
    {NULL, 0, 0, NULL, .help = "Rounds"},
    {"--rounds", 0, OPT_VALUE, "N", .help = "measured rounds",
     OPT_UINT(B, cfg.rounds), OPT_GIVEN(B, rounds_set), .lo = 1, .hi = 100000,
     OPT_DEF_U(PLAN_DEFAULT_ROUNDS),
     .def_doc = "or n + " STR(PLAN_SPARE_ROUNDS) " where n is the fewest rounds with "
                "which compare's m comparisons can reach a verdict, the smallest n "
                "with 2/2^n <= 0.05/m, when that is more; with --gate, at least "
                "the smallest plan its last look can decide in, + " STR(
                    PLAN_SPARE_ROUNDS) "; with --one-cpu or --duet, at least the "
                "rounds whose solo rounds find a 10% disagreement with 80% power "
                "(docs/methodology.md, \"Solo anchor rounds\"); with --budget: no "
                "limit"},
    {"--budget", 0, OPT_VALUE | OPT_ALSO, "TIME",
     .help = "stop before the next round would end past TIME (seconds, or 90s, "
             "10m, 1.5h; warm-up included); at least --min-rounds measured rounds "
             "are run",
     OPT_SECONDS(B, cfg.budget_s), .lo = 0.001, .hi = 1e7},
    {"--warmup", 0, OPT_VALUE | OPT_ALSO, "N",
     .help = "warm-up rounds, recorded but not compared", OPT_UINT(B, cfg.warmup),
     .lo = 0, .hi = 1000, OPT_DEF_U(DEFAULT_WARMUP)},
    {"--min-rounds", 0, OPT_VALUE | OPT_ALSO, "N",
     .help = "measured rounds run whatever the budget, and the first --gate look",
     OPT_UINT(B, cfg.min_rounds), OPT_GIVEN(B, min_rounds_set), .lo = 1, .hi = 100000,
     OPT_DEF_U(DEFAULT_MIN_ROUNDS),
     .def_doc = "with --budget alone, n as above; with --gate " STR(
         PLAN_GATE_MIN_ROUNDS) "; never more than --rounds"},
    {"--timeout", 0, OPT_VALUE | OPT_ALSO, "TIME",
     .help = "per run: SIGTERM at the limit (seconds, or 90s, 10m, 1.5h), "
             "SIGKILL 2 s later",
     OPT_SECONDS(B, cfg.timeout_s), .lo = 0.001, .hi = 1e7,
     OPT_DEF_D(DEFAULT_TIMEOUT_S)},
    {"--allocation", 0, OPT_VALUE, NULL,
     .help = "sequential: an arm x workload whose every comparison is decided "
             "by its sequential interval leaves the rounds "
             "(docs/methodology.md, \"Adaptive allocation\"); none: every "
             "arm runs every workload in every round. Sequential needs "
             "compare's default baseline among the arms (system; a --cmd "
             "bench's first) and no --gate",
     .values = &bench_allocation_values, .map = allocation_map,
     OPT_ENUM(B, allocation), OPT_GIVEN(B, allocation_set), OPT_DEF_U(1),
     .def_doc = "none with --gate"},
    {"--shuffle-seed", 0, OPT_VALUE | OPT_ALSO, "N",
     .help = "seed of the round orders and paddings", OPT_U64(B, cfg.shuffle_seed),
     OPT_GIVEN(B, shuffle_seed_set), .lo = 0, .hi = BENCH_SEED_MAX,
     .def_doc = "from the clock"},
    {"--pad-max", 0, OPT_VALUE | OPT_ALSO, "BYTES",
     .help = "environment padding " BENCH_PAD_VAR " of a length uniform in 0..BYTES per "
             "run (0: empty)",
     OPT_SIZE(B, cfg.pad_max), .lo = 0, .hi = BENCH_PAD_MAX_LIMIT,
     OPT_DEF_U(DEFAULT_PAD_MAX)},
    {"--equivalence", 0, OPT_VALUE | OPT_OPEN_LO | OPT_OPEN_HI, "M%",
     .help = "the equivalence margin, recorded in the results: compare, the "
             "claims check and gate use it for this file unless given theirs",
     OPT_PCT(B, cfg.equivalence), .lo = 0, .hi = 100, .def_doc = "none recorded, compare then uses 2%"},
    {"--primary", 0, OPT_VALUE, "ROWS",
     .help = "the comparisons that are the question, recorded in the results: "
             "PHASE or PHASE:cold|steady (each workload's phase), or all (every "
             "comparison in one family). Adaptive allocation and the rounds rule "
             "judge these only; compare shows the rest as secondary "
             "(docs/methodology.md, \"Multiplicity\")",
     OPT_STRING(B, cfg.primary), .set = bench_set_primary,
     .def_doc = "each workload's total, steady where it has steady times, else "
                "cold; with --gate --phase PHASE, that phase"},
    {"--gate", 0, OPT_REST, "GATE-OPTIONS...",
     .help = "must come last: the rest are `allocab gate` options; after every "
             "measured round from --min-rounds on, stop as soon as the gate decides, "
             "with intervals valid under that looking: a plan of --rounds (else the "
             "rounds the budget holds at the first look), recorded in the results "
             "(docs/methodology.md, \"Sequential decisions\")"},
    {NULL, 0, 0, NULL, .help = "Output"},
    {"--output", 'o', OPT_VALUE | OPT_FILE, "FILE", .help = "write the results to FILE",
     OPT_STRING(B, out), .set = bench_set_out, .excludes = OPT_NAMES("--results-dir")},
    {"--results-dir", 0, OPT_VALUE | OPT_DIR, "DIR",
     .help = "else DIR/<UTC stamp>.json and DIR/latest.json",
     OPT_STRING(B, results_dir), OPT_DEF_S("results"),
     .excludes = OPT_NAMES("--resume"),
     .why = "--resume rewrites the file it continues (or -o)"},
    {"--resume", 0, OPT_VALUE | OPT_FILE, "FILE",
     .help = "continue the bench in FILE, given its options: more rounds after its "
             "own in a new session (its own warm-up and shuffle seed; --rounds and "
             "--budget count this session's), FILE rewritten in place unless -o; "
             "refused for another configuration, machine or version, with --gate, "
             "or a decided FILE (docs/methodology.md, \"Resuming a bench\")",
     OPT_STRING(B, resume), .excludes = OPT_NAMES("--gate"),
     .why = "a sequential gate's plan is fixed at its first look, and rounds added "
            "after it are not covered (docs/methodology.md, \"Resuming a "
            "bench\")"},
    {"--quiet", 'q', OPT_REPEAT | OPT_ALSO, NULL,
     .help = "no progress, summary or --rounds warning on stderr (failures are "
             "still reported)",
     OPT_FLAG(B, quiet)},
    {NULL, 0, 0, NULL, .help = "One task of a job array (docs/fleet.md)"},
    {"--label", 0, OPT_VALUE, "NAME",
     .help = "this machine's name when several machines are merged (allocab "
             "merge): 1 to " STR(BENCH_TASK_LABEL_MAX) " characters of "
             "[A-Za-z0-9_.:@+-]; unless it is the host name, the default files are "
             "DIR/<stamp>-NAME.json and DIR/latest-NAME.json",
     OPT_STRING(B, label), .set = bench_set_label,
     .def_doc = "$ALLOCAB_LABEL, else $SLURMD_NODENAME, else the host name"},
    {"--shard", 0, OPT_VALUE, "N",
     .help = "this task's index in its job array, 0..2^32-1; without "
             "--shuffle-seed it chooses the shuffle seed",
     OPT_STRING(B, shard), .set = bench_set_shard,
     .def_doc = "$ALLOCAB_SHARD, else $SLURM_ARRAY_TASK_ID, else "
                "$JOB_COMPLETION_INDEX"},
    {NULL, 0, 0, NULL, .help = "Your own programs"},
    {"--cmd", 0, OPT_VALUE | OPT_REPEAT, "NAME='COMMAND'",
     .help = "an arm that runs your program as `/bin/sh -c COMMAND`, timed whole and "
             "per phase it marks in ALLOCAB_PHASE_FILE (two or more); NAME is "
             "[A-Za-z0-9_.-]+, not starting with '-', unique; the first is compare's "
             "baseline",
     .set = bench_set_cmd,
     .excludes = OPT_NAMES("--allocators", "--arm", "--scale", "--seed", "--param", "--reps", "--driver-dir", "--program")},
    {"--program", 0, OPT_VALUE, "'COMMAND'",
     .help = "your own program, run as `/bin/sh -c COMMAND` once per allocator: -a "
             "names them (default: system and every allocator whose Debian "
             "library is installed); system runs it as it is, the others with the "
             "allocator's library in LD_PRELOAD (docs/programs.md)",
     OPT_STRING(B, prog.program), .set = bench_set_program,
     .excludes = OPT_NAMES("--scale", "--seed", "--param", "--reps", "--driver-dir")},
    {"--preload", 0, OPT_VALUE | OPT_REPEAT, "NAME=LIB",
     .help = "with --program: an arm NAME that preloads LIB (a path or soname; an "
             "allocator built elsewhere), or replaces a known arm's library",
     .set = bench_set_preload, .needs = OPT_NAMES("--program")},
    {"--expect", 0, OPT_VALUE | OPT_REPEAT, "NAME=ALLOC",
     .help = "with --cmd: the --cmd arm NAME must run on ALLOC (system, mimalloc, "
             "jemalloc, tcmalloc): every process is probed, and an executable that "
             "links ALLOC itself counts as proof",
     .set = bench_set_expect, .needs = OPT_NAMES("--cmd")},
    {"--count-calls", 0, OPT_REPEAT, NULL,
     .help = "with --program or --expect: count malloc-family calls and bytes "
             "per process (costs time; docs/programs.md)",
     OPT_FLAG(B, prog.count_calls), .needs = OPT_NAMES("--program", "--expect")},
    {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL},
};
#undef B

const size_t bench_nopts = sizeof bench_opt_table / sizeof bench_opt_table[0];

const struct opt_doc bench_doc = {
    .prog = "allocab bench",
    .synopsis =
        (const char *const[]){"[-a ALLOC,...] [OPTIONS] [--gate GATE-OPTIONS...]",
                              "--program 'COMMAND' [-a ALLOC,...] [OPTIONS]",
                              "--cmd NAME='COMMAND' --cmd NAME='COMMAND'... [OPTIONS]", NULL},
    .about = "Runs rounds: in each round every allocator runs every workload once, each run a "
             "fresh process, in an order shuffled per round; the first --warmup rounds are not "
             "compared.\n",
    .opts = bench_opt_table,
    .nopts = sizeof bench_opt_table / sizeof bench_opt_table[0],
    .rest = &gate_doc,
    .notes = "One bench per machine: a bench holds DIR/.allocab-bench.BOOT_ID.lock (DIR: the "
             "results directory, or the directory of -o) and another one on the same machine is "
             "refused (exit 1); what else was runnable is recorded before every run "
             "(telemetry.runnable), and allocab merge names a machine that was busy.\n"
             "The results file is rewritten atomically after every round. Progress goes to "
             "stderr: on a terminal one line cut to its width, elsewhere (or TERM=dumb) one "
             "line per finished round; stdout stays empty except for the verdict lines of "
             "--gate.\n"
             "Every process of a --program or --expect arm is probed "
             "(build/liballocab-probe.so): a run whose processes did not all run the arm's "
             "allocator is unverified, with the reason.\n"
             "Exit status: 0 done (even with some failed runs, which are counted on stderr), 1 "
             "runtime failure or an arm without a single verified successful measured run (one "
             "line per such arm), 2 bad input, 130 interrupted (SIGINT, SIGTERM, SIGHUP: the "
             "finished rounds are kept).\n"
             "With --gate: 0 PASS, 1 FAIL or an arm without a verified run, 3 INCONCLUSIVE, 2 "
             "bad input, 130 interrupted.\n",
};
