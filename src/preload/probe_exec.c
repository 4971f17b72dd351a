/* probe_exec.c - the exec family and posix_spawn wrapped, so that a program exec'ed from a probed
 * process is probed too even when the caller replaced LD_PRELOAD (`LD_PRELOAD=lib.so prog` in a
 * shell) or the environment: the probe (last) and the counting library (first) are put back into
 * LD_PRELOAD and the record file into the environment. Every exec is recorded ("exec", then
 * "exec_failed" if it returned) and every successful spawn ("spawn" with the child's pid), so the
 * bench can tell a program that never reported (static, setuid) from one that was not started.
 * No malloc here: vfork children call these. */
#include "preload/probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ENV_MAX  512
#define ARGV_MAX 4096
#define VAR_MAX  8192

extern char **environ;

static int has_entry(const char *list, const char *path)
{
	size_t n = strlen(path);

	if (!n)
		return 1;
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, " :");

		if (len == n && strncmp(p, path, n) == 0)
			return 1;
		p += len;
		p += strspn(p, " :");
	}
	return 0;
}

const char *probe_fix_preload(const char *cur, char *buf, size_t len)
{
	const char *self = probe_self_path(), *count = probe_count_path();
	int need_self = !has_entry(cur, self), need_count = count[0] && !has_entry(cur, count);
	int k;

	if (!need_self && !need_count)
		return NULL;
	k = snprintf(buf, len, "%s%s%s%s%s", need_count ? count : "",
	             need_count && cur && *cur ? ":" : "", cur ? cur : "",
	             need_self && ((cur && *cur) || need_count) ? ":" : "", need_self ? self : "");
	return k > 0 && (size_t)k < len ? buf : NULL;
}

static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static int is_var(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* env with LD_PRELOAD fixed and the probe variables set, in out (cap entries, vars for the
 * strings); env itself when nothing changes or it does not fit. */
static char *const *fix_env(char *const *env, char **out, size_t cap, char vars[4][VAR_MAX])
{
	const char *pl = env_get(env, "LD_PRELOAD"), *file = env_get(env, PROBE_FILE_VAR);
	char fixed[VAR_MAX - 16];
	const char *newpl = probe_fix_preload(pl, fixed, sizeof fixed);
	size_t n = 0, k = 0;

	if (!probe_active() || (!newpl && file && strcmp(file, probe_file_path()) == 0))
		return env;
	while (env && env[n])
		n++;
	if (n + 5 > cap)
		return env;
	for (size_t i = 0; i < n; i++)
		if (!is_var(env[i], PROBE_FILE_VAR) && !is_var(env[i], PROBE_LIB_VAR) &&
		    !is_var(env[i], PROBE_COUNT_VAR) && !(newpl && is_var(env[i], "LD_PRELOAD")))
			out[k++] = env[i];
	snprintf(vars[0], VAR_MAX, "%s=%s", PROBE_FILE_VAR, probe_file_path());
	snprintf(vars[1], VAR_MAX, "%s=%s", PROBE_LIB_VAR, probe_self_path());
	out[k++] = vars[0];
	out[k++] = vars[1];
	if (probe_count_path()[0]) {
		snprintf(vars[2], VAR_MAX, "%s=%s", PROBE_COUNT_VAR, probe_count_path());
		out[k++] = vars[2];
	}
	if (newpl) {
		snprintf(vars[3], VAR_MAX, "LD_PRELOAD=%s", newpl);
		out[k++] = vars[3];
	}
	out[k] = NULL;
	return out;
}

/* The event's record: the spawned child, the path, and for an exec the image's work so far (its
 * CPU time and, with --count-calls, its calls: the exec ends the image, so no exit record will
 * carry them). */
static void note(const char *event, const char *path, pid_t child)
{
	char extra[VAR_MAX];
	size_t k = 0;

	if (!probe_active())
		return;
	if (child > 0)
		k += (size_t)snprintf(extra, sizeof extra, "\"child\":%ld,", (long)child);
	memcpy(extra + k, "\"path\":", 7);
	k += 7;
	probe_json_str(extra, sizeof extra - 1024, &k, path ? path : "");
	extra[k] = '\0';
	if (strcmp(event, "exec") == 0)
		probe_work_json(extra + k, sizeof extra - k, PROBE_COUNTS_TRY, 1);
	probe_event(event, extra);
}

#define NEXT(type, name) ((type)dlsym(RTLD_NEXT, name))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

static int exec_with(const char *sym, const char *path, char *const argv[], char *const envp[])
{
	char vars[4][VAR_MAX], *local[ENV_MAX];
	execve_fn real = NEXT(execve_fn, sym);
	char *const *env;
	int rc, saved;

	if (!real)
		return errno = ENOSYS, -1;
	env = fix_env(envp, local, sizeof local / sizeof local[0], vars);
	note("exec", path, 0);
	rc = real(path, argv, env);
	saved = errno;
	note("exec_failed", path, 0);
	errno = saved;
	return rc;
}

PROBE_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_with("execve", path, argv, envp);
}

