/* benchdoc.c - the head of an allocab-bench/2 file, which lives as long as the bench: the skeleton
 * with its config and task, what the bench records in it as it goes (the sequential plan, the
 * gate's decision, the machine's facts) and the copy of it as last written. The run objects:
 * benchdocrun.c. Field meanings: docs/results-format.md. */
#include "front/engine/benchdoc.h"
#include "common/fingerprint.h"
#include "front/proc/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void benchdoc_utc_now(char buf[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static cJSON *string_array(char *const *s, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(s[i]));
	return a;
}

/* Per probed arm: what its runs must prove, and the library it preloads. NULL: no arm probed. */
static cJSON *proof_json(const struct bench_config *c)
{
	cJSON *o = cJSON_CreateObject();
	int any = 0;

	for (size_t i = 0; o && i < c->narms; i++) {
		const struct bench_arm *a = &c->arms[i];
		const struct arm_kind_ops *k = bench_arm_kind(a);
		cJSON *p;

		if (!k->proof || !k->proof(a->data) || !k->data_json)
			continue;
		any = 1;
		p = k->data_json(a->data);
		cJSON_AddItemToObject(o, a->name, p);
	}
	if (any)
		return o;
	cJSON_Delete(o);
	return cJSON_CreateNull();
}

/* Commands mode: arm -> the identity of the executable its command runs (proc.h), for the arms
 * whose command names one; null for drivers. */
static cJSON *executables_json(const struct bench_config *c)
{
	cJSON *o;

	if (bench_all_arms(c, ARM_KIND_DRIVER_RECORD) || !(o = cJSON_CreateObject()))
		return cJSON_CreateNull();
	for (size_t i = 0; i < c->narms; i++) {
		struct arm_run_args q = {0};
		cJSON *x;

		bench_arm_args(&c->arms[i], &q);
		if ((x = exeid_json(q.command)))
			cJSON_AddItemToObject(o, c->arms[i].name, x);
	}
	return o;
}

/* label -> {"allocator", "config": ["KEY=VALUE", ...]} for the configured arms. */
static cJSON *arm_configs(const struct bench_config *c)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; o && i < c->narms; i++) {
		const struct bench_arm *a = &c->arms[i];
		struct arm_run_args q = {0};
		cJSON *j;

		bench_arm_args(a, &q);
		if (!q.backend || !(j = cJSON_AddObjectToObject(o, a->name)))
			continue;
		cJSON_AddStringToObject(j, "allocator", q.backend);
		cJSON_AddItemToObject(j, "config", string_array(q.config, q.nconfig));
	}
	return o;
}

/* What an arm's kind describes it by (config.drivers or config.commands). */
static const char *arm_described(const struct bench_arm *a)
{
	struct arm_run_args q = {0};

	bench_arm_args(a, &q);
	return bench_arm_kind(a)->describe(&q);
}

/* config's mode, arms with their kinds, baseline and workloads, and a driver's scale, seed,
 * params and reps (null for commands). */
static void config_arms(cJSON *o, const struct bench_config *c, int drivers)
{
	cJSON *arms = cJSON_CreateArray(), *wl = cJSON_CreateArray(), *kinds = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "mode",
	                        c->narms ? bench_arm_kind(&c->arms[0])->doc_mode->mode : "drivers");
	for (size_t i = 0; i < c->narms; i++) {
		cJSON_AddItemToArray(arms, cJSON_CreateString(c->arms[i].name));
		cJSON_AddStringToObject(kinds, c->arms[i].name, bench_arm_kind(&c->arms[i])->name);
	}
	for (size_t i = 0; i < c->nwl; i++)
		cJSON_AddItemToArray(wl, cJSON_CreateString(c->wl[i].name));
	cJSON_AddItemToObject(o, "arms", arms);
	cJSON_AddItemToObject(o, "arm_kinds", kinds);
	cJSON_AddStringToObject(o, "baseline",
	                        c->baseline ? c->baseline : c->narms ? c->arms[0].name : "");
	cJSON_AddItemToObject(o, "workloads", wl);
	if (!drivers) {
		cJSON_AddNullToObject(o, "scale");
		cJSON_AddNullToObject(o, "seed");
		cJSON_AddNullToObject(o, "params");
		cJSON_AddNullToObject(o, "reps");
		return;
	}
	cJSON_AddStringToObject(o, "scale", c->scale);
	cJSON_AddNumberToObject(o, "seed", (double)c->seed);
	cJSON_AddItemToObject(o, "params", string_array(c->params, c->nparams));
	if (c->reps)
		cJSON_AddNumberToObject(o, "reps", c->reps);
	else
		cJSON_AddStringToObject(o, "reps", "auto");
}

