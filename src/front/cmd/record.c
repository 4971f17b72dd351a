/* record.c - `allocab record [-o FILE] [--] COMMAND [ARGS...]`: runs COMMAND with the recorder
 * library preloaded (docs/trace-format.md) and a marks file for the phases it marks
 * (ALLOCAB_PHASE_FILE, docs/programs.md), waits for it and for what it left running in the
 * background (orphans are re-parented to record), then bundles the raw streams it wrote and its
 * marks into one trace (front/cmd/recbundle.h), written atomically (common/atomicio.h), and says
 * what the trace lacks; marks that break the protocol are left out with their reason, never the
 * trace. Signals that stop record are passed on to COMMAND; the stream directory, marks file
 * included, is removed on every way out, and the next record removes those of recorders that
 * were killed. */
#include "front/cmd/commands.h"

#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/phasemark.h"
#include "common/status.h"
#include "common/trace.h"
#include "front/cmd/recbundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RECORD_LIB_NAME "liballocab-record.so"
#define BACKGROUND_S    10 /* how long record waits for what COMMAND left running, by default */

static volatile sig_atomic_t got_signal;
static volatile pid_t child_pid;

/* The recorder library: $ALLOCAB_RECORD_LIB, or beside the executable, or ../lib/allocab/. */
static int find_lib(char *out, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("ALLOCAB_RECORD_LIB");
	char exe[PATH_MAX], *dir;
	ssize_t n;

	if (env && *env) {
		if (access(env, R_OK) != 0)
			return errmsg_fail(err, errlen, "ALLOCAB_RECORD_LIB=%s: %s", env,
			                   strerror(errno));
		if (!realpath(env, out))
			return errmsg_fail(err, errlen, "%s: %s", env, strerror(errno));
		return 0;
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return errmsg_fail(err, errlen, "cannot find the allocab executable");
	exe[n] = '\0';
	dir = dirname(exe);
	snprintf(out, len, "%s/%s", dir, RECORD_LIB_NAME);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, len, "%s/../lib/allocab/%s", dir, RECORD_LIB_NAME);
	if (access(out, R_OK) == 0)
		return 0;
	return errmsg_fail(err, errlen, "%s not found beside %s (run make)", RECORD_LIB_NAME, dir);
}

/* SIGINT, SIGTERM, SIGHUP: remembered, and passed on to COMMAND when a process sent them (the
 * terminal sends its own to COMMAND's process group already). */
static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	got_signal = sig;
	if (child_pid > 0 && si->si_code <= 0)
		kill(child_pid, sig);
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

/* In the child: default signals, killed with SIGTERM if record dies, then COMMAND. */
static void exec_command(char **cmd, const char *preload, const char *dir, pid_t parent)
{
	char marks[PATH_MAX + 16];

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
		_exit(128 + SIGTERM);
	snprintf(marks, sizeof marks, "%s/" RB_MARKS_FILE, dir);
	setenv("LD_PRELOAD", preload, 1);
	setenv("ALLOCAB_RECORD_DIR", dir, 1);
	setenv(PHASEMARK_ENV, marks, 1);
	execvp(cmd[0], cmd);
	errmsg_print(stderr, "record", "%s: %s", cmd[0], strerror(errno));
	_exit(127);
}

static int run_command(char **cmd, const char *lib, const char *dir, int *status)
{
	const char *old = getenv("LD_PRELOAD");
	char *preload = NULL;
	pid_t pid, parent = getpid();
	int ws;

	if (asprintf(&preload, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exec_command(cmd, preload, dir, parent);
	free(preload);
	if (pid < 0)
		return -1;
	child_pid = pid;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -1;
	child_pid = 0;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return 0;
}

/* The pids of record's children still alive (orphans of COMMAND re-parented to it), into
 * pids[0..cap); returns how many there are. */
static size_t list_children(long *pids, size_t cap)
{
	char path[64];
	size_t n = 0;
	long pid;
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
	if (!(f = fopen(path, "r")))
		return 0;
	while (fscanf(f, "%ld", &pid) == 1)
		if (n++ < cap)
			pids[n - 1] = pid;
	fclose(f);
	return n;
}

/* "pid N NAME" for up to 3 of the n pids, into buf. */
static void name_pids(const long *pids, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < 3 && k < len; i++) {
		char path[64], comm[32] = "?";
		FILE *f;
		snprintf(path, sizeof path, "/proc/%ld/comm", pids[i]);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%31s", comm) != 1)
				strcpy(comm, "?");
			fclose(f);
		}
		k += (size_t)snprintf(buf + k, len - k, "%spid %ld %s", i ? ", " : "", pids[i],
		                      comm);
	}
	if (n > 3 && k < len)
		snprintf(buf + k, len - k, ", ...");
}

/* Waits up to BACKGROUND_S for what COMMAND left running (a signal ends the wait) and says what
 * still runs: its streams are cut when the trace is bundled. */
