/* test_duetcheck.c - what the bench checks of a duet helper's report against the kernel
 * (front/proc/duetcheck.h): a consistent report passes; bytes after it, an exit that is not what
 * it says, CPU time above or below the kernel's count of the helper's children, a cgroup figure
 * below that count and times beyond the bench's own clock are each refused with a fixed reason;
 * /proc/PID/stat's cutime and cstime are read past a command name holding ") ". */
#include "front/proc/duetcheck.h"
#include "check.h"

#include <string.h>

#define MS 1000000LL

/* A run of 100 ms CPU (90 user, 10 sys) in 300 ms of wall time, as the kernel saw it too. */
static struct duetcheck honest(void)
{
	return (struct duetcheck){.ok = 1,
	                          .user_ns = 90 * MS + 123456,
	                          .sys_ns = 10 * MS,
	                          .have_cgroup = 1,
	                          .cgroup_ns = 101 * MS,
	                          .wall_ns = 300 * MS,
	                          .exited = 1,
	                          .status = 0,
	                          .have_kernel = 1,
	                          .kernel_user_ns = 90 * MS,
	                          .kernel_sys_ns = 10 * MS,
	                          .tick_ns = 10 * MS,
	                          .window_ns = 320 * MS,
	                          .ncpu = 2};
}

static int refused(const struct duetcheck *c, const char *part)
{
	const char *why = duetcheck_judge(c);

	return why && strncmp(why, "duet report refused: ", 21) == 0 && strstr(why, part);
}

static void test_judge(void)
{
	struct duetcheck c = honest();

	CHECK(duetcheck_judge(&c) == NULL, "a report that agrees with the kernel passes");
	c.have_cgroup = 0;
	c.cgroup_ns = 0;
	CHECK(duetcheck_judge(&c) == NULL, "and without a cgroup (wait4's figure is the one used)");
	c = honest();
	c.extra = 1;
	CHECK(refused(&c, "did not write"), "one byte after the report: refused");
	c = honest();
	c.status = 1;
	CHECK(refused(&c, "did not end"), "a report of a run from a helper that exited 1: refused");
	c = honest();
	c.ok = 0;
	CHECK(refused(&c, "did not end"),
	      "a report that it could not run from a helper that exited "
	      "0: refused");
	c.status = 1;
	CHECK(duetcheck_judge(&c) == NULL, "that report from a helper that exited 1 passes");
	c = honest();
	c.exited = 0;
	CHECK(refused(&c, "did not end"), "a helper that was killed: refused");
	c = honest();
	c.user_ns = 400 * MS;
	CHECK(refused(&c, "more than the kernel"), "a CPU time above the kernel's count: refused");
	c = honest();
	c.user_ns = 60 * MS;
	c.have_cgroup = 0;
	CHECK(refused(&c, "less than the kernel"), "a CPU time below it: refused");
	c = honest();
	c.cgroup_ns = 50 * MS;
	CHECK(refused(&c, "less than the kernel"), "a cgroup figure below it: refused");
	c = honest();
	c.user_ns += 15 * MS;
	CHECK(duetcheck_judge(&c) == NULL,
	      "within two ticks above the count (its rounding): passes");
	c = honest();
	c.wall_ns = 400 * MS;
	CHECK(refused(&c, "own clock"), "a wall time beyond the bench's window: refused");
	c = honest();
	c.cgroup_ns = 700 * MS;
	CHECK(refused(&c, "own clock"),
	      "a cgroup CPU time beyond the window on every CPU: refused");
	c = honest();
	c.sys_ns = -1;
	CHECK(refused(&c, "more than the kernel"), "a negative figure: refused");
	c = honest();
	c.have_kernel = 0;
	CHECK(refused(&c, "could not be read"), "no kernel count: refused");
}

static void test_stat(void)
{
	long long cu = -1, cs = -1;

	CHECK(duetcheck_parse_stat("42 (a) b) Z 1 42 42 0 -1 4194560 10 20 0 0 3 4 57 8 20 0 1 0 "
	                           "100 0 0\n",
	                           &cu, &cs) == 0 &&
	          cu == 57 && cs == 8,
	      "cutime and cstime after a name holding \") \": %lld %lld", cu, cs);
	CHECK(duetcheck_parse_stat("42 (x) Z 1 42", &cu, &cs) == -1, "a cut line: refused");
	CHECK(duetcheck_parse_stat("no parenthesis", &cu, &cs) == -1, "no name: refused");
}

int main(void)
{
	test_judge();
	test_stat();
	return CHECK_DONE();
}
