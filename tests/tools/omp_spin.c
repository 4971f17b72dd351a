/* omp_spin.c - an OpenMP job shaped like a gradient-boosting round: a short parallel loop, then
 * serial work while the pool's threads wait, ROUNDS times (docs/programs.md, "Which time": what
 * spinning threads do to CPU time, with and without OMP_WAIT_POLICY=passive). Not used by
 * allocab or make test; built on demand with -fopenmp (`make build/tests/omp_spin`).
 *
 * Usage: omp_spin [ROUNDS]   (default 600; prints a checksum) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 600;
	size_t n = 200000;
	double *x = malloc(n * sizeof *x), s = 0, serial = 0;

	if (!x || rounds < 1) {
		fprintf(stderr, "usage: omp_spin [ROUNDS >= 1]\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++)
		x[i] = (double)i * 1e-6;
	for (int r = 0; r < rounds; r++) {
#pragma omp parallel for reduction(+ : s)
		for (size_t i = 0; i < n; i++)
			s += x[i] * x[i] + r;
		for (size_t i = 0; i < n / 2; i++)
			serial += x[i] * 0.5;
	}
	printf("%g\n", s + serial);
	free(x);
	return 0;
}
