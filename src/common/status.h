/* status.h - the exit statuses of every program and command (README.md, "Exit status"; the man
 * page docs/allocab.1). Every main returns one of these. Library functions return 0 or -1 with a
 * reason (common/errmsg.h) and leave the status to the command that called them; only a function
 * whose caller must tell bad input from a runtime failure returns an enum status instead (ST_OK,
 * ST_USAGE, ST_FAIL, never a bare 1 or 2), and its contract says so. */
#ifndef ALLOCAB_STATUS_H
#define ALLOCAB_STATUS_H

enum status {
	ST_OK = 0,    /* done; the gate: PASS */
	ST_FAIL = 1,  /* runtime failure (a run failed, an output unwritable); the gate: FAIL */
	ST_USAGE = 2, /* bad arguments or bad input (parameters, files) */
	ST_INCONCLUSIVE = 3, /* the gate could not decide: more rounds or a bigger budget can */
	/* the driver: malloc is not served by its allocator, or a --config is not in force */
	ST_UNVERIFIED = 4,
	ST_INTERRUPTED = 130 /* stopped by SIGINT or SIGTERM (finished rounds are kept) */
};

#endif
