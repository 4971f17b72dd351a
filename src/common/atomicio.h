/* atomicio.h - whole-file output that is never seen half-written: write to a temporary file in
 * the target's directory, fsync, rename over the target. The rule for what a path names
 * (docs/results-format.md, "Writing files"): the path's last component is replaced, never written
 * through. A symbolic link there is replaced by the new file and its target is left as it was; a
 * device or FIFO there (/dev/null, /dev/stdout, a pipe) is written in place, since it cannot be
 * replaced and holds no file to protect. */
#ifndef ALLOCAB_ATOMICIO_H
#define ALLOCAB_ATOMICIO_H

#include <stddef.h>

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
	int in_place; /* fd is the target itself */
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
 * ALLOCAB_FAULT_WRITES counts appends as writes (docs/results-format.md, "Faults"). A device,
 * FIFO or "-" is appended to in place. */
struct append_out {
	int fd;
	int regular; /* a regular file: truncated back, fsync'd, room reserved */
	long end;    /* its length */
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
