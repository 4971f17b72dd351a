/* trace.h - reading allocab traces (docs/trace-format.md): a bundled trace written by
 * `allocab record`, or one raw per-process stream written by the recorder library. A corrupt,
 * truncated or hostile file is an error with a one-line reason, never a crash: every length is
 * checked against the format's caps before anything is allocated or read, so a reader holds at
 * most one block (TRACE_MAX_PAYLOAD + TRACE_MAX_RAW bytes) at a time. */
#ifndef ALLOCAB_TRACE_H
#define ALLOCAB_TRACE_H

#include "marks/marks.h"
#include "trace/trace_format.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One decoded call. Ids are the recorder's object ids: 0 is NULL (free(NULL), realloc(NULL, n)). */
struct trace_event {
	unsigned op;     /* enum trace_op */
	uint64_t ts_ns;  /* monotonic ns since the process's stream started */
	uint64_t id;     /* the object the call returned (alloc, realloc) or released (free) */
	uint64_t old_id; /* realloc/reallocarray: the object passed in (0 for NULL) */
	uint64_t size;   /* bytes requested (calloc, reallocarray: the product) */
	uint64_t align;  /* posix_memalign, aligned_alloc, memalign, valloc, pvalloc; else 0 */
};

struct trace_process {
	uint64_t pid, ppid;
	uint64_t start_realtime_ns, start_mono_ns;
	char exe[512];  /* executable path (truncated), "" if unknown */
	char args[512]; /* command line, arguments separated by spaces (truncated) */
};

struct trace_block {
	unsigned kind;       /* enum trace_kind */
	uint32_t thread;     /* events: the thread's index in its process */
	uint32_t count;      /* events: how many */
	const uint8_t *data; /* the decompressed payload; valid until the next trace_next */
	size_t len;
	const uint8_t *bytes; /* the block as stored (header + payload), for copying */
	size_t nbytes;
};

enum trace_mode {
	TRACE_BUNDLE, /* a whole trace (TRACE_FILE_MAGIC, version 1 to 3): must end with a trailer
	                 block, then end of file */
	TRACE_STREAM, /* one raw stream (TRACE_RAW_MAGIC, version 2 or 3): a process block, its status
	                 block, events blocks whose events name addresses (trace/bundle.h);
	                 ends at end of file, a torn last block ends it early */
};

struct trace_reader;

/* Decompression limits of a reader: a trace whose blocks, counted from its start, decompress to
 * more than TRACE_MAX_EXPANSION times their stored bytes (beyond the first TRACE_RAW_FLOOR
 * bytes), or to more than TRACE_MAX_TOTAL_RAW bytes in all, is refused at the block that
 * crosses the line, before that block is decompressed. Recordings expand about 1.5-2.5x. */
#define TRACE_MAX_EXPANSION 64
#define TRACE_RAW_FLOOR     ((uint64_t)1 << 20)
#define TRACE_MAX_TOTAL_RAW ((uint64_t)4 << 30)
/* The largest allocation an event may record: no address space holds more. */
#define TRACE_MAX_SIZE ((uint64_t)1 << 56)

/* Opens path (a regular file) for reading in mode. Returns a reader, or NULL with the reason in
 * err (prefixed with the path). */
struct trace_reader *trace_open(const char *path, enum trace_mode mode, char *err, size_t errlen);

/* The same over n bytes in memory (not copied; they must outlive the reader). */
struct trace_reader *trace_open_mem(const void *data, size_t n, enum trace_mode mode, char *err,
                                    size_t errlen);

/* Reads and checks the next block (magic, header and payload checks, caps, kind order: a process
 * block first, events and end blocks after it, at most one marks block right before its end
 * block, the trailer last). Returns 1 with *b filled, 0 at
 * the end (after the trailer, or in stream mode at end of file or at a torn last block, see
 * trace_torn), or -1 with the reason in err. */
int trace_next(struct trace_reader *r, struct trace_block *b, char *err, size_t errlen);

/* In stream mode: whether the stream ended in a torn (incomplete) block that was ignored. */
int trace_torn(const struct trace_reader *r);

/* From now on trace_next neither checks nor decompresses compressed events payloads: their blocks
 * come with data NULL (len is still the raw length), for a reader that decompresses them later
 * and treats a frame that does not decompress to that length as damage. */
