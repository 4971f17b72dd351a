/* atomicio.c - whole-file writes through a temporary file and rename, and whole-file reads. */
#include "common/atomicio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <libgen.h>
#include <signal.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX ".allocab-tmp."

int write_full(int fd, const void *data, size_t n)
{
	const char *p = data;

	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int fail(const char *path, char *err, size_t errlen)
{
	int saved = errno;

	snprintf(err, errlen, "%s: %s", path, strerror(saved));
	errno = saved;
	return -1;
}

/* mkstemp creates 0600; results are meant to be shared like any file the user creates. */
static mode_t default_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The test-only fault hook (docs/results-format.md, "Faults"): ALLOCAB_FAULT_WRITES=N lets N
 * atomic writes of this process succeed, then fails each later one with ENOSPC ("the disk
 * filled"); ALLOCAB_FAULT_WRITES=kill:N kills the process with SIGKILL during write N+1, after its
 * temporary file was written and before the rename; ALLOCAB_FAULT_WRITES=ro:N fails every write
 * and patch after the first N with EROFS before touching anything ("the file system turned
 * read-only"). */
enum fault { FAULT_NONE, FAULT_FULL, FAULT_KILL, FAULT_RO };
static enum fault fault_mode;
static long fault_calls, fault_limit = -2;

static void fault_init(void)
{
	const char *v = getenv("ALLOCAB_FAULT_WRITES");
	size_t skip = 0;
	char *end;

	fault_limit = -1;
	if (!v || !*v)
		return;
	fault_mode = FAULT_FULL;
	if (strncmp(v, "kill:", 5) == 0)
		fault_mode = FAULT_KILL, skip = 5;
	else if (strncmp(v, "ro:", 3) == 0)
		fault_mode = FAULT_RO, skip = 3;
	fault_limit = strtol(v + skip, &end, 10);
	if (*end || fault_limit < 0)
		fault_limit = -1, fault_mode = FAULT_NONE;
}

/* Counts a write at `when` (FAULT_RO: before it, else after its temporary file) and returns 1
 * with errno set to fail it (FAULT_KILL does not return). */
static int fault_hook(enum fault when)
{
	if (fault_limit == -2)
		fault_init();
	if (fault_mode == FAULT_NONE || (when == FAULT_RO) != (fault_mode == FAULT_RO) ||
	    fault_calls++ < fault_limit)
		return 0;
	if (fault_mode == FAULT_KILL)
		raise(SIGKILL);
	errno = fault_mode == FAULT_RO ? EROFS : ENOSPC;
	return 1;
}

/* Whether the file system has turned read-only for the hook (a patch after failed writes). */
static int fault_read_only(void)
{
	if (fault_limit == -2)
		fault_init();
	if (fault_mode != FAULT_RO || fault_calls <= fault_limit)
		return 0;
	errno = EROFS;
	return 1;
}

/* Whether a directory entry is the temporary file of a process that no longer exists, left more
 * than STALE_S seconds ago (a writer killed between mkstemp and rename). */
#define STALE_S 60
static int stale_temp(int dirfd, const char *name)
{
	const char *p = name + strlen(TMP_PREFIX);
	struct stat st;
	char *end;
	long pid;

	if (strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)) != 0)
		return 0;
	pid = strtol(p, &end, 10);
	if (end == p || *end != '.' || pid <= 0 || (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
		return 0;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_mtime + STALE_S < time(NULL);
}

/* Removes what writers killed mid-write left in dir (docs/results-format.md, "Faults"). */
static void remove_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (stale_temp(dirfd(d), e->d_name))
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

/* fallocate of the room an append needs and the room kept after it, beyond the file's end
 * (FALLOC_FL_KEEP_SIZE: the size is unchanged): 0, also where the file system cannot reserve;
 * -1 with errno ENOSPC when the disk has no such room. */
static int reserve_room(struct append_out *o, size_t n, size_t keep)
{
	if (!o->regular || fallocate(o->fd, FALLOC_FL_KEEP_SIZE, o->end, (off_t)(n + keep)) == 0)
		return 0;
	return errno == ENOSPC || errno == EDQUOT ? -1 : 0;
}

/* ALLOCAB_FAULT_WRITES for an append: 1 with errno to fail it; kill:N writes half the data, then
 * kills the process (a torn last line). */
static int fault_append(struct append_out *o, const void *data, size_t n, int closing)
{
	if (fault_hook(FAULT_RO))
		return 1;
	if (fault_mode == FAULT_KILL && fault_calls >= fault_limit && fault_limit >= 0) {
		if (write(o->fd, data, n / 2) < 0)
			_exit(137);
		fsync(o->fd);
		raise(SIGKILL);
	}
	return !closing && fault_hook(FAULT_FULL);
}

static void append_opened(struct append_out *o, const char *path)
{
	struct stat st;

	snprintf(o->path, sizeof o->path, "%s", path);
	o->regular = fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode);
	o->end = o->regular ? st.st_size : 0;
	o->dev = o->regular ? st.st_dev : 0;
	o->ino = o->regular ? st.st_ino : 0;
}

static int commit(struct atomic_out *o, int *keep, char *err, size_t errlen);

int append_create(struct append_out *o, const char *path, const void *data, size_t n,
                  size_t keep, char *err, size_t errlen)
{
	struct atomic_out a;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	if (atomic_begin(&a, path, err, errlen) != 0)
		return -1;
	if (write_full(a.fd, data, n) != 0) {
		atomic_abort(&a);
		return fail(a.in_place ? a.path : a.target, err, errlen);
	}
	if (commit(&a, &o->fd, err, errlen) != 0)
		return -1;
	if (!a.in_place)
		fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) | O_APPEND);
	append_opened(o, a.in_place ? a.path : path);
	o->regular = o->regular && !a.in_place;
	reserve_room(o, 0, keep);
	return 0;
}

