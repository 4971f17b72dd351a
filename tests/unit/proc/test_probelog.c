/* test_probelog.c - judging probe records (front/proc/proc.h) on hand-written records: the
 * verdict and the reason's priority, the launcher exemption of --cmd arms, exec'ed programs that
 * never reported, images the process tracker saw that never reported, --expect's executable
 * proof, a configured arm's read-back, which reasons are deterministic, the summary's images (the
 * busiest kept, calls attributed to the image that made them), the reader's handling of bad
 * lines, and containment's findings (escapes, foreign records, records written before the exec,
 * second allocators, configurations never read back, PID namespaces). */
#include "check.h"
#include "front/proc/proc.h"
#include "front/proc/probeimg.h"
#include "front/proc/contain.h"
#include "front/proc/ptrack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define MI   "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0"
#define JE   "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"

/* The LD_PRELOAD the next records show. */
static const char *rec_preload = "";

/* One start/fork/exit record as the probe writes it. */
static char *rec(char *buf, size_t len, const char *event, int pid, int ppid, const char *exe,
                 const char *alloc, const char *object, const char *exe_alloc, const char *missing)
{
	snprintf(buf, len,
	         "{\"probe\":\"allocab-probe/1\",\"event\":\"%s\",\"pid\":%d,\"ppid\":%d,"
	         "\"exe\":\"%s\",\"allocator\":\"%s\",\"version\":null,\"object\":\"%s\","
	         "\"uniform\":true,\"serves\":{\"malloc\":\"%s\",\"free\":\"%s\"},"
	         "\"exe_allocator\":%s%s%s,\"preload\":\"%s\",\"preload_missing\":[%s%s%s]}",
	         event, pid, ppid, exe, alloc, object, object, object, exe_alloc ? "\"" : "",
	         exe_alloc ? exe_alloc : "null", exe_alloc ? "\"" : "", rec_preload,
	         missing ? "\"" : "", missing ? missing : "", missing ? "\"" : "");
	return buf;
}

/* Parses the lines into a records array as probelog_read would. */
static cJSON *records(const char *const *lines, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_Parse(lines[i]));
	return a;
}

/* What the tracker saw, for judge_tracked; NULL: the probe alone. */
static const struct ptrack *tracker;
/* What containment saw; NULL: none. */
static const struct contain *container;

static void judge(const char *const *lines, size_t n, const struct probe_expect *e, int top,
                  const char *tail, struct probe_verdict *v)
{
	cJSON *r = records(lines, n);
	struct runner_result run = {.pid = top, .track = (struct ptrack *)tracker,
	                            .contain = (struct contain *)container};

	snprintf(run.tail, sizeof run.tail, "%s", tail ? tail : "");
	probelog_judge(r, e, &run, v);
	cJSON_Delete(r);
}

static void test_verified(void)
{
	char a[1024], b[1024];
	const char *lines[3];

	rec_preload = MI ":/build/liballocab-probe.so";
	lines[0] = rec(a, sizeof a, "start", 10, 1, "/usr/bin/dash", "mimalloc", MI, NULL, NULL);
	lines[1] = "{\"probe\":\"allocab-probe/1\",\"event\":\"exec\",\"pid\":11,"
	           "\"ppid\":10,\"path\":\"/usr/bin/sort\"}";
	lines[2] = rec(b, sizeof b, "start", 11, 10, "/usr/bin/sort", "mimalloc", MI, NULL, NULL);
	rec_preload = "";
	struct probe_expect e = {.allocator = "mimalloc", .object = MI};
	struct probe_verdict v;

	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(v.verified && v.processes == 2 && v.records == 3,
	      "two processes on mimalloc, the exec'ed one reported: verified (%s)", v.reason);
	e.object = JE;
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "other allocator serves malloc: libmimalloc.so.2.0"),
	      "another library than the arm's: other allocator (%s)", v.reason);
}

