/* acct_hide.c - a program that hides CPU time from a run's accounting, one way per mode, for
 * tests/e2e/e2e_accounting.sh (docs/programs.md, "Accounting"). Every mode spends MS ms of CPU
 * time (default 300) somewhere; only `spin` spends it in plain sight.
 *
 *   spin MS           the work in this process (the honest run)
 *   thread_exec MS    a thread made with CLONE_THREAD | CLONE_UNTRACED raw-execs this program
 *                     (`spin MS`) with an environment without LD_PRELOAD; the main thread waits
 *   untraced_fork MS  a child made with clone(CLONE_UNTRACED) that never execs, never calls
 *                     malloc and ends with the exit_group system call (so the probe writes no
 *                     record of it) does the work; the parent waits for it
 *   hop MS            moves itself to its cgroup's parent for the work and back before it exits
 *                     (root)
 *   unwaited MS       a grandchild does the work; its parent exits at once and the first
 *                     process waits for it through a pipe, never with wait()
 * usage: acct_hide MODE [MS] */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long ms_arg = 300;
static char ms_text[32];
static char stack[1 << 16] __attribute__((aligned(16)));

/* Spends ms of this process's CPU time, allocating as it goes unless told not to. */
static void spin(long ms, int alloc)
{
	struct timespec t;
	volatile unsigned long x = 0;

	for (;;) {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		if (t.tv_sec * 1000 + t.tv_nsec / 1000000 >= ms)
			break;
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		if (alloc)
			free(malloc(64 + (x & 1023)));
	}
}

static int thread_exec(void *arg)
{
	char *av[] = {"acct_hide", "spin", ms_text, NULL};
	char *env[] = {"PATH=/usr/bin:/bin", NULL};

	(void)arg;
	syscall(SYS_execve, "/proc/self/exe", av, env);
	_exit(9);
}

/* The cgroup this process is in, as a directory, into out. */
static int own_cgroup(char *out, size_t len)
{
	char line[1024], mnt[512] = "", cg[1024] = "";
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(cg, sizeof cg, "%s", line + 3);
		}
	if (f)
		fclose(f);
	f = fopen("/proc/self/mountinfo", "r");
	while (f && fgets(line, sizeof line, f)) {
		char root[256], mp[256];

		if (strstr(line, " - cgroup2 ") &&
		    sscanf(line, "%*s %*s %*s %255s %255s", root, mp) == 2)
			snprintf(mnt, sizeof mnt, "%s", mp);
	}
	if (f)
		fclose(f);
	snprintf(out, len, "%s%s", mnt, cg);
	return mnt[0] && cg[0] ? 0 : -1;
}

static int move_to(const char *dir)
{
	char p[2100];
	FILE *f;
	int bad;

	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	if (!(f = fopen(p, "w")))
		return -1;
	bad = fprintf(f, "0\n") < 0;
	bad |= fclose(f) != 0;
	return bad ? -1 : 0;
}

static int hop(void)
{
	char own[2048], parent[2048];

	if (own_cgroup(own, sizeof own) != 0)
		return 8;
	snprintf(parent, sizeof parent, "%s", own);
	*strrchr(parent, '/') = 0;
	if (move_to(parent) != 0) {
		fprintf(stderr, "acct_hide: cannot leave %s: %s\n", own, strerror(errno));
		return 8;
	}
	spin(ms_arg, 1);
	if (move_to(own) != 0) {
		fprintf(stderr, "acct_hide: cannot return to %s: %s\n", own, strerror(errno));
		return 8;
	}
	return 0;
}

static int unwaited(void)
{
	int fd[2];
	char c;
	pid_t ch;

	if (pipe(fd) != 0 || (ch = fork()) < 0)
		return 8;
	if (ch == 0) {
		if (fork() == 0) {
			close(fd[0]);
			spin(ms_arg, 1);
			_exit(0);
		}
		_exit(0);
	}
	close(fd[1]);
	waitpid(ch, NULL, 0);
	while (read(fd[0], &c, 1) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "spin";
	long r;
	int st = 0;

	free(malloc(100));
	ms_arg = argc > 2 ? atol(argv[2]) : 300;
	snprintf(ms_text, sizeof ms_text, "%ld", ms_arg);
	if (!strcmp(mode, "spin")) {
		spin(ms_arg, 1);
		return 0;
	}
	if (!strcmp(mode, "thread_exec")) {
		if (clone(thread_exec, stack + sizeof stack,
		          CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		              CLONE_SYSVSEM | CLONE_UNTRACED,
		          NULL) < 0)
			return 8;
		for (;;)
			pause();
	}
	if (!strcmp(mode, "untraced_fork")) {
		r = syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
		if (r == 0) {
			spin(ms_arg, 0);
			syscall(SYS_exit_group, 0); /* not _exit, which the probe wraps */
		}
		if (r < 0)
			return 8;
		while (waitpid((pid_t)r, &st, 0) < 0 && errno == EINTR)
			;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 9;
	}
	if (!strcmp(mode, "hop"))
		return hop();
	if (!strcmp(mode, "unwaited"))
		return unwaited();
	fprintf(stderr, "acct_hide: unknown mode %s\n", mode);
	return 2;
}