static cJSON *number_or_null(int set, double v)
{
	return set ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *string_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* config's time policy and what decides the rounds: their count, warm-up, budget, timeouts,
 * shuffle and padding, the duet and adaptive allocation. */
static void config_rounds(cJSON *o, const struct bench_config *c)
{
	cJSON_AddStringToObject(o, "time", rf_time_policy_name(c->time));
	cJSON_AddItemToObject(o, "rounds", number_or_null(c->rounds != 0, c->rounds));
	cJSON_AddNumberToObject(o, "warmup", c->warmup);
	cJSON_AddNumberToObject(o, "min_rounds", c->min_rounds);
	cJSON_AddItemToObject(o, "budget_s", number_or_null(c->budget_s > 0, c->budget_s));
	cJSON_AddNumberToObject(o, "timeout_s", c->timeout_s);
	cJSON_AddNumberToObject(o, "kill_grace_s", c->grace_s);
	cJSON_AddNumberToObject(o, "shuffle_seed", (double)c->shuffle_seed);
	cJSON_AddNumberToObject(o, "pad_max_bytes", (double)c->pad_max);
	cJSON_AddStringToObject(o, "pad_var", RUNNER_PAD_VAR);
	cJSON_AddBoolToObject(o, "duet", c->duet);
	if (c->duet_shared)
		cJSON_AddStringToObject(o, "duet_cpus", "shared");
	if (c->duet && c->solo_share > 0)
		cJSON_AddNumberToObject(o, "solo_share", c->solo_share);
	cJSON_AddItemToObject(o, "allocation", string_or_null(c->alloc ? c->alloc->name : NULL));
}

/* config's identity of what runs: each arm's driver or command, configured arms, the program,
 * the proof asked of each arm, the executables and images, counting and process tracking. */
static void config_identity(cJSON *o, const struct bench_config *c, int drivers)
{
	cJSON *map = cJSON_CreateObject(), *m;

	for (size_t i = 0; i < c->narms; i++)
		cJSON_AddStringToObject(map, c->arms[i].name, arm_described(&c->arms[i]));
	cJSON_AddItemToObject(o, drivers ? "drivers" : "commands", map);
	cJSON_AddItemToObject(o, "arm_configs", arm_configs(c));
	cJSON_AddItemToObject(o, "program", string_or_null(c->program));
	cJSON_AddItemToObject(o, "proof", proof_json(c));
	cJSON_AddItemToObject(o, "executables", executables_json(c));
	cJSON_AddItemToObject(o, "images", drivers ? cJSON_CreateNull() : cJSON_CreateObject());
	cJSON_AddBoolToObject(o, "count_calls", c->count_lib != NULL);
	cJSON_AddItemToObject(o, "process_tracking", string_or_null(c->tracking));
	if (c->containment && (m = cJSON_AddObjectToObject(o, "containment")))
		cJSON_AddStringToObject(m, "mechanism", c->containment);
	else
		cJSON_AddNullToObject(o, "containment");
	cJSON_AddNullToObject(o, drivers ? "commands" : "drivers");
}

/* config's decisions (the gate's command line, the sequential plan to come, equivalence, the
 * primary comparisons), the clock's ticks and the bench's own command line. */
static void config_decisions(cJSON *o, const struct bench_config *c)
{
	cJSON *argv;

	if (c->gate)
		cJSON_AddItemToObject(o, "gate", string_array(c->gate_argv, (size_t)c->gate_argc));
	else
		cJSON_AddNullToObject(o, "gate");
	cJSON_AddNullToObject(o, "sequential");
	cJSON_AddItemToObject(o, "equivalence_pct",
	                      number_or_null(c->equivalence > 0, c->equivalence));
	cJSON_AddItemToObject(o, "primary", string_or_null(c->primary));
	cJSON_AddNumberToObject(o, "clock_ticks_per_s", (double)sysconf(_SC_CLK_TCK));
	argv = string_array(c->argv, (size_t)c->argc);
	cJSON_InsertItemInArray(argv, 0, cJSON_CreateString("allocab"));
	cJSON_AddItemToObject(o, "argv", argv);
}

/* The document's config (docs/results-format.md), its members in the file's order. */
static cJSON *config_json(const struct bench_config *c)
{
	cJSON *o = cJSON_CreateObject();
	int drivers = bench_all_arms(c, ARM_KIND_DRIVER_RECORD);

	config_arms(o, c, drivers);
	config_rounds(o, c);
	config_identity(o, c, drivers);
	config_decisions(o, c);
	return o;
}

static cJSON *text_or_null(const char *s)
{
	return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* The task of a job array (docs/results-format.md, "task"). */
static cJSON *task_json(const struct bench_task *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "label", text_or_null(t->label));
	cJSON_AddItemToObject(o, "label_from", text_or_null(t->label_from));
	cJSON_AddItemToObject(o, "shard", t->shard >= 0 ? cJSON_CreateNumber((double)t->shard)
	                                                : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "shard_from", text_or_null(t->shard_from));
	cJSON_AddItemToObject(o, "host", text_or_null(t->host));
	cJSON_AddItemToObject(o, "boot_id", text_or_null(t->boot_id));
	cJSON_AddItemToObject(o, "lock", text_or_null(t->lock));
	return o;
}

cJSON *benchdoc_new(const struct bench_config *c)
{
	cJSON *d = cJSON_CreateObject(), *tool = cJSON_CreateObject(), *machine;
	char now[32];

	benchdoc_utc_now(now);
	cJSON_AddStringToObject(d, "schema", RF_SCHEMA2);
	cJSON_AddStringToObject(tool, "name", "allocab");
	cJSON_AddStringToObject(tool, "version", ALLOCAB_VERSION);
	cJSON_AddItemToObject(d, "tool", tool);
	cJSON_AddStringToObject(d, "created_utc", now);
	cJSON_AddStringToObject(d, "updated_utc", now);
	cJSON_AddStringToObject(d, "status", "running");
	cJSON_AddItemToObject(d, "config", config_json(c));
	machine = c->runner && c->runner->machine ? c->runner->machine(c->runner->ctx)
	                                          : fingerprint_json();
	cJSON_AddItemToObject(d, "machine", machine ? machine : cJSON_CreateNull());
	if (c->task)
		cJSON_AddItemToObject(d, "task", task_json(c->task));
	cJSON_AddItemToObject(d, "rounds", cJSON_CreateArray());
	cJSON_AddNullToObject(d, "gate_outcome");
	cJSON_AddNullToObject(d, "gate_decision");
	return d;
}

void benchdoc_set_plan(cJSON *d, const struct stats_seq_plan *p)
{
	cJSON *cfg = cJSON_GetObjectItemCaseSensitive(d, "config"), *s = cJSON_CreateObject();

	cJSON_AddStringToObject(s, "rule",
	                        "O'Brien-Fleming boundary under continuous monitoring, signed-rank");
	cJSON_AddNumberToObject(s, "planned_rounds", (double)p->planned);
	cJSON_AddNumberToObject(s, "first_look", (double)p->first_look);
	if (p->share > 0)
		cJSON_AddNumberToObject(s, "alpha_share", p->share);
	cJSON_ReplaceItemInObjectCaseSensitive(cfg, "sequential", s);
}

void benchdoc_set_decision(cJSON *d, const char *outcome, unsigned rounds, unsigned looks,
                           const char *text)
{
	cJSON *o = cJSON_CreateObject(), *lines = cJSON_CreateArray();
	const char *p = text;

	cJSON_AddStringToObject(o, "outcome", outcome);
	cJSON_AddNumberToObject(o, "rounds", rounds);
	cJSON_AddNumberToObject(o, "looks", looks);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, n);
		if (line)
			cJSON_AddItemToArray(lines, cJSON_CreateString(line));
		free(line);
		p += n + (nl != NULL);
	}
	cJSON_AddItemToObject(o, "lines", lines);
	cJSON_ReplaceItemInObjectCaseSensitive(d, "gate_decision", o);
}