static void test_priorities(void)
{
	char a[1024], b[1024];
	const char *lines[] = {
	    rec(a, sizeof a, "start", 10, 1, "/usr/bin/dash", "system", LIBC, NULL,
	        "libmimaloc.so.2"),
	    rec(b, sizeof b, "start", 11, 10, "/usr/bin/prog", "jemalloc", JE, NULL, NULL)};
	struct probe_expect e = {.allocator = "mimalloc"};
	struct probe_verdict v;
	const char *tail = "ERROR: ld.so: object 'libmimaloc.so.2' from LD_PRELOAD cannot be "
	                   "preloaded (cannot open shared object file): ignored.\nmore output";

	judge(lines, 2, &e, 10, tail, &v);
	CHECK(!v.verified && strcmp(v.reason, "preload failed: ERROR: ld.so: object "
	                                      "'libmimaloc.so.2' from LD_PRELOAD cannot be "
	                                      "preloaded (cannot open shared object file): "
	                                      "ignored.") == 0,
	      "preload failure comes first and quotes ld.so's line (%s)", v.reason);
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "preload failed: ld.so could not load "
	                                      "libmimaloc.so.2 in dash (pid 10)"),
	      "without the stderr line the record names the missing entry (%s)", v.reason);
	judge(lines + 1, 1, &e, 11, NULL, &v);
	CHECK(!v.verified &&
	          strcmp(v.reason, "program links its own allocator (jemalloc, libjemalloc.so.2): "
	                           "/usr/bin/prog") == 0,
	      "a linked allocator that is not preloaded: own allocator (%s)", v.reason);
}

static void test_no_report(void)
{
	char a[1024];
	const char *lines[] = {
	    rec(a, sizeof a, "start", 10, 1, "/usr/bin/dash", "system", LIBC, NULL, NULL),
	    "{\"probe\":\"allocab-probe/1\",\"event\":\"exec\",\"pid\":12,\"ppid\":10,"
	    "\"path\":\"/nonexistent/static-prog\"}"};
	struct probe_expect e = {.allocator = "system"};
	struct probe_verdict v;
	cJSON *none = cJSON_CreateArray();

	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified &&
	          strcmp(v.reason, "/nonexistent/static-prog (pid 12) sent no probe report") == 0 &&
	          !v.deterministic,
	      "an exec'ed program without a start record, not deterministic (%s)", v.reason);
	judge(lines, 1, &e, 99, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "the program sent no probe report"),
	      "the first process never reported (%s)", v.reason);
	probelog_judge(none, &e, &(struct runner_result){.pid = 10}, &v);
	CHECK(!v.verified && v.processes == 0, "no records at all: unverified (%s)", v.reason);
	cJSON_Delete(none);
}

static void test_cmd_arms(void)
{
	char a[1024], b[1024], c[1024];
	const char *lines[] = {
	    rec(a, sizeof a, "start", 10, 1, "/usr/bin/dash", "system", LIBC, NULL, NULL),
	    rec(b, sizeof b, "fork", 11, 10, "/usr/bin/dash", "system", LIBC, NULL, NULL),
	    rec(c, sizeof c, "start", 11, 10, "/work/app-mimalloc", "system", LIBC, "mimalloc",
	        NULL)};
	struct probe_expect e = {.allocator = "mimalloc",
	                         .exe_counts = 1,
	                         .launcher = 10,
	                         .launcher_exe = "/usr/bin/dash"};
	struct probe_verdict v;

	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(v.verified,
	      "--expect: the launcher shell is exempt and an executable linking "
	      "mimalloc is proof (%s)",
	      v.reason);
	e.allocator = "jemalloc";
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && strcmp(v.reason, "program links its own allocator (mimalloc): "
	                                      "/work/app-mimalloc") == 0,
	      "--expect jemalloc on a mimalloc build: own allocator (%s)", v.reason);
	e.launcher = 0;
	e.allocator = "mimalloc";
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified &&
	          strstr(v.reason, "other allocator serves malloc: libc.so.6 in "
	                           "/usr/bin/dash (pid 10), expected mimalloc") &&
	          v.deterministic,
	      "without the exemption the shell on glibc fails the proof, deterministic (%s)",
	      v.reason);
	e.launcher = 10;
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified && strcmp(v.reason, "the program sent no probe report (only the "
	                                      "bench's own shell reported)") == 0,
	      "--expect with only the exempt shell and its fork child: unverified (%s)", v.reason);
	lines[1] = rec(b, sizeof b, "start", 10, 1, "/usr/bin/dash", "system", LIBC, NULL, NULL);
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "other allocator serves malloc: libc.so.6 in "
	                                      "/usr/bin/dash (pid 10)"),
	      "the shell exec'ing a shell: the second image is the program's, judged (%s)",
	      v.reason);
}

