/* record_exec.c - the calls that end a process image without running its destructors: the exec
 * family and _exit/_Exit (record.h). Each flushes every thread's buffer and marks the stream ended
 * (exec, _exit) before the real call, so no recorded event is lost there; an exec that fails
 * records on. A vfork child shares its parent's memory but has its own pid: it touches nothing.
 * No malloc here. */
#include "preload/record.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARGV_MAX 4096

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef void (*exit_fn)(int);

/* Ends the stream for an exec, calls it, and records on if it returns (it failed). */
#define AROUND_EXEC(call)                                                                          \
	do {                                                                                       \
		int ended_ = rec_end(TRACE_HOW_EXEC), rc_, e_;                                     \
		rc_ = (call);                                                                      \
		e_ = errno;                                                                        \
		if (ended_)                                                                        \
			rec_resume();                                                              \
		errno = e_;                                                                        \
		return rc_;                                                                        \
	} while (0)

static int run_exec(const char *sym, const char *path, char *const argv[], char *const envp[])
{
	execve_fn real = (execve_fn)dlsym(RTLD_NEXT, sym);

	if (!real)
		return errno = ENOSYS, -1;
	AROUND_EXEC(real(path, argv, envp));
}

REC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return run_exec("execve", path, argv, envp);
}

REC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return run_exec("execvpe", file, argv, envp);
}

REC_EXPORT int execv(const char *path, char *const argv[])
{
	return run_exec("execve", path, argv, environ);
}

REC_EXPORT int execvp(const char *file, char *const argv[])
{
	return run_exec("execvpe", file, argv, environ);
}

REC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn real = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");

	if (!real)
		return errno = ENOSYS, -1;
	AROUND_EXEC(real(fd, argv, envp));
}

REC_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                        int flags)
{
	execveat_fn real = (execveat_fn)dlsym(RTLD_NEXT, "execveat");

	if (!real)
		return errno = ENOSYS, -1;
	AROUND_EXEC(real(dirfd, path, argv, envp, flags));
}

/* The argument list of an execl-style call: arg, then ap up to its NULL, into v (ARGV_MAX
 * entries); with envp, the environment pointer after the NULL. Returns 0, or -1 when they do not
 * fit. */
static int arg_list(const char *arg, va_list ap, char **v, char *const **envp)
{
	size_t n = 0;

	for (char *a = (char *)arg; n < ARGV_MAX; a = va_arg(ap, char *)) {
		v[n++] = a;
		if (!a) {
			if (envp)
				*envp = va_arg(ap, char *const *);
			return 0;
		}
	}
	return -1;
}

/* execl, execlp, execle: sym is the vector call that runs them, env whether an environment
 * follows the arguments. */
static int run_execl(const char *sym, const char *path, const char *arg, va_list ap, int env)
{
	char *v[ARGV_MAX];
	char *const *envp = environ;

	if (arg_list(arg, ap, v, env ? &envp : NULL) != 0)
		return errno = E2BIG, -1;
	return run_exec(sym, path, v, envp);
}

/* Defines NAME(path, arg, ...) over run_execl with the vector call SYM; ENV: an environment
 * follows the arguments. */
#define REC_EXECL(NAME, SYM, ENV)                                                                  \
	REC_EXPORT int NAME(const char *path, const char *arg, ...)                                \
	{                                                                                          \
		va_list ap;                                                                        \
		int rc;                                                                            \
		va_start(ap, arg);                                                                 \
		rc = run_execl(SYM, path, arg, ap, ENV);                                           \
		va_end(ap);                                                                        \
		return rc;                                                                         \
	}

REC_EXECL(execl, "execve", 0)
REC_EXECL(execlp, "execvpe", 0)
REC_EXECL(execle, "execve", 1)

static __attribute__((noreturn)) void run_exit(const char *sym, int status)
{
	exit_fn real;

	rec_end(TRACE_HOW__EXIT);
	real = (exit_fn)dlsym(RTLD_NEXT, sym);
	if (real)
		real(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

REC_EXPORT void _exit(int status)
{
	run_exit("_exit", status);
}

REC_EXPORT void _Exit(int status)
{
	run_exit("_Exit", status);
}
