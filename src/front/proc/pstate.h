/* pstate.h - private to front/proc: a process's state as /proc/PID/stat gives it, for the guard
 * (a stopped bench), containment (a process still running) and the sweep (a dead bench). */
#ifndef ALLOCAB_PROC_PSTATE_H
#define ALLOCAB_PROC_PSTATE_H

#include <sys/types.h>

/* pid's state letter in /proc/PID/stat (R, S, D, T, t, Z, X, ...), or 0 when it cannot be read
 * (no such process in this PID namespace). */
int pstate_of(pid_t pid);

#endif
