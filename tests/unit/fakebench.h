/* fakebench.h - a results file written by the production writer: the real bench engine
 * (front/engine/engine.h, bench_run) with a fake process runner and a fake clock (as
 * tests/unit/engine/test_benchrun.c), so that fixtures follow the file format whatever it becomes.
 * Commands mode: each arm is a command whose runs take its time; nothing is started.
 *
 * fakebench_write(OUT, N, KV, err, errlen) runs the engine once with the N settings KV, each
 * "KEY=VALUE" (tests/tools/mkbench.c is it as a program: mkbench OUT [KEY=VALUE...]; the unit tests
 * call it and load OUT):
 *   arms=NAME=F[/A],...  arm NAME's run takes F x base ns, times 1 + A x a deterministic wobble in
 *                        [-1, 1] (A default 0.004); the first arm is the baseline (default
 *                        "system=1")
 *   rounds=N (8)  warmup=N (1)  base=NS (100000000)  seed=N (1, the shuffle and the wobble)
 *   cpu=R         each run's user CPU time is R x its wall time (default 0.9; sys 0.05 x wall)
 *   fail=ARM:RUN[:CODE]  the RUN-th run (from 1, warm-up included) of ARM exits CODE (default 1)
 *   signal=ARM:RUN       that run dies of SIGSEGV
 *   label=NAME           the bench is a task of a fleet, its machine named NAME (--label)
 *   runnable=N (1)       every run's telemetry: N tasks runnable, load 0.5, no steal time
 *   load=L (0.5)         every run's telemetry: load average L
 *   boot=ID              with label=, the task's boot id (task.boot_id; none by default)
 *   id=NAME              the machine is this one with " NAME" after its CPU model (so another
 *                        machine: compare recomputes machine.id from the fields)
 * Drivers mode (mode=drivers): each arm is a driver whose stdout is the allocab-run/1 record the
 * fake writes (the fields compare reads: workload, phases, reps, regimes, checksum, rusage, rss):
 *   wls=NAME,...  (parquet_load,pipeline) workloads; "pipeline" also has a phase "read" (1/3)
 *   reps=N (1)    N > 1: rep 0 cold, the last 3 steady, the others warmup, 64 KiB RSS growth
 *                 per rep, "regimes.settled" true
 *   colds=ARM=F,...  cold rep time = F x the run's time; warmcold=F the warm-up rounds' cold reps
 *                 F times longer still;  unsettled=ARM its records are not settled
 *   sum=ARM       its records carry another checksum
 *   replay=NS     every record's workload ran on a recorded process (workload.input)
 *   crash=ARM:M   ARM's runs of measured round M (from 0; -1 the last warm-up round) die of
 *                 SIGSEGV, stderr "boom" and "segfault in arena"
 * formula=cycle: run times by the cycle formula of tests/e2e/lib.sh's mkbench instead of the
 * wobble (round r, measured index m = r - warmup, arm a and workload w counted from 1):
 *   t = trunc(base (1 + spread ((7 r) mod 5)) w F_a (1 + A_a ((((m + phase) 5 + 3 a + w) mod 7)/6
 *   - 1/2))), spread=S (0.05), phase=N (0); the arm's peak RSS 1000 F_a KiB
 * primary=ROWS: config.primary is ROWS (bench --primary ROWS).  time=wall|cpu|auto: config.time.
 * fakebench_write_hooks(OUT, N, KV, HOOKS, err, errlen) is fakebench_write with a test's own
 * answers (struct fakebench_hooks): each run's times and end, its record, the machine's facts, an
 * adaptive allocation (then min_rounds 1).
 * Returns 0 when the engine wrote OUT, 2 on a bad spec, 1 when the engine failed, with the reason
 * in err. */
#ifndef ALLOCAB_TEST_FAKEBENCH_H
#define ALLOCAB_TEST_FAKEBENCH_H

#include "common/status.h"
#include "front/engine/engine.h"
#include "fakemachine.h"
#include "front/proc/proc.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKEBENCH_MAX_ARMS   8
#define FAKEBENCH_MAX_EVENTS 16
#define FAKEBENCH_MAX_WLS    8

struct fakebench_event {
	int arm;
	unsigned run;
	int code; /* exit code; 0 with sig */
	int sig;
};

