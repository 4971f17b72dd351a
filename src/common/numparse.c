/* numparse.c - strict decimal numbers for the option parsers (numparse.h). */
#include "common/numparse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits at *s into *out; *s moves past them, even past an overflowing run. */
static int parse_digits(const char **s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (!is_digit(*p)) {
		errno = EINVAL;
		return -1;
	}
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) {
			while (is_digit(p[1]))
				p++;
			errno = ERANGE;
			*s = p + 1;
			return -1;
		}
		v = v * 10 + d;
	}
	*s = p;
	*out = v;
	return 0;
}

int num_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v;

	if (parse_digits(&s, &v) != 0) {
		if (errno == ERANGE && *s != '\0')
			errno = EINVAL;
		return -1;
	}
	if (*s != '\0') {
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return 0;
}

static int suffix_shift(const char *s)
{
	if (s[0] == '\0')
		return 0;
	if (s[1] != '\0')
		return -1;
	switch (s[0]) {
	case 'k':
	case 'K':
		return 10;
	case 'M':
		return 20;
	case 'G':
		return 30;
	}
	return -1;
}

int num_parse_i64(const char *s, int bytes, int64_t *out)
{
	int neg = *s == '-';
	uint64_t mag = 0, limit;
	int shift, range = 0;

	s += neg;
	if (parse_digits(&s, &mag) != 0) {
		if (errno != ERANGE)
			return -1;
		range = 1;
	}
	shift = bytes ? suffix_shift(s) : (*s ? -1 : 0);
	if (shift < 0) {
		errno = EINVAL;
		return -1;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (range || mag > limit >> shift) {
		errno = ERANGE;
		return -1;
	}
	mag <<= shift;
	*out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	return 0;
}

int num_parse_double(const char *s, int pct, double *out)
{
	char *end;
	double v;

	if ((!is_digit(*s) && *s != '.') || strpbrk(s, "xX")) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtod(s, &end);
	if (errno)
		return -1;
	if (end == s || (*end && !(pct && strcmp(end, "%") == 0))) {
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return *end ? 1 : 0;
}
