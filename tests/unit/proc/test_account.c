/* test_account.c - a tracked run's accounting (front/proc/proc.h, struct probe_account) on
 * hand-made evidence: the kernel's charge (the cgroup's usage, else wait4's) against the
 * tracer's CPU clocks of the run's processes, within the stated tolerance; CPU time of no
 * tracked process (hidden from tracking) and CPU time outside the charge (moved out of the
 * cgroup, or in processes nobody waited for) each make a verified run unverified; an untracked
 * run is not accounted. And the census beside it: a process the proc connector saw join the run
 * that the tracker never saw is an escape. */
#include "check.h"
#include "front/proc/proc.h"
#include "front/proc/probematch.h"
#include "front/proc/contain.h"
#include "front/proc/ptrack.h"

#include <stdio.h>
#include <string.h>

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

static cJSON *records(void)
{
	cJSON *a = cJSON_CreateArray();
	char buf[1024];

	snprintf(buf, sizeof buf,
	         "{\"probe\":\"allocab-probe/1\",\"event\":\"start\",\"pid\":10,\"ppid\":1,"
	         "\"exe\":\"/usr/bin/sort\",\"allocator\":\"system\",\"version\":null,"
	         "\"object\":\"%s\",\"uniform\":true,\"serves\":{\"malloc\":\"%s\",\"free\":"
	         "\"%s\"},\"exe_allocator\":null,\"preload\":\"\",\"preload_missing\":[]}",
	         LIBC, LIBC, LIBC);
	cJSON_AddItemToArray(a, cJSON_Parse(buf));
	return a;
}

static void judge(const struct probe_expect *e, const struct ptrack *t, const struct contain *cn,
                  struct probe_verdict *v)
{
	cJSON *r = records();

	probelog_judge(r, e,
	               &(struct runner_result){.pid = 10, .track = (struct ptrack *)t,
	                                       .contain = (struct contain *)cn},
	               v);
	cJSON_Delete(r);
}

int main(void)
{
	struct ptrack_image seen[] = {{.pid = 10, .exe = "/usr/bin/sort"}};
	struct ptrack_proc procs[] = {{.pid = 10, .nspid = 10, .have_cpu = 2, .cpu_ns = 300000000},
	                              {.pid = 11, .nspid = 11, .have_cpu = 2, .cpu_ns = 1000000}};
	struct ptrack t = {.mode = PTRACK_TRACED,
	                   .images = seen,
	                   .nimages = 1,
	                   .processes = 2,
	                   .procs = procs,
	                   .nprocs = 2};
	struct contain cn = {.cgroup = 1, .have_usage = 1, .usage_ns = 301500000};
	struct probe_expect e = {.allocator = "system", .have_wait4 = 1, .wait4_ns = 1000};
	struct probe_verdict v;
	cJSON *sum, *r;
	const cJSON *acct;

	judge(&e, &t, &cn, &v);
	CHECK(v.verified && v.account.checked && strcmp(v.account.charged_by, "cgroup") == 0 &&
	          v.account.accounted_ns == 301000000 && v.account.processes == 2 &&
	          v.account.tolerance_ns ==
	              PROBE_ACCOUNT_SLACK_NS + 2 * PROBE_ACCOUNT_PER_PROC_NS,
	      "the cgroup's usage within the tolerance of the tracked clocks: verified, charged by "
	      "the cgroup, not wait4 (%s)",
	      v.reason);
	r = records();
	sum = probelog_summary(r, &e, &v);
	acct = cJSON_GetObjectItemCaseSensitive(sum, "accounting");
	CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(acct, "unaccounted_ns")) ==
	              500000 &&
	          strcmp(cJSON_GetStringValue(
	                     cJSON_GetObjectItemCaseSensitive(acct, "charged_by")),
	                 "cgroup") == 0,
	      "probe.accounting: charged_by and unaccounted_ns = charged - accounted");
	cJSON_Delete(sum);
	cJSON_Delete(r);

	cn.usage_ns = 601000000;
	judge(&e, &t, &cn, &v);
	CHECK(!v.verified && !v.deterministic &&
	          strcmp(v.reason, "300.0 ms of the run's CPU time (cgroup: 601.0 ms) belongs to "
	                           "no process the tracker proved (theirs: 301.0 ms over 2 "
	                           "processes): work hidden from process tracking") == 0,
	      "300 ms of cgroup CPU no tracked process used: unverified, not deterministic (%s)",
	      v.reason);
	cn.usage_ns = 1000000;
	judge(&e, &t, &cn, &v);
	CHECK(!v.verified && strstr(v.reason, "the run's processes used 301.0 ms of CPU time, "
	                                      "cgroup counted 1.0 ms: 300.0 ms of work moved out of "
	                                      "the run's cgroup"),
	      "tracked CPU above the cgroup's: moved out (%s)", v.reason);
	cn.usage_ns = 301000000 + PROBE_ACCOUNT_SLACK_NS + 2 * PROBE_ACCOUNT_PER_PROC_NS;
	judge(&e, &t, &cn, &v);
	CHECK(v.verified, "a difference of exactly the tolerance: verified (%s)", v.reason);
	cn.usage_ns += 1;
	judge(&e, &t, &cn, &v);
	CHECK(!v.verified && strstr(v.reason, "work hidden"),
	      "1 ns beyond the tolerance: unverified (%s)", v.reason);

	cn.have_usage = 0;
	e.wait4_ns = 301000000;
	judge(&e, &t, &cn, &v);
	CHECK(v.verified && strcmp(v.account.charged_by, "wait4") == 0,
	      "no cgroup figure: wait4's, which agrees (%s)", v.reason);
	e.wait4_ns = 1000000;
	judge(&e, &t, &cn, &v);
	CHECK(!v.verified && strstr(v.reason, "wait4 counted 1.0 ms: 300.0 ms of work done in "
	                                      "processes the run never waited for"),
	      "wait4 below the tracked clocks: work nobody waited for (%s)", v.reason);
	e.wait4_ns = 301000000;
	procs[0].have_cpu = 0;
	judge(&e, &t, &cn, &v);
	CHECK(!v.verified && v.account.unread == 1 && strstr(v.reason, "some never read"),
	      "a process whose clock was never read counts nothing: unverified (%s)", v.reason);
	procs[0].have_cpu = 2;

	{
		long forks[] = {10, 11, 12};
		struct contain seen_all = {.cgroup = 1, .connector = 1, .forks = forks, .nforks = 2};

		e.wait4_ns = 301000000;
		judge(&e, &t, &seen_all, &v);
		CHECK(v.verified, "every process the connector saw join the run was tracked (%s)",
		      v.reason);
		seen_all.nforks = 3;
		judge(&e, &t, &seen_all, &v);
		CHECK(!v.verified && strcmp(v.reason, "process 12 of the run escaped process tracking "
		                                      "(CLONE_UNTRACED)") == 0,
		      "a process of the run the tracker never saw: escaped (%s)", v.reason);
	}

	t.mode = PTRACK_REFUSED;
	e.wait4_ns = 1;
	judge(&e, &t, &cn, &v);
	CHECK(v.verified && !v.account.checked, "not tracked: no accounting (%s)", v.reason);
	r = records();
	sum = probelog_summary(r, &e, &v);
	CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(sum, "accounting")),
	      "not tracked: probe.accounting null");
	cJSON_Delete(sum);
	cJSON_Delete(r);
	return CHECK_DONE();
}
