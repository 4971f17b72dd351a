/* marks.h - the phase marks module (docs/programs.md, "Phases your program marks";
 * docs/trace-format.md, "What is recorded"): the one definition of what a phase mark is and of
 * its bounds, the marks file a program writes (read here, phasemark_*), the marks block of a
 * trace (read and written here, trace_*_marks*), and the spans of a recorded command given to
 * the process images that made them (rk_attribute). The writers that must stay where they run
 * (phase/allocab_phase.h in the program, the bundler of the trace module) take the bounds from
 * here or agree with them by test. */

/* The marks file: the program appends lines "begin NAME NS [PID [CPU]]" and "end NAME NS [PID
 * [CPU]]" to the file named by ALLOCAB_PHASE_FILE, NS its own CLOCK_MONOTONIC reading in
 * nanoseconds, PID (the helpers write it) the process that wrote the line, CPU (the helpers
 * write it too) that process's CPU clock (CLOCK_PROCESS_CPUTIME_ID: every thread, user and
 * system) in nanoseconds; this reads them back, within fixed bounds, into the spans of each
 * phase. A file of lines without CPU (older helpers) still reads: its spans have wall times
 * only. Any line that breaks the protocol makes the whole file refused
 * with one reason: marks are evidence, and half of them is none. */
#ifndef ALLOCAB_MARKS_H
#define ALLOCAB_MARKS_H

#include <stddef.h>
#include <stdint.h>

#define PHASEMARK_ENV        "ALLOCAB_PHASE_FILE"
#define PHASEMARK_MAX_BYTES  (1u << 20) /* a larger file is refused, never read past this */
#define PHASEMARK_MAX_LINE   128        /* bytes of one line, its newline included */
#define PHASEMARK_MAX_NAME   64         /* bytes of a phase name */
#define PHASEMARK_MAX_PHASES 7          /* distinct names (the results keep 8 phases with total) */
#define PHASEMARK_MAX_SPANS  4096       /* ended phases in one file */
#define PHASEMARK_MAX_NS     1000000000000000LL /* 10^15 ns: the longest phase (results' limit) */
#define PHASEMARK_MAX_PID    4194304u /* Linux's PID_MAX_LIMIT on 64-bit machines (2^22) */

/* The marks block of a trace holds what a marks file may hold: its caps are the file's, and its
 * largest payload is u32 phases, then per phase u32 name length, the name, u32 spans and per
 * span u64 begin and u64 end (ns since the process's stream started). */
#define TRACE_MARKS_MAX_PHASES PHASEMARK_MAX_PHASES
#define TRACE_MARKS_MAX_SPANS  PHASEMARK_MAX_SPANS
#define TRACE_MARKS_MAX_NAME   PHASEMARK_MAX_NAME
#define TRACE_MARKS_MAX_NS     ((uint64_t)PHASEMARK_MAX_NS)
#define TRACE_MAX_MARKS                                                                            \
	(4 + TRACE_MARKS_MAX_PHASES * (8 + TRACE_MARKS_MAX_NAME) + 16 * TRACE_MARKS_MAX_SPANS)

/* One phase name and its spans, in the order they began (a name cannot begin again before it
 * ended, so each span begins at or after the end of the one before). */
struct phasemark_phase {
	char name[PHASEMARK_MAX_NAME + 1];
	int64_t *ns;  /* malloc'd, n durations, each 1..PHASEMARK_MAX_NS */
	int64_t *at;  /* malloc'd, n begin times (the program's CLOCK_MONOTONIC ns) */
	uint32_t *pid; /* malloc'd, n writers: the PID of the span's lines, 0 when they carry none */
	int64_t *cpu;  /* malloc'd, n CPU times (0..PHASEMARK_MAX_NS), -1 when the lines carry none */
	size_t n, cap;
	int64_t open_at;   /* begin time of the span in progress, or -1 */
	size_t open_line;  /* its line number */
	uint32_t open_pid; /* its begin line's PID, 0 for none */
	int64_t open_cpu;  /* its begin line's CPU clock, -1 for none */
};

struct phasemark_set {
	struct phasemark_phase phase[PHASEMARK_MAX_PHASES]; /* in the order first begun */
	size_t nphases;
	size_t nlines; /* lines read */
	size_t nspans; /* ended spans over all phases */
	size_t cpu_spans; /* those with a CPU time (both lines carried one) */
};

/* The most CPU time the spans of one phase may hold in a run whose processes the kernel counted
 * run_cpu_ns of CPU time for (its cgroup's, or wait4's, the larger): that plus 1% and 2 ms, for
 * the rounding of those counts. Spans that hold more were not measured: the bench makes such a
 * run invalid and the reader refuses a file with one. */
double phasemark_cpu_most(double run_cpu_ns);