PROBE_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_with("execvpe", file, argv, envp);
}

PROBE_EXPORT int execv(const char *path, char *const argv[])
{
	return exec_with("execve", path, argv, environ);
}

PROBE_EXPORT int execvp(const char *file, char *const argv[])
{
	return exec_with("execvpe", file, argv, environ);
}

/* Collects the NULL-terminated variadic arguments after arg into v (ARGV_MAX entries); envp
 * gets the pointer after the NULL when want_env. Returns -1 (E2BIG) when they do not fit. */
#define COLLECT(v, arg, want_env, envp)                                                            \
	do {                                                                                       \
		va_list ap;                                                                        \
		size_t n_ = 0;                                                                     \
		va_start(ap, arg);                                                                 \
		v[n_++] = (char *)(arg);                                                           \
		while (v[n_ - 1] && n_ < ARGV_MAX)                                                 \
			v[n_++] = va_arg(ap, char *);                                              \
		if (want_env && !v[n_ - 1])                                                        \
			envp = va_arg(ap, char *const *);                                          \
		va_end(ap);                                                                        \
		if (v[n_ - 1])                                                                     \
			return errno = E2BIG, -1;                                                  \
	} while (0)

PROBE_EXPORT int execl(const char *path, const char *arg, ...)
{
	char *v[ARGV_MAX];
	char *const *unused = NULL;

	COLLECT(v, arg, 0, unused);
	(void)unused;
	return exec_with("execve", path, v, environ);
}

PROBE_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *v[ARGV_MAX];
	char *const *unused = NULL;

	COLLECT(v, arg, 0, unused);
	(void)unused;
	return exec_with("execvpe", file, v, environ);
}

PROBE_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *v[ARGV_MAX];
	char *const *envp = NULL;

	COLLECT(v, arg, 1, envp);
	return exec_with("execve", path, v, envp);
}

static int spawn_with(const char *sym, pid_t *pid, const char *path,
                      const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                      char *const argv[], char *const envp[])
{
	char vars[4][VAR_MAX], *local[ENV_MAX];
	spawn_fn real = NEXT(spawn_fn, sym);
	pid_t child = 0;
	int rc;

	if (!real)
		return ENOSYS;
	rc = real(&child, path, fa, attr, argv,
	          fix_env(envp, local, sizeof local / sizeof local[0], vars));
	if (rc == 0)
		note("spawn", path, child);
	if (pid)
		*pid = child;
	return rc;
}

PROBE_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                             const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_with("posix_spawn", pid, path, fa, attr, argv, envp);
}

PROBE_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                              const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_with("posix_spawnp", pid, file, fa, attr, argv, envp);
}

/* _exit and _Exit skip the destructors: the exit record (and with it the read-back of a
 * configured arm) is written here instead. Only a raw exit system call ends an image without it,
 * and the bench calls such an image's configuration unchecked. */
typedef void (*exit_fn)(int);

__attribute__((noreturn)) static void exit_with(const char *sym, int status)
{
	static volatile int done;
	exit_fn real = NEXT(exit_fn, sym);

	if (!done) {
		done = 1;
		probe_exit();
	}
	if (real)
		real(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

PROBE_EXPORT void _exit(int status)
{
	exit_with("_exit", status);
}

PROBE_EXPORT void _Exit(int status)
{
	exit_with("_Exit", status);
}
