/* jsonload.h - the one strict way allocab reads a JSON file it did not write in this process
 * (results, calibration, claims): a regular file opened without blocking, at most a capped number
 * of bytes, text only, exactly one strict JSON value (common/jsonstrict.h) with nothing after it,
 * and numbers range-checked before any conversion. Limits and messages: docs/results-format.md,
 * "Reading files". */
#ifndef ALLOCAB_JSONLOAD_H
#define ALLOCAB_JSONLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define JL_DEFAULT_MAX_BYTES ((size_t)256 << 20)
#define JL_MAX_ENV           "ALLOCAB_MAX_INPUT"
/* Values, objects and arrays a file may hold per JL_BYTES_PER_NODE bytes of its size cap: the
 * parsed tree stays within a fixed multiple of the cap whatever the file holds. */
#define JL_BYTES_PER_NODE 8

/* The input size cap in bytes: JL_MAX_ENV (an integer with an optional k, M or G suffix, at least
 * 1k) or JL_DEFAULT_MAX_BYTES. Returns 0, or -1 with a reason in err when the variable is set but
 * malformed. */
int jl_max_bytes(size_t *out, char *err, size_t errlen);

/* Opens path for reading the way every reader must: O_NONBLOCK, then refused unless it is a
 * regular file of at most the size cap (jl_max_bytes, into *cap). Returns the descriptor with the
 * file's size in *size, or -1 with "PATH: reason" in err and errno: ENOENT (missing or empty
 * name), EFBIG (over the cap) or EINVAL (not a regular file, unreadable, malformed cap). */
int jl_open(const char *path, size_t *size, size_t *cap, char *err, size_t errlen);

/* Reads path whole into a NUL-terminated malloc'd buffer (*n bytes, NUL not counted). The file is
 * opened with O_NONBLOCK and must be a regular file: a FIFO, device, socket or directory is
 * refused at once, never read. Returns the text, or NULL with "PATH: reason" in err and errno:
 * ENOENT (missing), ENOMEM, EFBIG (over the cap) or EINVAL (not a regular file, unreadable). */
char *jl_read(const char *path, size_t *n, char *err, size_t errlen);

/* Parses text (n bytes) as one strict JSON value (common/jsonstrict.h), named `name` in
 * messages; the tree is the caller's (cJSON_Delete). Refused, with "NAME: reason" in err and NULL
 * returned: an empty file, bytes that are not text (control characters other than tab, CR, LF;
 * NUL), anything after the value, a file cut short ("truncated JSON"), more values than the size
 * cap allows (JL_BYTES_PER_NODE), JSON that strict JSON refuses ("not JSON (invalid UTF-8 at
 * byte N)", "not JSON (member 'x' appears twice in one object)"), or other syntax errors ("not
 * JSON (parse error at byte N)"). errno is EINVAL, or ENOMEM when memory ran out. */
cJSON *jl_parse(const char *name, const char *text, size_t n, char *err, size_t errlen);

struct jst_result;
/* The message of a failed parse, as jl_parse words it: r from common/jsonstrict.h with r->at
 * counted from the file's start, `binary` the offset of the first byte that is not text in what
 * was read (or SIZE_MAX), `size` the file's length, cap the size cap. Sets errno (ENOMEM or
 * EINVAL); returns -1. */
int jl_parse_error(const char *name, const struct jst_result *r, size_t binary,
                   unsigned char byte, size_t size, size_t cap, char *err, size_t errlen);

/* Why jl_load failed, for the caller's exit status. */
enum jl_why {
	JL_OK,      /* loaded */
	JL_MISSING, /* the file does not exist */
	JL_BAD,     /* bad input: unreadable, not a regular file, over the cap, not strict JSON */
	JL_NOMEM,   /* memory ran out */
};

/* jl_read then jl_parse. Returns the value, or NULL with "PATH: reason" in err; *why says which
 * kind of failure it was (JL_OK on success). */
cJSON *jl_load(const char *path, enum jl_why *why, char *err, size_t errlen);

/* Number checks on a JSON value; each returns 1 when v is a number that passes, else 0 (so a
 * missing, null or non-number member fails too). Nothing is converted before its range is known. */
int jl_finite(const cJSON *v, double *out);                       /* any finite number */
int jl_range(const cJSON *v, double lo, double hi, double *out);  /* finite, lo <= x <= hi */
int jl_uint(const cJSON *v, uint64_t max, uint64_t *out);         /* integer, 0 <= x <= max */
int jl_int(const cJSON *v, int64_t lo, int64_t hi, int64_t *out); /* integer, lo <= x <= hi */

#endif
