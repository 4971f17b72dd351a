/* probelog.c - reading a run's probe records (proc.h): the file, whole and within its limit, into
 * the records the judge (probejudge.c) and the summary (probesum.c) take. */
#include "front/proc/proc.h"
#include "common/errmsg.h"
#include "common/jsonstrict.h"
#include "front/proc/probeimg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

size_t probelog_max_bytes(size_t processes)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t cap = pages > 0 && page > 0 ? (size_t)pages / 32 * (size_t)page : PROBELOG_MAX_BYTES;

	if (cap < PROBELOG_MAX_BYTES)
		cap = PROBELOG_MAX_BYTES;
	if (processes > (cap - PROBELOG_MAX_BYTES) / PROBELOG_BYTES_PER_PROCESS)
		return cap;
	return PROBELOG_MAX_BYTES + processes * PROBELOG_BYTES_PER_PROCESS;
}

/* The file of src whole into *text (malloc'd, one byte of room after it) and its length into
 * *n. 0, or -1 with err. */
static int read_text(const struct probelog_src *src, char **text, size_t *n, char *err,
                     size_t errlen)
{
	size_t cap, max = src->max;
	struct stat st;

	if (fstat(src->fd, &st) != 0)
		return errmsg_fail(err, errlen, "probe records %s: %s", src->name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errmsg_fail(err, errlen, "probe records %s: not a regular file", src->name);
	if ((size_t)st.st_size > max)
		return errmsg_fail(err, errlen, "probe records exceed %.1f MiB (%zu bytes)",
		                   (double)max / (1 << 20), (size_t)st.st_size);
	cap = (size_t)st.st_size + 4096 < max + 1 ? (size_t)st.st_size + 4096 : max + 1;
	if (!(*text = malloc(cap + 1)))
		return errmsg_fail(err, errlen, "out of memory");
	for (*n = 0;;) {
		ssize_t k = pread(src->fd, *text + *n, cap - *n, (off_t)*n);
		char *nt;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errmsg_fail(err, errlen, "probe records %s: %s", src->name,
			                   strerror(errno));
		if (k == 0)
			return 0;
		*n += (size_t)k;
		if (*n == cap && cap == max + 1)
			return errmsg_fail(err, errlen, "probe records exceed %.1f MiB",
			                   (double)max / (1 << 20));
		if (*n == cap) {
			size_t ncap = 2 * cap < max + 1 ? 2 * cap : max + 1;

			if (!(nt = realloc(*text, ncap + 1)))
				return errmsg_fail(err, errlen, "out of memory");
			*text = nt;
			cap = ncap;
		}
	}
}

/* The allocab-probe/1 objects of text's lines into out, the other lines counted in *bad; each
 * record's valuedouble is its line's byte offset. */
static void parse_lines(char *text, size_t n, cJSON *out, size_t *bad)
{
	for (char *p = text, *nl; p < text + n; p = nl + 1) {
		cJSON *r;
		const char *probe;

		if (!(nl = memchr(p, '\n', (size_t)(text + n - p))))
			nl = text + n;
		*nl = '\0';
		if (!*p)
			continue;
		r = cJSON_Parse(p);
		probe = cJSON_IsObject(r) ? pimg_str(r, "probe") : NULL;
		if (probe && strcmp(probe, "allocab-probe/1") == 0 &&
		    jst_unique_keys(r, &(struct jst_result){0}) == 0) {
			r->valuedouble = (double)(p - text);
			cJSON_AddItemToArray(out, r);
		} else {
			cJSON_Delete(r);
			(*bad)++;
		}
	}
}

int probelog_read_fd(const struct probelog_src *src, cJSON **out, size_t *bad, char *err,
                     size_t errlen)
{
	char *text = NULL;
	size_t n = 0;

	*out = NULL;
	*bad = 0;
	if (read_text(src, &text, &n, err, errlen) != 0) {
		free(text);
		return -1;
	}
	if (!(*out = cJSON_CreateArray())) {
		free(text);
		return errmsg_fail(err, errlen, "out of memory");
	}
	parse_lines(text, n, *out, bad);
	free(text);
	return 0;
}

int probelog_read(const char *path, size_t max, cJSON **out, size_t *bad, char *err,
                  size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc;

	*out = NULL;
	*bad = 0;
	if (fd < 0)
		return errmsg_fail(err, errlen, "probe records %s: %s", path,
		                   errno == ELOOP ? "a symbolic link" : strerror(errno));
	rc = probelog_read_fd(&(struct probelog_src){fd, path, max}, out, bad, err, errlen);
	close(fd);
	return rc;
}
