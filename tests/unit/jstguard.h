/* jstguard.h - strict parses for the unit tests of common/jsonstrict.h (tests/unit/common/test_jsonstrict*.c):
 * every parse reads its span from the end of a page followed by an inaccessible one, so a byte
 * read beyond text[n) faults; and the texts and statuses shown in the checks' names. */
#ifndef ALLOCAB_TEST_JSTGUARD_H
#define ALLOCAB_TEST_JSTGUARD_H

#include "common/jsonstrict.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* text[0..n) copied to the end of readable pages followed by a PROT_NONE page. */
struct guarded {
	char *map;
	size_t len;
	const char *text;
};

static inline int guard(struct guarded *g, const char *text, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (n + page - 1) / page * page;

	if (data == 0)
		data = page;
	g->len = data + page;
	g->map = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		return -1;
	if (mprotect(g->map + data, page, PROT_NONE) != 0) {
		munmap(g->map, g->len);
		return -1;
	}
	memcpy(g->map + data - n, text, n);
	g->text = g->map + data - n;
	return 0;
}

static inline void unguard(struct guarded *g)
{
	munmap(g->map, g->len);
}

/* jst_parse of text[0..n) placed before a guard page. */
static inline cJSON *parse_n(const char *text, size_t n, struct jst_arena *pool, size_t max_nodes,
                             size_t *nodes, struct jst_result *r)
{
	struct guarded g;
	size_t count = 0;
	cJSON *v;

	if (guard(&g, text, n) != 0) {
		r->status = JST_NOMEM;
		return NULL;
	}
	v = jst_parse(g.text, n, 0, pool, nodes ? nodes : &count, max_nodes, r);
	unguard(&g);
	return v;
}

static inline cJSON *parse(const char *text, struct jst_arena *pool, struct jst_result *r)
{
	return parse_n(text, strlen(text), pool, SIZE_MAX, NULL, r);
}

/* text with its control characters escaped, for a check's name (one of two buffers). */
static inline const char *shown(const char *text)
{
	static char bufs[2][256];
	static int k;
	char *b = bufs[k ^= 1];
	size_t o = 0;

	for (; *text && o + 5 < sizeof bufs[0]; text++)
		o += (size_t)snprintf(b + o, sizeof bufs[0] - o,
		                      (unsigned char)*text < 0x20 || *text == 0x7f ? "\\x%02x"
		                                                                   : "%c",
		                      (unsigned char)*text);
	b[o] = '\0';
	return b;
}

static inline const char *status_name(enum jst_status s)
{
	static const char *const names[] = {"OK",       "SYNTAX", "BINARY", "SHORT",
	                                    "TOO_MANY", "NOMEM",  "RULE"};

	return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

#endif
