/* benchdoc.c - the pieces of an allocab-bench/2 file: the skeleton with its config, one run
 * object from a finished process, and the time a run contributes to comparisons. Field meanings:
 * docs/results-format.md. */
#include "front/engine/benchdoc.h"
#include "common/fingerprint.h"
#include "front/proc/proc.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const status_names[RS_COUNT] = {"ok",      "failed",  "unverified",
                                                   "crashed", "timeout", "invalid"};

const char *bench_run_status_name(size_t i)
{
	return i < RS_COUNT ? status_names[i] : NULL;
}

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
		cJSON *p;

		if (!a->data || !bench_arm_kind(a)->data_json)
			continue;
		any = 1;
		p = bench_arm_kind(a)->data_json(a->data);
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
		cJSON *x = exeid_json(c->arms[i].command);
		if (x)
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
		cJSON *j;

		if (!a->backend || !(j = cJSON_AddObjectToObject(o, a->name)))
			continue;
		cJSON_AddStringToObject(j, "allocator", a->backend);
		cJSON_AddItemToObject(j, "config", string_array(a->config, a->nconfig));
	}
	return o;
}

/* What an arm's kind describes it by (config.drivers or config.commands). */
static const char *arm_described(const struct bench_arm *a)
{
	struct arm_run_args q = {.path = a->path, .command = a->command};

	return bench_arm_kind(a)->describe(&q);
}

