/* numparse.h - the strict numbers of every command line (drivers and front end): decimal digits
 * only, no sign but where stated, no blanks, nothing after the number. Ranges are the caller's. */
#ifndef ALLOCAB_NUMPARSE_H
#define ALLOCAB_NUMPARSE_H

#include <stdint.h>

/* Unsigned decimal integer, 0 .. 2^64-1. Returns 0, or -1 with errno EINVAL for bad syntax
 * (including anything after an overflowing number) or ERANGE for overflow. */
int num_parse_u64(const char *s, uint64_t *out);

/* Decimal integer with an optional leading '-'. With bytes, one suffix k/K, M or G multiplies by
 * 2^10, 2^20, 2^30. Returns 0, or -1 with errno EINVAL (bad syntax) or ERANGE (overflow). */
int num_parse_i64(const char *s, int bytes, int64_t *out);

/* A decimal number as strtod reads it (no hexadecimal "0x" form) that starts with a digit or
 * '.', followed by nothing, or with pct by one '%'. Returns 0, 1 when the '%' was there, or -1 with
 * errno EINVAL (bad syntax) or ERANGE (out of double's range, strtod's own verdict). *out is set
 * only on success. */
int num_parse_double(const char *s, int pct, double *out);

#endif
