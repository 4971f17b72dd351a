/* probematch.h - internal to the judge (probejudge.c): a run's probe records paired with what the
 * process tracker (ptrack.h) and the proc connector (contain.h) saw. Each answers and calls
 * nothing of the judge's; the judge words what they find. Not for other modules. */
#ifndef ALLOCAB_PROBEMATCH_H
#define ALLOCAB_PROBEMATCH_H

#include <stddef.h>
#include <cjson/cJSON.h>

struct pimgs;
struct ptrack;
struct contain;
struct probe_expect;
struct probe_account;

/* Marks in lost[] (t->nimages) every tracked image with no start record of the same pid and
 * executable written after its exec, in order (a pid may exec several times). 0, or -1 when
 * memory ran out. */
int pmatch_images(const struct pimgs *p, const struct ptrack *t, char *lost);

/* Marks in escaped[] (cn->nexecs) every exec the connector saw that the tracker t did not (per
 * pid, as many; none when t is NULL or kept only some images). 0, or -1 when memory ran out. */
int pmatch_execs(const struct contain *cn, const struct ptrack *t, char *escaped);

/* The first process the connector saw join the run that the tracker did not: its pid, 0 when
 * there is none (or the tracker kept only some processes), -1 when memory ran out. */
long pmatch_forks(const struct contain *cn, const struct ptrack *t);

/* How many records name a process the tracker did not see, its pid or its pid in its namespace
 * (*first: the first such pid); -1 when memory ran out. */
long pmatch_foreign(const cJSON *records, const struct ptrack *t, long *first);

/* The accounting closes when the charge and the clocks differ by at most PROBE_ACCOUNT_SLACK_NS
 * plus PROBE_ACCOUNT_PER_PROC_NS per process: both sides count the same kernel clock of the same
 * tasks, and differ only by microsecond roundings and the moments of reading. */
#define PROBE_ACCOUNT_SLACK_NS    2000000LL
#define PROBE_ACCOUNT_PER_PROC_NS 10000LL

/* A tracked run's charge (its cgroup's usage, else wait4's from e) and its processes' CPU clocks
 * into *a (proc.h, struct probe_account, zeroed before); 0, or -1 when there is no charge. */
int pmatch_account(const struct ptrack *t, const struct contain *cn, const struct probe_expect *e,
                   struct probe_account *a);

#endif
