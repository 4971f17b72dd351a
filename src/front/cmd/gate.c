/* gate.c - `allocab gate`: judges a results file against a margin (front/gate/gate.h). */
#include "front/cmd/commands.h"

#include "common/errmsg.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "front/cmd/gateopt.h"

#include <stdio.h>
#include <string.h>

int gate_main(int argc, char **argv)
{
	struct gate_spec g;
	enum gate_outcome verdict;
	const char *path = NULL;
	char err[1024] = "out of memory";
	int rc;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			optdoc_usage(stdout, &gate_doc, NULL);
			return ST_OK;
		}
	if (argc < 2) {
		optdoc_usage(stderr, &gate_doc, NULL);
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
