#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include <signal.h>
#include <sys/syscall.h>
#include <linux/sched.h>
/* clone(CLONE_PARENT|CLONE_UNTRACED): the child is a sibling of this process (a child of the
   bench) and execs sort with an environment without the probe */
static char *av[] = {"sort", "nums.txt", "-o", "/dev/null", NULL};
static char *env[] = {"PATH=/usr/bin:/bin", NULL};
int main(void)
{
	void *p = malloc(1000);
	free(p);
	long r = syscall(SYS_clone, CLONE_PARENT | CLONE_UNTRACED | SIGCHLD, 0, 0, 0, 0);
	if (r == 0) {
		syscall(SYS_execve, "/usr/bin/sort", av, env);
		_exit(9);
	}
	usleep(300000);
	return r < 0 ? 9 : 0;
}