int append_reopen(struct append_out *o, const char *path, long keep_bytes, size_t keep,
                  char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	if (fault_read_only() ||
	    (o->fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return fail(path, err, errlen);
	append_opened(o, path);
	if (!o->regular || keep_bytes < 0 || keep_bytes > (long)o->end) {
		append_close(o);
		errno = ESTALE;
		return fail(path, err, errlen);
	}
	if (keep_bytes < (long)o->end &&
	    (ftruncate(o->fd, keep_bytes) != 0 || fsync(o->fd) != 0)) {
		int e = errno;
		append_close(o);
		errno = e;
		return fail(path, err, errlen);
	}
	o->end = keep_bytes;
	reserve_room(o, 0, keep);
	return 0;
}

/* Whether o's descriptor is still the file at its path, as allocab left it (atomicio.h,
 * append_write): 0, or -1 with errno ESTALE and the reason in err. */
static int still_the_file(struct append_out *o, char *err, size_t errlen)
{
	struct stat fd_st, path_st;
	int there, same, alive;

	if (!o->regular)
		return 0;
	there = stat(o->path, &path_st) == 0;
	same = there && path_st.st_dev == o->dev && path_st.st_ino == o->ino;
	alive = same && fstat(o->fd, &fd_st) == 0 && fd_st.st_nlink > 0;
	if (alive && fd_st.st_size == o->end)
		return 0;
	o->lost = 1;
	if (alive)
		snprintf(err, errlen,
		         "%s: written by another writer while allocab was appending to it (%lld bytes, "
		         "allocab left %lld): it no longer holds what allocab wrote",
		         o->path, (long long)fd_st.st_size, (long long)o->end);
	else
		snprintf(err, errlen,
		         "%s: %s while allocab was appending to it: what it wrote there is lost", o->path,
		         there && !same ? "replaced by another file" : "removed");
	errno = ESTALE;
	return -1;
}

int append_write(struct append_out *o, const void *data, size_t n, size_t keep, int closing,
                 char *err, size_t errlen)
{
	ssize_t w;
	int e;

	if (still_the_file(o, err, errlen) != 0)
		return -1;
	if (fault_append(o, data, n, closing) || (!closing && reserve_room(o, n, keep) != 0))
		return fail(o->path, err, errlen);
	w = write(o->fd, data, n);
	if (w == (ssize_t)n && (!o->regular || fsync(o->fd) == 0)) {
		o->end += (off_t)n;
		return 0;
	}
	e = w < 0 ? errno : w == (ssize_t)n ? errno : ENOSPC;
	/* nothing half-written: the file goes back to its last whole line */
	if (o->regular && w > 0 && ftruncate(o->fd, o->end) == 0)
		fsync(o->fd);
	errno = e;
	return fail(o->path, err, errlen);
}

void append_close(struct append_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

/* A FIFO, /dev/null or a terminal cannot be replaced by rename, and must not be: it is written in
 * place, where atomicity has no meaning anyway; a descriptor ("-", /dev/stdout) is written
 * through a copy of it. */
static int open_in_place(struct atomic_out *o, const char *path, int kind, int fd, char *err,
                         size_t errlen)
{
	o->in_place = 1;
	if (kind == AT_DESCRIPTOR) {
		fflush(stdout);
		fflush(stderr);
		if (strcmp(path, "-") == 0)
			snprintf(o->path, sizeof o->path, "stdout");
		o->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	} else {
		o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	}
	return o->fd < 0 ? fail(o->path, err, errlen) : 0;
}

int atomic_begin(struct atomic_out *o, const char *path, char *err, size_t errlen)
{
	char copy[sizeof o->dir];
	int kind, fd;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	snprintf(o->path, sizeof o->path, "%s", path);
	if (path[0] == '\0') {
		snprintf(err, errlen, "empty file name");
		errno = ENOENT;
		return -1;
	}
	if ((kind = atomic_target(path, &fd, err, errlen)) < 0)
		return -1;
	if (kind == AT_DESCRIPTOR)
		return open_in_place(o, path, kind, fd, err, errlen);
	if (fault_hook(FAULT_RO))
		return fail(path, err, errlen);
	if (kind == AT_IN_PLACE)
		return open_in_place(o, path, kind, fd, err, errlen);
	if (strlen(path) >= sizeof o->dir) {
		errno = ENAMETOOLONG;
		return fail(path, err, errlen);
	}
	snprintf(o->target, sizeof o->target, "%s", path);
	strcpy(copy, path);
	snprintf(o->dir, sizeof o->dir, "%s", dirname(copy));
	remove_stale(o->dir);
	snprintf(o->tmp, sizeof o->tmp, "%s/" TMP_PREFIX "%ld.XXXXXX", o->dir, (long)getpid());
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	return o->fd < 0 ? fail(path, err, errlen) : 0;
}

void atomic_abort(struct atomic_out *o)
{
	int saved = errno;

	if (o->fd >= 0)
		close(o->fd);
	if (!o->in_place && o->tmp[0])
		unlink(o->tmp);
	o->fd = -1;
	errno = saved;
}

/* atomic_commit, which gives the descriptor of the file it made to *keep (when keep is not NULL)
 * instead of closing it. */
static int commit(struct atomic_out *o, int *keep, char *err, size_t errlen)
{
	int fd = o->fd;

	o->fd = -1;
	if (o->in_place) {
		if (keep)
			*keep = fd;
		else if (close(fd) != 0)
			return fail(o->path, err, errlen);
		return 0;
	}
	if (fchmod(fd, default_mode()) != 0 || fsync(fd) != 0 || fault_hook(FAULT_FULL)) {
		o->fd = fd;
		atomic_abort(o);
		return fail(o->target, err, errlen);
	}
	if ((!keep && close(fd) != 0) || rename(o->tmp, o->target) != 0) {
		if (keep)
			o->fd = fd;
		atomic_abort(o);
		return fail(o->target, err, errlen);
	}
	sync_dir(o->dir);
	if (keep)
		*keep = fd;
	return 0;
}

int atomic_commit(struct atomic_out *o, char *err, size_t errlen)
{
	return commit(o, NULL, err, errlen);
}

/* atomic_write of the concatenation of the n pieces of iov. */
static int atomic_writev(const char *path, const struct iovec *iov, size_t n, char *err,
                         size_t errlen)
{
	struct atomic_out o;

	if (atomic_begin(&o, path, err, errlen) != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (write_full(o.fd, iov[i].iov_base, iov[i].iov_len) != 0) {
			atomic_abort(&o);
			return fail(o.in_place ? o.path : o.target, err, errlen);
		}
	return atomic_commit(&o, err, errlen);
}

int atomic_write(const char *path, const void *data, size_t n, char *err, size_t errlen)
{
	struct iovec iov = {.iov_base = (void *)data, .iov_len = n};

	return atomic_writev(path, &iov, 1, err, errlen);
}

char *read_file(const char *path, size_t *n)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	int fd, saved;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		ssize_t r;
		if (cap - len < 2) {
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
			if (!nb) {
				errno = ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	if (n)
		*n = len;
	return buf;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	errno = saved;
	return NULL;
}
