/* test_probelog.c - judging probe records (front/run/probelog.h) on hand-written records: the
 * verdict and the reason's priority, the launcher exemption of --cmd arms, exec'ed programs that
 * never reported, --expect's executable proof, a configured arm's read-back, and the reader's
 * handling of bad lines. */
#include "check.h"
#include "front/run/probelog.h"

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

static void judge(const char *const *lines, size_t n, const struct probe_expect *e, int top,
                  const char *tail, struct probe_verdict *v)
{
	cJSON *r = records(lines, n);

	probelog_judge(r, e, top, tail, v);
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
	CHECK(!v.verified && strcmp(v.reason, "/nonexistent/static-prog sent no probe report") == 0,
	      "an exec'ed program without a start record (%s)", v.reason);
	judge(lines, 1, &e, 99, NULL, &v);
	CHECK(!v.verified && strstr(v.reason, "the program sent no probe report"),
	      "the first process never reported (%s)", v.reason);
	probelog_judge(none, &e, 10, NULL, &v);
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
	CHECK(!v.verified && strstr(v.reason, "other allocator serves malloc: libc.so.6 in "
	                                      "/usr/bin/dash (pid 10), expected mimalloc"),
	      "without the exemption the shell on glibc fails the proof (%s)", v.reason);
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
	CHECK(probelog_read(path, &r, &bad, err, sizeof err) == 0 && cJSON_GetArraySize(r) == 2 &&
	          bad == 2,
	      "read: two records, a non-JSON line and a foreign object skipped and counted");
	sum = probelog_summary(r, &v);
	CHECK(sum && cJSON_IsTrue(cJSON_GetObjectItem(
	                 cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "processes"), 0), "exited")),
	      "summary: the exit record marks the process exited");
	CHECK(sum && cJSON_GetObjectItem(
	                 cJSON_GetArrayItem(cJSON_GetObjectItem(sum, "processes"), 0), "counts"),
	      "summary: the exit record's counts are kept");
	cJSON_Delete(sum);
	cJSON_Delete(r);
	unlink(path);
	CHECK(probelog_read(path, &r, &bad, err, sizeof err) != 0 && strstr(err, path),
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
	rec_preload = "";
}

int main(void)
{
	test_config();
	test_verified();
	test_priorities();
	test_no_report();
	test_cmd_arms();
	test_read();
	return CHECK_DONE();
}
