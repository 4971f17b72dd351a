/* sesim.c - which interval a fleet should take a machine's standard error from (docs/fleet.md,
 * "Which standard error"), simulated: n paired log ratios per machine (normal, or the heavy-tailed
 * errors of tests/tools/mkfleet.c: sd s in 9 rounds of 10, 3 s in the tenth), the Hodges-Lehmann
 * estimate, and the standard error stats_interval_se implies from its signed-rank interval at 95%
 * and at compare's family level 1 - 0.05/m, against the estimate's own standard deviation over
 * the trials. Prints a markdown table: the relative bias of each standard error (mean over the
 * trials of se / sd - 1). Not used by allocab; `make se-sim` runs it.
 *
 * Usage: sesim TRIALS SEED */
#include "common/prng.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double draw(struct prng *r, int heavy)
{
	double e = prng_normal(r);

	return heavy && prng_double(r) < 0.1 ? 3 * e : e;
}

int main(int argc, char **argv)
{
	static const size_t ns[] = {6, 8, 12, 20, 40};
	static const double ms[] = {1, 4, 10, 40};
	long trials = argc > 1 ? atol(argv[1]) : 20000;
	struct prng r;

	if (argc != 3 || trials < 100 || trials > 10000000) {
		fprintf(stderr, "usage: sesim TRIALS SEED (100 <= TRIALS <= 10^7)\n");
		return 2;
	}
	prng_seed(&r, (uint64_t)atoll(argv[2]));
	printf("| errors | n | m | sd of HL | bias of se at 95%% | bias of se at 1 - 0.05/m |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int heavy = 0; heavy < 2; heavy++)
		for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
			for (size_t b = 0; b < sizeof ms / sizeof ms[0]; b++) {
				size_t n = ns[a];
				double m = ms[b], x[64], s1 = 0, s2 = 0, se95 = 0, sefam = 0;
				for (long t = 0; t < trials; t++) {
					struct stats_interval i95, ifam;
					for (size_t i = 0; i < n; i++)
						x[i] = draw(&r, heavy);
					if (stats_hl_interval(x, n, 0.95, &i95) != 0 ||
					    stats_hl_interval(x, n, 1 - 0.05 / m, &ifam) != 0)
						return 1;
					s1 += i95.est;
					s2 += i95.est * i95.est;
					se95 += stats_interval_se(i95.lo, i95.hi, i95.level);
					sefam += stats_interval_se(ifam.lo, ifam.hi, ifam.level);
				}
				double mean = s1 / (double)trials;
				double sd = sqrt(s2 / (double)trials - mean * mean);
				printf("| %s | %zu | %g | %.4f | %+.1f%% | %+.1f%% |\n",
				       heavy ? "heavy-tailed" : "normal", n, m, sd,
				       100 * (se95 / (double)trials / sd - 1),
				       100 * (sefam / (double)trials / sd - 1));
			}
	return 0;
}
