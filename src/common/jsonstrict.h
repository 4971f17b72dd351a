/* jsonstrict.h - one JSON value as a cJSON tree, after the checks that cJSON 1.7.15 lacks, so
 * that allocab reads strict JSON (RFC 8259) and its readers keep cJSON's accessors. The grammar
 * (brackets, commas, colons) is cJSON's; what this module adds, because cJSON accepts it
 * (docs/results-format.md, "Reading files"):
 *   - numbers outside JSON's grammar (01, 1., +1, .5) and non-finite ones (1e999): refused; a
 *     number longer than JST_MAX_NUMBER characters, which cJSON would cut, is refused too;
 *   - in strings: raw control characters, \u0000, lone surrogates, bad \u escapes, and bytes
 *     that are not well-formed UTF-8 (common/utf8.h);
 *   - any byte <= 0x20 between tokens (cJSON skips them all): only tab, CR, LF and space;
 *   - a member name twice in one object (cJSON would keep the first);
 *   - nesting deeper than JST_MAX_DEPTH, counted from the top of the file;
 *   - more values than a caller's limit, counted before any tree is built.
 * A value is first scanned (jst_scan: where it ends, or why it is refused), then built
 * (jst_build): the tree cJSON_ParseWithLengthOpts would build, node for node, built without it;
 * a span whose grammar is broken goes to cJSON's parse, so the refusal and its offset are
 * cJSON's. Trees come from malloc (freed with cJSON_Delete) or from an arena whose trees are
 * all freed at once (jst_arena_reset), the way a large file is read one element at a time
 * (common/jsonstream.h). Neither reads text[n] or beyond: a span needs no terminating NUL.
 * The first jst_build installs cJSON's allocation hooks (cJSON_InitHooks) once for the process:
 * malloc and free, but during a jst_build into an arena the arena, chosen per thread, so threads
 * may build at once. Not for programs that set hooks of their own. */
#ifndef ALLOCAB_JSONSTRICT_H
#define ALLOCAB_JSONSTRICT_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define JST_MAX_DEPTH  1000
#define JST_MAX_NUMBER 63 /* characters: what cJSON 1.7.15 copies before strtod */

/* Bump-allocated memory for trees built into it. Zero-initialise; jst_arena_free releases it. */
struct jst_arena {
	struct jst_chunk *chunks; /* newest first */
	size_t used;              /* bytes taken from the newest chunk */
};

/* Empties the arena: every tree built into it becomes invalid; its newest chunk is kept. */
void jst_arena_reset(struct jst_arena *a);
void jst_arena_free(struct jst_arena *a);

enum jst_status {
	JST_OK,
	JST_SYNTAX,   /* not JSON at byte `at` */
	JST_BINARY,   /* byte `at` is a control character or DEL where text must be */
	JST_SHORT,    /* the text ended inside the value: more text was needed */
	JST_TOO_MANY, /* the value holds more values than allowed */
	JST_NOMEM,    /* memory ran out */
	JST_RULE,     /* JSON that strict JSON refuses: `rule` says which, at byte `at` */
};

struct jst_result {
	enum jst_status status;
	size_t at;      /* JST_OK: offset just after the value; else where it stopped, or SIZE_MAX */
	size_t tok;     /* a failed jst_scan: where the token it stopped in starts */
	char rule[160]; /* JST_RULE: e.g. "invalid UTF-8", "member 'x' appears twice in one object" */
};

/* Finds the end of the value that starts at text[0] after optional blanks, `depth` arrays and
 * objects deep in its file, checking every rule above but the repeated member names. Adds the
 * values, arrays and objects to *nodes (member names are not values); more than max_nodes stops
 * with JST_TOO_MANY. Returns 0 with r->at just after the value, or -1 with the status and offset.
 * A value that ends at text[n] is complete (a number could go on in text a caller has not read:
 * such a caller checks r->at < n). */
int jst_scan(const char *text, size_t n, unsigned depth, size_t *nodes, size_t max_nodes,
             struct jst_result *r);

/* After jst_scan failed on text[0..n), all there is (no more will come): when cJSON finds a
 * syntax error before the token the scan stopped in, or that no value may stand where it does,
 * that error replaces r's, so that the first error in the text is the one reported and a text
 * cut short after a syntax error is not called truncated. */
void jst_earliest(const char *text, size_t n, struct jst_result *r);

/* The tree of the value that jst_scan found in text[0..end), from arena or, when arena is NULL,
 * from malloc; member names are checked for repeats in every object. Returns it, or NULL with
 * r's status (JST_SYNTAX where cJSON stopped, JST_RULE, JST_NOMEM; a malloc'd partial tree is
 * freed). */
cJSON *jst_build(const char *text, size_t end, struct jst_arena *arena, struct jst_result *r);

/* jst_scan (jst_earliest when it fails) then jst_build: for a text that is all there is. */
cJSON *jst_parse(const char *text, size_t n, unsigned depth, struct jst_arena *arena,
                 size_t *nodes, size_t max_nodes, struct jst_result *r);

/* Whether every object of the tree v has distinct member names: 0, or -1 with JST_RULE (the
 * smallest repeated name of the first such object in document order) or JST_NOMEM in r. */
int jst_unique_keys(const cJSON *v, struct jst_result *r);

/* Offset of the first byte at or after i that is not one of JSON's four blanks, or n. */
size_t jst_skip_ws(const char *text, size_t n, size_t i);

/* Offset of the first byte in text[0..n) that JSON text never holds, outside strings or inside
 * them (a control character other than tab, CR, LF, or DEL), or n. */
size_t jst_first_binary(const char *text, size_t n);

/* The one writer of JSON text: cJSON_Print (formatted) or cJSON_PrintUnformatted of v, the same
 * text, but for numbers that cJSON's "%1.15g" would round: every finite number is written with
 * the fewest significant digits (15, 16 or 17) that read back as the same double, so an integer
 * up to 2^53 is written exactly and DBL_MAX as 1.7976931348623157e+308, which readers accept
 * (docs/results-format.md, "Numbers as written"). Returns a malloc'd text the caller frees, or
 * NULL (out of memory). */
char *jst_print(const cJSON *v, int formatted);

#endif
