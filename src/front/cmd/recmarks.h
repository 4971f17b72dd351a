/* recmarks.h - internal to the bundler (recbundle.c, recmarks.c): the phases a recorded command
 * marked in its marks file (common/phasemark.h), each span given to the process image that made
 * it and converted to that image's time base (docs/trace-format.md, "What is recorded"). A span
 * belongs to the image of its writer's pid whose lifetime holds it (the images of one pid, an
 * exec chain, follow each other in time); a span written without a pid belongs to the one image
 * whose lifetime holds it, and to none when several or none do. Times: a mark is the writer's
 * CLOCK_MONOTONIC reading, an image's events are ns since its stream started, and the process
 * block holds CLOCK_MONOTONIC at that start, so a span's time in the trace is its mark minus
 * that start. */
#ifndef ALLOCAB_RECMARKS_H
#define ALLOCAB_RECMARKS_H

#include "common/phasemark.h"
#include "common/trace.h"

#include <stddef.h>
#include <stdint.h>

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
