/* rfconfig.c - a bench file's config: its arms and workloads, the grid they ran, the arms'
 * configurations, the baseline, the time compared on and the decision plan, into the document's
 * tables (docs/results-format.md, "`allocab-bench/1`: a bench of interleaved rounds (read, no
 * longer written)", whose config `allocab-bench/2` keeps). */
#include "front/results/results.h"

#include "front/results/rfload.h"
#include "common/allocknown.h"
#include "common/nameidx.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where load_names puts its array: *out, of *n elements of size elem, each name a copy stored at
 * offset name_off, indexed by idx. */
struct name_table {
	void **out;
	size_t elem, name_off, *n;
	struct nameidx *idx;
};

/* A non-empty array of distinct names into a new array t describes; *t->out is set first so that
 * rf_free can clean up a failure. */
static int load_names(struct loader *l, const cJSON *arr, const char *what,
                      const struct name_table *t)
{
	void **out = t->out;
	const size_t elem = t->elem, name_off = t->name_off;
	size_t *n = t->n;
	struct nameidx *idx = t->idx;
	const cJSON *v;
	size_t i = 0;
	long rep;

	if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1)
		return rl_fail(l, "config.%s: missing or empty", what);
	if (!(*out = calloc((size_t)cJSON_GetArraySize(arr), elem)))
		return rl_nomem(l);
	cJSON_ArrayForEach(v, arr)
	{
		char **name = (char **)((char *)*out + i * elem + name_off);
		if (!cJSON_IsString(v) || !rl_is_name(v->valuestring))
			return rl_fail(l,
			               "config.%s[%zu]: not a name (non-empty, without control "
			               "characters)",
			               what, i);
		if (!(*name = strdup(v->valuestring)))
			return rl_nomem(l);
		*n = ++i;
	}
	if (nameidx_build(idx, *out, *n, elem, name_off) != 0)
		return rl_nomem(l);
	if ((rep = nameidx_repeat(idx)) >= 0)
		return rl_fail(l, "config.%s: '%s' listed twice", what,
		               *(char **)((char *)*out + (size_t)rep * elem + name_off));
	return 0;
}

/* Arms x workloads: every round holds a run of each, every comparison a row of each. */
static int check_grid(struct loader *l, const cJSON *cfg)
{
	size_t na = (size_t)cJSON_GetArraySize(rl_get(cfg, "arms"));
	size_t nw = (size_t)cJSON_GetArraySize(rl_get(cfg, "workloads"));

	if (na > RF_MAX_CELLS || nw > RF_MAX_CELLS || na * nw > RF_MAX_CELLS)
		return rl_fail(
		    l,
		    "config: %zu arms x %zu workloads exceed the limit of %d arm-workload "
		    "pairs",
		    na, nw, RF_MAX_CELLS);
	return 0;
}

/* config.arm_configs (absent in older files): label -> {"allocator", "config": [...]}. */
static int load_arm_configs(struct loader *l, const cJSON *ac)
{
	struct rf_doc *d = l->d;
	const cJSON *c, *item;

	if (!cJSON_IsObject(ac) || !ac->child)
		return 0;
	if (!(d->arm_config = calloc(d->narms, sizeof *d->arm_config)))
		return rl_nomem(l);
	cJSON_ArrayForEach(c, ac)
	{
		const char *alloc = rl_get_str(c, "allocator");
		int a = rf_arm(d, c->string);
		char buf[1024];
		size_t k;

		if (a < 0 || !alloc || !cJSON_IsArray(rl_get(c, "config")))
			return rl_fail(
			    l, "config.arm_configs: want label -> {allocator, config} of an arm");
		k = (size_t)snprintf(buf, sizeof buf, "%s:", alloc);
		cJSON_ArrayForEach(item, rl_get(c, "config"))
		{
			if (cJSON_IsString(item) && k < sizeof buf)
				k += (size_t)snprintf(buf + k, sizeof buf - k, " %s",
				                      item->valuestring);
		}
		free(d->arm_config[a]);
		if (!(d->arm_config[a] = strdup(buf)))
			return rl_nomem(l);
	}
	return 0;
}

