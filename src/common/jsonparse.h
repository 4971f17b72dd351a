/* jsonparse.h - allocab's JSON parser: one value of strict JSON (RFC 8259) from a span of text
 * into cJSON nodes, so that readers keep cJSON's accessors. Stricter than cJSON_Parse: JSON's own
 * number grammar only, no raw control characters and no \u0000 in strings, no lone surrogates,
 * nesting at most JP_MAX_DEPTH. Nodes come either from malloc (the tree is freed with
 * cJSON_Delete) or from a pool whose contents are all freed at once (jp_pool_reset): the way a
 * large file is read one array element at a time (common/jsonstream.h). The parser reads only
 * text[0..n): the span needs no terminating NUL. */
#ifndef ALLOCAB_JSONPARSE_H
#define ALLOCAB_JSONPARSE_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define JP_MAX_DEPTH 1000

/* Bump-allocated memory for the nodes and strings of the values parsed into it. Zero-initialise;
 * jp_pool_free releases it. */
struct jp_pool {
	struct jp_chunk *chunks; /* newest first */
	size_t used;             /* bytes taken from the newest chunk */
};

/* Empties the pool: every tree parsed into it becomes invalid; its largest chunk is kept. */
void jp_pool_reset(struct jp_pool *p);

/* A point in a pool's filling, to go back to: what was taken after it is given back. */
struct jp_mark {
	struct jp_chunk *chunk;
	size_t used;
};
struct jp_mark jp_pool_mark(const struct jp_pool *p);
/* Gives back everything taken since m (a mark of p): trees parsed since become invalid. */
void jp_pool_rewind(struct jp_pool *p, struct jp_mark m);
void jp_pool_free(struct jp_pool *p);

enum jp_status {
	JP_OK,
	JP_SYNTAX,   /* not JSON at byte `at` */
	JP_BINARY,   /* byte `at` is a control character or DEL where text must be */
	JP_SHORT,    /* the text ended inside the value: more text was needed */
	JP_TOO_MANY, /* the value holds more nodes than allowed */
	JP_NOMEM,    /* memory ran out */
};

struct jp_result {
	enum jp_status status;
	size_t at; /* JP_OK: offset just after the value; else where parsing stopped */
};

/* Parses the JSON value that starts at text[0] after optional whitespace; what follows it is not
 * read. Nodes come from pool, or from malloc when pool is NULL. *nodes counts the values,
 * arrays and objects created (it is added to, so one count can span several calls); more than
 * max_nodes stops with JP_TOO_MANY. Returns the value with r->status JP_OK and r->at just after
 * it, or NULL with the status and the offset of the failure (malloc'd nodes already made are
 * freed). A number that ends exactly at text[n] is complete: a caller that may have more text
 * after the span checks r->at < n. */
cJSON *jp_parse(const char *text, size_t n, struct jp_pool *pool, size_t *nodes, size_t max_nodes,
                struct jp_result *r);

/* jp_parse for a value that sits inside `depth` arrays and objects of a document read piece by
 * piece (common/jsonstream.h), so that JP_MAX_DEPTH counts from the document's top. */
cJSON *jp_parse_nested(const char *text, size_t n, unsigned depth, struct jp_pool *pool,
                       size_t *nodes, size_t max_nodes, struct jp_result *r);

/* Offset of the first JSON whitespace-free byte at or after i, or n. */
size_t jp_skip_ws(const char *text, size_t n, size_t i);

/* Offset of the first byte in text[0..n) that JSON text never holds outside strings and inside
 * them alike (a control character other than tab, CR, LF, or DEL), or n. */
size_t jp_first_binary(const char *text, size_t n);

#endif
