/* test_jsonload.c - the strict reader (common/jsonload.h), sorted name indices and log ratios
 * decided on integer times (common/nameidx.h, front/stats/stats.h). */
#include "check.h"
#include "common/jsonload.h"
#include "front/stats/stats.h"
#include "common/nameidx.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static cJSON *parse(const char *text, char *err, size_t errlen)
{
	return jl_parse("t", text, strlen(text), err, errlen);
}

static void test_parse(void)
{
	char err[256];
	cJSON *v;

	v = parse(" {\"a\": [1, 2]}\n", err, sizeof err);
	CHECK(v != NULL, "a JSON object with blanks around parses");
	cJSON_Delete(v);
	CHECK(!parse("{} {}", err, sizeof err) && strstr(err, "not JSON (parse error at byte 3)"),
	      "a second value is trailing garbage: %s", err);
	CHECK(!parse("", err, sizeof err) && strstr(err, "empty file"), "empty: %s", err);
	CHECK(!parse("{\"a\": [1,", err, sizeof err) && strstr(err, "truncated JSON"),
	      "cut short: %s", err);
	CHECK(!parse("{\"a\": \x01}", err, sizeof err) && strstr(err, "binary data: byte 0x01"),
	      "a control byte: %s", err);
	CHECK(!parse("{x}", err, sizeof err) && strstr(err, "not JSON (parse error at byte 1)"),
	      "a syntax error is not 'truncated': %s", err);
	setenv(JL_MAX_ENV, "1k", 1);
	CHECK(
	    !parse("[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	           "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	           "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
	           "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]",
	           err, sizeof err) &&
	        strstr(err, "more than 128 JSON values"),
	    "values beyond cap / %d refused: %s", JL_BYTES_PER_NODE, err);
	unsetenv(JL_MAX_ENV);
}

static void test_read(void)
{
	char dir[] = "/tmp/allocab-jl.XXXXXX", path[64], err[256];
	size_t n = 0;
	char *text;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof path, "%s/fifo", dir);
	CHECK(mkfifo(path, 0600) == 0, "mkfifo");
	errno = 0;
	CHECK(!jl_read(path, &n, err, sizeof err) && errno == EINVAL && strstr(err, "a FIFO"),
	      "a FIFO is refused without blocking: %s", err);
	unlink(path);
	CHECK(!jl_read("/dev/zero", &n, err, sizeof err) && strstr(err, "a character device"),
	      "/dev/zero refused at once: %s", err);
	CHECK(!jl_read(dir, &n, err, sizeof err) && strstr(err, "a directory"), "a directory: %s",
	      err);
	errno = 0;
	CHECK(!jl_read(path, &n, err, sizeof err) && errno == ENOENT, "missing: ENOENT");
	snprintf(path, sizeof path, "%s/f.json", dir);
	f = fopen(path, "w");
	for (int i = 0; f && i < 300; i++)
		fputs("[1,2]", f);
	if (f)
		fclose(f);
	text = jl_read(path, &n, err, sizeof err);
	CHECK(text && n == 1500 && strlen(text) == n, "a regular file is read whole");
	free(text);
	setenv(JL_MAX_ENV, "1k", 1);
	errno = 0;
	CHECK(!jl_read(path, &n, err, sizeof err) && errno == EFBIG &&
	          strstr(err, "larger than the 1024-byte input limit"),
	      "over the cap: %s", err);
	setenv(JL_MAX_ENV, "12x", 1);
	CHECK(!jl_read(path, &n, err, sizeof err) && strstr(err, "ALLOCAB_MAX_INPUT '12x'"),
	      "a malformed cap: %s", err);
	unsetenv(JL_MAX_ENV);
	text = jl_read("/proc/self/statm", &n, err, sizeof err);
	CHECK(text && n > 0, "a /proc file (size 0 in stat) is read");
	free(text);
	unlink(path);
	rmdir(dir);
}

static void test_numbers(void)
{
	cJSON *v = cJSON_Parse("[1e300, -1, 2.5, 7, 1e999, 9007199254740992]");
	uint64_t u = 0;
	int64_t i = 0;
	double d = 0;

	CHECK(!jl_uint(cJSON_GetArrayItem(v, 0), UINT64_MAX, &u), "1e300 is no uint64");
	CHECK(!jl_uint(cJSON_GetArrayItem(v, 1), 10, &u), "-1 is no unsigned");
	CHECK(jl_int(cJSON_GetArrayItem(v, 1), -5, 5, &i) && i == -1, "-1 in -5..5");
	CHECK(!jl_uint(cJSON_GetArrayItem(v, 2), 10, &u), "2.5 is no integer");
	CHECK(jl_uint(cJSON_GetArrayItem(v, 3), 10, &u) && u == 7, "7 in 0..10");
	CHECK(!jl_uint(cJSON_GetArrayItem(v, 3), 6, &u), "7 not in 0..6");
	CHECK(!jl_finite(cJSON_GetArrayItem(v, 4), &d), "1e999 (inf) refused");
	CHECK(!jl_range(cJSON_GetArrayItem(v, 2), 0, 2, &d), "2.5 not in 0..2");
	CHECK(jl_uint(cJSON_GetArrayItem(v, 5), (uint64_t)1 << 53, &u) && u == (uint64_t)1 << 53,
	      "2^53 in 0..2^53");
	CHECK(!jl_finite(NULL, &d) && !jl_uint(NULL, 1, &u), "a missing value fails");
	cJSON_Delete(v);
}

static void test_names(void)
{
	char *names[] = {"pipeline", "batch_prep", "feature_extract", "batch_prep"};
	struct nameidx x;

	CHECK(nameidx_build(&x, names, 3, sizeof *names, 0) == 0, "index built");
	CHECK(nameidx_repeat(&x) == -1, "no repeat among 3");
	CHECK(nameidx_find(&x, "pipeline") == 0 && nameidx_find(&x, "feature_extract") == 2 &&
	          nameidx_find(&x, "nope") == -1,
	      "lookups");
	nameidx_free(&x);
	CHECK(nameidx_build(&x, names, 4, sizeof *names, 0) == 0 && nameidx_repeat(&x) == 3,
	      "the repeat is found at its second place");
	nameidx_free(&x);
}

static void test_log_ratio(void)
{
	CHECK(stats_log_ratio(110, 100) == -stats_log_ratio(100, 110), "ln(11/10) == -ln(10/11)");
	CHECK(stats_log_ratio(220, 200) == stats_log_ratio(1100000, 1000000),
	      "equal ratios, bit-identical log ratios");
	CHECK(stats_log_ratio(123456789, 123456789) == 0, "equal times: exactly 0");
	CHECK(stats_log_ratio(100.5, 201) == stats_log_ratio(1, 2), "half nanoseconds (medians) reduce");
	CHECK_NEAR(stats_log_ratio(3, 2), log(1.5), 1e-15, "ln(3/2)");
	CHECK_NEAR(stats_log_ratio(1.25, 1), log(1.25), 1e-15,
	           "a time that is not whole: log of the ratio");
}

int main(void)
{
	test_parse();
	test_read();
	test_numbers();
	test_names();
	test_log_ratio();
	return CHECK_DONE();
}