static void wait_background(int wait_s)
{
	const struct timespec nap = {0, 20000000};
	time_t until = time(NULL) + wait_s;
	char names[256];
	long pids[4];
	size_t n;
	int ws;

	for (;;) {
		pid_t p = waitpid(-1, &ws, WNOHANG);
		if (p > 0)
			continue;
		if ((p < 0 && errno == ECHILD) || got_signal || time(NULL) >= until)
			break;
		nanosleep(&nap, NULL);
	}
	if (!(n = list_children(pids, 4)))
		return;
	name_pids(pids, n, names, sizeof names);
	fprintf(stderr,
	        "allocab: record: warning: %zu %s COMMAND left in the background still %s after %d "
	        "s (%s): %s cut here and marked running in the trace\n",
	        n, n == 1 ? "process" : "processes", n == 1 ? "runs" : "run",
	        got_signal ? 0 : wait_s, names, n == 1 ? "its stream is" : "their streams are");
}

/* Writes the trace of dir to out (atomically). Returns 0, -2 when dir holds no stream (nothing
 * written), or -1; the reason in err. */
static int write_trace(const char *dir, const struct phasemark_set *marks, const char *out,
                       struct rb_result *res, int *in_place, char *err, size_t errlen)
{
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
	rc = rb_bundle(dir, marks, f, res, why, sizeof why);
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

enum { R_OUTPUT, R_WAIT, R_HELP, R_COUNT };

struct record_args {
	const char *out;
	unsigned wait_s;
	int first; /* argv index where COMMAND starts */
	int help;
};

static const struct opt record_opts[R_COUNT] = {
    [R_OUTPUT] = {"--output", 'o', OPT_VALUE | OPT_REPEAT | OPT_FILE, "FILE",
                  .help = "the trace file; written atomically, a device or FIFO written in place",
                  OPT_STRING(struct record_args, out), OPT_DEF_S("allocab.trace")},
    [R_WAIT] = {"--wait", 'w', OPT_VALUE | OPT_REPEAT, "SECONDS",
                .help = "how long to wait for processes COMMAND leaves running in the "
                        "background; what still runs is reported",
                OPT_UINT(struct record_args, wait_s), .lo = 0, .hi = 3600, OPT_DEF_U(BACKGROUND_S)},
    [R_HELP] = {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL},
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
    .nopts = R_COUNT,
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

	opt_defaults(record_opts, R_COUNT, a);
	opt_init(&p, argc, argv, 1, record_opts, R_COUNT);
	p.help = "allocab record";
	p.dashdash = 1;
	while ((k = opt_parse(&p, a, &v, err, sizeof err)) != OPT_DONE && k != OPT_ARG) {
		if (k == OPT_ERROR) {
			errmsg_print(stderr, "record", "%s", err);
			return -1;
		}
		a->help = 1; /* R_HELP, the only row without a destination */
		return 0;
	}
	a->first = k == OPT_ARG ? p.at : p.i;
	return 0;
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

/* Runs the command and bundles its trace; the stream directory dir exists. */
static int record(char **cmd, const char *lib, const char *dir, const char *out, int wait_s)
{
	char err[PATH_MAX + 256];
	struct rb_result res = {0};
	struct phasemark_set marks = {0};
	int status = 0, in_place = 0, rc, marked = create_marks(dir) == 0;
	int64_t lo = mono_ns();

	if (run_command(cmd, lib, dir, &status) != 0) {
		errmsg_print(stderr, "record", "cannot run %s: %s", cmd[0], strerror(errno));
		return ST_FAIL;
	}
	wait_background(wait_s);
	if (marked && status != 127)
		read_marks(dir, lo, mono_ns(), &marks);
	rc = write_trace(dir, &marks, out, &res, &in_place, err, sizeof err);
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

int record_main(int argc, char **argv)
{
	const char *tmpdir = getenv("TMPDIR");
	char lib[PATH_MAX], dir[PATH_MAX], err[PATH_MAX + 256];
	struct record_args a = {.first = argc};
	int rc;

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
	if (find_lib(lib, sizeof lib, err, sizeof err) != 0) {
		errmsg_print(stderr, "record", "%s", err);
		return ST_FAIL;
	}
	tmpdir = tmpdir && *tmpdir ? tmpdir : "/tmp";
	rb_remove_stale(tmpdir);
	snprintf(dir, sizeof dir, "%s/" RB_DIR_PREFIX "%ld.XXXXXX", tmpdir, (long)getpid());
	if (!mkdtemp(dir)) {
		errmsg_print(stderr, "record", "%s: %s", dir, strerror(errno));
		return ST_FAIL;
	}
	catch_signals();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		fprintf(stderr,
		        "allocab: record: warning: cannot collect background processes: %s\n",
		        strerror(errno));
	rc = record(argv + a.first, lib, dir, a.out, a.wait_s);
	remove_dir(dir);
	return rc;
}
