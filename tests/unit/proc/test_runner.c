/* test_runner.c - unit tests of the bench front end's pieces: option parsing and its bad inputs,
 * name lists, signal names, stderr tail
 * cleaning, the /proc parsers on fixed text, and the runner on tiny /bin/sh processes (exit,
 * signal, timeout, padding, capture, and each of the flags `allocab record` runs with).
 */
#include "front/cmd/benchopt.h"
#include "front/plan/plan.h"
#include "check.h"
#include "front/proc/proc.h"
#include "front/proc/telemetry.h"
#include "front/proc/runner.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ARGV(...) ((char *[]){"bench", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof(ARGV(__VA_ARGS__)) / sizeof(char *)) - 1)
/* Options keep pointers into argv: the arrays must outlive the checks, so they are named. */
#define DECL(v, ...)        char *v[] = {"bench", __VA_ARGS__, NULL}
#define PARSE(o, v)         parse((int)(sizeof(v) / sizeof(v[0])) - 1, v, o)
#define BAD(name, msg, ...) bad(name, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), msg)

static char err[512];

static int parse(int argc, char **argv, struct bench_opts *o)
{
	err[0] = '\0';
	return bench_parse_args(argc, argv, o, err, sizeof err);
}

/* Parses argv, expects failure with msg in the reason. */
static void bad(const char *name, int argc, char **argv, const char *msg)
{
	struct bench_opts o;
	int rc = parse(argc, argv, &o);

	CHECK(rc == -1 && strstr(err, msg) && !strchr(err, '\n'), "bad input: %s -> '%s'", name,
	      err);
	if (rc == 0)
		bench_opts_free(&o);
}

static void test_defaults(void)
{
	char *v[] = {"bench", NULL};
	struct bench_opts o;

	CHECK(parse(1, v, &o) == 0, "no options parse");
	CHECK(o.cfg.rounds == 10 && o.cfg.warmup == 1 && o.cfg.min_rounds == 3, "default rounds 10, warm-up 1, "
	                                                            "min 3");
	CHECK(o.cfg.timeout_s == 120 && o.cfg.pad_max == 4096 && o.cfg.budget_s == 0, "default timeout 120 s, "
	                                                                  "pad 4096, no budget");
	CHECK(o.cfg.seed == 42 && !o.seed_set && strcmp(o.cfg.scale, "default") == 0 && o.cfg.reps == 0,
	      "default seed 42, scale default, reps auto (0)");
	CHECK(!o.allocators && !o.workloads && !o.out && !o.quiet && !o.gate_argv && !o.ncmds,
	      "nothing else set by default");
	bench_opts_free(&o);
}

static void test_good(void)
{
	struct bench_opts o;
	DECL(v1, "-asystem,mimalloc", "-w", "pipeline", "--rounds=5", "--budget", "2.5", "--param",
	     "rows=10", "--param=cols=3", "-q", "--seed", "9007199254740991", "--shuffle-seed", "0",
	     "--pad-max", "0", "--warmup", "0");
	DECL(v2, "--budget", "270");
	DECL(v3, "--cmd", "a=true", "--cmd", "b.2=sleep 0 && true", "-o", "x.json", "--gate",
	     "--candidate", "b.2", "--rounds", "nonsense");
	DECL(v4, "--rounds", "4", "--gate", "--candidate", "x");
	DECL(v5, "--rounds", "x", "--help");
	DECL(v6, "--help");

	CHECK(PARSE(&o, v1) == 0, "full drivers command line parses (%s)", err);
	CHECK(strcmp(o.allocators, "system,mimalloc") == 0 && strcmp(o.workloads, "pipeline") == 0,
	      "-aVALUE and -w VALUE");
	CHECK(o.cfg.rounds == 5 && o.rounds_set && o.cfg.budget_s == 2.5 && o.cfg.min_rounds == 3,
	      "--rounds=5 with --budget 2.5");
	CHECK(o.cfg.nparams == 2 && strcmp(o.cfg.params[1], "cols=3") == 0, "two --param, = form");
	CHECK(o.quiet && o.cfg.seed == 9007199254740991ULL && o.shuffle_seed_set && o.cfg.shuffle_seed == 0,
	      "quiet, seed 2^53-1, shuffle seed 0");
	CHECK(o.cfg.pad_max == 0 && o.cfg.warmup == 0, "--pad-max 0 and --warmup 0 are allowed");
	bench_opts_free(&o);

	CHECK(PARSE(&o, v2) == 0 && o.cfg.rounds == 0 && o.cfg.budget_s == 270,
	      "--budget alone: no round limit");
	bench_opts_free(&o);

	CHECK(PARSE(&o, v3) == 0, "--cmd mode with --gate parses (%s)", err);
	CHECK(o.ncmds == 2 && strcmp(o.cmd_names[1], "b.2") == 0 &&
	          strcmp(o.cmd_lines[1], "sleep 0 && true") == 0,
	      "--cmd split at the first '='");
	CHECK(o.gate_argc == 5 && strcmp(o.gate_argv[0], "--gate") == 0 &&
	          strcmp(o.gate_argv[4], "nonsense") == 0,
	      "everything after --gate is left to the gate");
	CHECK(o.cfg.min_rounds == 6, "--gate looks first after 6 rounds by default");
	bench_opts_free(&o);

	CHECK(PARSE(&o, v4) == 0 && o.cfg.min_rounds == 4, "--gate with --rounds 4: min rounds 4");
	bench_opts_free(&o);

	CHECK(PARSE(&o, v5) == -1, "a bad option before --help still fails");
	CHECK(PARSE(&o, v6) == 0 && o.help, "--help");
	bench_opts_free(&o);
}