void trace_compressed_only(struct trace_reader *r);

/* The format version in the file header. */
unsigned trace_version(const struct trace_reader *r);

/* The byte offset of the next block: after trace_next returned 1, the end of that block. */
uint64_t trace_offset(const struct trace_reader *r);

/* Reads an LEB128 varint at *p (before end) into *v and advances *p. Returns 0, or -1 when it
 * runs past end or beyond 64 bits. */
int trace_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);

void trace_close(struct trace_reader *r);

/* Walks the events of one events block. */
struct trace_cursor {
	const uint8_t *p, *end;
	uint64_t factor; /* ns per tick, 32.32 fixed point */
	uint64_t ticks;  /* of the previous event */
	uint32_t left;   /* events not yet decoded */
};

/* Starts reading the events of b (an events block). Returns 0, or -1 with the reason in err. */
int trace_events_begin(const struct trace_block *b, struct trace_cursor *c, char *err,
                       size_t errlen);

/* Decodes the next event into *ev (its time in ns since the stream started). Returns 1, 0 after
 * the last one (when the block must also end there), or -1 with the reason in err. */
int trace_events_next(struct trace_cursor *c, struct trace_event *ev, char *err, size_t errlen);

/* Parses a process block's payload. Returns 0, or -1 with the reason in err. */
int trace_parse_process(const struct trace_block *b, struct trace_process *pr, char *err,
                        size_t errlen);

/* Parses an end (or a raw stream's status) block's payload into c[0..TRACE_END_NCOUNTERS-1]
 * (missing counters are 0). Returns 0, or -1 with the reason in err. */
int trace_parse_end(const struct trace_block *b, uint64_t *c, char *err, size_t errlen);

/* The name of an operation ("malloc", ...), "?" for an unknown one. */
const char *trace_op_name(unsigned op);

/* Reads a whole bundled trace from memory, decoding every event: the entry point for fuzzing.
 * Returns 0, or -1 with the reason in err. */
int trace_check_buffer(const void *data, size_t n, char *err, size_t errlen);

/* One event of a loaded process, with the thread that made it. */
struct trace_rec {
	uint64_t ts_ns, id, old_id, size;
	uint32_t align;  /* at most TRACE_MAX_ALIGN */
	uint32_t thread; /* the recorder's thread index */
	uint8_t op;
};

#define TRACE_MAX_ALIGN (1u << 30)
/* Events of one process a loader holds at most (48 bytes each). */
#define TRACE_MAX_PROC_EVENTS (1u << 25)

/* A whole process of a trace, as trace_each_process hands it over. */
struct trace_proc_events {
	struct trace_process info;
	size_t index;                      /* 1-based position in the trace */
	unsigned version;                  /* the file's format version */
	int has_end;                       /* its end block was read */
	int complete;                      /* every event it made is here: trace_loss() is NULL */
	uint64_t end[TRACE_END_NCOUNTERS]; /* the end block's counters; a version 1 end block
	                                       gets end[TRACE_END_HOW] = TRACE_HOW_EXIT */
	struct trace_marks marks;          /* the phases it marked (version 3), nphases 0: none */
	struct trace_rec *ev; /* file order: each thread's events in the order it made them */
	size_t n;
};

/* What each process of a trace is handed to: fn(p, arg, err, errlen), with at most max_events
 * events (<= TRACE_MAX_PROC_EVENTS: a process with more is an error). fn may keep p->ev (setting
 * it to NULL; free() it later) and p->marks (copying it and zeroing p->marks; trace_marks_free it
 * later); it returns 0, or -1 with the reason in err to stop. */
typedef int trace_process_fn(struct trace_proc_events *p, void *arg, char *err, size_t errlen);
struct trace_visit {
	size_t max_events;
	trace_process_fn *fn;
	void *arg;
};

/* Reads the bundled trace at path and hands v each process, in file order, with all of its
 * events and its marks. Returns 0, or -1 with the reason in err (prefixed with the path). */
int trace_each_process(const char *path, const struct trace_visit *v, char *err, size_t errlen);

/* Why a process's stream is incomplete, from its end block (has_end: whether it had one, end: its
 * counters): killed, still running, events dropped, a torn tail, no end record; into buf (of len
 * bytes), or NULL when nothing is missing. */
