/* test_ptrack.c - the runner with process tracking (front/proc/ptrack.h) on tiny /bin/sh processes:
 * every exec seen, however it was made (plain, exec chain, a background child, a program that
 * left the process group); threads not counted as processes; and the run itself unchanged by the
 * tracker: exit status, death by a signal, a stop and its SIGCONT, the timeout's SIGTERM and
 * SIGKILL, stdout and stderr. The test hook that makes ptrace refuse. */
#include "check.h"
#include "front/proc/ptrack.h"
#include "front/proc/proc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[512];

static int sh(const char *cmd, double timeout, struct runner_result *r)
{
	char *argv[] = {"sh", "-c", (char *)cmd, NULL};
	struct runner_spec s = {.path = "/bin/sh",
	                        .argv = argv,
	                        .timeout_s = timeout,
	                        .grace_s = 1,
	                        .capture_stdout = 1,
	                        .track = 1};

	return runner_run(&s, r, err, sizeof err);
}

/* How many images of the run ran the executable whose path ends with name. */
static size_t images_of(const struct runner_result *r, const char *name)
{
	size_t n = 0, k = strlen(name);

	for (size_t i = 0; r->track && i < r->track->nimages; i++) {
		const char *e = r->track->images[i].exe;
		size_t len = strlen(e);

		n += len >= k && strcmp(e + len - k, name) == 0;
	}
	return n;
}

static int traced(const struct runner_result *r)
{
	return r->track && r->track->mode == PTRACK_TRACED;
}

static void test_seen(void)
{
	struct runner_result r;

	CHECK(sh("true; /bin/true; env true; exit 5", 10, &r) == 0 && traced(&r) &&
	          r.end == RUNNER_EXITED && r.exit_code == 5,
	      "tracked: exit status 5 unchanged");
	CHECK(images_of(&r, "/dash") == 1 && images_of(&r, "/true") == 2 &&
	          images_of(&r, "/env") == 1 && r.track->processes == 3,
	      "every exec seen: sh, true twice (once through env), env; 3 processes (%zu images, "
	      "%zu processes)",
	      r.track ? r.track->nimages : 0, r.track ? r.track->processes : 0);
	runner_result_free(&r);

	CHECK(sh("exec env sh -c 'exec true'", 10, &r) == 0 && traced(&r) && r.exit_code == 0 &&
	          r.track->nimages == 4 && r.track->processes == 1 &&
	          r.track->images[3].pid == r.pid,
	      "an exec chain in one process: four images of one pid");
	runner_result_free(&r);

	CHECK(sh("printf out; echo err >&2; (sleep 0.1; /bin/true) & wait", 10, &r) == 0 &&
	          traced(&r) && r.out && strcmp(r.out, "out") == 0 && strcmp(r.tail, "err") == 0 &&
	          images_of(&r, "/true") == 1 && images_of(&r, "/sleep") == 1,
	      "a background subshell's programs seen; stdout and stderr captured as untraced");
	runner_result_free(&r);

	CHECK(
	    sh("/usr/bin/python3 -c 'import threading; t=[threading.Thread(target=len, args=((),)) "
	       "for _ in range(5)]; [x.start() for x in t]; [x.join() for x in t]'",
	       20, &r) == 0 &&
	        traced(&r) && r.exit_code == 0 && r.track->threads >= 5 && r.track->processes == 2,
	    "threads are counted apart: 5 threads, 2 processes (%zu, %zu)",
	    r.track ? r.track->threads : 0, r.track ? r.track->processes : 0);
	runner_result_free(&r);
}

