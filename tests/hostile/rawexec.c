/* rawexec.c - starts `sort nums.txt` past the probe's exec wrappers (docs/programs.md, "Process
 * tracking"); tests/e2e_proof.sh benches it in every mode and expects every arm unverified:
 *   raw       syscall(SYS_execve) with a clean environment
 *   rawkeep   syscall(SYS_execve) keeping the environment: the probe stays, the run is verified
 *   system    system() after unsetenv("LD_PRELOAD") (glibc spawns its shell internally)
 *   popen     popen() likewise
 *   fexecve   fexecve() with a clean environment
 *   execveat  execveat(AT_EMPTY_PATH) with a clean environment
 *   jemalloc  syscall(SYS_execve) with LD_PRELOAD=libjemalloc.so.2 and nothing else */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	char *sort[] = {"sort", "nums.txt", "-o", "/dev/null", NULL};
	char *clean[] = {"PATH=/usr/bin:/bin", NULL};
	char *je[] = {"PATH=/usr/bin:/bin", "LD_PRELOAD=libjemalloc.so.2", NULL};
	const char *m = argc > 1 ? argv[1] : "raw";
	char line[100];
	void *p = malloc(1000);
	FILE *f;
	int fd;

	free(p);
	if (!strcmp(m, "raw"))
		syscall(SYS_execve, "/usr/bin/sort", sort, clean);
	else if (!strcmp(m, "rawkeep"))
		syscall(SYS_execve, "/usr/bin/sort", sort, environ);
	else if (!strcmp(m, "jemalloc"))
		syscall(SYS_execve, "/usr/bin/sort", sort, je);
	else if (!strcmp(m, "system"))
		return unsetenv("LD_PRELOAD"), WEXITSTATUS(system("sort nums.txt -o /dev/null"));
	else if (!strcmp(m, "popen")) {
		unsetenv("LD_PRELOAD");
		if (!(f = popen("sort nums.txt | tail -1", "r")))
			return 9;
		while (fgets(line, sizeof line, f))
			;
		return pclose(f) != 0;
	} else if (!strcmp(m, "fexecve") && (fd = open("/usr/bin/sort", O_RDONLY)) >= 0)
		fexecve(fd, sort, clean);
	else if (!strcmp(m, "execveat") && (fd = open("/usr/bin/sort", O_RDONLY)) >= 0)
		syscall(SYS_execveat, fd, "", sort, clean, AT_EMPTY_PATH);
	else
		return 2;
	perror(m);
	return 9;
}
