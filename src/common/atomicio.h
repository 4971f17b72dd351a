/* atomicio.h - whole-file output that is never seen half-written: write to a temporary file in
 * the target's directory, fsync, rename over the target. The rule for what a path names
 * (docs/results-format.md, "Writing files"; atomic_target): the path's last component is
 * replaced, never written through. A symbolic link there is replaced by the new file and its
 * target is left as it was; a FIFO, /dev/null or a terminal there (or a link to one) is written
 * in place, and a link to this process's standard output or error (/dev/stdout) is that
 * descriptor; any other device is refused, and no file is created in /dev, /proc or /sys. */
#ifndef ALLOCAB_ATOMICIO_H
#define ALLOCAB_ATOMICIO_H

#include <stddef.h>
#include <sys/types.h>

/* What writing an output path does (atomic_target). */
enum atomic_kind {
	AT_REPLACE,    /* a new file renamed over the path's last component */
	AT_IN_PLACE,   /* a FIFO, /dev/null or a terminal (or a link to one), opened and written */
	AT_DESCRIPTOR, /* "-", or a link to this process's fd 1 or 2: written to that descriptor */
};

/* Decides what writing path does, before anything is written: an enum atomic_kind (*fd set for
 * AT_DESCRIPTOR), or -1 with errno and a one-line reason in err for a path allocab must not write:
 * a block device, a socket or a character device other than /dev/null and a terminal (or a link
 * to one), another process's descriptor (/proc/PID/fd/N), a descriptor of this process other
 * than 1 and 2 open on a file, or a file to be created or replaced in /dev, /proc or /sys. */
int atomic_target(const char *path, int *fd, char *err, size_t errlen);

/* Replaces path with the n bytes of data, atomically. "-" writes to stdout instead. Returns 0, or
 * -1 with errno set and a one-line reason in err (e.g. "results/x.json: Permission denied"); on
 * failure the target is unchanged and no temporary file is left behind. The temporary file is
 * DIR/.allocab-tmp.PID.XXXXXX; such files of processes that no longer exist, older than a minute
 * (a writer killed between write and rename), are removed by the next write into DIR. A test-only
 * fault hook, ALLOCAB_FAULT_WRITES, is described in docs/results-format.md ("Faults"). */
int atomic_write(const char *path, const void *data, size_t n, char *err, size_t errlen);


/* A whole file written piece by piece (one too large to build in memory, such as a trace), under
 * atomic_write's rules: a temporary file in the target's directory, renamed over it by
 * atomic_commit; a device or FIFO written in place (never replaced); "-" stdout. */
struct atomic_out {
	int fd;       /* write here */
	int in_place; /* fd is the target itself (or a copy of the descriptor it names) */
	char path[4096], target[4096], dir[4096], tmp[4096 + 32];
};

/* Opens the output for path. Returns 0, or -1 with errno set and a reason in err (nothing
 * created). */
int atomic_begin(struct atomic_out *o, const char *path, char *err, size_t errlen);
/* Makes what was written the target (fsync and rename). Returns 0, or -1 with errno set and a
 * reason in err: the target is then unchanged and the temporary file gone. */
int atomic_commit(struct atomic_out *o, char *err, size_t errlen);
/* Gives up: the temporary file is removed, the target unchanged (errno preserved). */
void atomic_abort(struct atomic_out *o);

/* An append-only file (an allocab-bench/2 file: docs/results-format.md, "Writing files"):
 * created atomically with its first bytes, then grown by whole appends, each one write(2) and an
 * fsync. An append that fails leaves the file as it was before it (a partial write is cut off
 * again). Each append first reserves, beyond the file's end (fallocate, size unchanged), the room
 * it needs plus `keep` bytes, and fails with ENOSPC when the disk has not that room: a closing
 * append (closing 1) takes no new reservation, so the room kept lets a full disk still take it.
 * ALLOCAB_FAULT_WRITES counts appends as writes (docs/results-format.md, "Faults"). A FIFO,
 * /dev/null, a terminal or a descriptor (atomic_target) is appended to in place. Before each
 * append to a regular file, the descriptor must still be the file at the path (same device and
 * inode, not unlinked) and of the size allocab left it (not truncated or appended to by another
 * writer): an append to a file removed, replaced or written by another since fails with ESTALE
 * and says so, so that no one is told the results are in a file that does not hold them. */
struct append_out {
	int fd;
	int regular; /* a regular file: truncated back, fsync'd, room reserved */
	long end;    /* its length */
	int lost;    /* the file was removed or replaced: what was appended is in no file */
	dev_t dev;   /* the file's identity, checked before each append */
	ino_t ino;
	char path[4096];
};
/* Writes data (n bytes) to path as atomic_write does, then opens it for appending. Returns 0, or
 * -1 with errno and a reason in err. */
int append_create(struct append_out *o, const char *path, const void *data, size_t n,
                  size_t keep, char *err, size_t errlen);
/* Opens the existing regular file path for appending, cut to its first keep_bytes (a torn last
 * line after them goes). Returns 0, or -1 with errno and err (ESTALE: the file is shorter than
 * keep_bytes or not a regular file). */
int append_reopen(struct append_out *o, const char *path, long keep_bytes, size_t keep,
                  char *err, size_t errlen);
int append_write(struct append_out *o, const void *data, size_t n, size_t keep, int closing,
                 char *err, size_t errlen);
void append_close(struct append_out *o);

/* Writes all n bytes to fd, retrying short writes and EINTR. Returns 0, or -1 with errno set
 * (EIO if the descriptor accepts no more bytes). */
int write_full(int fd, const void *data, size_t n);

/* Reads a whole file into a NUL-terminated malloc'd buffer the caller frees; *n gets the length
 * (may be NULL). Returns NULL with errno set on failure. */
char *read_file(const char *path, size_t *n);

#endif