static void test_tracked(void)
{
	char a[1024], b[1024], c[1024];
	const char *lines[] = {
	    rec(a, sizeof a, "start", 10, 1, "/usr/bin/dash", "system", LIBC, NULL, NULL),
	    rec(b, sizeof b, "start", 10, 1, "/usr/bin/sort", "system", LIBC, NULL, NULL),
	    rec(c, sizeof c, "start", 12, 10, "/usr/bin/dash", "system", LIBC, NULL, NULL)};
	struct ptrack_image seen[] = {{.pid = 10, .exe = "/usr/bin/dash"},
	                              {.pid = 10, .exe = "/usr/bin/sort"},
	                              {.pid = 11, .exe = "/usr/bin/sort"},
	                              {.pid = 12, .exe = "/usr/bin/dash"},
	                              {.pid = 12, .exe = "/usr/bin/env"}};
	struct ptrack t = {
	    .mode = PTRACK_TRACED, .images = seen, .nimages = 2, .processes = 3, .threads = 4};
	struct probe_expect e = {.allocator = "system"};
	struct probe_verdict v;

	tracker = &t;
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(v.verified && v.tracked && v.processes == 3 && v.threads == 4 && v.images == 3 &&
	          strcmp(v.tracking, "ptrace") == 0,
	      "every tracked image reported: verified, the tracker's counts (%s)", v.reason);
	t.nimages = 5;
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && strcmp(v.reason, "/usr/bin/sort (pid 11) sent no probe report") == 0,
	      "an image the probe never saw (a raw execve): unverified, named with its pid (%s)",
	      v.reason);
	seen[2] = (struct ptrack_image){.pid = 10, .exe = "/usr/bin/sort"};
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "(pid 10) sent no probe report"),
	      "a pid that exec'ed the same program twice needs two start records (%s)", v.reason);
	seen[2] = (struct ptrack_image){.pid = 12, .exe = "/usr/bin/dash"};
	seen[4] = (struct ptrack_image){.pid = 12, .exe = "/usr/bin/dash"};
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "/usr/bin/dash (pid 12) sent no probe report"),
	      "two execs of pid 12, one start record (%s)", v.reason);
	t.mode = PTRACK_REFUSED;
	t.refused_errno = EPERM;
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(v.verified && !v.tracked && v.processes == 2 &&
	          strcmp(v.tracking, "probe only (ptrace: EPERM)") == 0,
	      "ptrace refused: the probe's records alone, and the run says so (%s)", v.tracking);
	tracker = NULL;
}

/* Containment and the tracker's own evidence: escapes, foreign records, records written before
 * the exec, second allocators, configurations never read back, PID namespaces. */
