/* duetcheck.h - private to front/proc: what the bench checks of a duet helper's report
 * (duetread.c) against what the kernel says of that helper, so that a report the helper did not
 * write (a program running as root can take any descriptor, docs/programs.md, "What a program can
 * still do") makes its run unverified with a fixed reason, never one of the report's. */
#ifndef ALLOCAB_PROC_DUETCHECK_H
#define ALLOCAB_PROC_DUETCHECK_H

#include <stddef.h>
#include <stdint.h>

/* A report that came in pieces, lengths out of range or objects that are not JSON. */
#define DUETCHECK_MALFORMED "duet report refused: its helper's report was cut short or malformed"

/* A helper's report and the kernel's facts about the helper. */
struct duetcheck {
	int ok;                  /* the report says the process ran */
	int64_t user_ns, sys_ns; /* the report's wait4 CPU time of the process */
	int have_cgroup;         /* the report has containment.cgroup_cpu */
	int64_t cgroup_ns;       /* its user_ns + sys_ns */
	int64_t wall_ns;         /* the report's wall time */
	size_t extra;            /* bytes that followed the report in the channel */
	int exited, status;      /* the helper exited (not killed), with status */
	/* the CPU time of the helper's reaped children (its process and what that waited for) as
	 * the kernel counts it (/proc/PID/stat cutime, cstime, whole ticks) */
	int have_kernel; /* /proc/PID/stat could be read */
	int64_t kernel_user_ns, kernel_sys_ns;
	int64_t tick_ns;   /* one clock tick */
	int64_t window_ns; /* the bench's own clock, from before the helper started to its end */
	long ncpu;         /* CPUs online */
};

/* NULL when the report agrees with the kernel: the kernel's count could be read, nothing followed
 * it, the helper exited 0 (it ran) or 1 (it did not), and when it ran its wait4 CPU time is the
 * kernel's count of the helper's children within the ticks' rounding, the CPU time a verdict uses
 * (the cgroup's, else wait4's) is not below that count, and neither its wall time nor its CPU time
 * exceed the bench's own clock (times the CPUs). Else a fixed reason. */
const char *duetcheck_judge(const struct duetcheck *c);

/* Fields 16 and 17 (cutime, cstime, in ticks) of the text of /proc/PID/stat into *cu, *cs.
 * Returns 0, or -1 when the text has no such fields. */
int duetcheck_parse_stat(const char *text, long long *cu, long long *cs);

#endif
