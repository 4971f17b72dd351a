/* gate.c - `allocab gate`: judges a results file against a margin (front/gate/gate.h). */
#include "front/cmd/commands.h"

#include "common/errmsg.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "front/cmd/gateopt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gate_main(int argc, char **argv)
{
	struct gate_spec g;
	struct gate_judged j = {.out = stdout, .warn = stderr};
	const char **paths;
	struct gateopt_pos files = {0};
	size_t n;
	char err[1024] = "out of memory";
	int rc;

	if (gateopt_help(argc, argv))
		return ST_OK;
	if (argc < 2) {
		optdoc_usage(stderr, &gate_doc, NULL);
		return ST_USAGE;
	}
	if (!(paths = calloc((size_t)argc + 1, sizeof *paths))) {
		fprintf(stderr, "allocab: gate: out of memory\n");
		return ST_FAIL;
	}
	files.v = paths;
	if (gateopt_parse_files(argc, argv, &g, &files, err, sizeof err) != 0)
		rc = ST_USAGE;
	else if ((n = files.n) == 0)
		rc = errmsg_status(ST_USAGE, err, sizeof err, "give the results file to judge");
	else if (n == 1 && g.fleet_on)
		rc = errmsg_status(ST_USAGE, err, sizeof err,
		                   "--on pooled and --on each-machine judge a fleet: give the results "
		                   "files of two machines or more");
	else if ((n == 1 ? gate_spec_judge_file(&g, paths[0], &j, err, sizeof err)
	                 : gate_fleet_judge_files(&g, paths, n, &j, err, sizeof err)) == 0)
		rc = gate_outcome_status(j.verdict);
	else
		rc = ST_USAGE;
	free(paths);
	if (rc == ST_USAGE)
		errmsg_print(stderr, "gate", "%s", err);
	fflush(stdout);
	return rc;
}