static void test_bad(void)
{
	BAD("unknown option", "unknown option", "--frobnicate");
	BAD("stray argument", "unexpected argument", "pipeline");
	BAD("missing value", "--rounds needs a value", "--rounds");
	BAD("missing -a value", "-a needs a value", "-a");
	BAD("non-numeric rounds", "--rounds: 'ten' is not a whole number", "--rounds", "ten");
	BAD("zero rounds", "--rounds: 0 is out of range [1, 100000]", "--rounds", "0");
	BAD("negative seed", "--seed", "--seed", "-1");
	BAD("seed above 2^53-1", "--seed: 9007199254740992 is out of range [0, 9007199254740991]",
	    "--seed", "9007199254740992");
	BAD("trailing junk", "--reps", "--reps", "3x");
	BAD("zero budget", "--budget", "--budget", "0");
	BAD("nan timeout", "--timeout", "--timeout", "nan");
	BAD("huge timeout", "--timeout", "--timeout", "1e99");
	BAD("unknown scale", "--scale: 'huge' is not one of small, default, large", "--scale", "huge");
	BAD("param without =", "not KEY=VALUE", "--param", "rows");
	BAD("param empty value", "not KEY=VALUE", "--param", "rows=");
	BAD("param bad key", "not a parameter name", "--param", "Rows=1");
	BAD("param twice", "given twice", "--param", "a=1", "--param", "a=2");
	BAD("option twice", "--rounds is given twice", "--rounds", "3", "--rounds", "4");
	BAD("one --cmd", "at least two commands", "--cmd", "a=true");
	BAD("duplicate --cmd", "given twice", "--cmd", "a=true", "--cmd", "a=false");
	BAD("bad --cmd name", "NAME=COMMAND", "--cmd", "a b=true", "--cmd", "c=true");
	BAD("empty --cmd", "empty command", "--cmd", "a=  ", "--cmd", "c=true");
	BAD("--cmd with -a", "cannot be combined with", "--cmd", "a=true", "--cmd", "b=true", "-a",
	    "system");
	BAD("--cmd with --param", "--param", "--cmd", "a=true", "--cmd", "b=true", "--param",
	    "x=1");
	BAD("-o -", "needs a file name", "-o", "-");
	BAD("-o with --results-dir", "--output cannot be combined with --results-dir", "-o", "x",
	    "--results-dir", "d");
	BAD("min rounds above rounds", "more than --rounds", "--rounds", "3", "--min-rounds", "5");
	BAD("min rounds above the default rounds",
	    "--min-rounds 12 is more than the default of 10 rounds (--rounds)", "--min-rounds", "12");
	BAD("pad too large", "--pad-max", "--pad-max", "70000");
}