/* A test's own answers, for what the settings cannot say (fakebench_write_hooks); each NULL for
 * the fake's. m is the run's measured round (from 0; negative in a warm-up round), a its arm
 * (from 0, in arms= order), w its workload (from 0, in wls= order; 0 in commands mode). */
struct fakebench_hooks {
	void *ctx;
	/* The run as the fake made it (r: its wall, CPU and sys time, peak RSS, end, pid): changed
	 * at will; *steal: the ticks stolen while it ran (0), in its telemetry. */
	void (*run)(void *ctx, long m, int a, size_t w, struct runner_result *r, uint64_t *steal);
	/* Drivers mode: the allocab-run/1 record the fake made of that run (from r's wall time,
	 * after run), changed at will before the driver "prints" it. */
	void (*record)(void *ctx, long m, int a, size_t w, cJSON *rec);
	/* The machine's facts at the start and the end (bench_runner.facts); NULL: none. */
	void (*facts)(void *ctx, const char *when, struct facts *f);
	/* Adaptive allocation (bench_config.alloc), asked from the first measured round on. */
	const struct bench_alloc *alloc;
};

struct fakebench_fake {
	const struct fakebench_hooks *h;
	uint64_t steal; /* ticks stolen so far (the hooks' run) */
	/* runs of each arm x workload so far: a run's round */
	unsigned long cell[FAKEBENCH_MAX_ARMS * FAKEBENCH_MAX_WLS];
	int64_t clock_ns;
	int64_t base_ns[FAKEBENCH_MAX_ARMS];
	double amp[FAKEBENCH_MAX_ARMS];
	unsigned runs[FAKEBENCH_MAX_ARMS];
	double cpu;
	uint64_t seed;
	struct fakebench_event ev[FAKEBENCH_MAX_EVENTS];
	size_t nev;
	char **names;
	size_t narms;
	/* drivers mode and the cycle formula */
	int drivers, cycle;
	char **wls;
	size_t nwl;
	unsigned warmup, reps;
	double base, spread, factor[FAKEBENCH_MAX_ARMS], cold[FAKEBENCH_MAX_ARMS], warmcold;
	long phase;
	int unsettled, sum, crash; /* arm indexes, -1 none */
	long crash_m;
	long long replay; /* -1 none */
	unsigned runnable;
	double load;
	const char *id;
};

/* A wobble in [-1, 1] from (seed, arm, run): splitmix64. */
static inline double fakebench_wobble(uint64_t seed, int arm, unsigned run)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)arm * 0xbf58476d1ce4e5b9ULL + run;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ULL << 52) - 1.0;
}

/* The cycle formula (see the head of this file); a and w from 0. */
static inline int64_t fakebench_cycle_ns(const struct fakebench_fake *f, unsigned long round, int a,
                                         size_t w)
{
	long m = (long)round - (long)f->warmup;
	double t0 = f->base * (1 + f->spread * (double)((round * 7) % 5));
	long k = ((m + f->phase) * 5 + (a + 1) * 3 + (long)w + 1) % 7;

	return (int64_t)(t0 * (double)(w + 1) * f->factor[a] *
	                 (1 + f->amp[a] * ((double)k / 6 - 0.5)));
}

static inline void fakebench_add_phases(cJSON *rep, const char *wl, double t)
{
	cJSON *ph = cJSON_AddObjectToObject(rep, "phases");

	cJSON_AddNumberToObject(cJSON_AddObjectToObject(ph, "total"), "wall_ns", t);
	if (!strcmp(wl, "pipeline"))
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(ph, "read"), "wall_ns",
		                        (double)((int64_t)t / 3));
}

