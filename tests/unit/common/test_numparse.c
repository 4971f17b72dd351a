/* test_numparse.c - the strict numbers of the command lines: limits, overflow, the errno that
 * tells syntax from range, and everything a loose strtol/strtod would let through. */
#include "check.h"
#include "common/numparse.h"

#include <errno.h>
#include <float.h>

static void test_integers(void)
{
	int64_t v;
	uint64_t u;

	CHECK(num_parse_i64("9223372036854775807", 0, &v) == 0 && v == INT64_MAX, "INT64_MAX");
	CHECK(num_parse_i64("-9223372036854775808", 0, &v) == 0 && v == INT64_MIN, "INT64_MIN");
	errno = 0;
	CHECK(num_parse_i64("9223372036854775808", 0, &v) == -1 && errno == ERANGE,
	      "INT64_MAX + 1 is ERANGE");
	errno = 0;
	CHECK(num_parse_i64("8589934592G", 1, &v) == -1 && errno == ERANGE,
	      "suffix overflow is ERANGE");
	errno = 0;
	CHECK(num_parse_i64(" 5", 0, &v) == -1 && errno == EINVAL, "leading space is EINVAL");
	CHECK(num_parse_i64("5 ", 0, &v) == -1 && errno == EINVAL, "trailing space is EINVAL");
	CHECK(num_parse_i64("-0", 0, &v) == 0 && v == 0, "-0 is 0");
	CHECK(num_parse_u64("18446744073709551615", &u) == 0 && u == UINT64_MAX, "UINT64_MAX");
	errno = 0;
	CHECK(num_parse_u64("18446744073709551616", &u) == -1 && errno == ERANGE,
	      "UINT64_MAX + 1 is ERANGE");
	errno = 0;
	CHECK(num_parse_u64("18446744073709551616x", &u) == -1 && errno == EINVAL,
	      "overflow with trailing junk is EINVAL");
}

static void test_integer_syntax(void)
{
	static const char *const bad[] = {"", "+1", "-1", " 1", "1 ", "0x10", "1e3", "1k", "1.0"};
	int64_t v;
	uint64_t u = 7;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		errno = 0;
		CHECK(num_parse_u64(bad[i], &u) == -1 && errno == EINVAL && u == 7,
		      "u64 refuses '%s' with EINVAL, *out untouched", bad[i]);
	}
	CHECK(num_parse_u64("007", &u) == 0 && u == 7, "leading zeros are decimal, not octal");
	CHECK(num_parse_i64("64k", 1, &v) == 0 && v == 65536, "64k is 65536 bytes");
	CHECK(num_parse_i64("3M", 1, &v) == 0 && v == 3 << 20, "3M is 3 MiB");
	CHECK(num_parse_i64("-2G", 1, &v) == 0 && v == -(2LL << 30), "-2G");
	errno = 0;
	CHECK(num_parse_i64("64k", 0, &v) == -1 && errno == EINVAL, "suffix only for byte counts");
	errno = 0;
	CHECK(num_parse_i64("1kB", 1, &v) == -1 && errno == EINVAL, "one suffix letter only");
	errno = 0;
	CHECK(num_parse_i64("--1", 0, &v) == -1 && errno == EINVAL, "one '-' only");
}

static void test_doubles(void)
{
	static const char *const bad[] = {"",    "-1", "+1",    " 1",     "1 ",   ".",   "inf",
	                                  "nan", "1x", "1%%",   "%",      "1e",   "1e+", "1.5s",
	                                  "5 %", "e5", "1e400", "0x1p-3", "0X10", "0x5%"};
	double d = 7;

	CHECK(num_parse_double("2.5", 0, &d) == 0 && d == 2.5, "2.5");
	CHECK(num_parse_double(".5", 0, &d) == 0 && d == 0.5, ".5");
	CHECK(num_parse_double("1e3", 0, &d) == 0 && d == 1000, "1e3");
	CHECK(num_parse_double("5", 1, &d) == 0 && d == 5, "5 with '%%' allowed: 0");
	CHECK(num_parse_double("2.5%", 1, &d) == 1 && d == 2.5, "2.5%%: 1");
	d = 7;
	errno = 0;
	CHECK(num_parse_double("2.5%", 0, &d) == -1 && errno == EINVAL && d == 7,
	      "'%%' refused unless allowed");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		d = 7;
		CHECK(num_parse_double(bad[i], 1, &d) == -1 && d == 7, "refuses '%s'", bad[i]);
	}
	errno = 0;
	CHECK(num_parse_double("1e400", 0, &d) == -1 && errno == ERANGE, "1e400 is ERANGE");
	errno = 0;
	CHECK(num_parse_double("1e-400", 0, &d) == -1 && errno == ERANGE,
	      "underflow is ERANGE, not 0");
	CHECK(num_parse_double("1e308", 0, &d) == 0 && d <= DBL_MAX, "1e308 is a double");
}

int main(void)
{
	test_integers();
	test_integer_syntax();
	test_doubles();
	return CHECK_DONE();
}
