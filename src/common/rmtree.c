/* rmtree.c - removing a directory tree without following symbolic links (rmtree.h). */
#include "common/rmtree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)

static void empty_dir(int fd, dev_t dev, int depth, struct rmtree_count *c);

/* Removes name in the directory dfd (on device dev): a directory with what it holds, unless it is
 * the root of another file system (a mount point is left as it is), anything else as an entry. */
static void remove_entry(int dfd, dev_t dev, const char *name, int depth, struct rmtree_count *c)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno != ENOENT)
			c->left++;
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		int fd = depth < RMTREE_MAX_DEPTH && st.st_dev == dev ? openat(dfd, name, OPEN_DIR) : -1;
		struct stat fst;

		c->dirs++;
		if (fd >= 0 && fstat(fd, &fst) == 0 && fst.st_dev == st.st_dev &&
		    fst.st_ino == st.st_ino)
			empty_dir(fd, dev, depth + 1, c);
		else if (fd >= 0)
			close(fd);
		if (unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
			c->left++;
		return;
	}
	if (S_ISREG(st.st_mode)) {
		c->files++;
		c->bytes += (unsigned long long)st.st_size;
	} else if (S_ISLNK(st.st_mode)) {
		c->links++;
	} else {
		c->others++;
	}
	if (unlinkat(dfd, name, 0) != 0 && errno != ENOENT)
		c->left++;
}

/* Removes everything in the directory open as fd, and closes fd. */
static void empty_dir(int fd, dev_t dev, int depth, struct rmtree_count *c)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;

	if (!d) {
		close(fd);
		c->left++;
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		remove_entry(dirfd(d), dev, e->d_name, depth, c);
	}
	closedir(d);
}

int rmtree_remove(const char *path, struct rmtree_count *c)
{
	int fd = open(path, OPEN_DIR);
	size_t left = c->left;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	/* a second pass: entries made while the first one read the directory */
	for (int pass = 0; pass < 2; pass++) {
		int again = dup(fd);

		if (again < 0)
			break;
		c->left = left;
		empty_dir(again, st.st_dev, 0, c);
		if (rmdir(path) == 0) {
			close(fd);
			return 0;
		}
	}
	close(fd);
	return -1;
}

const char *rmtree_describe(const struct rmtree_count *c, char *buf, size_t len)
{
	size_t o = 0;
	const char *sep = "";

#define ADD(...) (o += (size_t)snprintf(o < len ? buf + o : NULL, o < len ? len - o : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (c->files) {
		ADD("%zu file%s (%.1f MB)", c->files, c->files == 1 ? "" : "s", (double)c->bytes / 1e6);
		sep = ", ";
	}
	if (c->dirs) {
		ADD("%s%zu director%s", sep, c->dirs, c->dirs == 1 ? "y" : "ies");
		sep = ", ";
	}
	if (c->links) {
		ADD("%s%zu symbolic link%s", sep, c->links, c->links == 1 ? "" : "s");
		sep = ", ";
	}
	if (c->others) {
		ADD("%s%zu FIFO%s, socket%s or device%s", sep, c->others, c->others == 1 ? "" : "s",
		    c->others == 1 ? "" : "s", c->others == 1 ? "" : "s");
		sep = ", ";
	}
	if (!*sep)
		ADD("nothing");
	if (c->left)
		ADD(", %zu not removed", c->left);
#undef ADD
	return buf;
}

int rmtree_claimed(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW), held;

	if (fd < 0)
		return 0;
	held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}
