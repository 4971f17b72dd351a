/* rmtree.h - removing a directory that a program under test could write into (record's stream
 * directory, the bench's probe directory) with all it holds, never following a symbolic link: a
 * link is removed, not what it names, and nothing outside the directory is touched. */
#ifndef ALLOCAB_RMTREE_H
#define ALLOCAB_RMTREE_H

#include <stddef.h>

/* What a removal found, by kind (the top directory not counted). */
struct rmtree_count {
	size_t files;              /* regular files */
	unsigned long long bytes;  /* their sizes */
	size_t dirs;               /* directories */
	size_t links;              /* symbolic links */
	size_t others;             /* FIFOs, sockets, device nodes */
	size_t left;               /* entries that could not be removed */
};

/* Directories deeper than this below the top one are left in place (counted in left): the removal
 * holds one descriptor per level. */
#define RMTREE_MAX_DEPTH 64

/* Removes the directory path and everything in it, with openat/unlinkat relative to descriptors
 * opened O_NOFOLLOW, so a name swapped for a link while it runs is removed as a link. path itself
 * must be a directory, not a link to one. Adds what it found to *c (zero it first). Returns 0 when
 * path is gone, -1 with errno set otherwise (ENOTDIR/ELOOP: path is not a directory). */
int rmtree_remove(const char *path, struct rmtree_count *c);

/* Whether a live process holds a flock on the directory dir (its owner's claim: a bench or a
 * recorder, possibly of another PID namespace, whose directory must not be removed); 0 also when
 * dir cannot be opened as a directory (a link is not followed). */
int rmtree_claimed(const char *dir);

/* *c as one phrase for a warning into buf: "1 file (200.0 MB), 1 symbolic link, 1 FIFO, socket
 * or device" ("nothing" when empty), with ", N not removed" when some are left. Returns buf. */
const char *rmtree_describe(const struct rmtree_count *c, char *buf, size_t len);

#endif