void benchdoc_set_string(cJSON *d, const char *key, const char *value)
{
	cJSON_ReplaceItemInObjectCaseSensitive(
	    d, key, value ? cJSON_CreateString(value) : cJSON_CreateNull());
}

/* The machine's facts (facts_record); a test's stand-in runner runs no process, so there is no
 * machine to measure: its facts, if it gives any. */
void benchdoc_facts(const struct bench_config *c, cJSON *doc, const char *when, int keep)
{
	struct facts f = {.trials = 0};

	if (!c->runner) {
		facts_record(doc, when, keep);
	} else if (c->runner->facts) {
		c->runner->facts(c->runner->ctx, when, &f);
		facts_put(doc, when, keep, &f);
	}
}

/* A copy of the document without its rounds (the file's head), made without copying them: a copy
 * per round of every round so far made a bench of n rounds cost n^2. NULL when out of memory. */
cJSON *benchdoc_head_copy(cJSON *doc)
{
	cJSON *rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds"), *m, *copy;
	int at = 0;

	for (m = doc->child; rounds && m != rounds; m = m->next)
		at++;
	if (rounds)
		cJSON_DetachItemViaPointer(doc, rounds);
	copy = cJSON_Duplicate(doc, 1);
	if (rounds && !cJSON_InsertItemInArray(doc, at, rounds))
		cJSON_AddItemToObject(doc, "rounds", rounds);
	return copy;
}