static void test_contained(void)
{
	char a[1024], b[1024], c[1024], d[1200], ns[1024];
	const char *lines[] = {
	    rec(a, sizeof a, "start", 10, 1, "/usr/bin/dash", "system", LIBC, NULL, NULL),
	    rec(b, sizeof b, "start", 11, 10, "/usr/bin/sort", "system", LIBC, NULL, NULL),
	    rec(c, sizeof c, "start", 99, 10, "/usr/bin/sort", "system", LIBC, NULL, NULL), d};
	struct ptrack_image seen[] = {{.pid = 10, .exe = "/usr/bin/dash"},
	                              {.pid = 11, .exe = "/usr/bin/sort"}};
	struct ptrack_proc procs[] = {
	    {.pid = 10, .nspid = 10}, {.pid = 11, .nspid = 11}, {.pid = 99, .nspid = 99}};
	struct ptrack_lib libs[] = {{10, "/usr/bin/dash", "/usr/lib/libtcmalloc_minimal.so.4.5"}};
	struct ptrack t = {.mode = PTRACK_TRACED,
	                   .images = seen,
	                   .nimages = 2,
	                   .processes = 3,
	                   .procs = procs,
	                   .nprocs = 3};
	struct contain_exec ex[] = {{10, 10, "/usr/bin/dash"},
	                            {11, 11, "/usr/bin/sort"},
	                            {12, 12, "/tmp/ev"}};
	struct contain cn = {.cgroup = 1, .connector = 1, .execs = ex, .nexecs = 2};
	struct probe_expect e = {.allocator = "system"};
	struct probe_verdict v;

	snprintf(d, sizeof d, "%s", rec(d, sizeof d, "exit", 11, 10, "/usr/bin/sort", "system", LIBC,
	                                NULL, NULL));
	tracker = &t;
	container = &cn;
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(v.verified, "every exec the connector saw was tracked: verified (%s)", v.reason);
	cn.nexecs = 3;
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified &&
	          strcmp(v.reason, "/tmp/ev (pid 12) escaped process tracking (CLONE_UNTRACED)") == 0,
	      "an exec the tracker never saw: escaped (%s)", v.reason);
	cn.nexecs = 2;
	cn.lost = 1;
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "proc connector lost events"),
	      "connector events lost: unverified (%s)", v.reason);
	cn.lost = 0;
	t.nprocs = 2;
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "1 probe record names processes the run did not start "
	                                      "(pid 99 first)"),
	      "a record of a pid the run never started: unverified (%s)", v.reason);
	procs[1].nspid = 2;
	seen[1].nspid = 2;
	t.nprocs = 3;
	procs[2] = (struct ptrack_proc){.pid = 12, .nspid = 99};
	lines[1] = rec(ns, sizeof ns, "start", 2, 1, "/usr/bin/sort", "system", LIBC, NULL, NULL);
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(v.verified, "pids of a PID namespace match through NSpid (%s)", v.reason);
	lines[1] = b;
	procs[1].nspid = 11;
	seen[1].nspid = 11;
	seen[1].probe_size = 100000;
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && strcmp(v.reason, "/usr/bin/sort (pid 11) sent no probe report") == 0,
	      "a start record written before the exec is not the image's (%s)", v.reason);
	seen[1].probe_size = 0;
	t.libs = libs;
	t.nlibs = 1;
	judge(lines, 3, &e, 10, NULL, &v);
	CHECK(!v.verified && v.deterministic &&
	          strcmp(v.reason, "second allocator loaded: libtcmalloc_minimal.so.4.5 in "
	                           "/usr/bin/dash (pid 10), expected system only") == 0,
	      "a second allocator mapped at exit: unverified (%s)", v.reason);
	t.nlibs = 0;
	e = (struct probe_expect){.allocator = "system", .configured = 1};
	lines[3] = d;
	judge(lines, 4, &e, 10, NULL, &v);
	CHECK(!v.verified &&
	          strcmp(v.reason, "configuration unchecked: /usr/bin/dash (pid 10) ended without a "
	                           "read-back") == 0,
	      "a configured arm's image without an exit record: unchecked (%s)", v.reason);
	tracker = NULL;
	container = NULL;
}

static void test_read(void)
{
	char path[] = "/tmp/test_probelog.XXXXXX", a[1024], err[256];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	cJSON *r = NULL;
	size_t bad = 0;
	struct probe_verdict v = {.verified = 1, .processes = 1, .records = 1};
	cJSON *sum;

	if (!f) {
		CHECK(0, "temporary file");
		return;
	}
	fprintf(f, "%s\nnot json\n{\"other\":1}\n\n%s",
	        rec(a, sizeof a, "start", 10, 1, "/usr/bin/sort", "system", LIBC, NULL, NULL),
	        "{\"probe\":\"allocab-probe/1\",\"event\":\"exit\",\"pid\":10,\"ppid\":1,"
	        "\"counts\":{\"malloc\":5}}\n");
	fclose(f);
	CHECK(probelog_read(path, PROBELOG_MAX_BYTES, &r, &bad, err, sizeof err) == 0 && cJSON_GetArraySize(r) == 2 &&
	          bad == 2,
	      "read: two records, a non-JSON line and a foreign object skipped and counted");
	sum = probelog_summary(r, NULL, &v);
	CHECK(sum && cJSON_IsTrue(cJSON_GetObjectItem(
	                 cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "processes"), 0), "exited")),
	      "summary: the exit record marks the process exited");
	CHECK(sum && cJSON_GetObjectItem(
	                 cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "processes"), 0), "counts"),
	      "summary: the exit record's counts are kept");
	cJSON_Delete(sum);
	cJSON_Delete(r);
	unlink(path);
	CHECK(probelog_read(path, PROBELOG_MAX_BYTES, &r, &bad, err, sizeof err) != 0 && strstr(err, path),
	      "read: a missing file is an error naming it (%s)", err);
}

