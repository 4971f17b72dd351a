/* orphans.h - private to front/proc: the processes a run leaves behind that were re-parented to
 * this process (runner_adopt_orphans, proc.h), as RUNNER_WAIT_ORPHANS reports them. */
#ifndef ALLOCAB_PROC_ORPHANS_H
#define ALLOCAB_PROC_ORPHANS_H

#include <stddef.h>

/* The children of this process's main thread still alive (/proc/self/task/PID/children); "pid N
 * NAME" of up to 3 of them into names[0..len) (", ..." when there are more). Returns how many
 * there are (0 also when the kernel does not list children). */
size_t orphans_list(char *names, size_t len);

#endif
