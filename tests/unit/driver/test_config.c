/* test_config.c - allocator configurations (driver/config.h) against the glibc backend's real
 * option table: parsing and its exact messages, the GLIBC_TUNABLES spelling, the record's JSON,
 * and the read-back: the mmap-threshold probe catches a setting that was never applied and
 * passes once mallopt applied it (not under AddressSanitizer, which replaces malloc). */
#include "check.h"
#include "driver/config.h"

#include "allocators/system.c"

#include <string.h>

static int add(struct config *c, const char *kv, char *err, size_t len)
{
	err[0] = '\0';
	return config_add(c, kv, err, len);
}

static void test_parse(void)
{
	struct config c;
	char err[512];

	config_init(&c, &backend);
	CHECK(add(&c, "mmap_threshold=32M", err, sizeof err) == 0 && c.n == 1 &&
	          c.set[0].value == 32 << 20,
	      "mmap_threshold=32M is 33554432");
	CHECK(add(&c, "trim_threshold=256M", err, sizeof err) == 0 && c.set[1].value == 256 << 20,
	      "trim_threshold=256M");
	CHECK(add(&c, "tcache_count=0", err, sizeof err) == 0, "tcache_count=0 (the minimum)");
	CHECK(add(&c, "mmap_threshold=1M", err, sizeof err) != 0 &&
	          strcmp(err, "--config mmap_threshold is given twice") == 0,
	      "a key given twice: '%s'", err);
	CHECK(add(&c, "nope=1", err, sizeof err) != 0 &&
	          strstr(err, "--config: system has no option 'nope' (known: mmap_threshold, ") ==
	              err,
	      "unknown key: '%s'", err);
	CHECK(add(&c, "mmap_max=x", err, sizeof err) != 0 &&
	          strcmp(err, "--config mmap_max: 'x' is not a whole number") == 0,
	      "bad integer: '%s'", err);
	CHECK(add(&c, "top_pad=1Q", err, sizeof err) != 0 &&
	          strcmp(err, "--config top_pad: '1Q' is not a byte count (a whole number, optional "
	                      "k, M or G suffix)") == 0,
	      "bad byte count: '%s'", err);
	CHECK(add(&c, "mxfast=161", err, sizeof err) != 0 &&
	          strcmp(err, "--config mxfast: 161 is out of range [0, 160]") == 0,
	      "out of range: '%s'", err);
	CHECK(add(&c, "arena_max=0", err, sizeof err) != 0 &&
	          strcmp(err, "--config arena_max: 0 is out of range [1, 65536]") == 0,
	      "below the minimum: '%s'", err);
	CHECK(add(&c, "=1", err, sizeof err) != 0 && add(&c, "top_pad=", err, sizeof err) != 0 &&
	          strcmp(err, "--config: 'top_pad=' is not KEY=VALUE") == 0,
	      "empty key or value: '%s'", err);
	CHECK(c.n == 3, "failed settings are not added");
}

/* A command's settings holding its configuration, as run's and env's do. */
struct args {
	int quiet;
	struct config *config;
};

/* Parses argv[0..argc) by a table of --quiet and the --config row into a; returns opt_parse's
 * last result (OPT_DONE, OPT_ERROR) or the first positional's OPT_ARG. */
static int parse_config_row(int argc, char **argv, struct args *a, char *err, size_t errlen)
{
	static const struct opt rows[] = {
	    {"--quiet", 0, 0, NULL, .help = "q", OPT_FLAG(struct args, quiet)},
	    CONFIG_OPT_ROW(struct args, config),
	};
	struct opt_parser p;
	const char *v;
	int k;

	opt_init(&p, argc, argv, 0, rows, 2);
	while ((k = opt_parse(&p, a, &v, err, errlen)) == OPT_ARG)
		;
	return k;
}

