/* ownlib.c - finding the project's preload libraries (ownlib.h). */
#include "common/ownlib.h"

#include "common/errmsg.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int readable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

int ownlib_find(const char *name, const char *env, char *out, size_t len, char *err,
                size_t errlen)
{
	const char *given = env ? getenv(env) : NULL;
	char dir[PATH_MAX], real[PATH_MAX];
	ssize_t n;

	if (given && *given) {
		if (access(given, R_OK) != 0)
			return errmsg_fail(err, errlen, "%s=%s: %s", env, given, strerror(errno));
		if (!realpath(given, real))
			return errmsg_fail(err, errlen, "%s: %s", given, strerror(errno));
		snprintf(out, len, "%s", real);
		return 0;
	}
	if ((n = readlink("/proc/self/exe", dir, sizeof dir - 1)) <= 0)
		return errmsg_fail(err, errlen, "cannot find the allocab executable: %s",
		                   n < 0 ? strerror(errno) : "empty link");
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	snprintf(out, len, "%s/liballocab-%s.so", dir, name);
	if (readable_file(out))
		return 0;
	snprintf(out, len, "%s/../lib/allocab/liballocab-%s.so", dir, name);
	if (readable_file(out)) {
		if (realpath(out, real))
			snprintf(out, len, "%s", real);
		return 0;
	}
	return errmsg_fail(err, errlen,
	                   "liballocab-%s.so is neither next to %s nor in ../lib/allocab (run make)",
	                   name, dir);
}
