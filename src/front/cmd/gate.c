/* gate.c - `allocab gate`: judges a results file against a margin (front/gate/gate.h). */
#include "front/cmd/commands.h"

#include "common/errmsg.h"
#include "common/status.h"
#include "front/cmd/gateopt.h"

#include <stdio.h>
#include <string.h>

static const char gate_usage[] =
    "usage: allocab gate RESULTS --candidate NAME [--baseline NAME] --min-speedup P%\n"
    "                    [--on each|geomean] [--phase NAME] [--workload NAME] [--conf 0.95]\n"
    "                    [--regime steady|cold] [--equivalence M% (with --max-slowdown)]\n"
    "       allocab gate NEW --against OLD --max-slowdown P% [--candidate NAME] [--on ...]\n"
    "--min-speedup P: the candidate is at least P% faster: t_candidate/t_baseline <= 1 - P/100.\n"
    "--max-slowdown P: at most P% slower: t_candidate/t_baseline <= 1 + P/100 (with --against,\n"
    "every arm of NEW against the same arm of OLD). P is 0 <= P < 100, written 5, 5% or 2.5%.\n"
    "Each comparison (--on each: every workload's total or --phase; --on geomean: the geometric\n"
    "mean) is PASS when its whole confidence interval satisfies the margin, FAIL when the whole\n"
    "interval violates it (with k comparisons gated, the interval at 1 - (1 - conf)/k:\n"
    "Bonferroni), INCONCLUSIVE otherwise. The gate is PASS when all pass, FAIL when any fails,\n"
    "INCONCLUSIVE otherwise (more rounds or a bigger budget can decide it). Lines print the\n"
    "speedup and its interval as compare does, the ratio t_cand/t_base in parentheses.\n"
    "--regime: the times judged: steady (default; the median of each run's steady repetitions)\n"
    "or cold (its first repetition); a file that measured cold only is judged on cold, with a\n"
    "warning, unless --regime steady is given. Every verdict line names its regime.\n"
    "--equivalence M: with --max-slowdown, a comparison whose whole interval lies within ±M%\n"
    "also passes (equivalent: a slowdown that counts as none), and FAIL needs a slowdown beyond\n"
    "both P and M (default: the file's bench --equivalence, else none).\n"
    "A file written by bench --gate, whose rounds the gate looked at after every round, is\n"
    "judged with the sequential intervals of its recorded plan (config.sequential), as the bench\n"
    "judged it; lines then say \"sequential\" and after which round of the plan.\n"
    "A comparison without a single usable pair of rounds is FAIL: \"no verified rounds for ARM:\n"
    "REASON\".\n"
    "Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 bad input (README.md, \"Exit status\").\n";

int gate_main(int argc, char **argv)
{
	struct gate_spec g;
	enum gate_outcome verdict;
	const char *path = NULL;
	char err[1024] = "out of memory";
	int rc;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(gate_usage, stdout);
			return ST_OK;
		}
	if (argc < 2) {
		fputs(gate_usage, stderr);
		return ST_USAGE;
	}
	if (gateopt_parse(argc, argv, &g, &path, err, sizeof err) != 0)
		rc = ST_USAGE;
	else if (!path)
		rc = errmsg_status(ST_USAGE, err, sizeof err, "give the results file to judge");
	else if (gate_spec_judge_file(&g, path, stdout, stderr, &verdict, err, sizeof err) == 0)
		rc = gate_outcome_status(verdict);
	else
		rc = ST_USAGE;
	if (rc == ST_USAGE)
		fprintf(stderr, "allocab: gate: %s\n", err);
	fflush(stdout);
	return rc;
}