/* The allocab-run/1 record of arm a's run of workload wl in round (measured index m), total t. */
static inline char *fakebench_record(const struct fakebench_fake *f, int a, size_t wi, long m,
                                     int64_t t)
{
	const char *wl = f->wls[wi];
	cJSON *o = cJSON_CreateObject(), *w = cJSON_CreateObject(), *reps, *rep, *x;
	double kib = (double)(int64_t)(1000 * f->factor[a]);
	char *text;

	cJSON_AddStringToObject(o, "schema", "allocab-run/1");
	cJSON_AddItemToObject(o, "workload", w);
	cJSON_AddStringToObject(w, "name", wl);
	if (!strcmp(wl, "pipeline"))
		cJSON_AddItemToArray(cJSON_AddArrayToObject(w, "flags"), cJSON_CreateString("show_phases"));
	cJSON_AddStringToObject(w, "scale", "small");
	cJSON_AddNumberToObject(w, "seed", 42);
	x = cJSON_AddObjectToObject(w, "params");
	if (f->replay >= 0) {
		cJSON_AddStringToObject(x, "trace", "rec.trace");
		cJSON_AddNumberToObject(x, "pid", 0);
		x = cJSON_AddObjectToObject(w, "input");
		cJSON_AddNumberToObject(x, "index", 3);
		cJSON_AddNumberToObject(x, "pid", 4242);
		cJSON_AddNumberToObject(x, "threads", 1);
		cJSON_AddNumberToObject(x, "events", 298);
		cJSON_AddNumberToObject(x, "duration_ns", (double)f->replay);
		cJSON_AddStringToObject(x, "exe", "/usr/bin/sort");
		cJSON_AddStringToObject(x, "command", "sort -n big.txt");
		cJSON_AddStringToObject(x, "ended", "exit");
	} else {
		cJSON_AddNumberToObject(x, "rows", 100);
	}
	x = cJSON_AddArrayToObject(o, "phases");
	cJSON_AddItemToArray(x, cJSON_CreateString("total"));
	if (!strcmp(wl, "pipeline"))
		cJSON_AddItemToArray(x, cJSON_CreateString("read"));
	reps = cJSON_AddArrayToObject(o, "reps");
	for (unsigned k = 0; k < f->reps; k++) {
		double tk = k ? (double)t
		              : (double)(int64_t)((double)t * f->cold[a] * (m < 0 ? f->warmcold : 1));
		rep = cJSON_CreateObject();
		cJSON_AddItemToArray(reps, rep);
		if (f->reps > 1) {
			cJSON_AddStringToObject(rep, "regime", k == 0                ? "cold"
			                                       : k + 3 >= f->reps ? "steady"
			                                                          : "warmup");
			cJSON_AddNumberToObject(rep, "rss_after_bytes", 1048576 + 65536 * (double)k);
		}
		fakebench_add_phases(rep, wl, tk);
	}
	if (f->reps > 1)
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(o, "regimes"), "settled", f->unsettled != a);
	cJSON_AddStringToObject(o, "checksum", f->sum == a ? "00000000000000bb" : "00000000000000aa");
	x = cJSON_AddObjectToObject(o, "rusage");
	cJSON_AddNumberToObject(x, "max_rss_kib", kib);
	cJSON_AddNumberToObject(x, "involuntary_ctx_switches", 2);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(o, "rss"), "retained_bytes", 1048576);
	if (f->h && f->h->record)
		f->h->record(f->h->ctx, m, a, wi, o);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static inline int fakebench_run(void *ctx, const struct runner_spec *spec, struct runner_result *r,
                                char *err, size_t errlen)
{
	struct fakebench_fake *f = ctx;
	/* drivers: the driver's path is the arm's index, argv[2] the workload; commands: sh -c
	 * COMMAND, the command is the arm's index */
	int arm = atoi(f->drivers ? spec->path : spec->argv[2]);
	unsigned run = ++f->runs[arm];
	size_t w = 0;

	while (f->drivers && w + 1 < f->nwl && strcmp(f->wls[w], spec->argv[2]) != 0)
		w++;
	/* a cell runs once in each round until it leaves, and never comes back */
	unsigned long round = f->cell[(size_t)arm * FAKEBENCH_MAX_WLS + w]++;
	long m = (long)round - (long)f->warmup;
	uint64_t steal = 0;
	memset(r, 0, sizeof *r);
	r->end = RUNNER_EXITED;
	r->pid = 1000 + (long)run;
	if (f->cycle)
		r->wall_ns = fakebench_cycle_ns(f, round, arm, w);
	else
		r->wall_ns = (int64_t)((double)f->base_ns[arm] *
		                       (1.0 + f->amp[arm] * fakebench_wobble(f->seed, arm, run)));
	r->user_ns = (int64_t)((double)r->wall_ns * f->cpu);
	r->sys_ns = r->wall_ns / 20;
	r->max_rss_kib = f->cycle ? (long)(1000 * f->factor[arm]) : 4096;
	r->invol_ctx_switches = 2;
	if (f->h && f->h->run)
		f->h->run(f->h->ctx, m, arm, w, r, &steal);
	f->steal += steal;
	f->clock_ns += r->wall_ns;
	if (f->crash == arm && f->crash_m == m) {
		r->end = RUNNER_SIGNALED;
		r->term_signal = SIGSEGV;
		r->tail_len = (size_t)snprintf(r->tail, sizeof r->tail, "boom\nsegfault in arena");
		return 0;
	}
	if (f->drivers) {
		if (!(r->out = fakebench_record(f, arm, w, m, r->wall_ns)))
			return snprintf(err, errlen, "out of memory"), -1;
		r->out_len = strlen(r->out);
	}
	for (size_t i = 0; i < f->nev; i++) {
		if (f->ev[i].arm != arm || f->ev[i].run != run)
			continue;
		if (f->ev[i].sig) {
			r->end = RUNNER_SIGNALED;
			r->term_signal = f->ev[i].sig;
		} else {
			r->exit_code = f->ev[i].code;
		}
	}
	return 0;
}

