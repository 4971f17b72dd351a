/* mkfleet.c - synthetic fleets with known per-machine effects, for the fleet part of `make
 * validate` (scripts/validate.sh, docs/methodology.md "A fleet of machines"). Not used by allocab.
 *
 * Usage: mkfleet DIR SEED K ROUNDS MU TAU SHIFT SIGMA NOISY [SLOPE]
 * With SLOPE, every machine also gets its facts (docs/results-format.md, "allocab-bench/1"): a
 * minor fault costs f_i us, uniform in 1..20, and its CPU vendor alternates (AuthenticAMD for odd
 * i, GenuineIntel for even i, with no effect), and its true effect gains SLOPE x f_i. Writes
 * DIR/m1.json .. DIR/mK.json, one bench file per machine (commands mode, arms base and cand, label
 * mI), each written by the bench engine and the production writer with a fake runner and a fake
 * clock (tests/unit/fakebench.h, whose fake's runs take the times drawn here): machine i is this
 * machine with " mI" after its CPU model, its runs' CPU time their wall time. Machine i has the
 * true effect theta_i = MU + TAU z_i (z_i standard normal), the last one MU + SHIFT instead when
 * SHIFT is not 0 (the odd machine). Each of its ROUNDS rounds times base at T exp(s_r) (s_r: the
 * round's shared drift, sd 0.1, which pairing cancels) and cand at base x exp(theta_i + e_r): e_r
 * is symmetric and heavy-tailed, normal with sd SIGMA in 9 rounds of 10 and 3 SIGMA in the tenth;
 * machine 1 (the noisy one) has NOISY x SIGMA. Prints one line: theta_1 .. theta_K, then theta_new,
 * the effect of one more machine of the fleet (MU + TAU z), all as ln(t_cand / t_base).
 * Deterministic for a seed. */
#include "common/prng.h"
#include "fakebench.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE_NS 1e8

/* One machine's bench: its rounds' times, drawn before the bench runs. */
struct machine {
	int i;
	int64_t *t; /* round k: t[2k] base, t[2k + 1] cand */
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

/* Round m's time of the arm, its CPU time its wall time, no system time. */
static void machine_run(void *ctx, long m, int a, size_t w, struct runner_result *r,
                        uint64_t *steal)
{
	const struct machine *x = ctx;

	(void)w;
	(void)steal;
	r->wall_ns = x->t[2 * m + a];
	r->user_ns = r->wall_ns;
	r->sys_ns = 0;
	r->invol_ctx_switches = 0;
}

/* A minor fault costs fault_us on machine i, its CPU vendor alternates. */
static void machine_facts(void *ctx, const char *when, struct facts *f)
{
	const struct machine *x = ctx;

	(void)when;
	*f = (struct facts){.fault_median = 1000 * x->fault_us,
	                    .fault_min = 900 * x->fault_us,
	                    .fault_max = 1100 * x->fault_us,
	                    .trials = 10};
	snprintf(f->hypervisor, sizeof f->hypervisor, "KVM");
	snprintf(f->cpu_vendor, sizeof f->cpu_vendor, "%s",
	         x->i % 2 ? "AuthenticAMD" : "GenuineIntel");
}

static int write_machine(const char *dir, int i, struct prng *r, int rounds, double theta,
                         double sigma, double fault_us, char *err, size_t errlen)
{
	struct machine x = {.i = i, .fault_us = fault_us};
	struct fakebench_hooks h = {
	    .ctx = &x, .run = machine_run, .facts = fault_us > 0 ? machine_facts : NULL};
	char path[4096], kv[5][64];
	char *kvp[] = {"arms=base=1,cand=1", kv[0], "warmup=0", kv[1], kv[2], kv[3]};
	int rc;

	if (!(x.t = malloc(2 * (size_t)rounds * sizeof *x.t)))
		return snprintf(err, errlen, "out of memory"), -1;
	for (int k = 0; k < rounds; k++) {
		double s = 0.1 * prng_normal(r), e = sigma * prng_normal(r);
		double tb;
		if (prng_double(r) < 0.1)
			e *= 3;
		tb = round(BASE_NS * exp(s));
		x.t[2 * k] = (int64_t)tb;
		x.t[2 * k + 1] = (int64_t)round(tb * exp(theta + e));
	}
	snprintf(path, sizeof path, "%s/m%d.json", dir, i);
	snprintf(kv[0], sizeof kv[0], "rounds=%d", rounds);
	snprintf(kv[1], sizeof kv[1], "seed=%d", i);
	snprintf(kv[2], sizeof kv[2], "label=m%d", i);
	snprintf(kv[3], sizeof kv[3], "id=m%d", i);
	rc = fakebench_write_hooks(path, 6, kvp, &h, err, errlen);
	free(x.t);
	return rc == 0 ? 0 : -1;
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
