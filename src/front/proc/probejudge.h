/* probejudge.h - internal to probelog.c and probejudge.c: the state of one run's judgement and
 * the helpers both files use. Not for other modules. */
#ifndef ALLOCAB_PROBEJUDGE_H
#define ALLOCAB_PROBEJUDGE_H

#include <stddef.h>
#include <string.h>
#include <cjson/cJSON.h>

struct probe_expect;
struct pimgs;
struct ptrack;
struct contain;

enum reason_kind {
	R_PRELOAD,
	R_STATIC,
	R_SETID,
	R_ESCAPE,
	R_CONTAIN,
	R_NOREPORT,
	R_FOREIGN,
	R_OWN,
	R_OTHER,
	R_SECOND,
	R_CONFIG,
	R_UNCHECKED,
	R_ACCOUNT,
	R_COUNT
};

struct judge {
	const struct probe_expect *e;
	const char *tail;
	int have[R_COUNT];
	char reason[R_COUNT][768];
};

static inline int pjudge_is(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static inline const char *pjudge_base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "?";
}

struct elf_facts;

/* Facts about an executable (elfscan.h), cached by path and modification time; never NULL. */
const struct elf_facts *pjudge_facts(const char *path);

/* The dynamic linker's "cannot be preloaded" line of the stderr tail into out, or "". */
void pjudge_preload_line(const char *tail, char *out, size_t len);

/* Notes the reason of kind k, unless one of that kind was noted already. */
__attribute__((format(printf, 3, 4))) void pjudge_note(struct judge *j, enum reason_kind k,
                                                       const char *fmt, ...);

/* A start record of pid after item r (or anywhere when r is NULL), before an exec_failed of it:
 * 1, -1 (an exec_failed first) or 0. */
int pjudge_started_after(const cJSON *records, const cJSON *r, long pid);

/* An image of pid that never sent a start record: path as exec'ed (searched in PATH), or the
 * tracker's /proc/PID/exe; the reason says why when the executable shows it. */
void pjudge_unreported(struct judge *j, const char *path, long pid);

/* Containment's findings (cn may be NULL) and the tracker's maps and processes (t may be NULL or
 * refused). */
void pjudge_contained(struct judge *j, const cJSON *records, const struct ptrack *t,
                      const struct contain *cn);

/* A configured arm: every exec'ed image that did not exec again read its settings back. */
void pjudge_unchecked(struct judge *j, const struct pimgs *p);

struct probe_account;
/* A tracked run's accounting (proc.h, struct probe_account) into *a: the CPU time the kernel
 * charged to the run against the CPU clocks of the processes the tracker saw; a difference
 * beyond the tolerance either way is noted. t NULL or refused: unchecked. */
void pjudge_account(struct judge *j, const struct ptrack *t, const struct contain *cn,
                    struct probe_account *a);

#endif
