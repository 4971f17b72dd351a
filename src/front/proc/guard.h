/* guard.h - private to front/proc: nothing left behind (proc.h, "Leftovers"). A bench's first
 * contained run (runner.c, duet.c) calls guard_ensure: what dead benches left is removed and
 * named, and the bench's guard is started, a process of allocab's own in a session of its own that
 * outlives the bench, waits for it to end however it ends (PR_SET_PDEATHSIG, and a look at its
 * parent every second), then kills and removes the cgroups of the bench's runs with whatever runs
 * in them, and the bench's temporary directories, naming each on stderr. After a bench that ended
 * well there is nothing left, and it says nothing. */
#ifndef ALLOCAB_PROC_GUARD_H
#define ALLOCAB_PROC_GUARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Makes this process the owner of what it and the helpers it forks make (sweep_owner). */
void sweep_own(void);

/* Kills and removes the cgroups under this process's own cgroup, and removes this user's
 * temporary directories of TMPDIR, that name a process that no longer exists or is a zombie
 * (proc.h's prefixes); only: those of that pid alone, known to be dead (0: of any dead one).
 * Names each on msgs as "allocab: WHO: removed ..." (msgs NULL: says nothing of what it removed);
 * what it cannot remove is a warning on stderr. Returns how many it found. */
size_t sweep_leftovers(FILE *msgs, const char *who, pid_t only);

/* Once per process, in a process that is not a helper of another: sweep_leftovers of any pid,
 * then the guard started and this process made the owner (a warning on stderr when it cannot be
 * started). This process must be single-threaded: the parent-death signal follows the thread
 * that forked. Returns the guard's pid, or 0 without one. */
pid_t guard_ensure(void);

/* A run of the bench (not of a duet helper: the bench watches those, duet.c) begins: should the
 * bench be found stopped by a signal after the CLOCK_MONOTONIC time resume_after_ns (the run's
 * time limit and grace, and a second), its guard resumes it (SIGCONT): a program of the same user
 * can stop its tracer, and the run's time limit holds regardless. */
void guard_run(int64_t resume_after_ns);
/* The run has ended: whether the guard had to resume the bench during it. */
int guard_run_end(void);
/* Resumes the guard when it is stopped by a signal (at most once a second; called while a run
 * runs). */
void guard_tend(void);
/* The guard's pid (0: none): a child of this process that outlives its runs, never an orphan of
 * one. */
pid_t guard_pid(void);
/* Whether pid is stopped by a signal (state T in /proc/PID/stat; a ptrace stop is not). */
int guard_stopped(pid_t pid);

#endif
