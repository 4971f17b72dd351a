/* duetcheck.c - a duet helper's report against the kernel (duetcheck.h). */
#include "front/proc/duetcheck.h"

#include <stdio.h>
#include <string.h>

/* The rounding allowed beyond the ticks: the run's first instructions before its cgroup, the
 * kernel's conversions between its clock and the ticks. */
#define SLACK_NS 2000000

const char *duetcheck_judge(const struct duetcheck *c)
{
	int64_t kernel = c->kernel_user_ns + c->kernel_sys_ns, w = c->user_ns + c->sys_ns;
	int64_t used = c->have_cgroup ? c->cgroup_ns : w;
	int64_t most = c->window_ns * (c->ncpu > 0 ? c->ncpu : 1) + SLACK_NS;

	if (!c->have_kernel)
		return "duet report refused: the kernel's count of its helper could not be read";
	if (c->extra)
		return "duet report refused: bytes its helper did not write were in its channel";
	if (!c->exited || c->status != (c->ok ? 0 : 1))
		return "duet report refused: its helper did not end as its report says";
	if (!c->ok)
		return NULL;
	if (c->user_ns < 0 || c->sys_ns < 0 || c->cgroup_ns < 0 || c->wall_ns < 0 ||
	    w > kernel + 2 * c->tick_ns + SLACK_NS)
		return "duet report refused: its CPU time is more than the kernel counted";
	if (used + c->tick_ns + SLACK_NS < kernel)
		return "duet report refused: its CPU time is less than the kernel counted";
	if (c->wall_ns > c->window_ns + SLACK_NS || used > most)
		return "duet report refused: its times exceed the bench's own clock";
	return NULL;
}

int duetcheck_parse_stat(const char *text, long long *cu, long long *cs)
{
	const char *p = strrchr(text, ')');

	/* after "(comm)": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
	 * utime stime cutime cstime */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %lld %lld",
	                 cu, cs) != 2)
		return -1;
	return *cu >= 0 && *cs >= 0 ? 0 : -1;
}
