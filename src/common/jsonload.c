/* jsonload.c - strict, bounded reading of JSON files (docs/results-format.md, "Reading files"). */
#include "common/jsonload.h"

#include "common/errmsg.h"
#include "common/jsonstrict.h"
#include "common/numparse.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int jl_max_bytes(size_t *out, char *err, size_t errlen)
{
	const char *v = getenv(JL_MAX_ENV);
	int64_t n;

	*out = JL_DEFAULT_MAX_BYTES;
	if (!v || !v[0])
		return 0;
	if (num_parse_i64(v, 1, &n) != 0 && errno == ERANGE)
		return errmsg_fail(err, errlen,
		                   "%s '%.40s': want a byte count of at most %lld (2^63 - 1; k, M, G "
		                   "suffixes)",
		                   JL_MAX_ENV, v, (long long)INT64_MAX);
	if (num_parse_i64(v, 1, &n) != 0 || n < 1024)
		return errmsg_fail(err, errlen,
		                   "%s '%.40s': want a byte count of at least 1k (k, M, G suffixes)",
		                   JL_MAX_ENV, v);
	*out = (size_t)n;
	return 0;
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static char *read_fail(int fd, int e, char *err, size_t errlen, const char *path, const char *what)
{
	if (fd >= 0)
		close(fd);
	errmsg_fail(err, errlen, "%s: %s", path, what ? what : strerror(e));
	errno = e;
	return NULL;
}

/* Reads at most cap + 1 bytes of a regular file whose stat said size bytes. */
static char *read_bounded(int fd, size_t size, size_t cap, size_t *n, int *e)
{
	size_t len = 0, alloc = (size < cap ? size : cap) + 2;
	char *buf = malloc(alloc);

	*e = ENOMEM;
	while (buf) {
		ssize_t r;
		if (alloc - len < 2) {
			size_t grow = alloc > cap / 2 ? cap + 2 : alloc * 2;
			char *nb = grow > alloc ? realloc(buf, grow) : NULL;
			if (!nb)
				break;
			buf = nb;
			alloc = grow;
		}
		r = read(fd, buf + len, alloc - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*e = errno;
			break;
		}
		if (r == 0 || (len += (size_t)r) > cap) {
			buf[len] = '\0';
			*n = len;
			return buf;
		}
	}
	free(buf);
	return NULL;
}

static const char *jl_too_large(char *buf, size_t len, size_t cap)
{
	snprintf(buf, len, "larger than the %zu-byte input limit (set %s to raise it)", cap,
	         JL_MAX_ENV);
	return buf;
}

int jl_open(const char *path, size_t *size, size_t *cap, char *err, size_t errlen)
{
	struct stat st;
	char what[160];
	int fd;

	if (jl_max_bytes(cap, err, errlen) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (!path[0])
		return read_fail(-1, ENOENT, err, errlen, "''", "empty file name"), -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return read_fail(-1, errno == ENOENT ? ENOENT : EINVAL, err, errlen, path,
		                 strerror(errno)),
		       -1;
	if (fstat(fd, &st) != 0)
		return read_fail(fd, EINVAL, err, errlen, path, strerror(errno)), -1;
	if (!S_ISREG(st.st_mode)) {
		snprintf(what, sizeof what, "%s, not a regular file: refused", kind_of(st.st_mode));
		return read_fail(fd, EINVAL, err, errlen, path, what), -1;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size > *cap)
		return read_fail(fd, EFBIG, err, errlen, path,
		                 jl_too_large(what, sizeof what, *cap)),
		       -1;
	*size = (size_t)st.st_size;
	return fd;
}

char *jl_read(const char *path, size_t *n, char *err, size_t errlen)
{
	size_t cap, size, len = 0;
	char *buf, what[160];
	int fd = jl_open(path, &size, &cap, err, errlen), e;

	if (fd < 0)
		return NULL;
	buf = read_bounded(fd, size, cap, &len, &e);
	if (!buf)
		return read_fail(fd, e, err, errlen, path, NULL);
	if (len > cap) {
		free(buf);
		return read_fail(fd, EFBIG, err, errlen, path,
		                 jl_too_large(what, sizeof what, cap));
	}
	close(fd);
	if (n)
		*n = len;
	return buf;
}

int jl_parse_error(const char *name, const struct jst_result *r, size_t binary,
                   unsigned char byte, size_t size, size_t cap, char *err, size_t errlen)
{
	errno = EINVAL;
	if (r->status == JST_NOMEM) {
		errno = ENOMEM;
		return errmsg_fail(err, errlen, "%s: out of memory", name);
	}
	if (r->status == JST_TOO_MANY)
		return errmsg_fail(err, errlen,
		                   "%s: more than %zu JSON values, the limit for a %zu-byte input "
		                   "limit (set %s to raise it)",
		                   name, cap / JL_BYTES_PER_NODE, cap, JL_MAX_ENV);
	if (binary != SIZE_MAX)
		return errmsg_fail(err, errlen,
		                   "%s: not JSON (binary data: byte 0x%02x at offset %zu)", name,
		                   byte, binary);
	if (r->status == JST_SHORT)
		return errmsg_fail(err, errlen, "%s: truncated JSON (ends at byte %zu)", name,
		                   size);
	if (r->status == JST_RULE && r->at == SIZE_MAX)
		return errmsg_fail(err, errlen, "%s: not JSON (%s)", name, r->rule);
	if (r->status == JST_RULE)
		return errmsg_fail(err, errlen, "%s: not JSON (%s at byte %zu)", name, r->rule,
		                   r->at);
	return errmsg_fail(err, errlen, "%s: not JSON (parse error at byte %zu)", name, r->at);
}

cJSON *jl_parse(const char *name, const char *text, size_t n, char *err, size_t errlen)
{
	size_t cap, nodes = 0, bin;
	struct jst_result r;
	cJSON *root;

	errno = EINVAL;
	if (jl_max_bytes(&cap, err, errlen) != 0)
		return NULL;
	bin = jst_first_binary(text, n);
	if (jst_skip_ws(text, n, 0) >= n && bin == n)
		return errmsg_fail(err, errlen, "%s: empty file", name), NULL;
	root = jst_parse(text, n, 0, NULL, &nodes, cap / JL_BYTES_PER_NODE, &r);
	if (root && (r.at = jst_skip_ws(text, n, r.at)) == n)
		return root;
	if (root) {
		cJSON_Delete(root);
		r.status = JST_SYNTAX;
	}
	jl_parse_error(name, &r, bin < n && r.status != JST_NOMEM ? bin : SIZE_MAX,
	               bin < n ? (unsigned char)text[bin] : 0, n, cap, err, errlen);
	return NULL;
}

cJSON *jl_load(const char *path, enum jl_why *why, char *err, size_t errlen)
{
	size_t n;
	char *text = jl_read(path, &n, err, errlen);
	cJSON *root;

	*why = JL_OK;
	if (!text) {
		*why = errno == ENOENT ? JL_MISSING : errno == ENOMEM ? JL_NOMEM : JL_BAD;
		return NULL;
	}
	root = jl_parse(path, text, n, err, errlen);
	if (!root)
		*why = errno == ENOMEM ? JL_NOMEM : JL_BAD;
	free(text);
	return root;
}

int jl_finite(const cJSON *v, double *out)
{
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return 0;
	if (out)
		*out = v->valuedouble;
	return 1;
}

int jl_range(const cJSON *v, double lo, double hi, double *out)
{
	double x;

	if (!jl_finite(v, &x) || !(x >= lo && x <= hi))
		return 0;
	if (out)
		*out = x;
	return 1;
}

int jl_uint(const cJSON *v, uint64_t max, uint64_t *out)
{
	double x;

	if (!jl_range(v, 0, (double)max, &x) || x != floor(x) || x >= 18446744073709551616.0)
		return 0;
	if ((uint64_t)x > max)
		return 0;
	if (out)
		*out = (uint64_t)x;
	return 1;
}

int jl_int(const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
	double x;

	if (!jl_range(v, (double)lo, (double)hi, &x) || x != floor(x) ||
	    x >= 9223372036854775808.0 || x < -9223372036854775808.0)
		return 0;
	if ((int64_t)x < lo || (int64_t)x > hi)
		return 0;
	if (out)
		*out = (int64_t)x;
	return 1;
}
