/* test_plan.c - the plan module's setup on fixed text (front/plan/plan.h): a driver's workload
 * list, the routing of -w and --param by it, --duet's rule on the list's flags, and plan_init:
 * the plan starts from the options' config, a bench's shard draws its shuffle seed, calibrate's
 * A/A plan leaves its task for its lock and measures the placement it is given. */
#include "front/plan/plan.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void test_lists(void)
{
	char **names = NULL, **params = NULL;
	int n;

	n = bench_parse_workload_list(
	    "{\"schema\":\"allocab-list/1\",\"workloads\":[{\"name\":\"parquet_load\",\"params\":"
	    "[{\"name\":\"rows\"},{\"name\":\"cols\"}]},{\"name\":\"pipeline\",\"params\":[]}]}",
	    &names, &params);
	CHECK(n == 2 && strcmp(names[0], "parquet_load") == 0 &&
	          strcmp(params[0], ",rows,cols,") == 0 && strcmp(params[1], ",") == 0,
	      "allocab-list/1 workloads and their parameters");
	bench_free_list(names, 2);
	bench_free_list(params, 2);
	n = bench_parse_workload_list("[{\"name\":\"a\"}]", &names, &params);
	CHECK(n == 1 && strcmp(names[0], "a") == 0, "a bare array of workloads");
	bench_free_list(names, 1);
	bench_free_list(params, 1);
	CHECK(bench_parse_workload_list("not json", &names, &params) == -1, "list: not JSON");
	CHECK(bench_parse_workload_list("{\"workloads\":[]}", &names, &params) == -1,
	      "list: no workloads");
	CHECK(bench_parse_workload_list("[{\"name\":\"a\"},{\"nome\":\"b\"}]", &names, &params) ==
	          -1,
	      "list: a workload without a name");
}

/* Routes with kv[0..np) as the plan's --param values. */
static enum bench_route route(struct bench_config *c, char *const *sel, size_t nsel,
                              const struct bench_wl_list *l, const char **kv, size_t np,
                              const char **bad)
{
	c->params = (char **)kv;
	c->nparams = np;
	return bench_route_workloads(c, sel, nsel, l, bad);
}

static void test_routing(void)
{
	struct bench_wl_list l = {0};
	struct bench_config c = {0};
	const char *kv[] = {"rows=5", "depth=3", "cols=2"}, *bad = NULL;
	char *sel[] = {"parquet_load", "pipeline"}, *unknown[] = {"pipeline", "nosuch"};
	int n = bench_parse_workload_list(
	    "[{\"name\":\"parquet_load\",\"params\":[{\"name\":\"rows\"},{\"name\":\"cols\"}]},"
	    "{\"name\":\"pipeline\",\"params\":[{\"name\":\"depth\"}]}]",
	    &l.names, &l.params);

	l.n = n > 0 ? (size_t)n : 0;
	CHECK(route(&c, sel, 2, &l, kv, 3, &bad) == BENCH_ROUTED && c.nwl == 2 &&
	          strcmp(c.wl[0].name, "parquet_load") == 0 && c.wl[0].nparams == 2 &&
	          c.wl[0].params[0] == kv[0] && c.wl[0].params[1] == kv[2] &&
	          c.wl[1].nparams == 1 && c.wl[1].params[0] == kv[1],
	      "each --param goes to the workloads that take its key, as the same pointer");
	bench_free_workloads(&c);
	CHECK(c.wl == NULL && c.nwl == 0, "workloads freed and emptied");
	CHECK(route(&c, sel + 1, 1, &l, kv, 0, &bad) == BENCH_ROUTED &&
	          c.nwl == 1 && c.wl[0].nparams == 0 && c.wl[0].params[0] == NULL,
	      "no --param: an empty, NULL-terminated list");
	bench_free_workloads(&c);
	CHECK(route(&c, unknown, 2, &l, kv, 0, &bad) == BENCH_ROUTE_UNKNOWN_WL &&
	          bad == unknown[1],
	      "a workload the driver does not list is named");
	bench_free_workloads(&c);
	CHECK(route(&c, sel + 1, 1, &l, kv, 3, &bad) == BENCH_ROUTE_UNUSED_PARAM &&
	          bad == kv[0],
	      "a --param no selected workload takes is named");
	bench_free_workloads(&c);
	kv[0] = "row=1";
	CHECK(route(&c, sel, 1, &l, kv, 1, &bad) == BENCH_ROUTE_UNUSED_PARAM &&
	          bad == kv[0],
	      "a key matches whole names only (row is not rows)");
	bench_free_workloads(&c);
	bench_wl_list_free(&l);
	bench_wl_list_free(&l);
	bench_wl_list_free(NULL);
	CHECK(l.names == NULL && l.n == 0, "list freed, emptied, and freeing again is harmless");
}

