/* logratio.c - log ratios decided on integer times (stats.h). */
#include "front/stats/stats.h"

#include <math.h>
#include <stdint.h>

#define LR_EXACT 4503599627370496.0 /* 2^52: twice a time below it is still exact */

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Whether 2x is a whole number that a double and a uint64_t both hold exactly. */
static int half_units(double x)
{
	return x > 0 && x < LR_EXACT && 2 * x == floor(2 * x);
}

double stats_log_ratio(double num, double den)
{
	uint64_t a, b, g;

	if (!half_units(num) || !half_units(den))
		return log(num / den);
	if (num == den)
		return 0;
	a = (uint64_t)(2 * num);
	b = (uint64_t)(2 * den);
	g = gcd(a, b);
	return log((double)(a / g)) - log((double)(b / g));
}
