/* mkfleet.c - synthetic fleets with known per-machine effects, for the fleet part of `make
 * validate` (scripts/validate.sh, docs/methodology.md "A fleet of machines"). Not used by allocab.
 *
 * Usage: mkfleet DIR SEED K ROUNDS MU TAU SHIFT SIGMA NOISY [SLOPE]
 * With SLOPE, every machine also gets its facts (docs/results-format.md, "allocab-bench/1"): a minor fault
 * costs f_i us, uniform in 1..20, and its CPU vendor alternates (AuthenticAMD for odd i,
 * GenuineIntel for even i, with no effect), and its true effect gains SLOPE x f_i.
 * Writes DIR/m1.json .. DIR/mK.json, one bench file per machine (commands mode, arms base and
 * cand, label mI), each written by the bench engine and the production writer with a fake runner
 * and a fake clock (as tests/tools/mkbench.c): machine i is this machine with " mI" after its CPU
 * model, its runs' CPU time their wall time. Machine i has the true effect theta_i = MU + TAU z_i (z_i standard
 * normal), the last one MU + SHIFT instead when SHIFT is not 0 (the odd machine). Each of its
 * ROUNDS rounds times base at T exp(s_r) (s_r: the round's shared drift, sd 0.1, which pairing
 * cancels) and cand at base x exp(theta_i + e_r): e_r is symmetric and heavy-tailed, normal with
 * sd SIGMA in 9 rounds of 10 and 3 SIGMA in the tenth; machine 1 (the noisy one) has NOISY x
 * SIGMA. Prints one line: theta_1 .. theta_K, then theta_new, the effect of one more machine of the
 * fleet (MU + TAU z), all as ln(t_cand / t_base). Deterministic for a seed. */
#include "common/prng.h"
#include "fakemachine.h"
#include "common/status.h"
#include "front/engine/engine.h"
#include "front/proc/proc.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE_NS 1e8

/* One machine's bench: its rounds' times, drawn before the bench runs. */
struct fake {
	int i;
	int64_t clock_ns;
	int64_t *t; /* round k: t[2k] base, t[2k + 1] cand */
	unsigned long runs;
	double fault_us;
};

