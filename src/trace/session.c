/* session.c - the recording session of `allocab record` (trace.h, trace_record): runs COMMAND
 * with the recorder library preloaded (docs/trace-format.md) and a marks file for the phases it
 * marks (ALLOCAB_PHASE_FILE, docs/programs.md), under the front end's process supervisor
 * (front/proc/proc.h, the runner), which waits for it and for what it left running in the
 * background (orphans are re-parented to record), then bundles the raw streams it wrote and its
 * marks into one trace (bundle.h), written atomically (common/atomicio.h), and says what the
 * trace lacks; marks that break the protocol are left out with their reason, never the trace.
 * Signals that stop record are passed on to COMMAND; the stream directory, marks file included,
 * is removed on every way out, and the next record removes those of recorders that were
 * killed. */
#include "trace/trace.h"

#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/ownlib.h"
#include "common/status.h"
#include "front/proc/proc.h"
#include "marks/marks.h"
#include "trace/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* SIGINT, SIGTERM, SIGHUP outside the run (the runner passes them on while COMMAND runs): record
 * goes on, so that the trace is still written and the stream directory removed. */
static void on_signal(int sig)
{
	(void)sig;
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

/* One recording: COMMAND, the recorder library lib, the stream directory dir, the trace file out
 * and how long to wait for what COMMAND leaves running. */
struct session {
	char **cmd;
	const char *lib, *dir, *out;
	int wait_s;
};

/* Runs COMMAND in the foreground under the runner (front/proc/proc.h) with the recorder
 * preloaded, found on PATH, given the signals sent to record and SIGTERM if record dies, then
 * waits up to wait_s for what it left running (a signal ends the wait) and says what still runs:
 * its streams are cut when the trace is bundled. *status: COMMAND's exit status, 128 + signal
 * when it was killed. Returns 0, or -1 with the reason in err. */
static int run_command(const struct session *ss, int *status, char *err, size_t errlen)
{
	const char *old = getenv("LD_PRELOAD");
	char *set[4] = {NULL};
	struct runner_spec spec = {.path = ss->cmd[0],
	                           .argv = ss->cmd,
	                           .flags = RUNNER_FOREGROUND | RUNNER_PATH_SEARCH | RUNNER_NO_PAD |
	                                    RUNNER_DIE_WITH_PARENT | RUNNER_FORWARD_SIGNALS |
	                                    RUNNER_WAIT_ORPHANS,
	                           .orphan_wait_s = ss->wait_s,
	                           .exec_who = "record",
	                           .env_set = set};
	struct runner_result r;
	int rc = -1;

	if (asprintf(&set[0], "LD_PRELOAD=%s%s%s", ss->lib, old && *old ? ":" : "",
	             old && *old ? old : "") < 0)
		set[0] = NULL;
	if (asprintf(&set[1], "ALLOCAB_RECORD_DIR=%s", ss->dir) < 0)
		set[1] = NULL;
	if (asprintf(&set[2], "%s=%s/" RB_MARKS_FILE, PHASEMARK_ENV, ss->dir) < 0)
		set[2] = NULL;
	if (!set[0] || !set[1] || !set[2])
		snprintf(err, errlen, "out of memory");
	else if (runner_run(&spec, &r, err, errlen) == 0) {
		*status = r.end == RUNNER_EXITED ? r.exit_code : 128 + r.term_signal;
		if (r.orphans)
			fprintf(
			    stderr,
			    "allocab: record: warning: %zu %s COMMAND left in the background still "
			    "%s after %d s (%s): %s cut here and marked running in the trace\n",
			    r.orphans, r.orphans == 1 ? "process" : "processes",
			    r.orphans == 1 ? "runs" : "run", r.signal ? 0 : ss->wait_s,
			    r.orphan_names, r.orphans == 1 ? "its stream is" : "their streams are");
		runner_result_free(&r);
		rc = 0;
	}
	for (size_t i = 0; i < 3; i++)
		free(set[i]);
	return rc;
}

/* Writes the trace of ss->dir to ss->out (atomically). Returns 0, -2 when the directory holds no
 * stream (nothing written), or -1; the reason in err. */
static int write_trace(const struct session *ss, const struct phasemark_set *marks,
                       struct rb_result *res, int *in_place, char *err, size_t errlen)
{
	const char *out = ss->out;
	struct atomic_out o;
	char why[512];
	FILE *f;
	int fd, rc;

	if (atomic_begin(&o, out, err, errlen) != 0)
		return -1;
	*in_place = o.in_place;
	if ((fd = dup(o.fd)) < 0 || !(f = fdopen(fd, "wb"))) {
		if (fd >= 0)
			close(fd);
		atomic_abort(&o);
		return errmsg_fail(err, errlen, "%s: %s", out, strerror(errno));
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	rc = rb_bundle(ss->dir, marks, f, res, why, sizeof why);
	if (fclose(f) != 0 && rc == 0)
		rc = errmsg_fail(why, sizeof why, "%s", strerror(errno));
	if (rc != 0) {
		atomic_abort(&o);
		rb_result_free(res);
		if (rc == -2)
			return errmsg_fail(err, errlen, "%s", why), -2;
		return errmsg_fail(err, errlen, "%s: %s", out, why);
	}
	if (atomic_commit(&o, err, errlen) != 0) {
		rb_result_free(res);
		return -1;
	}
	return 0;
}

/* Whether loss l is of the kind-th sort report_losses names (a torn tail that comes with dropped
 * events is the same loss). */
static int loss_is(const struct rb_loss *l, int kind)
{
	uint64_t how = l->end[TRACE_END_HOW];

	switch (kind) {
	case 0:
		return how == TRACE_HOW_KILLED;
	case 1:
		return how == TRACE_HOW_RUNNING;
	case 2:
		return l->end[TRACE_END_DROPPED] != 0;
	case 3:
		return l->end[TRACE_END_TORN_BYTES] != 0 && !l->end[TRACE_END_DROPPED];
	default:
		return how == TRACE_HOW_UNKNOWN;
	}
}

/* One warning per kind of loss, with how many processes and a few of them. */
static void report_losses(const struct rb_result *res)
{
	static const char *const what[][2] = {
	    {"was killed or crashed before its end: the events its threads had not flushed are "
	     "lost",
	     "were killed or crashed before their end: the events their threads had not flushed "
	     "are lost"},
	    {"still ran when the trace was bundled: its stream is cut there",
	     "still ran when the trace was bundled: their streams are cut there"},
	    {"lost events: its stream could not be written",
	     "lost events: their streams could not be written"},
	    {"ended in a torn or unreadable block, dropped",
	     "ended in a torn or unreadable block, dropped"},
	    {"has no end record", "have no end record"}};

	for (int kind = 0; kind < 5; kind++) {
		char names[256] = "";
		size_t n = 0, k = 0;
		uint64_t dropped = 0, events = 0, e = 0;
		for (size_t i = 0; i < res->nlost; i++) {
			const struct rb_loss *l = &res->lost[i];
			if (!loss_is(l, kind))
				continue;
			dropped += l->end[TRACE_END_DROPPED];
			events += l->end[TRACE_END_EVENTS];
			e = e ? e : l->end[TRACE_END_WRITE_ERRNO];
			if (n++ < 3 && k < sizeof names)
				k +=
				    (size_t)snprintf(names + k, sizeof names - k,
				                     "%sprocess %zu pid %llu %s", n > 1 ? ", " : "",
				                     l->index, (unsigned long long)l->pid, l->name);
		}
		if (!n)
			continue;
		fprintf(stderr, "allocab: record: warning: %zu %s %s", n,
		        n == 1 ? "process" : "processes", what[kind][n != 1]);
		if (kind == 2)
			fprintf(stderr, " (%s): %llu of %llu events dropped",
			        e && e < 4096 ? strerror((int)e) : "a write failed",
			        (unsigned long long)dropped, (unsigned long long)events);
		fprintf(stderr, " (%s%s)\n", names, n > 3 ? ", ..." : "");
	}
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The phases the trace holds, and the marked spans it left out. */
static void report_marks(const struct rb_result *res)
{
	uint64_t by_pid = res->left_spans - res->left_without_pid - res->left_overlapping,
	         all = res->left_spans + res->marked_spans;

	if (res->marked_spans)
		fprintf(stderr, "allocab: record: phase marks: %llu %s of %llu %s in %llu %s\n",
		        (unsigned long long)res->marked_spans, plural(res->marked_spans, "span", "spans"),
		        (unsigned long long)res->marked_phases,
		        plural(res->marked_phases, "phase", "phases"),
		        (unsigned long long)res->marked_procs,
		        plural(res->marked_procs, "process", "processes"));
	if (!res->left_spans)
		return;
	fprintf(stderr, "allocab: record: warning: %llu of %llu marked %s left out of the trace:",
	        (unsigned long long)res->left_spans, (unsigned long long)all,
	        plural(all, "span", "spans"));
	if (by_pid)
		fprintf(stderr,
		        " %llu of a pid no recorded process image holds (pid %llu: not recorded, or "
		        "the span outlives its image);",
		        (unsigned long long)by_pid, (unsigned long long)res->left_pid);
	if (res->left_without_pid)
		fprintf(stderr, " %llu written without a pid while several processes or none ran;",
		        (unsigned long long)res->left_without_pid);
	if (res->left_overlapping)
		fprintf(stderr,
		        " %llu begun before an earlier span of their phase in their process ended;",
		        (unsigned long long)res->left_overlapping);
	fputs(" docs/trace-format.md, \"What is recorded\"\n", stderr);
}

static void report(const struct rb_result *res, const char *out, int in_place)
{
	fprintf(stderr,
	        "allocab: record: %llu process image%s (%llu ended in an exec), %llu event%s -> %s",
	        (unsigned long long)res->procs, res->procs == 1 ? "" : "s",
	        (unsigned long long)res->images_exec, (unsigned long long)res->events,
	        res->events == 1 ? "" : "s", out);
	if (in_place)
		fputc('\n', stderr);
	else
		fprintf(stderr, " (`allocab trace info %s`)\n", out);
	report_losses(res);
	if (res->unreadable)
		fprintf(
		    stderr,
		    "allocab: record: warning: %llu %s no readable process block (a full disk?): "
		    "%s not in the trace\n",
		    (unsigned long long)res->unreadable,
		    res->unreadable == 1 ? "stream holds" : "streams hold",
		    res->unreadable == 1 ? "its process is" : "their processes are");
	report_marks(res);
	if (res->misordered)
		fprintf(
		    stderr,
		    "allocab: record: warning: %llu %s an address still live in the recording's "
		    "order (the clocks of two CPUs disagreed): %s be paired wrongly\n",
		    (unsigned long long)res->misordered,
		    res->misordered == 1 ? "allocation returned" : "allocations returned",
		    res->misordered == 1 ? "its object may" : "their objects may");
}

/* Whether the trace lost events the program made because the recording itself failed. */
static int recording_failed(const struct rb_result *res)
{
	for (size_t i = 0; i < res->nlost; i++)
		if (res->lost[i].end[TRACE_END_DROPPED] || res->lost[i].end[TRACE_END_TORN_BYTES])
			return 1;
	return res->unreadable != 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Creates the empty marks file of COMMAND in dir; says why when it cannot (COMMAND then marks
 * nothing). Returns 0 or -1. */
static int create_marks(const char *dir)
{
	char path[PATH_MAX + 16];
	int fd;

	snprintf(path, sizeof path, "%s/" RB_MARKS_FILE, dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0)
		return close(fd);
	fprintf(stderr, "allocab: record: warning: cannot create the marks file %s: %s: phases are "
	                "not recorded\n",
	        path, strerror(errno));
	return -1;
}

/* Reads the marks COMMAND wrote between lo and hi (CLOCK_MONOTONIC ns) into *s; marks that break
 * the protocol are left out of the trace, with their reason on stderr. */
static void read_marks(const char *dir, int64_t lo, int64_t hi, struct phasemark_set *s)
{
	char path[PATH_MAX + 16], why[512];

	snprintf(path, sizeof path, "%s/" RB_MARKS_FILE, dir);
	if (phasemark_read(path, lo, hi, s, why, sizeof why) == 0)
		return;
	phasemark_free(s);
	errmsg_print(stderr, "record", "warning: phase marks left out of the trace: %s", why);
}

/* Runs the command and bundles its trace; the stream directory ss->dir exists. */
static int record(const struct session *ss)
{
	char **cmd = ss->cmd;
	const char *dir = ss->dir, *out = ss->out;
	char err[PATH_MAX + 256];
	struct rb_result res = {0};
	struct phasemark_set marks = {0};
	int status = 0, in_place = 0, rc, marked = create_marks(dir) == 0;
	int64_t lo = mono_ns();

	if (run_command(ss, &status, err, sizeof err) != 0) {
		errmsg_print(stderr, "record", "cannot run %s: %s", cmd[0], err);
		return ST_FAIL;
	}
	if (marked && status != 127)
		read_marks(dir, lo, mono_ns(), &marks);
	rc = write_trace(ss, &marks, &res, &in_place, err, sizeof err);
	phasemark_free(&marks);
	if (rc == -2 && status == 127) /* the command did not start; it said why */
		return 127;
	if (rc == -2) {
		errmsg_print(stderr, "record", "%s (%s exited %d): no trace written", err,
		        cmd[0], status);
		return status ? status : ST_FAIL;
	}
	if (rc != 0) {
		errmsg_print(stderr, "record", "%s", err);
		return status ? status : ST_FAIL;
	}
	report(&res, out, in_place);
	rc = recording_failed(&res);
	rb_result_free(&res);
	return status ? status : rc ? ST_FAIL : ST_OK;
}

/* Removes the stream directory; a warning lists what the command put in it besides its streams. */
static void remove_dir(const char *dir)
{
	struct rmtree_count c = {0};
	char what[160];
	int rc = rb_remove_streams(dir, &c), e = errno;

	if (rc != 0 || c.left)
		errmsg_print(stderr, "record", "warning: cannot remove %s (the command left %s): %s",
		             dir, rmtree_describe(&c, what, sizeof what), strerror(e));
	else if (c.files + c.dirs + c.links + c.others)
		errmsg_print(stderr, "record", "warning: removed what the command left in %s: %s",
		             dir, rmtree_describe(&c, what, sizeof what));
}

int trace_record(char **cmd, const char *out, int wait_s)
{
	const char *tmpdir = getenv("TMPDIR");
	char lib[PATH_MAX], dir[PATH_MAX], err[PATH_MAX + 256];
	int rc, claim;

	if (ownlib_find("record", "ALLOCAB_RECORD_LIB", lib, sizeof lib, err, sizeof err) != 0) {
		errmsg_print(stderr, "record", "%s", err);
		return ST_FAIL;
	}
	tmpdir = tmpdir && *tmpdir ? tmpdir : "/tmp";
	rb_remove_stale(tmpdir, stderr);
	snprintf(dir, sizeof dir, "%s/" RB_DIR_PREFIX "%ld.XXXXXX", tmpdir, (long)getpid());
	if (!mkdtemp(dir)) {
		errmsg_print(stderr, "record", "%s: %s", dir, strerror(errno));
		return ST_FAIL;
	}
	claim = sweep_claim(dir); /* rb_remove_stale leaves a claimed one alone */
	catch_signals();
	if (runner_adopt_orphans(err, sizeof err) != 0)
		fprintf(stderr,
		        "allocab: record: warning: cannot collect background processes: %s\n", err);
	rc = record(&(struct session){cmd, lib, dir, out, wait_s});
	remove_dir(dir);
	if (claim >= 0)
		close(claim);
	return rc;
}
