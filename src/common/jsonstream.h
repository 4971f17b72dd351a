/* jsonstream.h - reading a JSON file whose top level is an object with one long array (a results
 * file's "rounds") one element at a time: memory is bounded by the other members and the largest
 * element, not by the file. The file is opened, capped and parsed as strictly as jl_load reads a
 * whole one (common/jsonload.h, common/jsonstrict.h), with the same messages and offsets counted
 * from the file's start. Limits: docs/results-format.md, "Reading files". */
#ifndef ALLOCAB_JSONSTREAM_H
#define ALLOCAB_JSONSTREAM_H

#include "common/jsonload.h"

#include <cjson/cJSON.h>

struct js_stream;

/* Opens path and parses the top-level value's members up to the array member `key`, which is left
 * to js_next. When one of the NULL-terminated member names in `before` (they may be NULL) comes
 * after the array, the array is first parsed through and the members after it read, so that
 * js_head holds all of them before the first element is read. Returns the stream, or NULL with
 * "PATH: reason" in err and *why (JL_MISSING, JL_BAD, JL_NOMEM). */
struct js_stream *js_open(const char *path, const char *key, const char *const *before,
                          enum jl_why *why, char *err, size_t errlen);

/* The top-level value without the streamed array: the object's other members read so far (all of
 * them once js_next returned 0), or the whole value when it is not an object. Owned by s. */
const cJSON *js_head(const struct js_stream *s);

/* Whether the top-level object has the member `key` with an array value (the elements js_next
 * returns); a `key` that is not an array stays in js_head. */
int js_has_array(const struct js_stream *s);

/* The next element of the array: returns 1 with *elem, valid until the next call; 0 after the
 * last one, once the rest of the file was read and checked (the members after the array, no
 * member name twice at the top level, then nothing but whitespace); -1 with "PATH: reason" in err
 * and *why. Every call after 0 or -1 returns the same again. */
int js_next(struct js_stream *s, const cJSON **elem, enum jl_why *why, char *err, size_t errlen);

/* Frees everything, the current element and the head included. */
void js_close(struct js_stream *s);

#endif