static inline int64_t fakebench_now(void *ctx)
{
	return ((struct fakebench_fake *)ctx)->clock_ns;
}

static inline void fakebench_telemetry(void *ctx, struct telemetry_sample *t)
{
	const struct fakebench_fake *f = ctx;

	*t = (struct telemetry_sample){.have_steal = 1,
	                               .have_load = 1,
	                               .have_runnable = 1,
	                               .steal_ticks = f->steal,
	                               .loadavg_1m = f->load,
	                               .runnable = f->runnable};
}

/* This machine, or with id= another one: " ID" after its CPU model, its id recomputed. */
static inline cJSON *fakebench_machine(void *ctx)
{
	return fakemachine_as(((const struct fakebench_fake *)ctx)->id);
}

static inline void fakebench_facts(void *ctx, const char *when, struct facts *x)
{
	const struct fakebench_fake *f = ctx;

	f->h->facts(f->h->ctx, when, x);
}

static inline int fakebench_usage(char *err, size_t errlen, const char *msg, const char *arg)
{
	snprintf(err, errlen, "%s%s%.400s", msg, arg ? ": " : "", arg ? arg : "");
	return 2;
}

static inline int fakebench_arm_index(const struct fakebench_fake *f, const char *name, size_t n)
{
	for (size_t i = 0; i < f->narms; i++)
		if (strlen(f->names[i]) == n && strncmp(f->names[i], name, n) == 0)
			return (int)i;
	return -1;
}

/* ARM:RUN[:CODE] into f->ev. */
static inline int fakebench_parse_event(struct fakebench_fake *f, const char *v, int sig)
{
	const char *c = strchr(v, ':');
	char *end;
	struct fakebench_event e = {.sig = sig, .code = sig ? 0 : 1};

	if (!c || f->nev == FAKEBENCH_MAX_EVENTS ||
	    (e.arm = fakebench_arm_index(f, v, (size_t)(c - v))) < 0)
		return -1;
	errno = 0;
	unsigned long run = strtoul(c + 1, &end, 10);
	if (errno || end == c + 1 || run == 0 || run > 100000)
		return -1;
	e.run = (unsigned)run;
	if (*end == ':' && !sig) {
		long code = strtol(end + 1, &end, 10);
		if (code < 1 || code > 255)
			return -1;
		e.code = (int)code;
	}
	if (*end)
		return -1;
	f->ev[f->nev++] = e;
	return 0;
}

