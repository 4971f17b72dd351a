/* mkbench.c - a results file written by the production writer: the real bench engine
 * (front/engine/engine.h, bench_run) with a fake process runner and a fake clock (as
 * tests/unit/engine/test_benchrun.c), so that fixtures follow the file format whatever it becomes.
 * Commands mode: each arm is a command whose runs take its time; nothing is started.
 *
 * Usage: mkbench OUT [KEY=VALUE...]
 *   arms=NAME=F[/A],...  arm NAME's run takes F x base ns, times 1 + A x a deterministic wobble in
 *                        [-1, 1] (A default 0.004); the first arm is the baseline (default
 *                        "system=1")
 *   rounds=N (8)  warmup=N (1)  base=NS (100000000)  seed=N (1, the shuffle and the wobble)
 *   cpu=R         each run's user CPU time is R x its wall time (default 0.9; sys 0.05 x wall)
 *   fail=ARM:RUN[:CODE]  the RUN-th run (from 1, warm-up included) of ARM exits CODE (default 1)
 *   signal=ARM:RUN       that run dies of SIGSEGV
 *   label=NAME           the bench is a task of a fleet, its machine named NAME (--label)
 * Exits 0 when the engine wrote OUT, 2 on a bad spec, 1 when the engine failed, with one line on
 * stderr. */
#include "common/status.h"
#include "front/engine/engine.h"
#include "front/proc/proc.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARMS 8
#define MAX_EVENTS 16

struct event {
	int arm;
	unsigned run;
	int code; /* exit code; 0 with sig */
	int sig;
};

struct fake {
	int64_t clock_ns;
	int64_t base_ns[MAX_ARMS];
	double amp[MAX_ARMS];
	unsigned runs[MAX_ARMS];
	double cpu;
	uint64_t seed;
	struct event ev[MAX_EVENTS];
	size_t nev;
	char **names;
	size_t narms;
};

/* A wobble in [-1, 1] from (seed, arm, run): splitmix64. */
static double wobble(uint64_t seed, int arm, unsigned run)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)arm * 0xbf58476d1ce4e5b9ULL + run;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ULL << 52) - 1.0;
}

static int fake_run(void *ctx, const struct runner_spec *spec, struct runner_result *r, char *err,
                    size_t errlen)
{
	struct fake *f = ctx;
	const char *cmd = spec->argv[2]; /* sh -c COMMAND: the command is the arm's index */
	int arm = atoi(cmd);
	unsigned run = ++f->runs[arm];

	(void)err;
	(void)errlen;
	memset(r, 0, sizeof *r);
	r->end = RUNNER_EXITED;
	r->pid = 1000 + (long)run;
	r->wall_ns = (int64_t)((double)f->base_ns[arm] * (1.0 + f->amp[arm] * wobble(f->seed, arm, run)));
	r->user_ns = (int64_t)((double)r->wall_ns * f->cpu);
	r->sys_ns = r->wall_ns / 20;
	r->max_rss_kib = 4096;
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
	f->clock_ns += r->wall_ns;
	return 0;
}

static int64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->clock_ns;
}