static void test_lists(void)
{
	char **v = NULL;
	int n;

	n = bench_split_list("system,mimalloc", "-a", &v, err, sizeof err);
	CHECK(n == 2 && strcmp(v[0], "system") == 0 && strcmp(v[1], "mimalloc") == 0, "split list");
	bench_free_list(v, n > 0 ? (size_t)n : 0);
	CHECK(bench_split_list("a,,b", "-a", &v, err, sizeof err) == -1 && strstr(err, "empty"),
	      "empty list item refused");
	CHECK(bench_split_list("", "-w", &v, err, sizeof err) == -1, "empty list refused");
	CHECK(bench_split_list("a,b,a", "-a", &v, err, sizeof err) == -1 &&
	          strstr(err, "'a' is given twice"),
	      "duplicate list item refused");
	CHECK(bench_split_list("a b", "-a", &v, err, sizeof err) == -1 &&
	          strstr(err, "not a valid name"),
	      "name with a space refused");

}

static void test_signals_and_tail(void)
{
	char out[64];
	size_t n;

	CHECK(strcmp(runner_signal_name(SIGSEGV), "SIGSEGV") == 0, "SIGSEGV named");
	CHECK(strcmp(runner_signal_name(SIGKILL), "SIGKILL") == 0, "SIGKILL named");
	CHECK(strcmp(runner_signal_name(SIGABRT), "SIGABRT") == 0, "SIGABRT named");
	CHECK(runner_signal_name(0) == NULL && runner_signal_name(SIGRTMIN + 1) == NULL,
	      "no name for 0 or a real-time signal");

	n = runner_clean_tail("a\nb\n\n", 5, 0, out);
	CHECK(n == 3 && strcmp(out, "a\nb") == 0, "tail: trailing newlines dropped");
	n = runner_clean_tail("tial\nline2\nline3\n", 17, 1, out);
	CHECK(strcmp(out, "line2\nline3") == 0 && n == 11, "cut tail starts at a whole line");
	n = runner_clean_tail("abcdef", 6, 1, out);
	CHECK(strcmp(out, "abcdef") == 0, "cut tail without a newline kept");
	n = runner_clean_tail("\xa9\xa9xyz", 5, 1, out);
	CHECK(strcmp(out, "xyz") == 0, "cut tail drops a split UTF-8 character");
	n = runner_clean_tail("a\xff"
	                      "b\xc3\xa9",
	                      5, 0, out);
	CHECK(strcmp(out, "a?b\xc3\xa9") == 0, "invalid byte replaced, valid UTF-8 kept");
	n = runner_clean_tail("\xc0\x80|\xed\xa0\x80|\0|", 9, 0, out);
	CHECK(strcmp(out, "??|???|?|") == 0, "overlong, surrogate and NUL replaced ('%s')", out);
	(void)n;
}

static void test_telemetry(void)
{
	const char *stat = "cpu  2127 0 2196 91146 744 0 86 301 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
	uint64_t steal = 0;
	double load = 0;

	CHECK(telemetry_parse_steal(stat, &steal) == 0 && steal == 301, "steal column of cpu line");
	CHECK(telemetry_parse_steal("intr 5\ncpu  1 2 3 4 5 6 7 42\n", &steal) == 0 && steal == 42,
	      "cpu line found after another line");
	CHECK(telemetry_parse_steal("cpu  1 2 3 4 5 6 7\n", &steal) == -1,
	      "no steal column: unknown");
	CHECK(telemetry_parse_steal("cpu0 1 2 3 4 5 6 7 8\n", &steal) == -1,
	      "per-CPU lines are not the aggregate");
	CHECK(telemetry_parse_steal("", &steal) == -1, "empty /proc/stat");
	CHECK(telemetry_parse_loadavg("0.11 0.12 0.05 1/93 5639\n", &load) == 0 && load == 0.11,
	      "loadavg first field");
	CHECK(telemetry_parse_loadavg("abc", &load) == -1 &&
	          telemetry_parse_loadavg("", &load) == -1 &&
	          telemetry_parse_loadavg("1.5x 1 1", &load) == -1,
	      "loadavg garbage refused");
	unsigned run = 0;
	CHECK(telemetry_parse_runnable("0.11 0.12 0.05 3/93 5639\n", &run) == 0 && run == 3,
	      "runnable: R of the fourth field R/T");
	CHECK(telemetry_parse_runnable("0.11 0.12 0.05 93 5639\n", &run) == -1 &&
	          telemetry_parse_runnable("0.11 0.12 0.05 0/93 1\n", &run) == -1 &&
	          telemetry_parse_runnable("0.11 0.12\n", &run) == -1 &&
	          telemetry_parse_runnable("", &run) == -1 && run == 3,
	      "runnable: no R/T field, R of 0 or a short line refused");
	struct telemetry_sample t;
	telemetry_sample(&t);
	CHECK(t.have_runnable && t.runnable >= 1, "runnable: this process is running as it reads");
}