/* The allocator the arm named arm must run: its arm_configs allocator, else its name when that
 * is an allocator's (common/allocknown.h), else NULL (a name of the user's: any allocator). */
static const char *arm_allocator(const cJSON *cfg, const char *arm)
{
	const char *alloc = rl_get_str(rl_get(rl_get(cfg, "arm_configs"), arm), "allocator");

	if (alloc)
		return alloc;
	for (size_t i = 0; i < ALLOC_KNOWN_COUNT; i++)
		if (strcmp(alloc_known_table[i].name, arm) == 0)
			return arm;
	return NULL;
}

/* config.proof: a probed arm proven to run another allocator than its name or configuration
 * says is a mislabelled arm (a bench refuses to make one; docs/programs.md, "Failing loudly"):
 * its comparison would be named after an allocator it did not measure. */
static int check_proof_names(struct loader *l, const cJSON *cfg)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, rl_get(cfg, "proof"))
	{
		const char *ran = rl_get_str(p, "allocator"), *want;

		if (!p->string || !ran || !(want = arm_allocator(cfg, p->string)) ||
		    strcmp(ran, want) == 0)
			continue;
		return rl_fail(l,
		               "config.proof.%.60s: the arm named %.60s was proven to run %.60s, not "
		               "%.60s: a mislabelled arm, whose comparison would name an allocator it "
		               "did not measure",
		               p->string, p->string, ran, want);
	}
	return 0;
}

/* config.equivalence_pct (bench --equivalence), config.primary (bench --primary) and
 * config.sequential, the plan of a sequential
 * gate (bench --gate), both absent or null in files that have none. */
int rl_decision_plan(struct loader *l, const cJSON *cfg)
{
	struct rf_doc *d = l->d;
	const cJSON *seq = rl_get(cfg, "sequential");
	double n, first;

	if (rl_opt_num(l, cfg, "equivalence_pct", 99.999, "config", "config", &d->equivalence))
		return -1;
	const cJSON *prim = rl_get(cfg, "primary");
	if (prim && !cJSON_IsNull(prim)) {
		if (!cJSON_IsString(prim) || strlen(prim->valuestring) >= sizeof d->primary)
			return rl_fail(l, "config.primary: want a string of fewer than 80 bytes");
		strcpy(d->primary, prim->valuestring);
	}
	if (!seq || cJSON_IsNull(seq))
		return 0;
	if (rl_opt_num(l, seq, "planned_rounds", 1e9, "config", "sequential", &n) ||
	    rl_opt_num(l, seq, "first_look", 1e9, "config", "sequential", &first))
		return -1;
	if (!(n >= 1 && first >= 1 && first <= n && n == floor(n) && first == floor(first)))
		return rl_fail(l, "config.sequential: want integers 1 <= first_look <= "
		                  "planned_rounds");
	d->seq = (struct stats_seq_plan){.planned = (size_t)n, .first_look = (size_t)first};
	if (rl_opt_num(l, seq, "alpha_share", 1, "config", "sequential", &d->seq.share))
		return -1;
	if (isnan(d->seq.share))
		d->seq.share = 0;
	else if (!(d->seq.share > 0 && d->seq.share <= 1))
		return rl_fail(l, "config.sequential.alpha_share: want a share in (0, 1]");
	return 0;
}

/* config.baseline, an arm of the file: the arm compared against by default. Files written before
 * it existed compared against the arm named system (the baseline backend) when they had one. */
static int load_baseline(struct loader *l, const cJSON *cfg)
{
	struct rf_doc *d = l->d;
	const cJSON *b = rl_get(cfg, "baseline");
	const char *name = cJSON_IsString(b) ? b->valuestring : NULL;

	if (b && !name)
		return rl_fail(l, "config.baseline: want an arm's name");
	if (name && rf_arm(d, name) < 0)
		return rl_fail(l, "config.baseline '%.100s' is not an arm of config.arms", name);
	if (!name)
		name = rl_fallback_baseline(d);
	d->baseline = d->arms[rf_arm(d, name)];
	return 0;
}

