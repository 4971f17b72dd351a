/* check.h - the unit-test protocol of allocab: every check prints one line, "ok - name" or
 * "not ok - name: detail", and a check that cannot run here "SKIP - name: reason" (never "ok");
 * tests/run.sh counts them. A test program exits 1 if any check failed. */
#ifndef ALLOCAB_CHECK_H
#define ALLOCAB_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			printf("ok - ");                                                           \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		} else {                                                                           \
			check_failures++;                                                          \
			printf("not ok - ");                                                       \
			printf(__VA_ARGS__);                                                       \
			printf(" (%s:%d: %s)\n", __FILE__, __LINE__, #cond);                       \
		}                                                                                  \
	} while (0)

#define CHECK_NEAR(got, want, tol, name)                                                           \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		CHECK(fabs(g_ - w_) <= (tol), "%s: got %.10g want %.10g", name, g_, w_);           \
	} while (0)

#define SKIP(name, reason) printf("SKIP - %s: %s\n", name, reason)

#define CHECK_DONE() (fflush(stdout), check_failures ? 1 : 0)

#endif