/* An exit record of sort on jemalloc with the read-back config (a JSON object body). */
static char *exit_with(char *buf, size_t len, const char *config)
{
	size_t k;

	rec(buf, len, "exit", 10, 1, "/usr/bin/sort", "jemalloc", JE, NULL, NULL);
	k = strlen(buf) - 1;
	snprintf(buf + k, len - k, ",\"config\":{%s}}", config);
	return buf;
}

/* (hostile-3 reproducer probe-records-8mib) The records of 7,000 short processes (start, exec and exit of /bin/true, about 1.8 KiB each:
 * 12 MiB) exceed the 8 MiB base but not the limit that scales with the processes tracked. */
static void test_read_limit(void)
{
	char path[] = "/tmp/test_probelog.XXXXXX", a[1024], err[256];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	cJSON *r = NULL;
	size_t bad = 0, max7000 = probelog_max_bytes(7000);

	if (!f) {
		CHECK(0, "temporary file");
		return;
	}
	for (int i = 0; i < 7000; i++) {
		fprintf(f, "%s\n", rec(a, sizeof a, "start", 1000 + i, 999, "/usr/bin/true", "system", LIBC,
		                     NULL, NULL));
		fprintf(f, "{\"probe\":\"allocab-probe/1\",\"event\":\"exit\",\"pid\":%d,"
		           "\"ppid\":999,\"cpu_ns\":190269,\"pad\":\"%0900d\"}\n",
		        1000 + i, 0);
	}
	fclose(f);
	CHECK(max7000 == PROBELOG_MAX_BYTES + 7000 * (size_t)PROBELOG_BYTES_PER_PROCESS,
	      "limit: 8 MiB + 16 KiB for each of 7000 processes (%zu)", max7000);
	CHECK(probelog_max_bytes(0) == PROBELOG_MAX_BYTES, "limit: 8 MiB without processes");
	CHECK(probelog_max_bytes((size_t)-1) >= PROBELOG_MAX_BYTES &&
	          probelog_max_bytes((size_t)-1) == probelog_max_bytes((size_t)-1 / 2),
	      "limit: capped whatever the count (%zu)", probelog_max_bytes((size_t)-1));
	CHECK(probelog_read(path, max7000, &r, &bad, err, sizeof err) == 0 &&
	          cJSON_GetArraySize(r) == 14000 && bad == 0,
	      "read: 7000 processes' records are read within their limit (%s)", r ? "" : err);
	cJSON_Delete(r);
	r = NULL;
	CHECK(probelog_read(path, PROBELOG_MAX_BYTES, &r, &bad, err, sizeof err) != 0 && !r &&
	          strstr(err, "probe records exceed 8.0 MiB ("),
	      "read: over the limit is refused with its size (%s)", err);
	unlink(path);
}

static void test_config(void)
{
	char a[1024], b[2048];
	const char *lines[2];
	struct probe_expect e = {.allocator = "jemalloc"};
	struct probe_verdict v;

	rec_preload = JE ":/build/liballocab-probe.so";
	lines[0] = rec(a, sizeof a, "start", 10, 1, "/usr/bin/sort", "jemalloc", JE, NULL, NULL);
	lines[1] =
	    exit_with(b, sizeof b,
	              "\"dirty_decay_ms\":{\"requested\":5000,\"in_force\":5000},"
	              "\"thp\":{\"requested\":\"never\",\"in_force\":\"never\"},"
	              "\"x\":{\"requested\":1,\"unreadable\":\"the library offers no reader\"}");
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(v.verified, "settings in force, one unreadable: verified (%s)", v.reason);
	lines[1] = exit_with(b, sizeof b,
	                     "\"dirty_decay_ms\":{\"requested\":5000,\"in_force\":5000},"
	                     "\"narenas\":{\"requested\":1,\"in_force\":2}");
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified &&
	          strcmp(v.reason, "configuration not in force: narenas=1 read back 2 in "
	                           "sort (pid 10)") == 0,
	      "a setting read back with another value: unverified (%s)", v.reason);
	lines[1] =
	    exit_with(b, sizeof b, "\"thp\":{\"requested\":\"never\",\"in_force\":\"always\"}");
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "thp=never read back always"),
	      "a choice read back as another: unverified (%s)", v.reason);
	lines[1] = exit_with(b, sizeof b,
	                     "\"thp\":{\"requested\":\"never\",\"read_back\":\"never\","
	                     "\"unproven\":\"requested, effect unproven\"}");
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(v.verified,
	      "a setting whose effect cannot be read, taken as requested: verified (%s)", v.reason);
	lines[1] = exit_with(b, sizeof b,
	                     "\"thp\":{\"requested\":\"never\",\"read_back\":\"always\","
	                     "\"unproven\":\"requested, effect unproven\"}");
	judge(lines, 2, &e, 10, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "thp=never read back always") && !v.deterministic,
	      "... but one the library did not even take: unverified, not deterministic (%s)",
	      v.reason);
	rec_preload = "";
}

