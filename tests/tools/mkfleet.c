/* mkfleet.c - synthetic fleets with known per-machine effects, for the fleet part of `make
 * validate` (scripts/validate.sh, docs/methodology.md "A fleet of machines"). Not used by allocab.
 *
 * Usage: mkfleet DIR SEED K ROUNDS MU TAU SHIFT SIGMA NOISY [SLOPE]
 * With SLOPE, every machine also gets its facts (docs/results-format.md, "allocab-bench/1"): a minor fault
 * costs f_i us, uniform in 1..20, and its CPU vendor alternates (AuthenticAMD for odd i,
 * GenuineIntel for even i, with no effect), and its true effect gains SLOPE x f_i.
 * Writes DIR/m1.json .. DIR/mK.json, one allocab-bench/1 document (commands mode, arms base and
 * cand, label mI) per machine. Machine i has the true effect theta_i = MU + TAU z_i (z_i standard
 * normal), the last one MU + SHIFT instead when SHIFT is not 0 (the odd machine). Each of its
 * ROUNDS rounds times base at T exp(s_r) (s_r: the round's shared drift, sd 0.1, which pairing
 * cancels) and cand at base x exp(theta_i + e_r): e_r is symmetric and heavy-tailed, normal with
 * sd SIGMA in 9 rounds of 10 and 3 SIGMA in the tenth; machine 1 (the noisy one) has NOISY x
 * SIGMA. Prints one line: theta_1 .. theta_K, then theta_new, the effect of one more machine of the
 * fleet (MU + TAU z), all as ln(t_cand / t_base). Deterministic for a seed. */
#include "common/prng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BASE_NS 1e8

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

static int write_machine(const char *dir, int i, struct prng *r, int rounds, double theta,
                         double sigma, double fault_us)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/m%d.json", dir, i);
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(f,
	        "{\"schema\":\"allocab-bench/1\",\"status\":\"complete\",\"config\":{\"mode\":"
	        "\"commands\",\"arms\":[\"base\",\"cand\"],\"workloads\":[\"command\"]},"
	        "\"machine\":{\"online_cpus\":2,\"id\":\"%016x\"},\"task\":{\"label\":\"m%d\"},",
	        i, i);
	if (fault_us > 0)
		for (int end = 0; end < 2; end++)
			fprintf(f,
			        "%s\"%s\":{\"fault_ns\":{\"median\":%.0f,\"min\":%.0f,\"max\":%.0f,"
			        "\"trials\":10},\"hypervisor\":\"KVM\",\"cpu_vendor\":\"%s\"}%s",
			        end ? "" : "\"facts\":{", end ? "end" : "start", 1000 * fault_us,
			        900 * fault_us, 1100 * fault_us, i % 2 ? "AuthenticAMD" : "GenuineIntel",
			        end ? "}," : ",");
	fprintf(f, "\"rounds\":[");
	for (int k = 0; k < rounds; k++) {
		double s = 0.1 * prng_normal(r), e = sigma * prng_normal(r);
		double tb, tc;
		if (prng_double(r) < 0.1)
			e *= 3;
		tb = round(BASE_NS * exp(s));
		tc = round(tb * exp(theta + e));
		fprintf(f,
		        "%s{\"index\":%d,\"runs\":[{\"arm\":\"base\",\"workload\":\"command\","
		        "\"status\":\"ok\",\"process\":{\"wall_ns\":%.0f}},{\"arm\":\"cand\","
		        "\"workload\":\"command\",\"status\":\"ok\",\"process\":{\"wall_ns\":%.0f}}]}",
		        k ? "," : "", k, tb, tc);
	}
	fprintf(f, "]}\n");
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct prng r;
	int k, rounds;
	double mu, tau, shift, sigma, noisy;

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
		if (write_machine(argv[1], i, &r, rounds, theta, i == 1 ? sigma * noisy : sigma,
		                  fault) != 0) {
			fprintf(stderr, "mkfleet: %s: cannot write machine %d\n", argv[1], i);
			return 1;
		}
		printf("%.17g ", theta);
	}
	printf("%.17g\n", mu + tau * prng_normal(&r));
	return 0;
}
