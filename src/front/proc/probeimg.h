/* probeimg.h - internal to the reader, the judge and the summary (probelog.c,
 * probejudge.c, probematch.c, probesum.c): a run's probe records grouped by process
 * image. An image starts with a "start" record (an exec'ed program) or a "fork" record (a fork
 * child) and owns the records of its pid that follow until the pid's next image: its "exec"
 * record (the image was replaced) and its "exit" record. Not for other modules. */
#ifndef ALLOCAB_PROBEIMG_H
#define ALLOCAB_PROBEIMG_H

#include <stddef.h>
#include <cjson/cJSON.h>

struct probe_expect;

struct pimg {
	const cJSON *first; /* its start or fork record */
	const cJSON *exit;  /* its exit record, or NULL */
	const cJSON *work;  /* its last record with counts: exit, else exec; NULL if none */
	long pid;
	const char *exe;
	int started;   /* first is a start record (an exec'ed image), not a fork record */
	int exempt;    /* the --cmd launcher shell or one of its fork children (probe_expect) */
	int replaced;  /* the image ended in an exec (an exec record, or the pid's next start) */
	double cpu_ns; /* CPU time of the image (from its first record to its last, or to the
	                  pid's next image); NAN unknown */
	double user_ns, sys_ns; /* the same split (getrusage of the image's process); NAN unknown */
	double calls; /* malloc-family calls of the image (its counts); NAN without counts */
};

struct pimgs {
	struct pimg *v;
	size_t n;
	size_t pids; /* distinct pids that reported */
};

/* Groups records into images; e (may be NULL) marks the launcher's. Returns 0, or -1 when memory
 * ran out (*out then holds nothing). */
int pimgs_build(const cJSON *records, const struct probe_expect *e, struct pimgs *out);
void pimgs_free(struct pimgs *p);

/* Member k of o as a string or a number (-1 when absent). */
const char *pimg_str(const cJSON *o, const char *k);
long pimg_num(const cJSON *o, const char *k);

/* A start record of pid after item r of records (anywhere when r is NULL), before an exec_failed
 * of it: 1, -1 (an exec_failed first) or 0. */
int pimg_started_after(const cJSON *records, const cJSON *r, long pid);

/* probelog_read_fd (proc.h) of the file at path, opened O_NOFOLLOW | O_NONBLOCK (a trial run's
 * records, preload.c). */
int probelog_read(const char *path, size_t max, cJSON **out, size_t *bad, char *err,
                  size_t errlen);

#endif
