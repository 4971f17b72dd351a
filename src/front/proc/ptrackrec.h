/* ptrackrec.h - internal to the tracker (ptrack.c): what it keeps of a run as the events come
 * (ptrackrec.c). Not for other modules. */
#ifndef ALLOCAB_PTRACKREC_H
#define ALLOCAB_PTRACKREC_H

#include "front/proc/ptrack.h"

/* The inode of pid's PID namespace, 0 when unknown. */
unsigned long ptrack_pidns(long pid);

/* A new process of the run (out of memory: procs_truncated). */
void ptrack_add_proc(struct ptrack *t, long pid);

/* Reads the CPU clock of process pid (every thread of it) into its entry, as a whole (2: its
 * zombie) or a part (1: alive). A thread's id, or a process not of the run, is not read. */
void ptrack_read_cpu(struct ptrack *t, long pid, int whole);

/* A process that ended unknown to the tracker: added when this process traces it (its fork stop
 * never came); a thread, or a child of this process's own, is not. */
void ptrack_adopt(struct ptrack *t, long pid);

/* pid's new image (/proc/PID/exe) at its exec, with the record file's size then. */
void ptrack_add_image(struct ptrack *t, long pid);

/* At a process's exit: every known allocator's library but the platform's that it maps. */
void ptrack_scan_maps(struct ptrack *t, long pid);

#endif