static double num(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s) {
		fprintf(stderr, "mkfleet: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

static int fake_run(void *ctx, const struct runner_spec *spec, struct runner_result *r, char *err,
                    size_t errlen)
{
	struct fake *f = ctx;
	int arm = atoi(spec->argv[2]); /* sh -c COMMAND: the command is the arm's index */
	unsigned long k = f->runs++ / 2;

	(void)err;
	(void)errlen;
	memset(r, 0, sizeof *r);
	r->end = RUNNER_EXITED;
	r->pid = 1000 + (long)f->runs;
	r->wall_ns = f->t[2 * k + (unsigned long)arm];
	r->user_ns = r->wall_ns;
	r->max_rss_kib = 4096;
	f->clock_ns += r->wall_ns;
	return 0;
}

static int64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->clock_ns;
}

static void fake_telemetry(void *ctx, struct telemetry_sample *t)
{
	(void)ctx;
	*t = (struct telemetry_sample){
	    .have_steal = 1, .have_load = 1, .have_runnable = 1, .loadavg_1m = 0.5, .runnable = 1};
}

/* Machine i: " mI" after this machine's CPU model. */
static cJSON *fake_machine(void *ctx)
{
	char suffix[16];

	snprintf(suffix, sizeof suffix, "m%d", ((const struct fake *)ctx)->i);
	return fake_machine_as(suffix);
}

/* A minor fault costs fault_us on machine i, its CPU vendor alternates. */
static void fake_facts(void *ctx, const char *when, struct facts *x)
{
	const struct fake *f = ctx;

	(void)when;
	*x = (struct facts){.fault_median = 1000 * f->fault_us,
	                    .fault_min = 900 * f->fault_us,
	                    .fault_max = 1100 * f->fault_us,
	                    .trials = 10};
	snprintf(x->hypervisor, sizeof x->hypervisor, "KVM");
	snprintf(x->cpu_vendor, sizeof x->cpu_vendor, "%s", f->i % 2 ? "AuthenticAMD" : "GenuineIntel");
}

static int write_machine(const char *dir, int i, struct prng *r, int rounds, double theta,
                         double sigma, double fault_us, char *err, size_t errlen)
{
	static char cmds[2][2] = {"0", "1"};
	struct bench_arm arms[2] = {{.kind = &arm_kind_command, .name = "base", .command = cmds[0]},
	                            {.kind = &arm_kind_command, .name = "cand", .command = cmds[1]}};
	struct bench_workload wl = {.name = "command"};
	static struct bench_task task = {.shard = -1, .lock_fd = -1, .label_from = "--label"};
	struct fake f = {.i = i, .fault_us = fault_us};
	struct bench_runner rn = {.ctx = &f,
	                          .run = fake_run,
	                          .now_ns = fake_now,
	                          .telemetry = fake_telemetry,
	                          .machine = fake_machine,
	                          .facts = fault_us > 0 ? fake_facts : NULL};
	char path[4096], *out_paths[] = {path}, *cargv[] = {"bench"};
	struct bench_result res;
	volatile sig_atomic_t stop = 0;
	enum status st;

	if (!(f.t = malloc(2 * (size_t)rounds * sizeof *f.t)))
		return snprintf(err, errlen, "out of memory"), -1;
	for (int k = 0; k < rounds; k++) {
		double s = 0.1 * prng_normal(r), e = sigma * prng_normal(r);
		double tb;
		if (prng_double(r) < 0.1)
			e *= 3;
		tb = round(BASE_NS * exp(s));
		f.t[2 * k] = (int64_t)tb;
		f.t[2 * k + 1] = (int64_t)round(tb * exp(theta + e));
	}
	snprintf(path, sizeof path, "%s/m%d.json", dir, i);
	snprintf(task.label, sizeof task.label, "m%d", i);
	struct bench_config c = {.arms = arms,
	                         .narms = 2,
	                         .wl = &wl,
	                         .nwl = 1,
	                         .rounds = (unsigned)rounds,
	                         .min_rounds = (unsigned)rounds,
	                         .equivalence = NAN,
	                         .timeout_s = 3600,
	                         .grace_s = 1,
	                         .shuffle_seed = (uint64_t)i,
	                         .out_paths = out_paths,
	                         .nout = 1,
	                         .argv = cargv,
	                         .argc = 1,
	                         .runner = &rn,
	                         .task = &task};
	st = bench_run(&c, &stop, NULL, &res, err, errlen);
	free(f.t);
	return st == ST_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct prng r;
	int k, rounds;
	double mu, tau, shift, sigma, noisy;
	char err[512];

	if (argc != 10 && argc != 11) {
		fprintf(stderr, "usage: mkfleet DIR SEED K ROUNDS MU TAU SHIFT SIGMA NOISY [SLOPE]\n");
		return 2;
	}
	prng_seed(&r, (uint64_t)num(argv[2]));
	k = (int)num(argv[3]);
	rounds = (int)num(argv[4]);
	mu = num(argv[5]);
	tau = num(argv[6]);
	shift = num(argv[7]);
	sigma = num(argv[8]);
	noisy = num(argv[9]);
	if (k < 2 || k > 1000 || rounds < 2 || rounds > 100000) {
		fprintf(stderr, "mkfleet: want 2 <= K <= 1000 and 2 <= ROUNDS <= 100000\n");
		return 2;
	}
	for (int i = 1; i <= k; i++) {
		double theta = shift != 0 && i == k ? mu + shift : mu + tau * prng_normal(&r);
		double fault = argc == 11 ? 1 + 19 * prng_double(&r) : 0;
		theta += argc == 11 ? num(argv[10]) * fault : 0;
		if (write_machine(argv[1], i, &r, rounds, theta, i == 1 ? sigma * noisy : sigma, fault,
		                  err, sizeof err) != 0) {
			fprintf(stderr, "mkfleet: %s: machine %d: %s\n", argv[1], i, err);
			return 1;
		}
		printf("%.17g ", theta);
	}
	printf("%.17g\n", mu + tau * prng_normal(&r));
	return 0;
}