/* Whether s[0..n) is a phase name: 1 to PHASEMARK_MAX_NAME bytes of [A-Za-z0-9_.-], not "total"
 * (the whole run's phase). */
int phasemark_valid_name(const char *s, size_t n);

/* The CLOCK_MONOTONIC window [lo, hi] (ns) a program ran in; lo = hi = 0: not checked. */
struct phasemark_window {
	int64_t lo, hi;
};

/* Parses the text[0..len) of a marks file into *s (zeroed first). A timestamp outside the window
 * run is refused. A PID, when a line has one, is 1..PHASEMARK_MAX_PID, and a span's begin and end
 * lines that both carry one must carry the same. A CPU field needs a PID before it; a span's
 * two lines carry one or neither, and the end's is not below the begin's. Returns 0, or -1 with the first problem in err
 * ("line 7: end of 'epoch' that was not begun"). Free *s with phasemark_free either way. */
int phasemark_parse(const char *text, size_t len, struct phasemark_window run,
                    struct phasemark_set *s, char *err, size_t errlen);

/* Reads the marks file at path and parses it as above, in the window [lo, hi]. The file is opened
 * without following a symbolic link and without blocking, and must be a regular file of at most
 * PHASEMARK_MAX_BYTES; at most that many bytes plus one are read. Returns 0, or -1 with the reason
 * in err. */
int phasemark_read(const char *path, int64_t lo, int64_t hi, struct phasemark_set *s, char *err,
                   size_t errlen);

/* Frees what s holds; accepts a zeroed set. */
void phasemark_free(struct phasemark_set *s);

/* ---- the marks block of a trace ---- */

/* One span of a marked phase, in ns since the process's stream started: begin < end. */
struct trace_span {
	uint64_t begin_ns, end_ns;
};

/* The phases a process marked (a marks block), each with its spans in order. */
struct trace_marks {
	size_t nphases; /* 0: none */
	struct {
		char name[TRACE_MARKS_MAX_NAME + 1]; /* a phase name (phasemark_valid_name) */
		const struct trace_span *span;       /* into all */
		size_t n;                            /* >= 1 */
	} phase[TRACE_MARKS_MAX_PHASES];
	size_t nspans;           /* over all phases, <= TRACE_MARKS_MAX_SPANS */
	struct trace_span *all;  /* malloc'd: every phase's spans, phase after phase */
};

/* Parses a marks block's payload data[0..len) into *m: 1 to TRACE_MARKS_MAX_PHASES distinct phase names, each
 * with 1 or more spans of 1..TRACE_MARKS_MAX_NS ns that begin no earlier than the one before
 * ended, at most TRACE_MARKS_MAX_SPANS in all, the payload consumed exactly. Returns 0, or -1
 * with the reason in err (*m then holds nothing). */
int trace_parse_marks(const uint8_t *data, size_t len, struct trace_marks *m, char *err,
                      size_t errlen);

/* Frees what m holds and zeroes it; accepts a zeroed one. */
void trace_marks_free(struct trace_marks *m);

/* Writes m (1 or more phases, as trace_parse_marks accepts) as a whole marks block, header and
 * payload, into buf of cap bytes (TRACE_BLOCK_HDR + TRACE_MAX_MARKS always suffice). Returns its
 * length, or 0 when it does not fit. */
size_t trace_marks_block(const struct trace_marks *m, uint8_t *buf, size_t cap);

/* ---- the spans of a recorded command given to its process images ---- */

/* A process image of the trace: its pid and lifetime in CLOCK_MONOTONIC ns. */
struct rk_image {
	uint64_t pid;
	uint64_t start_ns; /* its stream's start (the process block's) */
	uint64_t end_ns;   /* start_ns + the duration of its status block (its last flush); an
	                      image without one holds no span */
};

/* The spans attribution left out, and one of each kind for the report. */
struct rk_left {
	uint64_t spans;       /* marked spans in all */
	uint64_t no_image;    /* of a pid no recorded image's lifetime holds */
	uint64_t pid;         /* one such pid */
	uint64_t without_pid; /* written without a pid, held by several images or by none */
	uint64_t overlapping; /* begun before an earlier span of their phase in their image ended
	                         (threads whose clock reads and writes crossed) */
};

/* Gives every span of s to its image among img[0..n) and fills out[0..n) (each zeroed first,
 * nphases 0 for an image that marked nothing; trace_marks_free them) with the image's phases in
 * the order s first began them, its spans in ns since its start in the order they began (a span
 * that begins before the one before it ended is left out). Returns 0, or -1 when out of
 * memory. */
int rk_attribute(const struct phasemark_set *s, const struct rk_image *img, size_t n,
                 struct trace_marks *out, struct rk_left *left);

#endif