/* The summary of a shell that forks 80 short children, then execs bash, which execs python3
 * doing the work: python3 is listed, the cut is said, and its calls are its own. */
static void test_summary(void)
{
	cJSON *r = cJSON_CreateArray(), *sum, *list, *p;
	struct probe_verdict v = {.verified = 1, .processes = 83, .images = 83, .records = 1};
	char a[1024], b[1300];
	int python = 0, bash_calls = -1;

	cJSON_AddItemToArray(r, cJSON_Parse(rec(a, sizeof a, "start", 10, 1, "/usr/bin/dash",
	                                        "system", LIBC, NULL, NULL)));
	for (int i = 0; i < 80; i++)
		cJSON_AddItemToArray(r,
		                     cJSON_Parse(rec(a, sizeof a, "fork", 100 + i, 10,
		                                     "/usr/bin/dash", "system", LIBC, NULL, NULL)));
	cJSON_AddItemToArray(
	    r, cJSON_Parse("{\"probe\":\"allocab-probe/1\",\"event\":\"exec\",\"pid\":10,"
	                   "\"ppid\":1,\"path\":\"/usr/bin/bash\",\"cpu_ns\":1000,"
	                   "\"counts\":{\"malloc\":40}}"));
	cJSON_AddItemToArray(r, cJSON_Parse(rec(a, sizeof a, "start", 10, 1, "/usr/bin/bash",
	                                        "system", LIBC, NULL, NULL)));
	cJSON_AddItemToArray(
	    r, cJSON_Parse("{\"probe\":\"allocab-probe/1\",\"event\":\"exec\",\"pid\":10,"
	                   "\"ppid\":1,\"path\":\"/usr/bin/python3\",\"counts\":{\"malloc\":7}}"));
	cJSON_AddItemToArray(r, cJSON_Parse(rec(a, sizeof a, "start", 10, 1, "/usr/bin/python3.11",
	                                        "system", LIBC, NULL, NULL)));
	rec(b, sizeof b, "exit", 10, 1, "/usr/bin/python3.11", "system", LIBC, NULL, NULL);
	snprintf(b + strlen(b) - 1, sizeof b - strlen(b) + 1,
	         ",\"counts\":{\"malloc\":2800000,\"free\":2700000}}");
	cJSON_AddItemToArray(r, cJSON_Parse(b));
	sum = probelog_summary(r, NULL, &v);
	list = cJSON_GetObjectItem(sum, "processes");
	cJSON_ArrayForEach(p, list)
	{
		const char *exe = cJSON_GetStringValue(cJSON_GetObjectItem(p, "exe"));
		const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "counts"), "malloc");

		if (strcmp(exe, "/usr/bin/python3.11") == 0)
			python = cJSON_IsNumber(m) && m->valuedouble == 2800000;
		if (strcmp(exe, "/usr/bin/bash") == 0)
			bash_calls = cJSON_IsNumber(m) ? (int)m->valuedouble : -2;
	}
	CHECK(cJSON_GetArraySize(list) == PROBELOG_LISTED && python,
	      "83 images: 64 listed, python3 (the most calls) among them with its own counts");
	CHECK(bash_calls == 7, "bash keeps the calls it made before its exec (%d)", bash_calls);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(sum, "processes_truncated")) &&
	          cJSON_GetObjectItem(sum, "processes_omitted")->valueint == 83 - PROBELOG_LISTED &&
	          cJSON_GetObjectItem(sum, "image_count")->valueint == 83,
	      "the summary says what was cut");
	CHECK(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "counts_total"), "malloc")->valuedouble ==
	        2800047,
	    "counts_total sums every image, listed or not");
	cJSON_Delete(sum);
	cJSON_Delete(r);
}

