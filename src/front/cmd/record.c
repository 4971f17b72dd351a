/* record.c - `allocab record [-o FILE] [-w SECONDS] [--] COMMAND [ARGS...]`: its arguments, then
 * the trace module's recording session (trace/trace.h, trace_record), which runs COMMAND with the
 * recorder preloaded and bundles what it wrote into one trace. */
#include "front/cmd/commands.h"

#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "trace/trace.h"

#include <stdint.h>
#include <stdio.h>

#define RECORD_LIB_NAME TRACE_RECORD_LIB
#define BACKGROUND_S    10 /* how long record waits for what COMMAND left running, by default */

struct record_args {
	const char *out;
	unsigned wait_s;
	int first; /* argv index where COMMAND starts */
	int help;
};

static const struct opt record_opts[] = {
    {"--output", 'o', OPT_VALUE | OPT_REPEAT | OPT_FILE, "FILE",
     .help = "the trace file; written atomically, a FIFO or /dev/null written in place",
     OPT_STRING(struct record_args, out), OPT_DEF_S("allocab.trace")},
    {"--wait", 'w', OPT_VALUE | OPT_REPEAT, "SECONDS",
     .help = "how long to wait for processes COMMAND leaves running in the "
             "background; what still runs is reported",
     OPT_UINT(struct record_args, wait_s), .lo = 0, .hi = 3600, OPT_DEF_U(BACKGROUND_S)},
    {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL},
};

const struct opt_doc record_doc = {
    .prog = "allocab record",
    .synopsis = (const char *const[]){"[-o FILE] [-w SECONDS] [--] COMMAND [ARGS...]", NULL},
    .about = "Runs COMMAND (found on PATH) with the allocab recorder preloaded and writes every "
             "malloc, calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc, "
             "memalign, valloc and pvalloc call of every process it starts (fork, exec) to one "
             "trace file (docs/trace-format.md), for `allocab trace info` and the replay "
             "workload, with the phases COMMAND marks in ALLOCAB_PHASE_FILE (docs/programs.md).\n",
    .opts = record_opts,
    .nopts = (sizeof record_opts / sizeof record_opts[0]),
    .notes = "The recorder library is " RECORD_LIB_NAME " beside the allocab executable, or in "
             "../lib/allocab/ from it; ALLOCAB_RECORD_LIB names another. Static and setuid "
             "programs cannot be recorded (LD_PRELOAD does not reach them). SIGINT, SIGTERM and "
             "SIGHUP sent to record go to COMMAND; if record is killed, COMMAND gets SIGTERM.\n"
             "Exit status: COMMAND's exit status (128 + signal if it was killed) when it is not "
             "0; else 0 once the trace is written whole, 1 if no trace could be written or "
             "events were lost because a stream could not be written (each loss is said on "
             "stderr); 127 if COMMAND cannot be run; 2 bad arguments.\n",
};

/* Options up to "--" or the first positional argument, where the COMMAND starts. */
static int parse_args(int argc, char **argv, struct record_args *a)
{
	struct opt_parser p;
	const char *v;
	char err[256];
	int k;

	opt_defaults(record_opts, (sizeof record_opts / sizeof record_opts[0]), a);
	opt_init(&p, argc, argv, 1, record_opts, (sizeof record_opts / sizeof record_opts[0]));
	p.help = "allocab record";
	p.dashdash = 1;
	while ((k = opt_parse(&p, a, &v, err, sizeof err)) != OPT_DONE && k != OPT_ARG) {
		if (k == OPT_ERROR) {
			errmsg_print(stderr, "record", "%s", err);
			return -1;
		}
		a->help = 1; /* --help, the only row without a destination */
		return 0;
	}
	a->first = k == OPT_ARG ? p.at : p.i;
	return 0;
}

int record_main(int argc, char **argv)
{
	struct record_args a = {.first = argc};
	char err[512];
	int fd;

	if (parse_args(argc, argv, &a) != 0)
		return ST_USAGE;
	if (a.help) {
		optdoc_usage(stdout, &record_doc, NULL);
		return ST_OK;
	}
	if (a.first >= argc) {
		fprintf(stderr, "allocab: record: give the COMMAND to record (record --help)\n");
		return ST_USAGE;
	}
	/* an output allocab must not write is refused before the command runs */
	if (atomic_target(a.out, &fd, err, sizeof err) < 0) {
		errmsg_print(stderr, "record", "%s", err);
		return ST_FAIL;
	}
	return trace_record(argv + a.first, a.out, (int)a.wait_s);
}
