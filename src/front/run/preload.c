/* preload.c - resolving allocator libraries in a child process (dlopen, dlinfo, the allocator's
 * version function), finding the project's preload libraries, composing LD_PRELOAD. */
#include "front/run/preload.h"
#include "common/allocknown.h"
#include "common/errmsg.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_version(void *h, const char *name, char *out, size_t len)
{
	void *p;

	if (strcmp(name, "mimalloc") == 0 && (p = dlsym(h, "mi_version"))) {
		int v = ((int (*)(void))p)();
		snprintf(out, len, "%d.%d.%d", v / 100, v / 10 % 10, v % 10);
	} else if (strcmp(name, "jemalloc") == 0 && (p = dlsym(h, "mallctl"))) {
		const char *v = NULL;
		size_t sz = sizeof v;
		if (((int (*)(const char *, void *, size_t *, void *, size_t))p)(
		        "version", (void *)&v, &sz, NULL, 0) == 0 &&
		    v)
			snprintf(out, len, "%.*s", (int)strcspn(v, "-"), v);
	} else if (strcmp(name, "tcmalloc") == 0 && (p = dlsym(h, "tc_version"))) {
		int a = 0, b = 0;
		((const char *(*)(int *, int *, const char **))p)(&a, &b, NULL);
		snprintf(out, len, "%d.%d", a, b);
	}
}

/* In the child: loads lib, writes "OK\tpath\tallocator\tversion" or "ERR\treason" to fd. */
static void __attribute__((noreturn)) child_resolve(const char *lib, int fd)
{
	char buf[PATH_MAX + 256], real[PATH_MAX];
	struct link_map *lm = NULL;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	const struct alloc_known *k;
	char version[64] = "";
	int n;

	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name[0]) {
		const char *e = dlerror();
		n = snprintf(buf, sizeof buf, "ERR\t%s", e ? e : "cannot be loaded");
	} else {
		if (!realpath(lm->l_name, real))
			snprintf(real, sizeof real, "%s", lm->l_name);
		k = alloc_known_by_object(real);
		if (k && strcmp(k->name, "system") != 0)
			child_version(h, k->name, version, sizeof version);
		n = snprintf(buf, sizeof buf, "OK\t%s\t%s\t%s", real,
		             k && strcmp(k->name, "system") != 0 ? k->name : "", version);
	}
	if (n > 0 && write(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1) < 0)
		_exit(1);
	_exit(0);
}

int preload_resolve(const char *lib, struct preload_lib *out, char *err, size_t errlen)
{
	char buf[PATH_MAX + 256];
	int fd[2], status;
	size_t n = 0;
	ssize_t k;
	pid_t pid;
	char *tab, *tab2;

	memset(out, 0, sizeof *out);
	if (!lib[0])
		return errmsg_fail(err, errlen, "empty library name");
	if (pipe2(fd, O_CLOEXEC) < 0)
		return errmsg_fail(err, errlen, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return errmsg_fail(err, errlen, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fd[0]);
		child_resolve(lib, fd[1]);
	}
	close(fd[1]);
	while (n < sizeof buf - 1 &&
	       ((k = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0 || (k < 0 && errno == EINTR)))
		n += k > 0 ? (size_t)k : 0;
	buf[n] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (strncmp(buf, "OK\t", 3) != 0)
		return errmsg_fail(err, errlen, "cannot load %s: %s", lib,
		                   strncmp(buf, "ERR\t", 4) == 0 ? buf + 4 : "the loader crashed");
	tab = strchr(buf + 3, '\t');
	tab2 = tab ? strchr(tab + 1, '\t') : NULL;
	if (!tab || !tab2)
		return errmsg_fail(err, errlen, "cannot load %s: garbled answer", lib);
	*tab = *tab2 = '\0';
	snprintf(out->path, sizeof out->path, "%.*s", (int)sizeof out->path - 1, buf + 3);
	snprintf(out->allocator, sizeof out->allocator, "%.31s", tab + 1);
	snprintf(out->version, sizeof out->version, "%.63s", tab2 + 1);
	return 0;
}

int preload_installed(char *buf, size_t len)
{
	size_t k = 0;
	int n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ALLOC_KNOWN_COUNT; i++) {
		const struct alloc_known *a = &alloc_known_table[i];
		struct preload_lib pl;
		char err[256];

		if (a->preload && preload_resolve(a->preload, &pl, err, sizeof err) != 0)
			continue;
		k +=
		    (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s", n ? "," : "", a->name);
		n++;
	}
	return n;
}

int preload_find_own(const char *name, char *out, size_t len, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	struct stat st;

	if (n < 0)
		return errmsg_fail(err, errlen, "cannot find the allocab executable: %s",
		                   strerror(errno));
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	snprintf(out, len, "%s/liballocab-%s.so", dir, name);
	if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	snprintf(out, len, "%s/../lib/allocab/liballocab-%s.so", dir, name);
	if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
		char real[PATH_MAX];

		if (realpath(out, real))
			snprintf(out, len, "%s", real);
		return 0;
	}
	return errmsg_fail(err, errlen,
	                   "liballocab-%s.so is neither next to %s nor in "
	                   "../lib/allocab (run make)",
	                   name, dir);
}

int preload_join(const char *const *v, size_t n, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!v[i] || !v[i][0])
			continue;
		if (k + strlen(v[i]) + 2 > len)
			return -1;
		k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ":" : "", v[i]);
	}
	return 0;
}