/* Per image user and system time, from its first record to its last, and their total over every
 * image that reported both; the exit record is exit, which holds them in one of the forms the
 * probe wrote (docs/results-format.md, "allocab-probe/1"). */
static void test_cpu(const char *exit)
{
	const char *const lines[] = {
	    "{\"event\":\"start\",\"pid\":10,\"ppid\":1,\"exe\":\"/bin/sh\",\"cpu_ns\":100,"
	    "\"user_ns\":50,\"sys_ns\":50}",
	    "{\"event\":\"exec\",\"pid\":10,\"ppid\":1,\"cpu_ns\":700,\"user_ns\":450,"
	    "\"sys_ns\":250}",
	    "{\"event\":\"start\",\"pid\":10,\"ppid\":1,\"exe\":\"/bin/job\",\"cpu_ns\":710,"
	    "\"user_ns\":450,\"sys_ns\":260}",
	    exit,
	    "{\"event\":\"fork\",\"pid\":11,\"ppid\":10,\"exe\":\"/bin/job\",\"cpu_ns\":0,"
	    "\"user_ns\":0,\"sys_ns\":0}",
	};
	cJSON *r = cJSON_CreateArray(), *sum, *list, *tot;
	struct probe_verdict v = {.verified = 1, .processes = 2, .images = 3, .records = 5};
	const cJSON *g;

	printf("# the exit record: %s\n", exit);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		cJSON_AddItemToArray(r, cJSON_Parse(lines[i]));
	sum = probelog_summary(r, NULL, &v);
	list = cJSON_GetObjectItem(sum, "processes");
	g = cJSON_GetArrayItem(list, 0);
	CHECK(cJSON_GetObjectItem(g, "user_ns")->valuedouble == 400 &&
	          cJSON_GetObjectItem(g, "sys_ns")->valuedouble == 210,
	      "the shell's image: user 400, sys 210 ns, up to the start of the image that replaced "
	      "it");
	g = cJSON_GetArrayItem(list, 1);
	CHECK(cJSON_GetObjectItem(g, "user_ns")->valuedouble == 4000 &&
	          cJSON_GetObjectItem(g, "sys_ns")->valuedouble == 1000,
	      "the job's image: user 4000, sys 1000 ns up to its exit");
	g = cJSON_GetArrayItem(list, 2);
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(g, "user_ns")) &&
	          cJSON_IsNull(cJSON_GetObjectItem(g, "sys_ns")),
	      "a fork child without a later record: null");
	tot = cJSON_GetObjectItem(sum, "cpu_total");
	CHECK(tot && cJSON_GetObjectItem(tot, "user_ns")->valuedouble == 4400 &&
	          cJSON_GetObjectItem(tot, "sys_ns")->valuedouble == 1210 &&
	          cJSON_GetObjectItem(tot, "images")->valuedouble == 2,
	      "cpu_total: the two images that reported, 4400 user and 1210 sys ns");
	cJSON_Delete(sum);
	cJSON_Delete(r);
}

int main(void)
{
	/* the times once, in rusage (the probe now) */
	test_cpu("{\"event\":\"exit\",\"pid\":10,\"ppid\":1,\"cpu_ns\":5710,\"rusage\":"
	         "{\"minflt\":9,\"majflt\":0,\"nvcsw\":1,\"nivcsw\":2,\"user_ns\":4450,"
	         "\"sys_ns\":1260}}");
	/* twice, beside rusage and in it (the probe before), and beside it alone (older still) */
	test_cpu("{\"event\":\"exit\",\"pid\":10,\"ppid\":1,\"cpu_ns\":5710,\"user_ns\":4450,"
	         "\"sys_ns\":1260,\"rusage\":{\"minflt\":9,\"majflt\":0,\"nvcsw\":1,\"nivcsw\":2,"
	         "\"user_ns\":4450,\"sys_ns\":1260}}");
	test_cpu("{\"event\":\"exit\",\"pid\":10,\"ppid\":1,\"cpu_ns\":5710,\"user_ns\":4450,"
	         "\"sys_ns\":1260}");
	test_config();
	test_verified();
	test_priorities();
	test_no_report();
	test_cmd_arms();
	test_tracked();
	test_contained();
	test_summary();
	test_read();
	test_read_limit();
	return CHECK_DONE();
}