static int sh(const char *cmd, size_t pad, double timeout, struct runner_result *r)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	struct runner_spec s = {.path = "/bin/sh",
	                        .argv = argv,
	                        .pad_bytes = pad,
	                        .timeout_s = timeout,
	                        .grace_s = 1,
	                        .capture_stdout = 1};

	return runner_run(&s, r, err, sizeof err);
}

static void test_runner(void)
{
	struct runner_result r;
	volatile sig_atomic_t stop = 1;
	char *argv[] = {"x", NULL};
	struct runner_spec s = {
	    .path = "/nonexistent/allocab-x", .argv = argv, .timeout_s = 5, .grace_s = 1};

	CHECK(sh("printf hello; echo oops >&2; exit 3", 0, 10, &r) == 0 && r.end == RUNNER_EXITED &&
	          r.exit_code == 3,
	      "exit status 3");
	CHECK(r.out && strcmp(r.out, "hello") == 0 && strcmp(r.tail, "oops") == 0,
	      "stdout captured, stderr tail kept");
	CHECK(r.wall_ns > 0 && r.max_rss_kib > 0, "wall time and max RSS recorded");
	runner_result_free(&r);

	CHECK(sh("printf %s \"${#ALLOCAB_PAD}\"", 1234, 10, &r) == 0 && r.out &&
	          strcmp(r.out, "1234") == 0,
	      "ALLOCAB_PAD has pad_bytes bytes");
	runner_result_free(&r);
	setenv("ALLOCAB_PAD", "xx", 1);
	CHECK(sh("env | grep -c '^ALLOCAB_PAD='", 0, 10, &r) == 0 && r.out &&
	          strcmp(r.out, "1\n") == 0,
	      "an inherited ALLOCAB_PAD is replaced, not doubled");
	unsetenv("ALLOCAB_PAD");
	runner_result_free(&r);

	CHECK(sh("kill -SEGV $$", 0, 10, &r) == 0 && r.end == RUNNER_SIGNALED &&
	          r.term_signal == SIGSEGV,
	      "death by SIGSEGV");
	runner_result_free(&r);

	CHECK(sh("sleep 20", 0, 0.2, &r) == 0 && r.end == RUNNER_TIMEOUT &&
	          r.term_signal == SIGTERM && r.wall_ns < 10000000000LL,
	      "timeout: SIGTERM to the group, run ends early");
	runner_result_free(&r);

	CHECK(sh("trap '' TERM; sleep 20 & wait; wait", 0, 0.2, &r) == 0 &&
	          r.end == RUNNER_TIMEOUT && r.term_signal == SIGKILL,
	      "timeout: SIGKILL after the grace period when SIGTERM is ignored");
	runner_result_free(&r);

	CHECK(sh("i=0; while [ $i -lt 400 ]; do echo line$i >&2; i=$((i+1)); done", 0, 20, &r) ==
	              0 &&
	          r.tail_len <= RUNNER_TAIL_MAX && strncmp(r.tail, "line", 4) == 0 &&
	          strcmp(r.tail + r.tail_len - 7, "line399") == 0,
	      "long stderr: last whole lines, at most 1 KiB (%zu bytes)", r.tail_len);
	runner_result_free(&r);

	CHECK(runner_run(&s, &r, err, sizeof err) == 0 && r.end == RUNNER_EXITED &&
	          r.exit_code == 127 && strstr(r.tail, "cannot execute /nonexistent/allocab-x"),
	      "exec failure: exit 127 with the reason on stderr");
	runner_result_free(&r);

	s.path = "/bin/true";
	s.stop = &stop;
	CHECK(runner_run(&s, &r, err, sizeof err) == 0 && r.end == RUNNER_STOPPED,
	      "stop already requested: nothing runs");
	runner_result_free(&r);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs `sh -c cmd` with flags (capturing stdout unless in the foreground). */
static int sh_flags(const char *path, const char *cmd, unsigned flags, char *const *set,
                    struct runner_result *r)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	struct runner_spec s = {.path = path,
	                        .argv = argv,
	                        .timeout_s = 20,
	                        .grace_s = 1,
	                        .capture_stdout = 1,
	                        .flags = flags,
	                        .env_set = set};

	return runner_run(&s, r, err, sizeof err);
}

