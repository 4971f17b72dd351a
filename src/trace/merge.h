/* merge.h - private to the trace module's bundler (bundle.c, merge.c): one process's raw events
 * blocks merged across its threads in time order, their addresses numbered into object ids, and
 * written as the trace's events blocks (bundle.h says why this order is right). */
#ifndef ALLOCAB_TRACE_MERGE_H
#define ALLOCAB_TRACE_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* An events block of a raw stream, as the first pass found it. */
struct rm_block {
	uint64_t off;    /* in the stream file */
	uint32_t nbytes; /* header and stored payload */
	uint32_t thread;
	uint32_t raw_len;
	size_t seq; /* position among the stream's events blocks */
};

struct rm_input {
	int fd;             /* the stream, read with pread */
	struct rm_block *b; /* sorted here by thread, then seq */
	size_t n;
};

struct rm_output {
	FILE *out;
	uint64_t blocks, events; /* written */
	uint64_t foreign;        /* releases of addresses the process never allocated here */
	uint64_t misordered;     /* allocations at an address still live */
	uint64_t damaged_bytes;  /* of blocks that no longer read back: their events are lost */
};

/* Merges in's blocks into events blocks on o->out. Returns 0, or -1 with the reason in err (out
 * of memory, or a failed write with errno set). */
int rm_merge(struct rm_input *in, struct rm_output *o, char *err, size_t errlen);

#endif
