/* benchoptab.c - the option table of `allocab bench` (its --help, man page entries and shell
 * completion are generated from it: common/optdoc.h) and the values its options take. */
#include "front/cmd/benchoptab.h"
#include "front/cmd/benchopt.h"
#include "front/cmd/commands.h"
#include "common/optdoc.h"
#include "front/engine/engine.h"

#include <stddef.h>

static const char *const scales[] = {"small", "default", "large", NULL};
static const char *const reps_words[] = {"auto", NULL};
static const char *const time_words[] = {"cpu", "auto", "wall", NULL};
static const char *const allocation_words[] = {"sequential", "none", NULL};
static const struct opt_values bench_allocation_values = {allocation_words, NULL};
static const struct opt_values bench_time_values = {time_words, NULL};
const struct opt_values bench_scale_values = {scales, NULL};
const struct opt_values bench_reps_values = {reps_words, NULL};

const struct opt bench_opt_table[O_COUNT] = {
    [O_ALLOC] = {"--allocators", 'a', OPT_VALUE | OPT_ALLOCATOR, "LIST",
                 .help = "allocators to compare, comma-separated: drivers allocab-NAME in the "
                         "driver directory (default: every one found there, system first; "
                         "calibration backends only if named)"},
    [O_ARM] = {"--arm", 0, OPT_VALUE | OPT_REPEAT, "LABEL=BACKEND[:KEY=VALUE]...",
               .help = "a configured arm named LABEL: driver allocab-BACKEND run with --config "
                       "KEY=VALUE for each setting (docs/tuning.md); repeatable, with or without "
                       "-a (then only the --arm arms run); with --program the settings go into "
                       "the program's environment"},
    [O_WL] = {"--workloads", 'w', OPT_VALUE | OPT_WORKLOAD, "LIST",
              .help = "workloads, comma-separated (default: every workload the drivers list "
                      "but those that need an input); with --cmd or --program, one name for "
                      "the program's workload (default: command)"},
    [O_SCALE] = {"--scale", 0, OPT_VALUE, NULL,
                 .help = "preset of the workloads' parameters (default: default)",
                 .values = &bench_scale_values},
    [O_SEED] = {"--seed", 0, OPT_VALUE, "N",
                .help = "workload seed, the same for every run, 0..2^53-1 (default: 42)"},
    [O_PARAM] = {"--param", 0, OPT_VALUE | OPT_REPEAT, "KEY=VALUE",
                 .help = "workload parameter, given to the selected workloads that have it; "
                         "repeatable"},
    [O_REPS] = {"--reps", 0, OPT_VALUE, "N|auto",
                .help = "repetitions inside each driver process: auto (default) measures the "
                        "first as cold start, then repeats until steady state (at most 20); N "
                        "fixes the count (1: cold start only)",
                .values = &bench_reps_values},
    [O_TIME] = {"--time", 0, OPT_VALUE, NULL,
                .help = "the time compare uses, recorded as config.time: cpu (default: the "
                        "process's CPU time, every thread, user and system; a --cmd or "
                        "--program run's, every process of the run; the drivers' steady rule "
                        "then judges CPU times), auto (CPU time for single-threaded workloads "
                        "and commands whose CPU/wall ratio stays at most 1.1, wall time for "
                        "the others) or wall (docs/methodology.md, \"Which time\")",
                .values = &bench_time_values},
    [O_DDIR] = {"--driver-dir", 0, OPT_VALUE | OPT_DIR, "DIR",
                .help = "where the drivers are (default: $ALLOCAB_DRIVER_DIR, else the "
                        "directory of the allocab executable)"},
    [O_DUET] = {"--duet", 0, OPT_REPEAT, NULL,
                .help = "run the two allocators of a pair at the same time, each pinned to its "
                        "own CPU, drawn per round from --shuffle-seed (workloads that "
                        "`allocab-system list` marks single-threaded; A/A evidence: "
                        "docs/methodology.md)"},
    [O_H_ROUNDS] = {NULL, 0, 0, NULL, .help = "Rounds"},
    [O_ROUNDS] = {"--rounds", 0, OPT_VALUE, "N",
                  .help = "measured rounds (default: max(10, n + 3) where n is the fewest rounds "
                          "with which compare's m comparisons can reach a verdict: the smallest "
                          "n with 2/2^n <= 0.05/m; with --gate, at least the smallest plan its "
                          "last look can decide in, + 3; with --budget: no limit)"},
    [O_BUDGET] = {"--budget", 0, OPT_VALUE, "SECONDS",
                  .help = "stop before the next round would end past SECONDS (warm-up "
                          "included); at least --min-rounds measured rounds are run"},
    [O_WARMUP] = {"--warmup", 0, OPT_VALUE, "N",
                  .help = "warm-up rounds, 0..1000, recorded but not compared (default: 1)"},
    [O_MINR] = {"--min-rounds", 0, OPT_VALUE, "N",
                .help = "measured rounds run whatever the budget, and the first --gate look "
                        "(default: 3; with --budget alone, n as above; with --gate 6; never "
                        "more than --rounds)"},
    [O_ALLOCATION] = {"--allocation", 0, OPT_VALUE, NULL,
                      .help = "sequential (default): an arm x workload whose every comparison "
                              "is decided by its sequential interval leaves the rounds "
                              "(docs/methodology.md, \"Adaptive allocation\"); none: every "
                              "arm runs every workload in every round. Needs compare's default "
                              "baseline among the arms (system; a --cmd bench's first) and no "
                              "--gate",
                      .values = &bench_allocation_values},
    [O_TIMEOUT] = {"--timeout", 0, OPT_VALUE, "SECONDS",
                   .help = "per run: SIGTERM at the limit, SIGKILL 2 s later (default: 120)"},
    [O_SHUF] = {"--shuffle-seed", 0, OPT_VALUE, "N",
                .help = "seed of the round orders and paddings (default: from the clock)"},
    [O_PAD] = {"--pad-max", 0, OPT_VALUE, "BYTES",
               .help = "environment padding " BENCH_PAD_VAR " of a length uniform in 0..BYTES per "
                       "run (default: 4096, at most 65536; 0: empty)"},
    [O_EQUIVALENCE] = {"--equivalence", 0, OPT_VALUE, "M%",
                       .help = "the equivalence margin, 0 < M < 100, recorded in the results: "
                               "compare, the claims check and gate use it for this file unless "
                               "given theirs (default: none recorded, compare then uses 2%)"},
    [O_PRIMARY] = {"--primary", 0, OPT_VALUE, "ROWS",
                   .help = "the comparisons that are the question, recorded in the results: "
                           "PHASE or PHASE:cold|steady (each workload's phase), or all (every "
                           "comparison in one family); default: each workload's total, steady "
                           "where it has steady times, else cold. Adaptive allocation and the "
                           "rounds rule judge these only; compare shows the rest as secondary "
                           "(docs/methodology.md, \"Multiplicity\")"},
    [O_GATE] = {"--gate", 0, OPT_REST, "GATE-OPTIONS...",
                .help = "must come last: the rest are `allocab gate` options; after every "
                        "measured round from --min-rounds on, stop as soon as the gate decides, "
                        "with intervals valid under that looking: a plan of --rounds (else the "
                        "rounds the budget holds at the first look), recorded in the results "
                        "(docs/methodology.md, \"Sequential decisions\")"},
    [O_H_OUTPUT] = {NULL, 0, 0, NULL, .help = "Output"},
    [O_OUT] = {"--output", 'o', OPT_VALUE | OPT_FILE, "FILE", .help = "write the results to FILE"},
    [O_RDIR] = {"--results-dir", 0, OPT_VALUE | OPT_DIR, "DIR",
                .help = "else DIR/<UTC stamp>.json and DIR/latest.json (default: results)"},
    [O_RESUME] = {"--resume", 0, OPT_VALUE | OPT_FILE, "FILE",
                  .help = "continue the bench in FILE, given its options: more rounds after its "
                          "own in a new session (its own warm-up and shuffle seed; --rounds and "
                          "--budget count this session's), FILE rewritten in place unless -o; "
                          "refused for another configuration, machine or version, with --gate, "
                          "or a decided FILE (docs/methodology.md, \"Resuming a bench\")"},
    [O_QUIET] = {"--quiet", 'q', OPT_REPEAT, NULL,
                 .help = "no progress, summary or --rounds warning on stderr (failures are "
                         "still reported)"},
    [O_H_FLEET] = {NULL, 0, 0, NULL, .help = "One task of a job array (docs/fleet.md)"},
    [O_LABEL] = {"--label", 0, OPT_VALUE, "NAME",
                 .help = "this machine's name when several machines are merged (allocab "
                         "merge): 1 to 128 characters of [A-Za-z0-9_.:@+-] (default: "
                         "$ALLOCAB_LABEL, else $SLURMD_NODENAME, else the host name); unless it "
                         "is the host name, the default files are DIR/<stamp>-NAME.json and "
                         "DIR/latest-NAME.json"},
    [O_SHARD] = {"--shard", 0, OPT_VALUE, "N",
                 .help = "this task's index in its job array, 0..2^32-1 (default: "
                         "$ALLOCAB_SHARD, else $SLURM_ARRAY_TASK_ID, else "
                         "$JOB_COMPLETION_INDEX); without --shuffle-seed it chooses the shuffle "
                         "seed"},
    [O_H_PROGRAMS] = {NULL, 0, 0, NULL, .help = "Your own programs"},
    [O_CMD] = {"--cmd", 0, OPT_VALUE | OPT_REPEAT, "NAME='COMMAND'",
               .help = "an arm that runs your program as `/bin/sh -c COMMAND`, timed whole and "
                       "per phase it marks in ALLOCAB_PHASE_FILE (two or more; not with -a, "
                       "--arm, --scale, --seed, --param, --reps, --driver-dir, --duet); NAME is "
                       "[A-Za-z0-9_.-]+, not starting with '-', unique; the first is compare's "
                       "baseline"},
    [O_PROGRAM] = {"--program", 0, OPT_VALUE, "'COMMAND'",
                   .help = "your own program, run as `/bin/sh -c COMMAND` once per allocator: -a "
                           "names them (default: system and every allocator whose Debian "
                           "library is installed); system runs it as it is, the others with the "
                           "allocator's library in LD_PRELOAD (docs/programs.md)"},
    [O_PRELOAD] = {"--preload", 0, OPT_VALUE | OPT_REPEAT, "NAME=LIB",
                   .help = "with --program: an arm NAME that preloads LIB (a path or soname; an "
                           "allocator built elsewhere), or replaces a known arm's library"},
    [O_EXPECT] = {"--expect", 0, OPT_VALUE | OPT_REPEAT, "NAME=ALLOC",
                  .help = "with --cmd: the --cmd arm NAME must run on ALLOC (system, mimalloc, "
                          "jemalloc, tcmalloc): every process is probed, and an executable that "
                          "links ALLOC itself counts as proof"},
    [O_COUNT_CALLS] = {"--count-calls", 0, OPT_REPEAT, NULL,
                       .help = "with --program or --expect: count malloc-family calls and bytes "
                               "per process (costs time; docs/programs.md)"},
    [O_HELP] = {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL},
};
_Static_assert(DEFAULT_SEED == 42 && DEFAULT_ROUNDS == 10 && SPARE_ROUNDS == 3 &&
                   DEFAULT_WARMUP == 1 && DEFAULT_MIN_ROUNDS == 3 && GATE_MIN_ROUNDS == 6 &&
                   DEFAULT_TIMEOUT_S == 120.0 && DEFAULT_PAD_MAX == 4096 &&
                   BENCH_PAD_MAX_LIMIT == 65536,
               "update the help of opts");

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
    .nopts = O_COUNT,
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