/* Everything one run of the engine keeps: the fake, and the arms and workloads it names. */
struct fakebench_state {
	struct fakebench_fake f;
	struct bench_arm arms[FAKEBENCH_MAX_ARMS];
	struct arm_driver_data drv[FAKEBENCH_MAX_ARMS];
	struct arm_shell_data sh[FAKEBENCH_MAX_ARMS];
	char *names[FAKEBENCH_MAX_ARMS], cmds[FAKEBENCH_MAX_ARMS][4], *wlnames[FAKEBENCH_MAX_WLS];
	struct bench_workload wl[FAKEBENCH_MAX_WLS];
	struct bench_task task;
	char wlspec[1024], colds[1024], armspec[1024];
	const char *evs[2 * FAKEBENCH_MAX_EVENTS];
	int evsig[2 * FAKEBENCH_MAX_EVENTS];
};

static inline int fakebench_write_state(struct fakebench_state *s, const char *out, int n,
                                        char *const *kv, const struct fakebench_hooks *h, char *err,
                                        size_t errlen)
{
	struct fakebench_fake *f = &s->f;
	struct bench_arm *arms = s->arms;
	char **names = s->names, **wlnames = s->wlnames;
	struct bench_workload *wl = s->wl;
	const char *unsettled = NULL, *sum = NULL, *crash = NULL, *primary = NULL;
	struct bench_result res;
	volatile sig_atomic_t stop = 0;
	size_t nevs = 0;
	unsigned long rounds = 8, warmup = 1, seed = 1;
	double base = 1e8, cpu = 0.9;
	int has_task = 0;
	enum rf_time_policy time = RF_POLICY_WALL;

	*f = (struct fakebench_fake){.spread = 0.05,
	                             .warmcold = 1,
	                             .unsettled = -1,
	                             .sum = -1,
	                             .crash = -1,
	                             .replay = -1,
	                             .runnable = 1,
	                             .load = 0.5,
	                             .reps = 1,
	                             .h = h};
	wl[0] = (struct bench_workload){.name = "command"};
	s->task = (struct bench_task){.shard = -1, .lock_fd = -1};
	snprintf(s->wlspec, sizeof s->wlspec, "%s", "parquet_load,pipeline");
	snprintf(s->armspec, sizeof s->armspec, "%s", "system=1");
	for (int i = 0; i < n; i++) {
		const char *a = kv[i], *v = strchr(a, '=');
		char *end;
		if (!v)
			return fakebench_usage(err, errlen, "not KEY=VALUE", a);
		v++;
		errno = 0;
		if (!strncmp(a, "arms=", 5) && strlen(v) < sizeof s->armspec)
			snprintf(s->armspec, sizeof s->armspec, "%s", v);
		else if (!strncmp(a, "rounds=", 7) && (rounds = strtoul(v, &end, 10)) > 0 && !*end)
			;
		else if (!strncmp(a, "warmup=", 7) && ((warmup = strtoul(v, &end, 10)), !*end) && *v)
			;
		else if (!strncmp(a, "seed=", 5) && ((seed = strtoul(v, &end, 10)), !*end) && *v)
			;
		else if (!strncmp(a, "base=", 5) && (base = strtod(v, &end)) >= 1000 && !*end)
			;
		else if (!strncmp(a, "cpu=", 4) && (cpu = strtod(v, &end)) >= 0 && cpu <= 64 && !*end)
			;
		else if (!strcmp(a, "mode=drivers") || !strcmp(a, "mode=commands"))
			f->drivers = a[5] == 'd';
		else if (!strcmp(a, "formula=cycle"))
			f->cycle = 1;
		else if (!strncmp(a, "wls=", 4) && *v && strlen(v) < sizeof s->wlspec)
			snprintf(s->wlspec, sizeof s->wlspec, "%s", v);
		else if (!strncmp(a, "colds=", 6) && strlen(v) < sizeof s->colds)
			snprintf(s->colds, sizeof s->colds, "%s", v);
		else if (!strncmp(a, "reps=", 5) && (f->reps = (unsigned)strtoul(v, &end, 10)) >= 1 &&
		         f->reps <= 1000 && !*end)
			;
		else if (!strncmp(a, "spread=", 7) && (f->spread = strtod(v, &end)) >= 0 && !*end && *v)
			;
		else if (!strncmp(a, "warmcold=", 9) && (f->warmcold = strtod(v, &end)) > 0 && !*end)
			;
		else if (!strncmp(a, "phase=", 6) && ((f->phase = strtol(v, &end, 10)), !*end) && *v &&
		         f->phase >= 0 && f->phase < 1000000)
			;
		else if (!strncmp(a, "runnable=", 9) &&
		         ((f->runnable = (unsigned)strtoul(v, &end, 10)), !*end) && *v)
			;
		else if (!strncmp(a, "replay=", 7) && (f->replay = strtoll(v, &end, 10)) > 0 && !*end)
			;
		else if (!strcmp(a, "time=wall") || !strcmp(a, "time=cpu") ||
		         !strcmp(a, "time=auto"))
			time = a[5] == 'w'   ? RF_POLICY_WALL
			       : a[5] == 'c' ? RF_POLICY_CPU
			                     : RF_POLICY_AUTO;
		else if (!strncmp(a, "load=", 5) && (f->load = strtod(v, &end)) >= 0 && !*end && *v)
			;
		else if (!strncmp(a, "boot=", 5) && *v && strlen(v) < sizeof s->task.boot_id)
			snprintf(s->task.boot_id, sizeof s->task.boot_id, "%s", v);
		else if (!strncmp(a, "id=", 3) && *v)
			f->id = v;
		else if (!strncmp(a, "unsettled=", 10))
			unsettled = v;
		else if (!strncmp(a, "sum=", 4))
			sum = v;
		else if (!strncmp(a, "crash=", 6))
			crash = v;
		else if (!strncmp(a, "primary=", 8) && *v)
			primary = v;
		else if (!strncmp(a, "label=", 6) && *v && strlen(v) <= BENCH_TASK_LABEL_MAX) {
			snprintf(s->task.label, sizeof s->task.label, "%s", v);
			s->task.label_from = "--label";
			has_task = 1;
		} else if ((!strncmp(a, "fail=", 5) || !strncmp(a, "signal=", 7)) &&
		           nevs < 2 * FAKEBENCH_MAX_EVENTS) {
			s->evsig[nevs] = a[0] == 's' ? SIGSEGV : 0;
			s->evs[nevs++] = v;
		} else
			return fakebench_usage(err, errlen, "bad or unknown setting", a);
		if (errno)
			return fakebench_usage(err, errlen, "bad number", a);
	}
	f->names = names;
	for (char *save = NULL, *tok = strtok_r(s->armspec, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		if (!eq || eq == tok || f->narms == FAKEBENCH_MAX_ARMS)
			return fakebench_usage(err, errlen, "bad arms (NAME=F[/A],..., at most 8)",
			                       tok);
		*eq = '\0';
		double fac = strtod(eq + 1, &end), amp = 0.004;
		if (*end == '/')
			amp = strtod(end + 1, &end);
		if (*end || !(fac > 0) || fac > 1e6 || !(amp >= 0) || amp >= 1)
			return fakebench_usage(err, errlen, "bad arm time (F > 0, 0 <= A < 1)",
			                       eq + 1);
		if (fakebench_arm_index(f, tok, strlen(tok)) >= 0)
			return fakebench_usage(err, errlen, "an arm named twice", tok);
		names[f->narms] = tok;
		f->base_ns[f->narms] = (int64_t)(base * fac);
		f->factor[f->narms] = fac;
		f->cold[f->narms] = 1;
		f->amp[f->narms] = amp;
		snprintf(s->cmds[f->narms], sizeof s->cmds[f->narms], "%zu", f->narms);
		s->drv[f->narms] = (struct arm_driver_data){.path = s->cmds[f->narms]};
		s->sh[f->narms] = (struct arm_shell_data){.command = s->cmds[f->narms]};
		arms[f->narms] = f->drivers ? (struct bench_arm){.kind = &arm_kind_driver,
		                                                 .name = tok,
		                                                 .data = &s->drv[f->narms]}
		                            : (struct bench_arm){.kind = &arm_kind_command,
		                                                 .name = tok,
		                                                 .data = &s->sh[f->narms]};
		f->narms++;
	}
	f->nwl = 1;
	if (f->drivers) {
		f->nwl = 0;
		for (char *save = NULL, *tok = strtok_r(s->wlspec, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (f->nwl == FAKEBENCH_MAX_WLS ||
			    strspn(tok, "abcdefghijklmnopqrstuvwxyz_") != strlen(tok))
				return fakebench_usage(
				    err, errlen, "bad wls (NAME,..., [a-z_], at most 8)", tok);
			wlnames[f->nwl] = tok;
			wl[f->nwl++] = (struct bench_workload){.name = tok};
		}
		if (!f->nwl)
			return fakebench_usage(err, errlen, "bad wls (NAME,..., [a-z_], at most 8)",
			                       s->wlspec);
	}
	f->wls = wlnames;
	for (char *save = NULL, *tok = strtok_r(s->colds, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		int i = eq ? fakebench_arm_index(f, tok, (size_t)(eq - tok)) : -1;
		if (i < 0 || !((f->cold[i] = strtod(eq + 1, &end)) > 0) || *end)
			return fakebench_usage(err, errlen,
			                       "bad colds (ARM=F,..., known arms, F > 0)", tok);
	}
	if ((unsettled &&
	     (f->unsettled = fakebench_arm_index(f, unsettled, strlen(unsettled))) < 0) ||
	    (sum && (f->sum = fakebench_arm_index(f, sum, strlen(sum))) < 0))
		return fakebench_usage(err, errlen, "not an arm",
		                       unsettled && f->unsettled < 0 ? unsettled : sum);
	if (crash) {
		const char *c = strchr(crash, ':');
		char *end;
		if (!c || (f->crash = fakebench_arm_index(f, crash, (size_t)(c - crash))) < 0 ||
		    (f->crash_m = strtol(c + 1, &end, 10)) < -(long)warmup || *end || end == c + 1)
			return fakebench_usage(
			    err, errlen, "bad crash (ARM:M, a known arm, M >= -warmup)", crash);
	}
	f->base = base;
	f->warmup = (unsigned)warmup;
	for (size_t i = 0; i < nevs; i++)
		if (fakebench_parse_event(f, s->evs[i], s->evsig[i]) < 0)
			return fakebench_usage(
			    err, errlen, "bad event (ARM:RUN[:CODE], a known arm)", s->evs[i]);
	f->cpu = cpu;
	f->seed = seed;

	struct bench_runner rn = {.ctx = f,
	                          .run = fakebench_run,
	                          .now_ns = fakebench_now,
	                          .telemetry = fakebench_telemetry,
	                          .machine = fakebench_machine,
	                          .facts = h && h->facts ? fakebench_facts : NULL};
	char *out_paths[] = {(char *)out};
	char *cargv[] = {"bench"};
	/* as bench names it: the platform's allocator when a driver arm runs it */
	int sys = f->drivers ? fakebench_arm_index(f, "system", 6) : -1;
	struct bench_config c = {.arms = arms,
	                         .baseline = sys >= 0 ? names[sys] : NULL,
	                         .narms = f->narms,
	                         .wl = wl,
	                         .nwl = f->nwl,
	                         .scale = "small",
	                         .seed = 42,
	                         .reps = f->drivers ? f->reps : 0,
	                         .rounds = (unsigned)rounds,
	                         .warmup = (unsigned)warmup,
	                         .min_rounds = h && h->alloc ? 1 : (unsigned)rounds,
	                         .equivalence = NAN,
	                         .timeout_s = 3600,
	                         .grace_s = 1,
	                         .shuffle_seed = seed,
	                         .out_paths = out_paths,
	                         .nout = 1,
	                         .argv = cargv,
	                         .argc = 1,
	                         .runner = &rn,
	                         .primary = primary,
	                         .time = time,
	                         .alloc = h ? h->alloc : NULL,
	                         .task = has_task ? &s->task : NULL};
	return bench_run(&c, &stop, NULL, &res, err, errlen) != ST_OK;
}

static inline int fakebench_write_hooks(const char *out, int n, char *const *kv,
                                        const struct fakebench_hooks *h, char *err, size_t errlen)
{
	struct fakebench_state *s = calloc(1, sizeof *s);
	int rc;

	if (!s)
		return snprintf(err, errlen, "out of memory"), 1;
	rc = fakebench_write_state(s, out, n, kv, h, err, errlen);
	free(s);
	return rc;
}

static inline int fakebench_write(const char *out, int n, char *const *kv, char *err, size_t errlen)
{
	return fakebench_write_hooks(out, n, kv, NULL, err, errlen);
}

#endif

