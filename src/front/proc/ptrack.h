/* ptrack.h - every process of a probed run, seen by the kernel whatever started it
 * (docs/programs.md, "Process tracking"). The run's first process is attached with PTRACE_SEIZE
 * while it waits to exec, with the fork, vfork, clone and exec events only (no system-call stops):
 * the kernel then attaches every descendant as it is created and stops each image change at
 * PTRACE_EVENT_EXEC, where /proc/PID/exe names the new image, however the exec was reached (a raw
 * syscall, fexecve, execveat, glibc's internal spawn). Group-stops are kept (PTRACE_LISTEN) and
 * every signal is delivered unchanged. The runner drives it: ptrack_start after fork (runspawn.c),
 * ptrack_drain whenever it wakes, ptrack_end after the run's first process is reaped. While a
 * tracked run runs, the calling process must have no other child: the tracker takes every child
 * event but the first process's exit. */
#ifndef ALLOCAB_PTRACK_H
#define ALLOCAB_PTRACK_H

#include "common/u64map.h"

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

/* Most images one run keeps; more sets images_truncated. */
#define PTRACK_MAX_IMAGES 65536
/* Test hook (docs/programs.md): set to 1, the tracker behaves as if PTRACE_SEIZE had been refused
 * with EPERM, as in a container without ptrace. */
#define PTRACK_REFUSE_VAR "ALLOCAB_TEST_PTRACE_REFUSED"

enum ptrack_mode {
	PTRACK_TRACED,  /* every process was seen */
	PTRACK_REFUSED, /* PTRACE_SEIZE failed: the probe alone tells which processes ran */
};

/* One exec: the process and its new image. */
struct ptrack_image {
	long pid;
	long nspid;      /* the pid in its innermost PID namespace (the probe's getpid()) */
	const char *exe; /* /proc/PID/exe at the exec (interned, owned by the tracker) */
	long long probe_size; /* bytes of the record file at the exec (-1: unknown): the image's
	                         own start record comes after them */
};

/* A process of the run (the first one and every fork or process clone). */
struct ptrack_proc {
	long pid;
	long nspid;
	/* Its CPU time (every thread, every image: the kernel's process CPU clock), read by the
	 * tracer when its zombie was reported (the whole of it: have_cpu 2), or when the tracer let
	 * it go alive at the end of the run (have_cpu 1); 0: never read. */
	int have_cpu;
	long long cpu_ns;
};

/* A known allocator's library (common/allocknown.h) other than the platform's, mapped in a
 * process when it exited (/proc/PID/maps at PTRACE_EVENT_EXIT). */
struct ptrack_lib {
	long pid;
	const char *exe;    /* interned */
	const char *object; /* interned */
};
/* Most such libraries one run keeps. */
#define PTRACK_MAX_LIBS 4096

struct ptrack {
	enum ptrack_mode mode;
	int refused_errno;           /* PTRACK_REFUSED: why */
	struct ptrack_image *images; /* in the order the execs happened */
	size_t nimages;
	int images_truncated; /* more than PTRACK_MAX_IMAGES */
	size_t processes;     /* the first process, every fork and vfork, clones that start a
	                         process (threads are not counted here) */
	size_t threads;       /* clones that start a thread */
	struct ptrack_proc *procs; /* every process, in the order they started */
	size_t nprocs;
	int procs_truncated;
	struct ptrack_lib *libs;
	size_t nlibs;
	const char *probe_file; /* the run's record file (ptrack_start), or NULL */
	/* The first tracee (thread id) whose CPU affinity at its exit or at an exec was not the one
	 * the tracer had at ptrack_start (it called sched_setaffinity), and the CPUs it had then,
	 * as a list ("0-3,6"); 0 and "" when none, -1 when the tracer's could not be read. An
	 * affinity changed and put back between those events is not seen. */
	long affinity_tid;
	char affinity_cpus[64];
	cpu_set_t affinity; /* internal: the tracer's */
	/* internal: the first process; live tracees (tid -> detach mark); processes (pid -> index
	 * + 1 in procs); interned exe strings */
	pid_t top;
	struct u64map live;
	struct u64map procidx;
	char **exes;
	size_t nexes, exes_cap, images_cap, procs_cap, libs_cap;
	unsigned long own_pidns;
};

/* Attaches the just-forked pid, which must be blocked before its exec (runspawn.c waits on a pipe).
 * probe_file (may be NULL; kept, not copied) is the run's record file, whose size each exec
 * notes. Returns a tracker (ptrack_free) in mode PTRACK_TRACED, or in mode PTRACK_REFUSED when
 * ptrace was refused (or the test hook says so); NULL when memory ran out. */
struct ptrack *ptrack_start(pid_t pid, const char *probe_file);

/* The pid of process pid in its innermost PID namespace, from /proc/PID/status NSpid (pid when it
 * shares this process's namespace or is gone). */
long ptrack_nspid(long pid);

/* Handles every stop and exit the tracees have reported, except the exit of top (the run's first
 * process), which it leaves for the runner's wait4. Never blocks. */
void ptrack_drain(struct ptrack *t, pid_t top);

/* After top was reaped and its process group killed: takes the exits of the killed tracees and
 * detaches those that left the group (they go on as they would untraced), for at most grace_s
 * seconds. */
void ptrack_end(struct ptrack *t, double grace_s);

void ptrack_free(struct ptrack *t);
#endif
