/* trace.c - `allocab trace info [--json] FILE`: what a trace recorded by `allocab record` holds
 * (front/tracestat/tracestat.h). */
#include "front/cmd/commands.h"

#include "common/opt.h"
#include "common/status.h"
#include "common/utf8.h"
#include "front/tracestat/tracestat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char trace_usage[] =
    "usage: allocab trace info [--json] FILE\n"
    "Describes a trace written by `allocab record` (docs/trace-format.md): per process its\n"
    "threads, operations by kind, a size histogram, peak live bytes, the share of frees made\n"
    "by another thread than the allocating one, and its duration. --json prints an\n"
    "allocab-trace-info/1 document (docs/results-format.md).\n"
    "Exit status: 0 ok; 1 output failed; 2 bad arguments or a corrupt, truncated or\n"
    "unreadable trace.\n";

static int info(const char *path, int json)
{
	struct ts_result r;
	char err[1024];
	int rc = 0;

	if (tracestat_file(path, &r, err, sizeof err) != 0) {
		fprintf(stderr, "allocab: trace: %s\n", err);
		return ST_USAGE;
	}
	if (json) {
		cJSON *doc = tracestat_json(&r, path);
		char *text = doc ? utf8_fix(cJSON_Print(doc)) : NULL;
		cJSON_Delete(doc);
		if (text)
			puts(text);
		else
			rc = 1;
		free(text);
	} else {
		tracestat_print(&r, path, stdout);
	}
	tracestat_free(&r);
	if (fflush(stdout) != 0 || rc) {
		fprintf(stderr, "allocab: trace: cannot write the report\n");
		return ST_FAIL;
	}
	return ST_OK;
}

int trace_main(int argc, char **argv)
{
	static const struct opt opts[] = {{"--json", 0, 0}, {"--help", 'h', OPT_REPEAT}};
	struct opt_parser p;
	const char *path = NULL, *v;
	char err[256];
	int json = 0, k;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(trace_usage, stdout);
			return ST_OK;
		}
	if (argc < 2 || strcmp(argv[1], "info") != 0) {
		fprintf(stderr, "allocab: trace: %s (trace --help)\n",
		        argc < 2 ? "give a subcommand: info" : "unknown subcommand (known: info)");
		return ST_USAGE;
	}
	opt_init(&p, argc, argv, 2, opts, 2);
	p.prefix = "info: ";
	while ((k = opt_next(&p, &v, err, sizeof err)) != OPT_DONE) {
		if (k == OPT_ARG && path)
			snprintf(err, sizeof err, "info: unexpected argument '%s'", v);
		if (k == OPT_ERROR || (k == OPT_ARG && path)) {
			fprintf(stderr, "allocab: trace: %s\n", err);
			return ST_USAGE;
		}
		if (k == OPT_ARG)
			path = v;
		else
			json = 1;
	}
	if (!path) {
		fprintf(stderr, "allocab: trace: info: give the trace FILE\n");
		return ST_USAGE;
	}
	return info(path, json);
}