static void test_env_and_args(void)
{
	struct config c;
	struct config_env env[4];
	char err[512],
	    *argv[] = {
	        "checkpoint_write",           "--config", "tcache_count=3", "--quiet",
	        "--config=mmap_threshold=1M", NULL};
	struct args a = {0, &c};
	int n;

	config_init(&c, &backend);
	CHECK(parse_config_row(5, argv, &a, err, sizeof err) == OPT_DONE && c.n == 2 && a.quiet &&
	          c.set[0].value == 3 && c.set[1].value == 1048576,
	      "--config VALUE and --config=VALUE are read by the row into the configuration");
	n = config_env(&c, 1, env, 4, err, sizeof err);
	CHECK(n == 1 && strcmp(env[0].name, "GLIBC_TUNABLES") == 0 &&
	          strcmp(env[0].value,
	                 "glibc.malloc.tcache_count=3:glibc.malloc.mmap_threshold=1048576") == 0,
	      "a program's environment: one GLIBC_TUNABLES (%s)", n == 1 ? env[0].value : "-");
	n = config_env(&c, 0, env, 4, err, sizeof err);
	CHECK(n == 1 && strcmp(env[0].value, "glibc.malloc.tcache_count=3") == 0,
	      "the driver's own environment holds only the start-time tunables");
	char *bad[] = {"--config"};
	config_init(&c, &backend);
	CHECK(parse_config_row(1, bad, &a, err, sizeof err) == OPT_ERROR &&
	          strcmp(err, "--config needs a value") == 0,
	      "--config without a value: '%s'", err);
	char *nokey[] = {"--config=nope=1"};
	const char *unknown = "--config: system has no option 'nope' (known: mmap_threshold, ";
	CHECK(parse_config_row(1, nokey, &a, err, sizeof err) == OPT_ERROR &&
	          strncmp(err, unknown, strlen(unknown)) == 0 && c.n == 0,
	      "an unknown key: config_add's message through the row: '%s'", err);
	char *empty[] = {"--config="};
	CHECK(parse_config_row(1, empty, &a, err, sizeof err) == OPT_ERROR &&
	          strcmp(err, "--config: '' is not KEY=VALUE") == 0,
	      "an empty value reaches config_add: '%s'", err);
	char *twice[] = {"--config", "top_pad=1", "--config", "top_pad=2"};
	CHECK(parse_config_row(4, twice, &a, err, sizeof err) == OPT_ERROR &&
	          strcmp(err, "--config top_pad is given twice") == 0,
	      "a key given twice: '%s'", err);
	struct args none = {0, NULL};
	char *one[] = {"--config", "top_pad=1"};
	CHECK(parse_config_row(2, one, &none, err, sizeof err) == OPT_ERROR &&
	          strcmp(err, "--config is not an option here") == 0,
	      "a command without a configuration refuses the row: '%s'", err);
}

static void test_format(void)
{
	char buf[32];

	config_format(&system_options[0], 32 << 20, buf, sizeof buf);
	CHECK(strcmp(buf, "32M") == 0, "bytes format as 32M");
	config_format(&system_options[0], 1000, buf, sizeof buf);
	CHECK(strcmp(buf, "1000") == 0, "other bytes in decimal");
	CHECK(strcmp(config_proof_name(BACKEND_PROOF_LOADER), "loader") == 0 &&
	          strcmp(config_proof_name(BACKEND_PROOF_ENV), "environment") == 0,
	      "proof names");
}

static void test_probe(void)
{
#if defined(__SANITIZE_ADDRESS__)
	SKIP("mmap probe", "AddressSanitizer replaces malloc");
#else
	struct config c;
	char err[512];
	cJSON *j;

	config_init(&c, &backend);
	add(&c, "mmap_threshold=1M", err, sizeof err);
	config_verify(&c);
	CHECK(!c.verified &&
	          strstr(c.problem, "mmap_threshold=1M: a 1048512-byte block was mmapped"),
	      "the probe catches a threshold that was not applied: '%s'", c.problem);
	config_init(&c, &backend);
	add(&c, "mmap_threshold=1M", err, sizeof err);
	add(&c, "trim_threshold=4M", err, sizeof err);
	CHECK(config_apply(&c, err, sizeof err) == 0, "mallopt accepts both");
	config_verify(&c);
	CHECK(c.verified && c.read[0] == BACKEND_READ_VALUE && c.in_force[0] == 1 << 20 &&
	          c.read[1] == BACKEND_READ_NONE,
	      "after mallopt the probe agrees; trim_threshold has no read-back (%s)", c.problem);
	j = config_json(&c);
	CHECK(j && cJSON_IsTrue(cJSON_GetObjectItem(j, "verified")) &&
	          cJSON_IsNull(
	              cJSON_GetObjectItem(cJSON_GetObjectItem(j, "in_force"), "trim_threshold")) &&
	          strcmp(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "proof"), "mmap_threshold")
	                     ->valuestring,
	                 "probe") == 0,
	      "the record: verified, trim_threshold null in force, mmap_threshold proven by probe");
	cJSON_Delete(j);
#endif
}

int main(void)
{
	test_parse();
	test_env_and_args();
	test_format();
	test_probe();
	return CHECK_DONE();
}
