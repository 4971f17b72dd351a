/* cgtree.h - private to front/proc: cgroup2 directories (docs/programs.md, "Containment"): where
 * the mount and this process's cgroup are, their small interface files, and the removal of a
 * cgroup with every cgroup a run made under it (contain.c at a run's end, sweep.c for what a
 * dead bench left). */
#ifndef ALLOCAB_PROC_CGTREE_H
#define ALLOCAB_PROC_CGTREE_H

#include <stddef.h>
#include <sys/types.h>

/* The cgroup2 mount point (/proc/self/mountinfo) into out. Returns 0 or -1. */
int cgtree_mount(char *out, size_t len);

/* This process's cgroup path under the mount ("" for the root; /proc/self/cgroup's "0::" line).
 * Returns 0 or -1. */
int cgtree_own(char *out, size_t len);

/* Writes text to dir/name. Returns 0, or -1 with errno. */
int cgtree_write(const char *dir, const char *name, const char *text);

/* Reads dir/name into buf (NUL-terminated); returns the length or -1. */
ssize_t cgtree_read(const char *dir, const char *name, char *buf, size_t len);

/* Whether the cgroup or one under it holds a process (cgroup.events "populated 1"). */
int cgtree_populated(const char *dir);

/* Kills every process of dir and of every cgroup under it (cgroup.kill, which reaches the
 * descendants; before kernel 5.14 SIGKILL to each member of each), thaws each frozen one, and
 * removes them depth first (never following a link), waiting for them to empty until the
 * CLOCK_MONOTONIC second until; step(arg) is called while waiting (NULL: none). Returns 0 when
 * dir is gone, else -1 with *left the cgroups still there (dir included) and errno of the last
 * failed removal. */
int cgtree_remove(const char *dir, double until, void (*step)(void *), void *arg, size_t *left);

/* CLOCK_MONOTONIC in seconds. */
double cgtree_now(void);

#endif
