/* names.c - the names a command line gives (arms, workloads, --cmd names), the comma lists that
 * hold them, and the drivers' directory (front/plan/plan.h). */
#include "front/plan/plan.h"

#include "common/errmsg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bench_valid_name(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
		            s[i]))
			return 0;
	return 1;
}

void bench_free_list(char **items, size_t n)
{
	for (size_t i = 0; items && i < n; i++)
		free(items[i]);
	free(items);
}

int bench_split_list(const char *list, const char *what, char ***items, char *err, size_t errlen)
{
	size_t n = 0, cap = 1;
	char **v;

	for (const char *p = list; *p; p++)
		cap += *p == ',';
	if (!(v = calloc(cap, sizeof *v)))
		return errmsg_fail(err, errlen, "out of memory");
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");

		if (!bench_valid_name(p, len)) {
			bench_free_list(v, n);
			return len ? errmsg_fail(err, errlen, "%s: '%.*s' is not a valid name",
			                         what, (int)len, p)
			           : errmsg_fail(err, errlen, "%s: empty name in '%s'", what, list);
		}
		for (size_t i = 0; i < n; i++)
			if (strlen(v[i]) == len && strncmp(v[i], p, len) == 0) {
				bench_free_list(v, n);
				return errmsg_fail(err, errlen, "%s: '%.*s' is given twice", what,
				                   (int)len, p);
			}
		if (!(v[n] = strndup(p, len))) {
			bench_free_list(v, n);
			return errmsg_fail(err, errlen, "out of memory");
		}
		n++;
		p += len;
		if (!*p)
			break;
	}
	*items = v;
	return (int)n;
}

int bench_driver_dir(const char *given, char *dir, size_t len, char *err, size_t errlen)
{
	const char *env = getenv("ALLOCAB_DRIVER_DIR");
	ssize_t n;

	if (given || (env && *env)) {
		snprintf(dir, len, "%s", given ? given : env);
		return 0;
	}
	if ((n = readlink("/proc/self/exe", dir, len - 1)) < 0)
		return errmsg_fail(err, errlen,
		                   "cannot find the allocab executable: %s (use --driver-dir)",
		                   strerror(errno));
	dir[n] = '\0';
	*strrchr(dir, '/') = '\0';
	return 0;
}
