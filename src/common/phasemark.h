/* phasemark.h - the phases a program reports about itself (docs/programs.md, "Phases your
 * program marks"): the program appends lines "begin NAME NS" and "end NAME NS" to the file named
 * by ALLOCAB_PHASE_FILE, NS its own CLOCK_MONOTONIC reading in nanoseconds; this reads them back,
 * within fixed bounds, into the durations of each phase. Any line that breaks the protocol makes
 * the whole file refused with one reason: marks are evidence, and half of them is none. */
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

/* One phase name and the durations of its spans, in the order they began. */
struct phasemark_phase {
	char name[PHASEMARK_MAX_NAME + 1];
	int64_t *ns; /* malloc'd, n durations, each 1..PHASEMARK_MAX_NS */
	size_t n, cap;
	int64_t open_at;  /* begin time of the span in progress, or -1 */
	size_t open_line; /* its line number */
};

struct phasemark_set {
	struct phasemark_phase phase[PHASEMARK_MAX_PHASES]; /* in the order first begun */
	size_t nphases;
	size_t nlines; /* lines read */
	size_t nspans; /* ended spans over all phases */
};

/* Whether s[0..n) is a phase name: 1 to PHASEMARK_MAX_NAME bytes of [A-Za-z0-9_.-], not "total"
 * (the whole run's phase). */
int phasemark_valid_name(const char *s, size_t n);

/* Parses the text[0..len) of a marks file into *s (zeroed first). [lo, hi] is the
 * CLOCK_MONOTONIC window the program ran in (ns); a timestamp outside it is refused (lo = hi = 0:
 * not checked). Returns 0, or -1 with the first problem in err ("line 7: end of 'epoch' that
 * was not begun"). Free *s with phasemark_free either way. */
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
