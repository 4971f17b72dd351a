/* benchtell.h - private to bench.c: what `allocab bench` says on stderr once its rounds are over
 * (benchtell.c): the summary, the budget's yield, the arms no later round could prove, the
 * command that reads the results next and the one that continues the bench, and the exit status
 * these decide. */
#ifndef ALLOCAB_BENCHTELL_H
#define ALLOCAB_BENCHTELL_H

#include "common/status.h"
#include "front/cmd/benchopt.h"
#include "front/engine/engine.h"

#include <cjson/cJSON.h>

struct bench_tell {
	const struct bench_opts *o;
	const struct bench_config *c;
	const char *results; /* the results file */
	int argc;            /* the bench's own command line, for the continuation */
	char **argv;
};

/* After bench_run succeeded with *r and its document doc: the report, then the status of the
 * bench: ST_INTERRUPTED, the gate's verdict, ST_FAIL when an arm has no verified successful run
 * (or the bench stopped as hopeless), else ST_OK. */
enum status bench_tell_done(const struct bench_tell *t, const struct bench_result *r,
                            const cJSON *doc);

/* After a failure with the one-line reason err: that line, and when the results file keeps
 * rounds (r->resumable) what it keeps and the command that continues it. */
void bench_tell_failed(const struct bench_tell *t, const struct bench_result *r, const char *err);

#endif
