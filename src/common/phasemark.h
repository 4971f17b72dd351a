/* phasemark.h - the phases a program reports about itself (docs/programs.md, "Phases your
 * program marks"): the program appends lines "begin NAME NS [PID [CPU]]" and "end NAME NS [PID
 * [CPU]]" to the file named by ALLOCAB_PHASE_FILE, NS its own CLOCK_MONOTONIC reading in
 * nanoseconds, PID (the helpers write it) the process that wrote the line, CPU (the helpers
 * write it too) that process's CPU clock (CLOCK_PROCESS_CPUTIME_ID: every thread, user and
 * system) in nanoseconds; this reads them back, within fixed bounds, into the spans of each
 * phase. A file of lines without CPU (older helpers) still reads: its spans have wall times
 * only. Any line that breaks the protocol makes the whole file refused
 * with one reason: marks are evidence, and half of them is none. */
#ifndef ALLOCAB_PHASEMARK_H
#define ALLOCAB_PHASEMARK_H

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

/* Whether s[0..n) is a phase name: 1 to PHASEMARK_MAX_NAME bytes of [A-Za-z0-9_.-], not "total"
 * (the whole run's phase). */
int phasemark_valid_name(const char *s, size_t n);

/* Parses the text[0..len) of a marks file into *s (zeroed first). [lo, hi] is the
 * CLOCK_MONOTONIC window the program ran in (ns); a timestamp outside it is refused (lo = hi = 0:
 * not checked). A PID, when a line has one, is 1..PHASEMARK_MAX_PID, and a span's begin and end
 * lines that both carry one must carry the same. A CPU field needs a PID before it; a span's
 * two lines carry one or neither, and the end's is not below the begin's. Returns 0, or -1 with the first problem in err
 * ("line 7: end of 'epoch' that was not begun"). Free *s with phasemark_free either way. */
int phasemark_parse(const char *text, size_t len, int64_t lo, int64_t hi, struct phasemark_set *s,
                    char *err, size_t errlen);

/* Reads the marks file at path and parses it as above. The file is opened without following a
 * symbolic link and without blocking, and must be a regular file of at most PHASEMARK_MAX_BYTES;
 * at most that many bytes plus one are read. Returns 0, or -1 with the reason in err. */
int phasemark_read(const char *path, int64_t lo, int64_t hi, struct phasemark_set *s, char *err,
                   size_t errlen);

/* Frees what s holds; accepts a zeroed set. */
void phasemark_free(struct phasemark_set *s);

#endif
