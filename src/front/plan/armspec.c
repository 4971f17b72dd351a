/* armspec.c - configured arms: parsing `--arm LABEL=BACKEND[:KEY=VALUE]...` and checking the
 * settings with the backend's driver. */
#include "front/plan/plan.h"
#include "common/errmsg.h"
#include "common/status.h"
#include "front/proc/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_TIMEOUT_S 30.0
#define CHECK_GRACE_S   2.0

static const char label_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
static const char key_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789_";

void armspec_free(struct arm_spec *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nconfig; i++)
		free(a->config[i]);
	free(a->config);
	free(a->label);
	free(a->backend);
	memset(a, 0, sizeof *a);
}

/* One "KEY=VALUE" of length n at p, checked and appended. */
static int add_item(struct arm_spec *a, const char *p, size_t n, char *err, size_t errlen)
{
	const char *eq = memchr(p, '=', n);
	size_t klen = eq ? (size_t)(eq - p) : 0;

	if (!eq || klen == 0 || klen + 1 == n || strspn(p, key_chars) < klen)
		return errmsg_fail(err, errlen, "--arm %s: '%.*s' is not KEY=VALUE", a->label,
		                   (int)n, p);
	for (size_t i = 0; i < a->nconfig; i++)
		if (strncmp(a->config[i], p, klen + 1) == 0)
			return errmsg_fail(err, errlen, "--arm %s: %.*s is given twice", a->label,
			                   (int)klen, p);
	if (!(a->config[a->nconfig] = strndup(p, n)))
		return errmsg_fail(err, errlen, "out of memory");
	a->nconfig++;
	return 0;
}

int armspec_parse(const char *s, struct arm_spec *a, char *err, size_t errlen)
{
	const char *eq = strchr(s, '='), *p;
	size_t llen = eq ? (size_t)(eq - s) : 0, blen, cap = 1;

	memset(a, 0, sizeof *a);
	if (!eq || llen == 0 || strspn(s, label_chars) < llen || s[0] == '-')
		return errmsg_fail(err, errlen,
		                   "--arm: '%s' is not LABEL=BACKEND[:KEY=VALUE]... with LABEL in "
		                   "[A-Za-z0-9_.-], not starting with '-'",
		                   s);
	blen = strcspn(eq + 1, ":");
	if (blen == 0 || strspn(eq + 1, key_chars) < blen)
		return errmsg_fail(err, errlen, "--arm %.*s: '%.*s' is not a backend name",
		                   (int)llen, s, (int)blen, eq + 1);
	for (p = eq + 1; *p; p++)
		cap += *p == ':';
	if (!(a->label = strndup(s, llen)) || !(a->backend = strndup(eq + 1, blen)) ||
	    !(a->config = calloc(cap, sizeof *a->config))) {
		armspec_free(a);
		return errmsg_fail(err, errlen, "out of memory");
	}
	for (p = eq + 1 + blen; *p == ':'; p += strcspn(p, ":")) {
		size_t n = strcspn(++p, ":");
		if (add_item(a, p, n, err, errlen) != 0) {
			armspec_free(a);
			return -1;
		}
	}
	return 0;
}

void armspec_join(const struct arm_spec *a, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < a->nconfig && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " " : "", a->config[i]);
}

/* The last line of a stderr tail, without its newline. */
static void last_line(const char *tail, char *buf, size_t len)
{
	size_t n = strlen(tail);
	const char *start;

	while (n && tail[n - 1] == '\n')
		n--;
	start = tail + n;
	while (start > tail && start[-1] != '\n')
		start--;
	snprintf(buf, len, "%.*s", (int)(tail + n - start), start);
}

void armspec_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

int armspec_env_list(const char *text, char ***env, char *err, size_t errlen)
{
	size_t n = 0, cap = 1;
	char **v;

	for (const char *p = text; *p; p++)
		cap += *p == '\n';
	if (!(v = calloc(cap + 1, sizeof *v)))
		return errmsg_fail(err, errlen, "out of memory");
	for (const char *p = text; *p; p += *p == '\n') {
		size_t len = strcspn(p, "\n"),
		       name = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

		if (len == 0) {
			p += 1;
			continue;
		}
		if (name == 0 || name >= len || p[name] != '=' || !(v[n] = strndup(p, len))) {
			armspec_env_free(v);
			return errmsg_fail(err, errlen, "not an environment assignment: '%.*s'",
			                   (int)len, p);
		}
		n++;
		p += len;
	}
	*env = v;
	return (int)n;
}

enum status armspec_check(const char *driver, const struct arm_spec *a,
                          const volatile sig_atomic_t *stop, char **env, char *err, size_t errlen)
{
	char **argv = calloc(4 + 2 * a->nconfig, sizeof *argv), line[1024];
	struct runner_spec spec = {.path = driver,
	                           .argv = argv,
	                           .timeout_s = CHECK_TIMEOUT_S,
	                           .grace_s = CHECK_GRACE_S,
	                           .capture_stdout = 1,
	                           .stop = stop};
	struct runner_result r;
	size_t n = 0;
	int rc;

	if (env)
		*env = NULL;
	if (!argv)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	argv[n++] = (char *)driver;
	argv[n++] = "env";
	if (env)
		argv[n++] = "--probe";
	for (size_t i = 0; i < a->nconfig; i++) {
		argv[n++] = "--config";
		argv[n++] = a->config[i];
	}
	rc = runner_run(&spec, &r, err, errlen);
	free(argv);
	if (rc != 0)
		return ST_FAIL;
	if (r.end == RUNNER_EXITED && r.exit_code == 0) {
		rc = env && !(*env = strdup(r.out ? r.out : ""))
		         ? errmsg_status(ST_FAIL, err, errlen, "out of memory")
		         : 0;
	} else {
		last_line(r.tail_len ? r.tail : "", line, sizeof line);
		rc = errmsg_status(r.end == RUNNER_EXITED && r.exit_code == ST_USAGE ? ST_USAGE
		                                                                     : ST_FAIL,
		                   err, errlen, "--arm %s: %s", a->label,
		                   line[0] ? line : "the driver does not take the settings");
	}
	runner_result_free(&r);
	return rc;
}
