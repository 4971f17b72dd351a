/* exeid.c - the identity of the executable a command runs (proc.h). */
#include "common/jsonstrict.h"
#include "front/proc/proc.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files past this size are hashed over their first EXEID_MAX_HASH bytes (the size still counts). */
#define EXEID_MAX_HASH (1ULL << 30)

/* The first word of command that is not a NAME=VALUE assignment or `exec`, into w; 0, or -1
 * when it has shell syntax this does not resolve (quotes, expansions, redirections, an option of
 * exec) or is too long. */
static int first_word(const char *command, char *w, size_t len)
{
	const char *p = command;

	for (;;) {
		size_t n, eq;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n;&|<>()");
		if (n == 0 || n >= len)
			return -1;
		memcpy(w, p, n);
		w[n] = '\0';
		if (strpbrk(w, "'\"\\$`*?[~{"))
			return -1;
		eq = strcspn(w, "=");
		p += n;
		if (strcmp(w, "exec") == 0) /* exec PROGRAM: the program (exec -a ...: not resolved) */
			continue;
		if (w[0] == '-')
			return -1;
		if (w[eq] != '=' || eq == 0 || strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789") != eq)
			return 0;
	}
}

/* The word resolved: as it is when it holds a '/', else the first executable regular file in
 * PATH of that name. */
static int resolve(const char *word, char *path, size_t len)
{
	const char *env = getenv("PATH"), *p;
	struct stat st;

	if (strchr(word, '/'))
		return realpath(word, path) ? 0 : -1;
	for (p = env ? env : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		char cand[PATH_MAX];

		if (snprintf(cand, sizeof cand, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", word) <
		        (int)sizeof cand &&
		    stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return realpath(cand, path) && strlen(path) < len ? 0 : -1;
		p += n + (p[n] == ':');
	}
	return -1;
}

cJSON *exeid_path_json(const char *path)
{
	char hex[17];
	unsigned char buf[65536];
	uint64_t h = 0xcbf29ce484222325ULL, left;
	struct stat st;
	cJSON *o;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	for (left = EXEID_MAX_HASH; left > 0 && (n = read(fd, buf, sizeof buf)) > 0;
	     left -= (uint64_t)n < left ? (uint64_t)n : left)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	close(fd);
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
	if (!(o = cJSON_CreateObject()) || !cJSON_AddStringToObject(o, "path", path) ||
	    !cJSON_AddNumberToObject(o, "size", (double)st.st_size) ||
	    !cJSON_AddNumberToObject(o, "mtime_s", (double)st.st_mtim.tv_sec) ||
	    !cJSON_AddStringToObject(o, "fnv1a64", hex)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *exeid_json(const char *command)
{
	char word[PATH_MAX], path[PATH_MAX];
	cJSON *o;

	if (!command || first_word(command, word, sizeof word) != 0 ||
	    resolve(word, path, sizeof path) != 0 || !(o = exeid_path_json(path)))
		return NULL;
	if (!cJSON_AddStringToObject(o, "word", word)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int exeid_same(const cJSON *was, const cJSON *now, char *why, size_t len)
{
	static const char *const keys[] = {"path", "size", "fnv1a64"};
	const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(was, "path"));

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(was, keys[i]);
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(now, keys[i]);
		char *x, *y;

		if (a && b && cJSON_Compare(a, b, 1))
			continue;
		x = a ? jst_print(a, 0) : NULL;
		y = b ? jst_print(b, 0) : NULL;
		snprintf(why, len, "%.200s: %s %.60s in the file, %.60s now", p ? p : "?",
		         strcmp(keys[i], "fnv1a64") == 0 ? "content (FNV-1a hash)" : keys[i],
		         x ? x : "none", y ? y : "none");
		free(x);
		free(y);
		return 0;
	}
	return 1;
}