/* What a commands bench ran: config.program, else config.commands, as compact JSON (NULL when
 * neither is there, as in a drivers bench, whose work is in its records' parameters). */
static int load_ran(struct loader *l, const cJSON *cfg)
{
	const cJSON *prog = rl_get(cfg, "program"), *cmds = rl_get(cfg, "commands");
	const cJSON *v = prog && !cJSON_IsNull(prog) ? prog : cmds && !cJSON_IsNull(cmds) ? cmds : NULL;

	if (v && !(l->d->ran = rl_compact(v)))
		return rl_nomem(l);
	return 0;
}

int rl_config(struct loader *l, const cJSON *cfg)
{
	struct rf_doc *d = l->d;
	const char *mode = rl_get_str(cfg, "mode");
	const cJSON *time = rl_get(cfg, "time");
	const char *duet_cpus = rl_get_str(cfg, "duet_cpus");

	if (!cJSON_IsObject(cfg))
		return rl_fail(l, "config: missing");
	char modes[128];

	if (!(d->kind = rf_kind_find(mode)))
		return rl_fail(l, "config.mode: want %s", rf_kind_modes(modes, sizeof modes));
	if (rl_opt_num(l, cfg, "clock_ticks_per_s", 1e6, "config", "config", &l->clock_ticks_per_s))
		return -1;
	/* USER_HZ is 100 on every Linux architecture allocab builds on */
	if (!(l->clock_ticks_per_s >= 1))
		l->clock_ticks_per_s = 100;
	const struct name_table arms = {(void **)&d->arms, sizeof *d->arms, 0, &d->narms,
	                                &d->arm_idx};
	const struct name_table wls = {(void **)&d->wl, sizeof *d->wl,
	                               offsetof(struct rf_workload, name), &d->nwl, &d->wl_idx};
	if (check_grid(l, cfg) != 0 || load_names(l, rl_get(cfg, "arms"), "arms", &arms) != 0 ||
	    load_names(l, rl_get(cfg, "workloads"), "workloads", &wls) != 0)
		return -1;
	for (size_t i = 0; rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && i < d->nwl; i++) {
		d->wl[i].nphases = d->wl[i].nrecord = 1;
		if (!(d->wl[i].phases[0] = strdup("total")))
			return rl_nomem(l);
	}
	if (time && (!cJSON_IsString(time) || rf_time_policy_parse(time->valuestring,
	                                                            &d->time_given) != 0))
		return rl_fail(l, "config.time: want \"wall\", \"cpu\" or \"auto\"");
	if (rl_decision_plan(l, cfg) != 0)
		return -1;
	if (rl_get(cfg, "duet_cpus") && !(duet_cpus && strcmp(duet_cpus, "shared") == 0))
		return rl_fail(l, "config.duet_cpus: want \"shared\" or none");
	d->cpu_shared = duet_cpus != NULL;
	d->duet = cJSON_IsTrue(rl_get(cfg, "duet"));
	if (d->cpu_shared && d->time_given != RF_POLICY_CPU)
		return rl_fail(l,
		               "config.time: \"%s\" with config.duet_cpus \"shared\": runs at once "
		               "on one CPU compare on CPU time only",
		               rf_time_policy_name(d->time_given));
	if (rl_get_str(cfg, "process_tracking") &&
	    !(d->tracking = strdup(rl_get_str(cfg, "process_tracking"))))
		return rl_nomem(l);
	if (load_baseline(l, cfg) != 0 || load_ran(l, cfg) != 0 || check_proof_names(l, cfg) != 0)
		return -1;
	return load_arm_configs(l, rl_get(cfg, "arm_configs"));
}
