/* runner.h - runs one measured process for `allocab bench`: fork/exec in its own process group
 * with an environment padding variable, captures stdout whole and the tail of stderr, times it
 * with CLOCK_MONOTONIC around fork..wait4, takes its rusage from wait4, and kills it (SIGTERM to
 * the group, SIGKILL after a grace period) at its timeout or when the caller asks it to stop.
 * On request it tracks every process the run starts (front/run/ptrack.h). */
#ifndef ALLOCAB_RUNNER_H
#define ALLOCAB_RUNNER_H

#include "front/engine/engine.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define RUNNER_PAD_VAR  BENCH_PAD_VAR
#define RUNNER_TAIL_MAX 1024        /* bytes of stderr kept */
#define RUNNER_OUT_MAX  (16u << 20) /* bytes of stdout kept when captured */

struct runner_spec {
	const char *path;   /* executable, run with execve (no PATH search) */
	char *const *argv;  /* NULL-terminated; argv[0] is what the process sees */
	size_t pad_bytes;   /* length of the RUNNER_PAD_VAR value added to the environment */
	double timeout_s;   /* > 0 */
	double grace_s;     /* SIGTERM .. SIGKILL */
	int capture_stdout; /* 0: stdout is read and dropped */
	/* Set asynchronously (signal handler) to stop the run early; may be NULL. The runner blocks
	 * SIGINT, SIGTERM, SIGHUP and SIGCHLD while it runs and waits with ppoll, so a signal that
	 * sets the flag wakes it at once. */
	const volatile sig_atomic_t *stop;
	/* "NAME=VALUE" entries that replace any NAME of the inherited environment; NULL-terminated,
	 * may be NULL. */
	char *const *env_set;
	/* Track every process of the run (ptrack.h): the child waits on a pipe until it is
	 * attached, then execs. 0: the child execs at once, nothing is traced. */
	int track;
	/* Contain the run (contain.h): a cgroup of its own, emptied at the end, and with track the
	 * proc connector's record of its forks and execs, as far as this process may have them. */
	int contain;
	/* The run's probe record file, whose size the tracker notes at each exec, or NULL. */
	const char *probe_file;
};

struct ptrack;
struct contain;

enum runner_end {
	RUNNER_EXITED,   /* exit_code is valid */
	RUNNER_SIGNALED, /* died of term_signal */
	RUNNER_TIMEOUT,  /* killed at timeout_s */
	RUNNER_STOPPED,  /* killed because *stop was set (or never started) */
};

struct runner_result {
	enum runner_end end;
	int exit_code;
	int term_signal;
	long pid;                /* the process started (0 if none was) */
	int64_t wall_ns;         /* CLOCK_MONOTONIC from just before fork to wait4's return */
	int64_t user_ns, sys_ns; /* wait4 rusage: the process and the children it waited for */
	long max_rss_kib;
	long minor_faults, major_faults;
	long vol_ctx_switches, invol_ctx_switches;
	char *out; /* captured stdout, NUL-terminated (NULL if not captured) */
	size_t out_len;
	int out_truncated; /* stdout exceeded RUNNER_OUT_MAX; out holds the first part */
	char tail[RUNNER_TAIL_MAX + 1]; /* last bytes of stderr, NUL-terminated */
	size_t tail_len;
	/* spec.track: what the tracker saw, or why it could not attach (owned by r); else NULL */
	struct ptrack *track;
	/* spec.contain: what containment had and saw (owned by r); else NULL */
	struct contain *contain;
};

/* Runs spec to completion. Returns 0 with *r filled (r->out and r->track owned by r:
 * runner_result_free), or -1 with a one-line reason in err when the process could not be started
 * (pipe/fork failure, or no memory for the tracker).
 * An exec failure is not an error here: the child reports it on its stderr and exits 127. Any
 * process the run leaves behind in its process group (with spec.contain, in its cgroup or the
 * connector's tree of it) is killed when it ends. */
int runner_run(const struct runner_spec *spec, struct runner_result *r, char *err, size_t errlen);
/* Frees what r owns; accepts NULL and a zeroed result. */
void runner_result_free(struct runner_result *r);

/* "SIGSEGV" for SIGSEGV and so on; NULL for a number without a name. */
const char *runner_signal_name(int sig);

/* Cleans the raw stderr tail raw[0..n-1] into out (>= n + 1 bytes) for a JSON string: drops a
 * leading partial line when the tail was cut (cut != 0) and a newline follows, drops a trailing
 * newline, and replaces bytes that are not valid UTF-8 with '?'. Returns the length written. */
size_t runner_clean_tail(const char *raw, size_t n, int cut, char *out);

#endif
