/* test_runrec.c - the allocab-run/1 writer round-tripped through cJSON's parser, the machine
 * fingerprint, and atomic_write's promise: the target is whole or untouched, no temp file left. */
#include "common/atomicio.h"
#include "check.h"
#include "common/fingerprint.h"
#include "driver/runrec.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct wl_param demo_params[] = {
    {"rows", "rows", "rows", {1, 2, 3}, 1, 10, 0},
    {"page_bytes", "bytes", "page", {64, 128, 256}, 64, 1024, 0},
};
static const char *const demo_phases[] = {"decode", "consume", NULL};
static const struct workload demo = {
    .name = "demo", .params = demo_params, .nparams = 2, .phases = demo_phases};

static const cJSON *at(const cJSON *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof buf, "%s", path);
	for (char *t = strtok_r(buf, ".", &save); t && o; t = strtok_r(NULL, ".", &save))
		o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(t))
		                     : cJSON_GetObjectItemCaseSensitive(o, t);
	return o;
}

static int num_is(const cJSON *root, const char *path, double want)
{
	const cJSON *v = at(root, path);

	return cJSON_IsNumber(v) && v->valuedouble == want;
}

static int str_is(const cJSON *root, const char *path, const char *want)
{
	const cJSON *v = at(root, path);

	return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

static struct runrec sample(struct runrec_rep reps[2], struct backend_counter counters[2])
{
	static const int64_t params[2] = {7, 512};
	struct runrec r = {
	    .tool_version = "9.9.9",
	    .started = 1700000000,
	    .allocator = "mimalloc",
	    .allocator_version = "2.0.9",
	    .library = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0",
	    .verified = 1,
	    .wl = &demo,
	    .scale = WL_SCALE_SMALL,
	    .seed = 9007199254740991ULL,
	    .params = params,
	    .reps = reps,
	    .nreps = 2,
	    .how = {.automatic = 0, .rule = {3, 3, 0.05}},
	    .rusage = {1000, 2000, 3000, 4, 5, 6, 7},
	    .rss_start_bytes = 4096,
	    .rss_retained_bytes = -1,
	    .counters = counters,
	    .ncounters = 2,
	};

	for (int k = 0; k < 2; k++) {
		reps[k].checksum = 0x9f1c2a7b00d1e3f4ULL;
		reps[k].rss_after_bytes = k ? 12288 : 8192;
		for (int i = 0; i < 3; i++)
			reps[k].phase[i] = (struct runrec_time){1000000 * (k + 1) + i, 900000 + i, {0}};
	}
	counters[0] = (struct backend_counter){"committed_bytes", 123456789012};
	counters[1] = (struct backend_counter){"peak_rss_bytes", 0};
	return r;
}

static void test_round_trip(void)
{
	struct runrec_rep reps[2];
	struct backend_counter counters[2];
	struct runrec r = sample(reps, counters);
	cJSON *machine = cJSON_CreateObject(), *doc, *back;
	char *text;

	cJSON_AddStringToObject(machine, "id", "0123456789abcdef");
	doc = runrec_json(&r, machine);
	CHECK(doc != NULL, "runrec_json builds a document");
	text = cJSON_Print(doc);
	cJSON_Delete(doc);
	back = cJSON_Parse(text);
	free(text);
	CHECK(back != NULL, "the printed document parses back");
	CHECK(str_is(back, "schema", "allocab-run/1"), "schema");
	CHECK(str_is(back, "tool.name", "allocab") && str_is(back, "tool.version", "9.9.9"),
	      "tool");
	CHECK(str_is(back, "started_utc", "2023-11-14T22:13:20Z"), "started_utc is UTC ISO 8601");
	CHECK(
	    str_is(back, "allocator.name", "mimalloc") &&
	        str_is(back, "allocator.version", "2.0.9") &&
	        str_is(back, "allocator.library", "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0") &&
	        cJSON_IsTrue(at(back, "allocator.verified")),
	    "allocator name, version, library, verified");
	CHECK(str_is(back, "workload.name", "demo") && str_is(back, "workload.scale", "small") &&
	          num_is(back, "workload.seed", 9007199254740991.0),
	      "workload name, scale and the largest seed exactly");
	CHECK(num_is(back, "workload.params.rows", 7) &&
	          num_is(back, "workload.params.page_bytes", 512) &&
	          cJSON_GetArraySize(at(back, "workload.params")) == 2,
	      "every effective parameter by name");
	CHECK(cJSON_GetArraySize(at(back, "phases")) == 3 && str_is(back, "phases.0", "total") &&
	          str_is(back, "phases.1", "decode") && str_is(back, "phases.2", "consume"),
	      "phases: total first, then the workload's");
	CHECK(cJSON_GetArraySize(at(back, "reps")) == 2 &&
	          str_is(back, "reps.1.checksum", "9f1c2a7b00d1e3f4") &&
	          num_is(back, "reps.0.phases.total.wall_ns", 1000000) &&
	          num_is(back, "reps.1.phases.total.wall_ns", 2000000) &&
	          num_is(back, "reps.1.phases.consume.wall_ns", 2000002) &&
	          num_is(back, "reps.0.phases.decode.cpu_ns", 900001),
	      "per rep, per phase wall_ns and cpu_ns");
	CHECK(str_is(back, "checksum", "9f1c2a7b00d1e3f4"), "checksum as 16 hex digits");
	CHECK(str_is(back, "reps.0.regime", "cold") && str_is(back, "reps.1.regime", "steady") &&
	          num_is(back, "reps.0.rss_after_bytes", 8192) &&
	          num_is(back, "reps.1.rss_after_bytes", 12288),
	      "per rep its regime and the resident set after it");
	CHECK(str_is(back, "regimes.mode", "fixed") && cJSON_IsFalse(at(back, "regimes.settled")) &&
	          num_is(back, "regimes.cold_ns", 1000000) &&
	          num_is(back, "regimes.steady_ns", 2000000) &&
	          num_is(back, "regimes.warmup_reps", 0) &&
	          num_is(back, "regimes.steady_reps", 1) &&
	          num_is(back, "regimes.rule.window", 3) &&
	          num_is(back, "regimes.rule.tolerance", 0.05) &&
	          cJSON_IsNull(at(back, "regimes.rule.max_reps")),
	      "regimes: fixed count, cold and steady times, not settled with one rep after cold");
	CHECK(num_is(back, "rss.after_first_bytes", 8192) && num_is(back, "rss.growth_bytes", 4096),
	      "rss growth from after the first rep to after the last");
	CHECK(num_is(back, "rusage.user_ns", 1000) && num_is(back, "rusage.sys_ns", 2000) &&
	          num_is(back, "rusage.max_rss_kib", 3000) &&
	          num_is(back, "rusage.minor_faults", 4) &&
	          num_is(back, "rusage.major_faults", 5) &&
	          num_is(back, "rusage.voluntary_ctx_switches", 6) &&
	          num_is(back, "rusage.involuntary_ctx_switches", 7),
	      "rusage fields");
	CHECK(num_is(back, "rss.start_bytes", 4096) && cJSON_IsNull(at(back, "rss.retained_bytes")),
	      "rss: unreadable value is null");
	CHECK(num_is(back, "counters.committed_bytes", 123456789012.0) &&
	          num_is(back, "counters.peak_rss_bytes", 0),
	      "counters by name");
	CHECK(str_is(back, "machine.id", "0123456789abcdef"), "machine object embedded");
	cJSON_Delete(back);

	r.allocator_version = NULL;
	r.library = NULL;
	doc = runrec_json(&r, NULL);
	CHECK(doc && cJSON_IsNull(at(doc, "allocator.version")) &&
	          cJSON_IsNull(at(doc, "allocator.library")) && cJSON_IsNull(at(doc, "machine")),
	      "unknown version, library and machine are null");
	cJSON_Delete(doc);
}

static void test_helpers(void)
{
	struct runrec_rep reps[3] = {{.checksum = 1}, {.checksum = 1}, {.checksum = 2}};
	struct rusage ru = {.ru_utime = {1, 500000}, .ru_stime = {0, 7}, .ru_maxrss = 1234};
	struct runrec_usage u;
	char hex[17];

	CHECK(runrec_first_mismatch(reps, 2) == -1, "equal checksums: no mismatch");
	CHECK(runrec_first_mismatch(reps, 3) == 2, "rep 2 differs");
	CHECK(runrec_first_mismatch(reps, 1) == -1, "one rep never mismatches");
	runrec_usage_from(&ru, &u);
	CHECK(u.user_ns == 1500000000 && u.sys_ns == 7000 && u.max_rss_kib == 1234,
	      "rusage timevals become ns, maxrss stays KiB");
	runrec_hex64(0xabcULL, hex);
	CHECK(strcmp(hex, "0000000000000abc") == 0, "hex64 pads to 16 digits (%s)", hex);
}

static void test_fingerprint(void)
{
	cJSON *m, *m2;
	char id[17];
	const cJSON *v;

	setenv("MALLOC_ARENA_MAX", "2", 1);
	setenv("MIMALLOC_VERBOSE", "1", 1);
	setenv("ALLOCAB_PAD", "xxxx", 1);
	setenv("MALLOCX", "no", 1);
	unsetenv("LD_PRELOAD");
	m = fingerprint_json();
	CHECK(m != NULL, "fingerprint_json builds an object");
	CHECK(cJSON_IsString(at(m, "glibc")) && cJSON_IsNumber(at(m, "online_cpus")) &&
	          at(m, "cpu_model") && at(m, "kernel") && at(m, "thp") && at(m, "governor"),
	      "fingerprint has glibc, online_cpus, cpu_model, kernel, thp, governor");
	v = at(m, "id");
	CHECK(cJSON_IsString(v) && strlen(v->valuestring) == 16 &&
	          strspn(v->valuestring, "0123456789abcdef") == 16,
	      "id is 16 lower-case hex digits");
	fingerprint_id(m, id);
	CHECK(strcmp(id, v->valuestring) == 0, "fingerprint_id recomputes the stored id");
	CHECK(str_is(m, "env.MALLOC_ARENA_MAX", "2") && str_is(m, "env.MIMALLOC_VERBOSE", "1"),
	      "env records MALLOC_* and MIMALLOC_* variables");
	CHECK(!at(m, "env.ALLOCAB_PAD") && !at(m, "env.MALLOCX") && !at(m, "env.LD_PRELOAD") &&
	          !at(m, "env.PATH"),
	      "env leaves out ALLOCAB_PAD, unrelated and unset variables");

	setenv("MALLOC_ARENA_MAX", "4", 1);
	m2 = fingerprint_json();
	fingerprint_id(m2, id);
	CHECK(strcmp(id, at(m, "id")->valuestring) == 0, "env does not change the id");
	cJSON_ReplaceItemInObject(m2, "thp", cJSON_CreateString("never-seen-mode"));
	fingerprint_id(m2, id);
	CHECK(strcmp(id, at(m, "id")->valuestring) != 0, "a different thp mode changes the id");
	cJSON_ReplaceItemInObject(m2, "thp", cJSON_CreateNull());
	fingerprint_id(m2, id);
	{
		char id_null[17];
		cJSON_ReplaceItemInObject(m2, "thp", cJSON_CreateString("null"));
		fingerprint_id(m2, id_null);
		CHECK(strcmp(id, id_null) != 0, "null and the string \"null\" hash differently");
	}
	cJSON_Delete(m);
	cJSON_Delete(m2);
	unsetenv("MALLOC_ARENA_MAX");
	unsetenv("MIMALLOC_VERBOSE");
	unsetenv("ALLOCAB_PAD");
	unsetenv("MALLOCX");
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void test_atomic_write(void)
{
	char dir[] = "/tmp/allocab-test-runrec.XXXXXX", path[256], bad[256], err[512];
	char link_path[256];
	struct stat st;
	char *back;
	size_t n;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof path, "%s/out.json", dir);
	CHECK(atomic_write(path, "{\"a\":1}\n", 8, err, sizeof err) == 0, "atomic_write creates");
	back = read_file(path, &n);
	CHECK(back && n == 8 && strcmp(back, "{\"a\":1}\n") == 0, "read_file reads it back");
	free(back);
	CHECK(atomic_write(path, "{}", 2, err, sizeof err) == 0, "atomic_write replaces");
	back = read_file(path, &n);
	CHECK(back && n == 2 && strcmp(back, "{}") == 0, "replacement is whole");
	free(back);
	CHECK(count_entries(dir) == 1, "only the target is in the directory");

	snprintf(bad, sizeof bad, "%s/missing/out.json", dir);
	errno = 0;
	CHECK(atomic_write(bad, "x", 1, err, sizeof err) == -1 && errno == ENOENT,
	      "a missing directory fails with ENOENT");
	CHECK(strstr(err, bad) == err && strstr(err, ": No such file or directory"),
	      "message names the path and the reason: \"%s\"", err);

	snprintf(bad, sizeof bad, "%s/out.json/x.json", dir);
	errno = 0;
	CHECK(atomic_write(bad, "x", 1, err, sizeof err) == -1 && errno == ENOTDIR,
	      "a path under a regular file fails with ENOTDIR (\"%s\")", err);

	snprintf(bad, sizeof bad, "%s/sub", dir);
	mkdir(bad, 0755);
	snprintf(path, sizeof path, "%s/sub/keep", dir);
	atomic_write(path, "k", 1, err, sizeof err);
	errno = 0;
	CHECK(atomic_write(bad, "x", 1, err, sizeof err) == -1 && errno != 0,
	      "replacing a non-empty directory fails at rename (\"%s\")", err);
	CHECK(count_entries(dir) == 2, "the failed rename left no temporary file behind");
	CHECK(count_entries(bad) == 1, "the directory target is untouched");

	CHECK(atomic_write("/dev/null", "x", 1, err, sizeof err) == 0, "/dev/null is written");
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode),
	      "/dev/null is still a device, not replaced by rename");

	snprintf(link_path, sizeof link_path, "%s/link.json", dir);
	snprintf(path, sizeof path, "%s/sub/keep", dir);
	CHECK(symlink(path, link_path) == 0, "symlink made");
	CHECK(atomic_write(link_path, "new", 3, err, sizeof err) == 0, "write onto a symlink");
	CHECK(lstat(link_path, &st) == 0 && S_ISREG(st.st_mode),
	      "the symlink is replaced by the file, never written through");
	back = read_file(link_path, &n);
	CHECK(back && n == 3 && strcmp(back, "new") == 0, "the new file holds what was written");
	free(back);
	back = read_file(path, &n);
	CHECK(back && n == 1 && strcmp(back, "k") == 0, "the link's target is left as it was");
	free(back);
	CHECK(count_entries(bad) == 1, "no temporary file beside the target");
	unlink(link_path);

	errno = 0;
	CHECK(read_file(bad, &n) == NULL && errno == EISDIR, "read_file of a directory fails");
	CHECK(read_file("/nonexistent/allocab", NULL) == NULL && errno == ENOENT,
	      "read_file of a missing file fails with ENOENT");
	back = read_file("/proc/self/statm", &n);
	CHECK(back && n > 0 && strlen(back) == n, "read_file reads /proc files (size 0 in stat)");
	free(back);

	unlink(path);
	rmdir(bad);
	snprintf(path, sizeof path, "%s/out.json", dir);
	unlink(path);
	CHECK(rmdir(dir) == 0, "scratch directory cleaned up");
}

int main(void)
{
	test_round_trip();
	test_helpers();
	test_fingerprint();
	test_atomic_write();
	return CHECK_DONE();
}
