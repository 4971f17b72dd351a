/* task.c - a bench as one task of a job array (plan.h, docs/fleet.md): its label and shard index
 * from the flags or the scheduler's environment, the host and boot it runs on, and the lock that
 * keeps two benches from sharing one machine. */
#include "front/plan/plan.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define LABEL_CHARS                                                                                \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:@+-"

/* Where a task finds its label and its index, in this order after the flags. */
static const char *const label_vars[] = {"ALLOCAB_LABEL", "SLURMD_NODENAME", NULL};
static const char *const shard_vars[] = {"ALLOCAB_SHARD", "SLURM_ARRAY_TASK_ID",
                                         "JOB_COMPLETION_INDEX", NULL};

int bench_task_valid_label(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= BENCH_TASK_LABEL_MAX && strspn(s, LABEL_CHARS) == n;
}

int bench_task_parse_shard(const char *s, uint64_t *out)
{
	uint64_t v;

	if (num_parse_u64(s, &v) != 0 || v > BENCH_TASK_SHARD_MAX)
		return -1;
	*out = v;
	return 0;
}

/* The first variable of vars that is set and not empty, or NULL. */
static const char *first_set(const char *const *vars, const char **name)
{
	for (size_t i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			*name = vars[i];
			return v;
		}
	}
	return NULL;
}

/* The running kernel's boot id (one per boot, the same in every container of the machine), or
 * "" when it cannot be read. */
static void read_boot_id(char *buf, size_t len)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		n = strspn(buf, "0123456789abcdef-");
	buf[n] = '\0';
	fclose(f);
}

int bench_task_resolve(struct bench_task *t, const char *label, const char *shard, char *err,
                       size_t errlen)
{
	struct utsname u;
	const char *v, *name = NULL;

	memset(t, 0, sizeof *t);
	t->shard = -1;
	t->lock_fd = -1;
	if (uname(&u) == 0 && bench_task_valid_label(u.nodename))
		snprintf(t->host, sizeof t->host, "%s", u.nodename);
	read_boot_id(t->boot_id, sizeof t->boot_id);
	if (label) {
		snprintf(t->label, sizeof t->label, "%s", label);
		t->label_from = "--label";
	} else if ((v = first_set(label_vars, &name))) {
		if (!bench_task_valid_label(v))
			return errmsg_fail(err, errlen,
			                   "%s='%.40s': a label is 1 to %d characters of "
			                   "[A-Za-z0-9_.:@+-]",
			                   name, v, BENCH_TASK_LABEL_MAX);
		snprintf(t->label, sizeof t->label, "%s", v);
		t->label_from = name;
	} else if (t->host[0]) {
		snprintf(t->label, sizeof t->label, "%s", t->host);
		t->label_from = "hostname";
	}
	if (shard) {
		v = shard;
		name = "--shard";
	} else if (!(v = first_set(shard_vars, &name))) {
		return 0;
	}
	uint64_t s;
	if (bench_task_parse_shard(v, &s) != 0)
		return errmsg_fail(err, errlen, "%s='%.40s': a shard index is an integer in 0..%llu",
		                   name, v, (unsigned long long)BENCH_TASK_SHARD_MAX);
	t->shard = (long long)s;
	t->shard_from = name;
	return 0;
}

uint64_t bench_task_shuffle_seed(const struct bench_task *t)
{
	uint64_t x = (uint64_t)t->shard + 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return (x ^ (x >> 31)) & BENCH_SEED_MAX;
}

/* What the holder of the lock wrote into it, one line, into buf. */
static void holder(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0])
		snprintf(buf, len, "a process that has not written its name yet");
}

/* Whether fd is still the file at path: a holder that released the lock removed the file, and a
 * lock taken on a removed file locks nothing. */
static int still_there(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Opens and locks t->lock: 0 with *fd, 1 when another bench holds it (its name in who), -1 with
 * errno set. */
static int take(struct bench_task *t, int *fd, char *who, size_t len)
{
	for (int tries = 0; tries < 8; tries++) {
		if ((*fd = open(t->lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)) < 0)
			return -1;
		if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
			int e = errno;
			holder(*fd, who, len);
			close(*fd);
			errno = e;
			return e == EWOULDBLOCK ? 1 : -1;
		}
		if (still_there(*fd, t->lock))
			return 0;
		close(*fd);
	}
	errno = EAGAIN;
	return -1;
}

int bench_task_lock_held(const char *path, char *who, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), held;
	struct stat st;

	if (fd < 0)
		return 0;
	held = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_SH | LOCK_NB) != 0 &&
	       errno == EWOULDBLOCK;
	if (held)
		holder(fd, who, len);
	close(fd);
	return held;
}

enum status bench_task_lock(struct bench_task *t, const char *dir, char *err, size_t errlen)
{
	char who[512], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int fd, rc;

	snprintf(t->lock, sizeof t->lock, "%s/.allocab-bench.%s.lock", dir,
	         t->boot_id[0] ? t->boot_id : t->host[0] ? t->host : "this-machine");
	if ((rc = take(t, &fd, who, sizeof who)) == 1)
		return errmsg_status(ST_FAIL, err, errlen,
		                     "another bench runs on this machine (%.300s; lock %s): two "
		                     "benches on one machine slow each other down; run them one after "
		                     "the other (docs/fleet.md)",
		                     who, t->lock);
	if (rc != 0 && errno == ELOOP)
		return errmsg_status(ST_FAIL, err, errlen,
		                     "cannot lock %s: it is a symbolic link, and a link is refused "
		                     "as the lock (remove it)",
		                     t->lock);
	if (rc != 0)
		return errmsg_status(ST_FAIL, err, errlen, "cannot lock %s: %s", t->lock,
		                     strerror(errno));
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(who, sizeof who, "pid %ld, label %s, host %s, since %s\n", (long)getpid(),
	         t->label[0] ? t->label : "-", t->host[0] ? t->host : "-", stamp);
	/* the name only words a refused bench's message; the lock holds without it */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, who, strlen(who), 0) < 0)
		who[0] = '\0';
	t->lock_fd = fd;
	return 0;
}

void bench_task_unlock(struct bench_task *t)
{
	if (t->lock_fd < 0)
		return;
	unlink(t->lock);
	close(t->lock_fd);
	t->lock_fd = -1;
}