/* The rule reads the flags of the driver's list, not workload names. */
static void test_workloads(void)
{
	const char *json = "{\"workloads\": [{\"name\": \"one\", \"flags\": [\"single_threaded\"]},"
	                   "{\"name\": \"many\", \"flags\": []}, {\"name\": \"old\"}]}";
	struct bench_wl_list l = {0};
	struct bench_workload wl[2] = {{.name = "one"}, {.name = "many"}};
	struct bench_arm arm = {.kind = &arm_kind_driver, .name = "system"};
	struct bench_config c = {.wl = wl, .nwl = 1, .arms = &arm, .narms = 1};
	char err[256] = "";
	int n = bench_parse_workload_list(json, &l.names, &l.params);

	CHECK(n == 3 && bench_parse_workload_info(json, 3, &l.nphases, &l.flags) == 0,
	      "list parsed with its flags");
	l.n = n > 0 ? (size_t)n : 0;
	CHECK(bench_duet_workloads_ok(&c, &l, err, sizeof err) == 0,
	      "a workload flagged single_threaded may be paired");
	c.nwl = 2;
	CHECK(bench_duet_workloads_ok(&c, &l, err, sizeof err) == -1 &&
	          strcmp(err, "--duet: workload 'many' is not single-threaded (the drivers list as "
	                      "single_threaded: one)") == 0,
	      "one without the flag may not, and the message names those that may: %s", err);
	CHECK(bench_wl_flags(&l, "old") == 0 && bench_wl_flags(&l, "absent") == 0,
	      "no flags when the list gives none or lacks the workload");
	arm.kind = &arm_kind_program;
	CHECK(bench_duet_workloads_ok(&c, &l, err, sizeof err) == 0,
	      "a program's workload is the user's: no driver list to check");
	bench_wl_list_free(&l);
}

static void test_init(void)
{
	struct bench_opts o;
	struct bench_plan p;
	char *argv[] = {"bench", NULL}, err[256] = "";

	memset(&o, 0, sizeof o);
	o.cfg.rounds = 7;
	o.cfg.warmup = 2;
	o.cfg.solo_share = 0.5;
	o.cfg.shuffle_seed = 11;
	o.shuffle_seed_set = 1;
	o.quiet = 1;
	setenv("ALLOCAB_SHARD", "3", 1);
	CHECK(plan_init(&p, &o, 1, argv, err, sizeof err) == ST_OK && p.c.rounds == 7 &&
	          p.c.warmup == 2 && p.c.argv == argv && p.c.task == &p.task &&
	          p.c.grace_s == BENCH_KILL_GRACE_S && p.c.progress == PROGRESS_NONE &&
	          p.c.shuffle_seed == 11 && p.task.shard == 3,
	      "plan_init: the options' config, the command line, the task; a given seed kept: %s",
	      err);
	plan_free(&p);
	o.shuffle_seed_set = 0;
	CHECK(plan_init(&p, &o, 1, argv, err, sizeof err) == ST_OK &&
	          p.c.shuffle_seed == bench_task_shuffle_seed(&p.task),
	      "plan_init: without --shuffle-seed, the shard's seed");
	plan_free(&p);
	o.aa_runs = "x-runs.json";
	CHECK(plan_init(&p, &o, 1, argv, err, sizeof err) == ST_OK && p.c.solo_share == 0 &&
	          p.task.lock_fd == -1 && p.task.shard_from == NULL,
	      "plan_init: calibrate's plan has no solo rounds and resolves its task when it locks");
	plan_free(&p);
	setenv("ALLOCAB_SHARD", "x", 1);
	o.aa_runs = NULL;
	CHECK(plan_init(&p, &o, 1, argv, err, sizeof err) == ST_USAGE && strstr(err, "ALLOCAB_SHARD"),
	      "plan_init: a bad shard in the environment is bad input: %s", err);
	plan_free(&p);
	unsetenv("ALLOCAB_SHARD");
}

int main(void)
{
	test_init();
	test_lists();
	test_routing();
	test_workloads();
	return CHECK_DONE();
}