static cJSON *config_json(const struct bench_config *c)
{
	cJSON *o = cJSON_CreateObject(), *arms = cJSON_CreateArray(), *wl = cJSON_CreateArray(), *m;
	int drivers = bench_all_arms(c, ARM_KIND_DRIVER_RECORD);
	const char *mode = c->narms ? bench_arm_kind(&c->arms[0])->doc_mode->mode : "drivers";
	cJSON *map = cJSON_CreateObject(), *kinds = cJSON_CreateObject(), *argv;

	cJSON_AddStringToObject(o, "mode", mode);
	for (size_t i = 0; i < c->narms; i++) {
		cJSON_AddItemToArray(arms, cJSON_CreateString(c->arms[i].name));
		cJSON_AddStringToObject(map, c->arms[i].name, arm_described(&c->arms[i]));
		cJSON_AddStringToObject(kinds, c->arms[i].name, bench_arm_kind(&c->arms[i])->name);
	}
	for (size_t i = 0; i < c->nwl; i++)
		cJSON_AddItemToArray(wl, cJSON_CreateString(c->wl[i].name));
	cJSON_AddItemToObject(o, "arms", arms);
	cJSON_AddItemToObject(o, "arm_kinds", kinds);
	cJSON_AddStringToObject(o, "baseline",
	                        c->baseline ? c->baseline : c->narms ? c->arms[0].name : "");
	cJSON_AddItemToObject(o, "workloads", wl);
	if (drivers) {
		cJSON_AddStringToObject(o, "scale", c->scale);
		cJSON_AddNumberToObject(o, "seed", (double)c->seed);
		cJSON_AddItemToObject(o, "params", string_array(c->params, c->nparams));
		if (c->reps)
			cJSON_AddNumberToObject(o, "reps", c->reps);
		else
			cJSON_AddStringToObject(o, "reps", "auto");
	} else {
		cJSON_AddNullToObject(o, "scale");
		cJSON_AddNullToObject(o, "seed");
		cJSON_AddNullToObject(o, "params");
		cJSON_AddNullToObject(o, "reps");
	}
	cJSON_AddStringToObject(o, "time", rf_time_policy_name(c->time));
	if (c->rounds)
		cJSON_AddNumberToObject(o, "rounds", c->rounds);
	else
		cJSON_AddNullToObject(o, "rounds");
	cJSON_AddNumberToObject(o, "warmup", c->warmup);
	cJSON_AddNumberToObject(o, "min_rounds", c->min_rounds);
	if (c->budget_s > 0)
		cJSON_AddNumberToObject(o, "budget_s", c->budget_s);
	else
		cJSON_AddNullToObject(o, "budget_s");
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
	cJSON_AddItemToObject(o, "allocation",
	                      c->alloc ? cJSON_CreateString(c->alloc->name) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, drivers ? "drivers" : "commands", map);
	cJSON_AddItemToObject(o, "arm_configs", arm_configs(c));
	cJSON_AddItemToObject(o, "program",
	                      c->program ? cJSON_CreateString(c->program) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "proof", proof_json(c));
	cJSON_AddItemToObject(o, "executables", executables_json(c));
	cJSON_AddItemToObject(o, "images", bench_all_arms(c, ARM_KIND_DRIVER_RECORD)
	                                       ? cJSON_CreateNull()
	                                       : cJSON_CreateObject());
	cJSON_AddBoolToObject(o, "count_calls", c->count_lib != NULL);
	cJSON_AddItemToObject(o, "process_tracking",
	                      c->tracking ? cJSON_CreateString(c->tracking) : cJSON_CreateNull());
	if (c->containment && (m = cJSON_AddObjectToObject(o, "containment")))
		cJSON_AddStringToObject(m, "mechanism", c->containment);
	else
		cJSON_AddNullToObject(o, "containment");
	cJSON_AddNullToObject(o, drivers ? "commands" : "drivers");
	if (c->gate)
		cJSON_AddItemToObject(o, "gate", string_array(c->gate_argv, (size_t)c->gate_argc));
	else
		cJSON_AddNullToObject(o, "gate");
	cJSON_AddNullToObject(o, "sequential");
	if (c->equivalence > 0)
		cJSON_AddNumberToObject(o, "equivalence_pct", c->equivalence);
	else
		cJSON_AddNullToObject(o, "equivalence_pct");
	cJSON_AddItemToObject(o, "primary",
	                      c->primary ? cJSON_CreateString(c->primary) : cJSON_CreateNull());
	cJSON_AddNumberToObject(o, "clock_ticks_per_s", (double)sysconf(_SC_CLK_TCK));
	argv = string_array(c->argv, (size_t)c->argc);
	cJSON_InsertItemInArray(argv, 0, cJSON_CreateString("allocab"));
	cJSON_AddItemToObject(o, "argv", argv);
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

static cJSON *parse_record(const struct runner_result *r, const char **why)
{
	cJSON *rec, *schema;

	if (r->out_truncated) {
		*why = "stdout exceeded 16 MiB";
		return NULL;
	}
	if (!r->out || !(rec = cJSON_ParseWithLength(r->out, r->out_len))) {
		*why = "stdout is not JSON";
		return NULL;
	}
	schema = cJSON_GetObjectItemCaseSensitive(rec, "schema");
	if (!cJSON_IsObject(rec) || !cJSON_IsString(schema) ||
	    strcmp(schema->valuestring, "allocab-run/1") != 0) {
		cJSON_Delete(rec);
		*why = "stdout is not an allocab-run/1 document";
		return NULL;
	}
	return rec;
}

/* The signal a command's shell reports as exit status 128 + N for a child killed by signal N
 * (dash does not exec the last command of -c, so that is how a crash of the user's program
 * reaches us); 0 for other statuses and for kinds that are not run by a shell. */
static int shell_signal(const struct bench_arm *a, const struct runner_result *r)
{
	int sig = r->exit_code - 128;

	return arm_kind_has(bench_arm_kind(a), ARM_KIND_SHELL) && r->end == RUNNER_EXITED &&
	               sig >= 1 && sig <= 31 &&
	               runner_signal_name(sig)
	           ? sig
	           : 0;
}

static enum run_status classify(const struct bench_arm *a, const struct runner_result *r,
                                const cJSON *rec)
{
	int records = arm_kind_has(bench_arm_kind(a), ARM_KIND_DRIVER_RECORD);

	if (r->end == RUNNER_TIMEOUT)
		return RS_TIMEOUT;
	if (r->end == RUNNER_SIGNALED || shell_signal(a, r))
		return RS_CRASHED;
	if (r->exit_code == 4 && records)
		return RS_UNVERIFIED;
	if (r->exit_code != 0)
		return RS_FAILED;
	return records && !rec ? RS_INVALID : RS_OK;
}

static cJSON *process_json(const struct runner_result *r)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddNumberToObject(p, "wall_ns", (double)r->wall_ns);
	cJSON_AddNumberToObject(p, "user_ns", (double)r->user_ns);
	cJSON_AddNumberToObject(p, "sys_ns", (double)r->sys_ns);
	cJSON_AddNumberToObject(p, "max_rss_kib", (double)r->max_rss_kib);
	cJSON_AddNumberToObject(p, "minor_faults", (double)r->minor_faults);
	cJSON_AddNumberToObject(p, "major_faults", (double)r->major_faults);
	cJSON_AddNumberToObject(p, "voluntary_ctx_switches", (double)r->vol_ctx_switches);
	cJSON_AddNumberToObject(p, "involuntary_ctx_switches", (double)r->invol_ctx_switches);
	return p;
}

