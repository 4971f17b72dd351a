/* work.c - the first build of the program a resumed bench must not mix with its rebuild
 * (tests/e2e_resume_rules.sh): N mallocs and frees. */
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	volatile char *p;

	for (long i = 0; i < n; i++) {
		p = malloc(64 + (size_t)(i % 512));
		p[0] = 1;
		free((void *)p);
	}
	return 0;
}
