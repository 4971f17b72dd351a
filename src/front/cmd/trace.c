/* trace.c - `allocab trace info [--json] FILE`: what a trace recorded by `allocab record` holds
 * (trace/trace.h). */
#include "front/cmd/commands.h"

#include "common/errmsg.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"
#include "front/cmd/cmdopt.h"
#include "trace/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct info_args {
	int json, all;
};

static const struct opt trace_opts[] = {
    {"--json", 0, 0, NULL,
     .help = "print an allocab-trace-info/1 document of every process (docs/results-format.md)",
     OPT_FLAG(struct info_args, json)},
    {"--all", 0, 0, NULL, .help = "show every process in full",
     .def_doc = "the 5 with the most events, then one line on the others",
     OPT_FLAG(struct info_args, all)},
    CMDOPT_HELP,
};

const struct opt_doc trace_doc = {
    .prog = "allocab trace",
    .synopsis = (const char *const[]){"info [--json] [--all] FILE", NULL},
    .about = "Describes a trace written by `allocab record` (docs/trace-format.md): per process "
             "how its stream ended and what it lacks, its threads, operations by kind, a size "
             "histogram, peak live bytes, the share of frees made by another thread than the "
             "allocating one, its duration, and the phases it marked with the events in each "
             "span; the 5 processes with the most events first.\n",
    .opts = trace_opts,
    .nopts = sizeof trace_opts / sizeof trace_opts[0],
    .notes = "Exit status: 0 ok; 1 output failed; 2 bad arguments or a corrupt, truncated or "
             "unreadable trace.\n",
};

/* `trace info`: the statistics of the trace at path on stdout. Returns ST_OK, ST_USAGE (a trace
 * that cannot be read) or ST_FAIL (the report not written), the reason printed. */
static enum status info(const char *path, int json, int all)
{
	struct ts_result r;
	char err[1024];
	int unwritten = 0;

	if (tracestat_file(path, &r, err, sizeof err) != 0) {
		errmsg_print(stderr, "trace", "%s", err);
		return ST_USAGE;
	}
	if (json) {
		cJSON *doc = tracestat_json(&r, path);
		char *text = doc ? utf8_fix(jst_print(doc, 1)) : NULL;
		cJSON_Delete(doc);
		if (text)
			puts(text);
		else
			unwritten = 1;
		free(text);
	} else {
		tracestat_print(&r, path, all, stdout);
	}
	tracestat_free(&r);
	if (fflush(stdout) != 0 || unwritten) {
		fprintf(stderr, "allocab: trace: cannot write the report\n");
		return ST_FAIL;
	}
	return ST_OK;
}

int trace_main(int argc, char **argv)
{
	struct opt_parser p;
	const char *path = NULL, *v;
	char err[256];
	struct info_args a = {0};
	int k;

	if (cmdopt_help(&trace_doc, argc, argv, 1))
		return ST_OK;
	if (argc < 2 || strcmp(argv[1], "info") != 0) {
		fprintf(stderr, "allocab: trace: %s (trace --help)\n",
		        argc < 2 ? "give a subcommand: info" : "unknown subcommand (known: info)");
		return ST_USAGE;
	}
	opt_init(&p, argc, argv, 2, trace_opts, trace_doc.nopts);
	p.prefix = "info: ";
	while ((k = opt_parse(&p, &a, &v, err, sizeof err)) != OPT_DONE) {
		if (k == OPT_ARG && path)
			snprintf(err, sizeof err, "info: unexpected argument '%s'", v);
		if (k == OPT_ERROR || (k == OPT_ARG && path)) {
			errmsg_print(stderr, "trace", "%s", err);
			return ST_USAGE;
		}
		if (k == OPT_ARG)
			path = v;
	}
	if (!path) {
		fprintf(stderr, "allocab: trace: info: give the trace FILE\n");
		return ST_USAGE;
	}
	return info(path, a.json, a.all);
}