const char *trace_loss(int has_end, const uint64_t *end, char *buf, size_t len);

/* "exit", "exec", "_exit", "killed", "running", or "unknown": how a stream ended (enum
 * trace_how). */
const char *trace_how_name(uint64_t how);

/* The same over n bytes of a bundled trace in memory (not copied); reasons are not prefixed. */
int trace_each_process_mem(const void *data, size_t n, const struct trace_visit *v, char *err,
                           size_t errlen);

/* The distinct thread indices of ev[0..n), ascending, in *out (malloc'd; free() it), *nth of
 * them. Linear in n plus a sort of the runs of equal indices (a run per events block). Returns 0,
 * or -1 when out of memory. */
int trace_thread_list(const struct trace_rec *ev, size_t n, uint32_t **out, size_t *nth);

/* Writes the trailer block that ends a bundle of nblocks blocks holding nprocs processes to f.
 * Returns 0, or -1 with errno set. */
int trace_write_trailer(FILE *f, uint64_t nblocks, uint64_t nprocs);

/* ---- statistics ---- */

/* What `allocab trace info` reports about a trace (docs/trace-format.md): per
 * process its threads, operations by kind, a size histogram, peak live bytes, the share of
 * cross-thread frees, its duration, and the phases it marked with the events in each span,
 * computed from the events in time order. */

#define TS_BUCKETS 42 /* 0 bytes, then [2^(k-1), 2^k) for k = 1..40, then >= 2^40 */

struct ts_proc {
	struct trace_process info;
	size_t index;
	int complete, has_end; /* as trace_proc_events */
	uint64_t end[TRACE_END_NCOUNTERS];
	uint64_t events, threads;
	uint64_t ops[TRACE_OP_COUNT];
	uint64_t free_null;        /* free(NULL) */
	uint64_t releases;         /* frees and reallocs of an object allocated in the trace */
	uint64_t cross_releases;   /* ... by a thread other than the one that allocated it */
	uint64_t unmatched;        /* frees/reallocs of an object the trace never allocated */
	uint64_t hist[TS_BUCKETS]; /* requested sizes of allocations and reallocations */
	uint64_t peak_live_bytes, peak_live_objects, bytes_allocated;
	uint64_t duration_ns; /* end block's duration, else the last event's time */
	struct trace_marks marks; /* the phases it marked (nphases 0: none) */
	uint64_t *span_events;    /* malloc'd: events within each span of marks.all, in its order */
};

struct ts_result {
	struct ts_proc *procs; /* in file order */
	size_t n;
	unsigned version; /* the trace format version of the file */
};

#define TS_SHOW 5 /* processes the text report shows in full unless told to show all */

/* Reads the trace at path. Returns 0 with *out filled (release with tracestat_free), or -1 with
 * the reason in err. */
int tracestat_file(const char *path, struct ts_result *out, char *err, size_t errlen);
void tracestat_free(struct ts_result *r);

/* The allocab-trace-info/1 document (docs/results-format.md); NULL when out of memory. */
cJSON *tracestat_json(const struct ts_result *r, const char *path);

/* The same as text for people: the TS_SHOW processes with the most events, then one line on
 * the others, or every process when all. */
void tracestat_print(const struct ts_result *r, const char *path, int all, FILE *f);

/* ---- recording (`allocab record`, docs/trace-format.md) ---- */

#define TRACE_RECORD_LIB "liballocab-record.so" /* the recorder (src/preload/record.c) */

/* Records cmd (NULL-terminated; cmd[0] found on PATH) into the trace file out: the recorder
 * library preloaded (ALLOCAB_RECORD_LIB, else common/ownlib.h finds it), its phase marks read
 * from ALLOCAB_PHASE_FILE, what it leaves running waited for up to wait_s seconds, then its raw
 * streams bundled and written atomically, and what the trace lacks said on stderr. SIGINT,
 * SIGTERM and SIGHUP are passed on to cmd; if record dies, cmd gets SIGTERM. Returns the exit
 * status of `allocab record`: cmd's own when it is not 0 (128 + signal when killed), 127 when
 * it cannot be run, else ST_OK once the trace is whole, ST_FAIL when no trace could be written
 * or events were lost because a stream could not be written. */
int trace_record(char **cmd, const char *out, int wait_s);

#endif
