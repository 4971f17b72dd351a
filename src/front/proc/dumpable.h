/* dumpable.h - private to front/proc: a tracing runner (runspawn.c) and its children are not
 * dumpable, so that a process of the same user, such as the program under test, can neither trace
 * them, read or write their memory nor take their descriptors (ptrace(2), "Ptrace access mode
 * checking"; pidfd_getfd(2); /proc/PID/fd). A child is made dumpable again just before its exec,
 * with nothing of its parent's left open, so that its parent may trace it. */
#ifndef ALLOCAB_PROC_DUMPABLE_H
#define ALLOCAB_PROC_DUMPABLE_H

/* Makes this process not dumpable for the rest of its life; when that holds, makes ready (a pipe
 * its next child closes once it is dumpable, dumpable_child) and else leaves it {-1, -1}.
 * Returns 0, or -1 with errno. */
int dumpable_parent(int ready[2]);

/* In the forked child, before it waits for its tracer: closes every descriptor its exec would
 * close but hold_fd (so that none of its parent's can be taken from it once it is dumpable),
 * becomes dumpable (PTRACE_SEIZE of a process that is not needs CAP_SYS_PTRACE) and closes
 * ready_fd to say so. */
void dumpable_child(int hold_fd, int ready_fd);

/* In the parent after the fork: waits until the child is dumpable (EOF on ready[0]); nothing when
 * ready[1] < 0. Closes ready[1]. */
void dumpable_wait(int ready[2]);

#endif
