/* preload.c - resolving allocator libraries by a trial run (`/bin/sh -c :` with the library and
 * the probe preloaded: the probe reports the realpath ld.so loaded and the allocator's version;
 * a plain dlopen cannot load jemalloc, whose initial-exec TLS needs preloading), finding the
 * project's preload libraries, composing LD_PRELOAD. */
#include "front/proc/proc.h"
#include "front/proc/probeimg.h"
#include "common/allocknown.h"
#include "common/errmsg.h"
#include "common/ownlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first start record of the file, or NULL. */
static const cJSON *first_start(const cJSON *recs)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, recs)
	{
		const char *ev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "event"));

		if (ev && strcmp(ev, "start") == 0)
			return r;
	}
	return NULL;
}

/* Fills out from the start record of the trial run; -1 with err when lib was not loaded. */
static int from_record(const char *lib, const cJSON *rec, const char *tail, struct preload_lib *out,
                       char *err, size_t errlen)
{
	const cJSON *paths = cJSON_GetObjectItemCaseSensitive(rec, "preload_paths");
	const char *path = cJSON_GetStringValue(cJSON_GetArrayItem(paths, 0));
	const char *obj = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "object"));
	const char *ver = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rec, "version"));
	const char *hit = tail ? strstr(tail, "cannot be preloaded") : NULL;
	const struct alloc_known *k;

	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "preload_missing")) > 0 ||
	    cJSON_GetArraySize(paths) < 2 || !path) {
		if (hit) {
			const char *b = hit;

			while (b > tail && b[-1] != '\n')
				b--;
			return errmsg_fail(err, errlen, "cannot load %s: %.*s", lib,
			                   (int)strcspn(b, "\n"), b);
		}
		return errmsg_fail(err, errlen, "cannot load %s", lib);
	}
	snprintf(out->path, sizeof out->path, "%s", path);
	k = alloc_known_by_object(path);
	if (k && !alloc_known_platform(k)) {
		snprintf(out->allocator, sizeof out->allocator, "%s", k->name);
		if (obj && ver && strcmp(obj, path) == 0)
			snprintf(out->version, sizeof out->version, "%s", ver);
	}
	return 0;
}

int preload_resolve(const char *lib, const char *probe, struct preload_lib *out, char *err,
                    size_t errlen)
{
	char dir[] = "/tmp/allocab-resolve.XXXXXX", file[sizeof dir + 16];
	char vpl[2 * PATH_MAX + 32], vfile[sizeof file + 32], *set[] = {vpl, vfile, NULL};
	char *argv[] = {"sh", "-c", ":", NULL};
	struct runner_spec spec = {
	    .path = "/bin/sh", .argv = argv, .timeout_s = 30, .grace_s = 1, .env_set = set};
	struct runner_result r;
	cJSON *recs = NULL;
	size_t bad;
	int rc = -1, fd;

	memset(out, 0, sizeof *out);
	if (!lib[0] || strpbrk(lib, ": "))
		return errmsg_fail(err, errlen, "'%s' is not one library name or path", lib);
	if (!mkdtemp(dir))
		return errmsg_fail(err, errlen, "cannot create a directory in /tmp: %s",
		                   strerror(errno));
	snprintf(file, sizeof file, "%s/r.jsonl", dir);
	snprintf(vpl, sizeof vpl, "LD_PRELOAD=%s:%s", lib, probe);
	snprintf(vfile, sizeof vfile, "ALLOCAB_PROBE_FILE=%s", file);
	if ((fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
		errmsg_fail(err, errlen, "%s: %s", file, strerror(errno));
	} else if (close(fd), runner_run(&spec, &r, err, errlen) == 0) {
		if (probelog_read(file, PROBELOG_MAX_BYTES, &recs, &bad, err, errlen) == 0) {
			const cJSON *rec = first_start(recs);

			if (rec)
				rc = from_record(lib, rec, r.tail, out, err, errlen);
			else
				errmsg_fail(err, errlen, "the probe %s reported nothing (%s)",
				            probe, r.tail_len ? r.tail : "no message");
		}
		runner_result_free(&r);
	}
	cJSON_Delete(recs);
	unlink(file);
	rmdir(dir);
	return rc;
}

int preload_installed(const char *probe, char *buf, size_t len)
{
	size_t k = 0;
	int n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ALLOC_KNOWN_COUNT; i++) {
		const struct alloc_known *a = &alloc_known_table[i];
		struct preload_lib pl;
		char err[256];

		if (a->preload && preload_resolve(a->preload, probe, &pl, err, sizeof err) != 0)
			continue;
		k +=
		    (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s", n ? "," : "", a->name);
		n++;
	}
	return n;
}

int preload_find_own(const char *name, char *out, size_t len, char *err, size_t errlen)
{
	return ownlib_find(name, NULL, out, len, err, errlen);
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