static void test_unchanged(void)
{
	struct runner_result r;
	int fine = 1;

	/* The runner sees its child's ptrace stops in waitid whatever the flags: a stop taken for
	 * the end of the run killed the shell with SIGKILL now and then (about one run in a hundred
	 * of 200 forks: this catches it only sometimes). */
	for (int i = 0; i < 3 && fine; i++) {
		fine =
		    sh("i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i+1)); done", 60, &r) == 0 &&
		    traced(&r) && r.end == RUNNER_EXITED && r.exit_code == 0 &&
		    r.track->processes == 301;
		runner_result_free(&r);
	}
	CHECK(fine,
	      "tracked: a shell that forks 900 times in three runs ends with exit 0 every time");
	char pidfile[] = "/tmp/test_ptrack.XXXXXX", cmd[256];
	FILE *f;
	long escaped = 0;
	int fd;

	CHECK(sh("kill -SEGV $$", 10, &r) == 0 && traced(&r) && r.end == RUNNER_SIGNALED &&
	          r.term_signal == SIGSEGV,
	      "tracked: death by SIGSEGV unchanged");
	runner_result_free(&r);

	CHECK(sh("(sleep 0.2; kill -CONT $$) & kill -STOP $$; echo resumed", 10, &r) == 0 &&
	          traced(&r) && r.exit_code == 0 && r.out && strcmp(r.out, "resumed\n") == 0,
	      "tracked: a stopped shell stays stopped until SIGCONT, then goes on");
	runner_result_free(&r);

	CHECK(sh("trap 'echo got TERM; exit 7' TERM; sleep 20 & wait", 0.3, &r) == 0 &&
	          traced(&r) && r.end == RUNNER_TIMEOUT && r.exit_code == 7 && r.out &&
	          strcmp(r.out, "got TERM\n") == 0,
	      "tracked: the timeout's SIGTERM reaches the shell's trap");
	runner_result_free(&r);

	CHECK(sh("trap '' TERM; sleep 20 & wait; wait", 0.2, &r) == 0 && traced(&r) &&
	          r.end == RUNNER_TIMEOUT && r.term_signal == SIGKILL,
	      "tracked: SIGKILL after the grace period when SIGTERM is ignored");
	runner_result_free(&r);

	if ((fd = mkstemp(pidfile)) < 0)
		return;
	close(fd);
	snprintf(cmd, sizeof cmd, "setsid sleep 3 & echo $! > %s", pidfile);
	CHECK(sh(cmd, 10, &r) == 0 && traced(&r) && r.exit_code == 0, "a program leaves the group");
	runner_result_free(&r);
	if ((f = fopen(pidfile, "r"))) {
		if (fscanf(f, "%ld", &escaped) != 1)
			escaped = 0;
		fclose(f);
	}
	unlink(pidfile);
	snprintf(cmd, sizeof cmd, "/proc/%ld/status", escaped);
	if ((f = escaped > 0 ? fopen(cmd, "r") : NULL)) {
		char line[256];
		long tracer = -1;

		while (fgets(line, sizeof line, f))
			if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
				break;
		fclose(f);
		CHECK(tracer == 0, "... it goes on after the run, detached (TracerPid %ld)",
		      tracer);
		kill((pid_t)escaped, SIGKILL);
	} else {
		CHECK(0, "... it goes on after the run (pid %ld not found)", escaped);
	}
}

static void test_refused(void)
{
	struct runner_result r;
	char why[64];

	setenv(PTRACK_REFUSE_VAR, "1", 1);
	CHECK(sh("exit 3", 10, &r) == 0 && r.track && r.track->mode == PTRACK_REFUSED &&
	          r.exit_code == 3 && r.track->nimages == 0,
	      "test hook: ptrace refused, the run goes on untracked");
	CHECK(strcmp(ptrack_describe(r.track, why, sizeof why), "probe only (ptrace: EPERM)") == 0,
	      "refused: '%s'", why);
	runner_result_free(&r);
	CHECK(!ptrack_available(why, sizeof why) && strcmp(why, "ptrace: EPERM") == 0,
	      "test hook: the trial attach says 'ptrace: EPERM' (%s)", why);
	unsetenv(PTRACK_REFUSE_VAR);
	CHECK(ptrack_available(why, sizeof why), "without the hook this process may trace");
}

int main(void)
{
	test_seen();
	test_unchanged();
	test_refused();
	return CHECK_DONE();
}