static int usage(const char *msg, const char *arg)
{
	fprintf(stderr, "mkbench: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	return 2;
}

static int arm_index(const struct fake *f, const char *name, size_t n)
{
	for (size_t i = 0; i < f->narms; i++)
		if (strlen(f->names[i]) == n && strncmp(f->names[i], name, n) == 0)
			return (int)i;
	return -1;
}

/* ARM:RUN[:CODE] into f->ev. */
static int parse_event(struct fake *f, const char *v, int sig)
{
	const char *c = strchr(v, ':');
	char *end;
	struct event e = {.sig = sig, .code = sig ? 0 : 1};

	if (!c || f->nev == MAX_EVENTS || (e.arm = arm_index(f, v, (size_t)(c - v))) < 0)
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

int main(int argc, char **argv)
{
	static struct fake f;
	static struct bench_arm arms[MAX_ARMS];
	static char *names[MAX_ARMS], cmds[MAX_ARMS][4];
	struct bench_workload wl = {.name = "command"};
	struct bench_result res;
	volatile sig_atomic_t stop = 0;
	char armspec[1024] = "system=1", err[512];
	const char *evs[2 * MAX_EVENTS];
	int evsig[2 * MAX_EVENTS];
	size_t nevs = 0;
	unsigned long rounds = 8, warmup = 1, seed = 1;
	double base = 1e8, cpu = 0.9;
	static struct bench_task task = {.shard = -1, .lock_fd = -1};
	int has_task = 0;

	if (argc < 2 || argv[1][0] == '\0' || strchr(argv[1], '='))
		return usage("usage: mkbench OUT [arms=NAME=F[/A],...] [rounds=N] [warmup=N] [base=NS] "
		             "[seed=N] [cpu=R] [fail=ARM:RUN[:CODE]] [signal=ARM:RUN] [label=NAME]",
		             NULL);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = strchr(a, '=');
		char *end;
		if (!v)
			return usage("not KEY=VALUE", a);
		v++;
		errno = 0;
		if (!strncmp(a, "arms=", 5) && strlen(v) < sizeof armspec)
			snprintf(armspec, sizeof armspec, "%s", v);
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
		else if (!strncmp(a, "label=", 6) && *v && strlen(v) <= BENCH_TASK_LABEL_MAX) {
			snprintf(task.label, sizeof task.label, "%s", v);
			task.label_from = "--label";
			has_task = 1;
		} else if ((!strncmp(a, "fail=", 5) || !strncmp(a, "signal=", 7)) && nevs < 2 * MAX_EVENTS) {
			evsig[nevs] = a[0] == 's' ? SIGSEGV : 0;
			evs[nevs++] = v;
		} else
			return usage("bad or unknown setting", a);
		if (errno)
			return usage("bad number", a);
	}
	f.names = names;
	for (char *save = NULL, *tok = strtok_r(armspec, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		if (!eq || eq == tok || f.narms == MAX_ARMS)
			return usage("bad arms (NAME=F[/A],..., at most 8)", tok);
		*eq = '\0';
		double fac = strtod(eq + 1, &end), amp = 0.004;
		if (*end == '/')
			amp = strtod(end + 1, &end);
		if (*end || !(fac > 0) || fac > 1e6 || !(amp >= 0) || amp >= 1)
			return usage("bad arm time (F > 0, 0 <= A < 1)", eq + 1);
		if (arm_index(&f, tok, strlen(tok)) >= 0)
			return usage("an arm named twice", tok);
		names[f.narms] = tok;
		f.base_ns[f.narms] = (int64_t)(base * fac);
		f.amp[f.narms] = amp;
		snprintf(cmds[f.narms], sizeof cmds[f.narms], "%zu", f.narms);
		arms[f.narms] = (struct bench_arm){.kind = &arm_kind_command, .name = tok, .command = cmds[f.narms]};
		f.narms++;
	}
	for (size_t i = 0; i < nevs; i++)
		if (parse_event(&f, evs[i], evsig[i]) < 0)
			return usage("bad event (ARM:RUN[:CODE], a known arm)", evs[i]);
	f.cpu = cpu;
	f.seed = seed;

	struct bench_runner rn = {.ctx = &f, .run = fake_run, .now_ns = fake_now};
	char *out_paths[] = {argv[1]};
	char *cargv[] = {"bench"};
	struct bench_config c = {.arms = arms,
	                         .narms = f.narms,
	                         .wl = &wl,
	                         .nwl = 1,
	                         .rounds = (unsigned)rounds,
	                         .warmup = (unsigned)warmup,
	                         .min_rounds = (unsigned)rounds,
	                         .equivalence = NAN,
	                         .timeout_s = 3600,
	                         .grace_s = 1,
	                         .shuffle_seed = seed,
	                         .out_paths = out_paths,
	                         .nout = 1,
	                         .argv = cargv,
	                         .argc = 1,
	                         .runner = &rn,
	                         .task = has_task ? &task : NULL};
	if (bench_run(&c, &stop, NULL, &res, err, sizeof err) != ST_OK) {
		fprintf(stderr, "mkbench: %s\n", err);
		return 1;
	}
	return 0;
}
