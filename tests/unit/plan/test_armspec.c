/* test_armspec.c - parsing of configured arms, `--arm LABEL=BACKEND[:KEY=VALUE]...`: good specs,
 * and every rejected one with its exact message. */
#include "check.h"
#include "front/plan/plan.h"

#include <string.h>

static void bad(const char *spec, const char *want)
{
	struct arm_spec a;
	char err[512] = "";

	CHECK(armspec_parse(spec, &a, err, sizeof err) != 0 && strcmp(err, want) == 0 && !a.label &&
	          !a.config,
	      "'%s' refused: '%s'", spec, err);
}

static void test_env_list(void)
{
	char **env = NULL, err[256];
	int n = armspec_env_list("GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc."
	                         "tcache_count=0\nMIMALLOC_DECOMMIT_DELAY=0\n",
	                         &env, err, sizeof err);

	CHECK(n == 2 &&
	          strcmp(env[0], "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432:glibc.malloc."
	                         "tcache_count=0") == 0 &&
	          strcmp(env[1], "MIMALLOC_DECOMMIT_DELAY=0") == 0 && !env[2],
	      "a driver's env output becomes a NULL-terminated NAME=VALUE list");
	armspec_env_free(env);
	n = armspec_env_list("", &env, err, sizeof err);
	CHECK(n == 0 && env && !env[0], "no settings: an empty list");
	armspec_env_free(env);
	CHECK(armspec_env_list("MALLOC_CONF=narenas:2\nnot an assignment\n", &env, err,
	                       sizeof err) < 0 &&
	          strcmp(err, "not an environment assignment: 'not an assignment'") == 0,
	      "a stray line is refused: '%s'", err);
}

int main(void)
{
	test_env_list();
	struct arm_spec a;
	char err[512], joined[256];

	CHECK(armspec_parse("glibc-tuned=system:mmap_threshold=32M:trim_threshold=256M", &a, err,
	                    sizeof err) == 0 &&
	          strcmp(a.label, "glibc-tuned") == 0 && strcmp(a.backend, "system") == 0 &&
	          a.nconfig == 2 && strcmp(a.config[0], "mmap_threshold=32M") == 0 &&
	          strcmp(a.config[1], "trim_threshold=256M") == 0,
	      "label, backend and two settings");
	armspec_join(&a, joined, sizeof joined);
	CHECK(strcmp(joined, "mmap_threshold=32M trim_threshold=256M") == 0, "joined: '%s'",
	      joined);
	armspec_free(&a);
	CHECK(!a.label && !a.config && a.nconfig == 0, "freed and emptied");
	CHECK(armspec_parse("plain=jemalloc", &a, err, sizeof err) == 0 && a.nconfig == 0 &&
	          strcmp(a.backend, "jemalloc") == 0,
	      "an arm without settings");
	armspec_free(&a);
	CHECK(armspec_parse("v1.2_x=mimalloc:decommit_delay=0", &a, err, sizeof err) == 0 &&
	          strcmp(a.config[0], "decommit_delay=0") == 0,
	      "dots, digits and underscores in a label");
	armspec_free(&a);
	bad("system", "--arm: 'system' is not LABEL=BACKEND[:KEY=VALUE]... with LABEL in "
	              "[A-Za-z0-9_.-], not starting with '-'");
	bad("=system", "--arm: '=system' is not LABEL=BACKEND[:KEY=VALUE]... with LABEL in "
	               "[A-Za-z0-9_.-], not starting with '-'");
	bad("a b=system", "--arm: 'a b=system' is not LABEL=BACKEND[:KEY=VALUE]... with LABEL in "
	                  "[A-Za-z0-9_.-], not starting with '-'");
	bad("--help=system", "--arm: '--help=system' is not LABEL=BACKEND[:KEY=VALUE]... with LABEL "
	                     "in [A-Za-z0-9_.-], not starting with '-'");
	bad("-x=system", "--arm: '-x=system' is not LABEL=BACKEND[:KEY=VALUE]... with LABEL in "
	                 "[A-Za-z0-9_.-], not starting with '-'");
	bad("t=", "--arm t: '' is not a backend name");
	bad("t=Sys:x=1", "--arm t: 'Sys' is not a backend name");
	bad("t=system:", "--arm t: '' is not KEY=VALUE");
	bad("t=system:x", "--arm t: 'x' is not KEY=VALUE");
	bad("t=system:x=", "--arm t: 'x=' is not KEY=VALUE");
	bad("t=system:=1", "--arm t: '=1' is not KEY=VALUE");
	bad("t=system:X=1", "--arm t: 'X=1' is not KEY=VALUE");
	bad("t=system:a=1::b=2", "--arm t: '' is not KEY=VALUE");
	bad("t=system:a=1:a=2", "--arm t: a is given twice");
	return CHECK_DONE();
}
