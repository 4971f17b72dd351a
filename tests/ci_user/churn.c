/* churn.c - the stand-in "user program" of tests/e2e_ci_user.sh: N frees and mallocs of 16 to
 * 1040 bytes among 4096 live blocks, and a checksum. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 300000, x = 88172645463325252ul;
	unsigned long sum = 0;
	unsigned char *live[4096] = {0};

	for (unsigned long i = 0; i < n; i++) {
		size_t k, size;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		k = x % 4096;
		size = 16 + (x >> 20) % 1025;
		free(live[k]);
		if (!(live[k] = malloc(size)))
			return 1;
		live[k][0] = (unsigned char)i;
		live[k][size - 1] = (unsigned char)(i >> 8);
		sum += live[k][0] + (size_t)live[k][size - 1];
	}
	for (size_t k = 0; k < 4096; k++)
		free(live[k]);
	printf("checksum %lu\n", sum);
	return 0;
}