static cJSON *telemetry_json(const struct telemetry_sample *before,
                             const struct telemetry_sample *after)
{
	cJSON *t = cJSON_CreateObject();

	if (before->have_steal && after->have_steal && after->steal_ticks >= before->steal_ticks)
		cJSON_AddNumberToObject(t, "steal_ticks",
		                        (double)(after->steal_ticks - before->steal_ticks));
	else
		cJSON_AddNullToObject(t, "steal_ticks");
	if (before->have_load)
		cJSON_AddNumberToObject(t, "loadavg_1m", before->loadavg_1m);
	else
		cJSON_AddNullToObject(t, "loadavg_1m");
	if (before->have_runnable)
		cJSON_AddNumberToObject(t, "runnable", before->runnable);
	else
		cJSON_AddNullToObject(t, "runnable");
	return t;
}

cJSON *benchdoc_run(const struct bench_config *c, const struct bench_arm *a,
                    const struct bench_workload *w, size_t pad, const struct runner_result *r,
                    const struct telemetry_sample tel[2], enum run_status *st)
{
	const char *why = NULL;
	cJSON *rec = arm_kind_has(bench_arm_kind(a), ARM_KIND_DRIVER_RECORD) &&
	                     r->end == RUNNER_EXITED
	                 ? parse_record(r, &why)
	                 : NULL;
	cJSON *o = cJSON_CreateObject();
	int signo = r->term_signal ? r->term_signal : shell_signal(a, r);
	const char *sig = signo ? runner_signal_name(signo) : NULL;
	char signum[16];

	(void)c;
	*st = classify(a, r, rec);
	cJSON_AddStringToObject(o, "arm", a->name);
	cJSON_AddStringToObject(o, "workload", w->name);
	cJSON_AddNumberToObject(o, "pad_bytes", (double)pad);
	cJSON_AddStringToObject(o, "status", status_names[*st]);
	if (r->end == RUNNER_EXITED || (r->end == RUNNER_TIMEOUT && !r->term_signal))
		cJSON_AddNumberToObject(o, "exit_status", r->exit_code);
	else
		cJSON_AddNullToObject(o, "exit_status");
	if (signo && !sig) {
		snprintf(signum, sizeof signum, "SIG%d", signo);
		sig = signum;
	}
	if (sig)
		cJSON_AddStringToObject(o, "signal", sig);
	else
		cJSON_AddNullToObject(o, "signal");
	if (*st != RS_OK && r->tail_len)
		cJSON_AddStringToObject(o, "stderr_tail", r->tail);
	else
		cJSON_AddNullToObject(o, "stderr_tail");
	if (*st == RS_INVALID)
		cJSON_AddStringToObject(o, "reason", why);
	cJSON_AddItemToObject(o, "process", process_json(r));
	cJSON_AddItemToObject(o, "telemetry", telemetry_json(&tel[0], &tel[1]));
	if (rec)
		cJSON_AddItemToObject(o, "record", rec);
	return o;
}

void benchdoc_apply_probe(cJSON *run, int verified, const char *reason, cJSON *summary,
                          const char *tail, enum run_status *st)
{
	if (summary)
		cJSON_AddItemToObject(run, "probe", summary);
	if (verified || (*st != RS_OK && *st != RS_FAILED))
		return;
	*st = RS_UNVERIFIED;
	benchdoc_set_string(run, "status", status_names[*st]);
	if (cJSON_GetObjectItemCaseSensitive(run, "reason"))
		benchdoc_set_string(run, "reason", reason);
	else
		cJSON_AddStringToObject(run, "reason", reason);
	if (tail && *tail)
		benchdoc_set_string(run, "stderr_tail", tail);
}

double benchdoc_run_time(const cJSON *run)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "status");
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(run, "record");
	const cJSON *steady = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(rec, "regimes"), "steady_ns");
	const cJSON *reps = cJSON_GetObjectItemCaseSensitive(rec, "reps"), *rep;
	size_t n = 0, cap = (size_t)cJSON_GetArraySize(reps);
	double *t, med;

	if (!cJSON_IsString(st) || strcmp(st->valuestring, "ok") != 0)
		return NAN;
	if (!rec) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(run, "process");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(p, "wall_ns");
		return cJSON_IsNumber(w) ? w->valuedouble : NAN;
	}
	if (cJSON_IsNumber(steady) && steady->valuedouble > 0)
		return steady->valuedouble;
	if (cap == 0 || !(t = malloc(cap * sizeof *t)))
		return NAN;
	cJSON_ArrayForEach(rep, reps)
	{
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(rep, "phases");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(ph, "total"), "wall_ns");

		if (cJSON_IsNumber(w))
			t[n++] = w->valuedouble;
	}
	med = n ? stats_median(t, n) : NAN;
	free(t);
	return med;
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