/* The flags `allocab record` runs its COMMAND with (docs/trace-format.md): each on its own. */
static void test_runner_flags(void)
{
	struct runner_result r;
	char cmd[160], *set[] = {"AB_FIRST=2", "AB_NEW=3", NULL};
	char *argv[] = {"x", NULL};
	struct runner_spec s = {.path = "/nonexistent/allocab-x",
	                        .argv = argv,
	                        .timeout_s = 5,
	                        .grace_s = 1,
	                        .capture_stdout = 1,
	                        .exec_who = "record"};
	struct sigaction cur;
	const char *a, *b;

	CHECK(sh_flags("sh", "exit 4", RUNNER_PATH_SEARCH, NULL, &r) == 0 &&
	          r.end == RUNNER_EXITED && r.exit_code == 4,
	      "RUNNER_PATH_SEARCH: sh is found on PATH (exit 4)");
	runner_result_free(&r);
	CHECK(sh_flags("sh", "exit 4", 0, NULL, &r) == 0 && r.exit_code == 127 &&
	          strstr(r.tail, "cannot execute sh"),
	      "without it, sh is not searched for: exit 127");
	runner_result_free(&r);
	CHECK(runner_run(&s, &r, err, sizeof err) == 0 && r.exit_code == 127 &&
	          strcmp(r.tail, "allocab: record: /nonexistent/allocab-x: No such file or "
	                         "directory") == 0,
	      "exec_who: the exec failure line names the command ('%s')", r.tail);
	runner_result_free(&r);

	setenv("ALLOCAB_PAD", "xx", 1);
	CHECK(sh_flags("/bin/sh", "printf %s \"$ALLOCAB_PAD\"", RUNNER_NO_PAD, NULL, &r) == 0 &&
	          r.out && strcmp(r.out, "xx") == 0,
	      "RUNNER_NO_PAD: the inherited ALLOCAB_PAD is kept as it is");
	unsetenv("ALLOCAB_PAD");
	runner_result_free(&r);

	setenv("AB_FIRST", "1", 1);
	setenv("AB_AFTER", "x", 1);
	s = (struct runner_spec){.path = "/usr/bin/env",
	                         .argv = (char *[]){"env", NULL},
	                         .timeout_s = 20,
	                         .capture_stdout = 1,
	                         .env_set = set};
	CHECK(runner_run(&s, &r, err, sizeof err) == 0 && r.out &&
	          (a = strstr(r.out, "\nAB_FIRST=2\n")) && (b = strstr(r.out, "\nAB_AFTER=x\n")) &&
	          a < b && strstr(r.out, "\nAB_NEW=3\n") > b && !strstr(r.out, "AB_FIRST=1") &&
	          strstr(a + 1, "\nAB_FIRST=") == NULL,
	      "env_set as setenv: a variable replaced in its place, a new one at the end");
	unsetenv("AB_FIRST");
	unsetenv("AB_AFTER");
	runner_result_free(&r);

	snprintf(cmd, sizeof cmd, "read -r a b c d g rest </proc/$$/stat; [ \"$g\" = %ld ]",
	         (long)getpgrp());
	CHECK(sh_flags("/bin/sh", cmd, RUNNER_FOREGROUND, NULL, &r) == 0 && r.exit_code == 0 &&
	          !r.out && r.tail_len == 0,
	      "RUNNER_FOREGROUND: the child is in this process group, nothing captured");
	runner_result_free(&r);
	CHECK(sh_flags("/bin/sh", cmd, 0, NULL, &r) == 0 && r.exit_code == 1,
	      "by default the child has a process group of its own");
	runner_result_free(&r);

	CHECK(sh_flags("/bin/sh", "kill -TERM $PPID; exec sleep 5",
	               RUNNER_FOREGROUND | RUNNER_FORWARD_SIGNALS, NULL, &r) == 0 &&
	          r.end == RUNNER_SIGNALED && r.term_signal == SIGTERM && r.signal == SIGTERM,
	      "RUNNER_FORWARD_SIGNALS: a SIGTERM sent to this process goes to the child (end %d, "
	      "signal %d)",
	      (int)r.end, r.term_signal);
	runner_result_free(&r);
	CHECK(sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL,
	      "RUNNER_FORWARD_SIGNALS: the caller's SIGTERM disposition is back");

	CHECK(runner_adopt_orphans(err, sizeof err) == 0, "runner_adopt_orphans (%s)", err);
	s = (struct runner_spec){.path = "/bin/sh",
	                         .argv = (char *[]){"sh", "-c", "(sleep 0.3; exit 0) & exit 0", NULL},
	                         .flags = RUNNER_FOREGROUND | RUNNER_WAIT_ORPHANS,
	                         .orphan_wait_s = 20};
	CHECK(runner_run(&s, &r, err, sizeof err) == 0 && r.exit_code == 0 && r.orphans == 0 &&
	          waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
	      "RUNNER_WAIT_ORPHANS: the subshell left behind is waited for and reaped");
	runner_result_free(&r);
	s.argv = (char *[]){"sh", "-c", "sleep 20 & exit 0", NULL};
	s.orphan_wait_s = 0.2;
	CHECK(runner_run(&s, &r, err, sizeof err) == 0 && r.orphans == 1 &&
	          strstr(r.orphan_names, " sleep") && !strncmp(r.orphan_names, "pid ", 4),
	      "RUNNER_WAIT_ORPHANS: what still runs at the end of the wait is named ('%s')",
	      r.orphan_names);
	if (r.orphans == 1 && atol(r.orphan_names + 4) > 0)
		kill((pid_t)atol(r.orphan_names + 4), SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	runner_result_free(&r);
	s.argv = (char *[]){"sh", "-c", "sleep 20 & kill -HUP $PPID; exit 0", NULL};
	s.orphan_wait_s = 20;
	s.flags |= RUNNER_FORWARD_SIGNALS;
	int64_t t0 = mono_ns();
	CHECK(runner_run(&s, &r, err, sizeof err) == 0 && r.signal == SIGHUP && r.orphans == 1 &&
	          mono_ns() - t0 < 10000000000LL,
	      "RUNNER_WAIT_ORPHANS: a caught signal ends the wait (signal %d, %zu left)", r.signal,
	      r.orphans);
	if (r.orphans == 1 && atol(r.orphan_names + 4) > 0)
		kill((pid_t)atol(r.orphan_names + 4), SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	runner_result_free(&r);
}

/* Progress lines fit the terminal: cut to width - 1 columns with "...", $COLUMNS when the
 * descriptor is not a terminal, TERM=dumb and --quiet choose their modes. */
static void test_progress(void)
{
	char line[128] = "round 3/14, run 2/40, 0:42 elapsed, ~2:10 left | median: system 1.2 s";
	int fd[2];

	progress_fit(line, 200);
	CHECK(strlen(line) == 69, "progress_fit: a short line stays whole");
	progress_fit(line, 40);
	CHECK(strlen(line) == 39 && !strcmp(line + 36, "..."),
	      "progress_fit: cut to 39 + '...': %s", line);
	CHECK(pipe(fd) == 0, "pipe");
	setenv("COLUMNS", "123", 1);
	CHECK(progress_width(fd[1]) == 123, "progress_width: $COLUMNS off a terminal");
	setenv("COLUMNS", "junk", 1);
	CHECK(progress_width(fd[1]) == 80, "progress_width: 80 by default");
	unsetenv("COLUMNS");
	CHECK(progress_mode_for(1, fd[1]) == PROGRESS_NONE, "progress mode: quiet is none");
	CHECK(progress_mode_for(0, fd[1]) == PROGRESS_LINES, "progress mode: a pipe gets lines");
	close(fd[0]);
	close(fd[1]);
}

int main(void)
{
	test_progress();
	test_defaults();
	test_good();
	test_bad();
	test_lists();
	test_signals_and_tail();
	test_telemetry();
	test_runner();
	test_runner_flags();
	return CHECK_DONE();
}
