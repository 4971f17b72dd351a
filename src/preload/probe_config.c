/* probe_config.c - the probe's read-back of a configured arm's settings: at start it takes the
 * spec the bench put in ALLOCAB_PROBE_CONFIG (written by `allocab-BACKEND env --probe`); at exit
 * it asks the allocator that serves malloc, through the reader that allocator itself exports
 * (jemalloc's mallctl, mimalloc's mi_option_get, gperftools'
 * MallocExtension_GetNumericProperty) or, for mimalloc's huge pages, /proc/self/smaps, which
 * value is in force; a setting whose reader only returns the library's parse of the request
 * (PROBE_REQUESTED_PREFIX) is recorded as "requested, effect unproven". Static buffers only:
 * nothing here allocates through the allocator under test. Format: docs/results-format.md. */
#include "common/hugetlb.h"
#include "preload/probe.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define SPEC_MAX 2048

struct item {
	const char *name, *reader, *key, *value; /* into spec; reader NULL: malformed */
	int requested_only;                      /* PROBE_REQUESTED_PREFIX was given */
};

static char spec[SPEC_MAX];
static struct item items[PROBE_CONFIG_MAX];
static size_t nitems;
static int have_spec, spec_truncated;

static const char *const readers[][2] = {
    {"je_unsigned", "mallctl"},
    {"je_ssize", "mallctl"},
    {"je_bool", "mallctl"},
    {"je_size", "mallctl"},
    {"je_string", "mallctl"},
    {"je_narenas", "mallctl"},
    {"mi", "mi_option_get"},
    {"mi_kib", "mi_option_get"},
    {"mi_huge_pages", "mi_option_get"},
    {"tc", "MallocExtension_GetNumericProperty"},
    {"none", NULL},
};

static int only(const char *s, const char *set)
{
	return s[strspn(s, set)] == '\0';
}

#define LOWER "abcdefghijklmnopqrstuvwxyz0123456789_"
#define WORD  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

/* The symbol reader r reads through, "" for "none", or NULL when r is not a reader. */
static const char *reader_symbol(const char *r)
{
	for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
		if (strcmp(readers[i][0], r) == 0)
			return readers[i][1] ? readers[i][1] : "";
	return NULL;
}

static void parse_item(char *s, struct item *it)
{
	char *eq = strchr(s, '='), *c1, *c2;

	memset(it, 0, sizeof *it);
	it->name = s;
	if (!eq)
		return;
	*eq = '\0';
	if (!(c1 = strchr(eq + 1, ':')) || !(c2 = strchr(c1 + 1, ':')))
		return;
	*c1 = *c2 = '\0';
	if (strncmp(eq + 1, PROBE_REQUESTED_PREFIX, strlen(PROBE_REQUESTED_PREFIX)) == 0) {
		it->requested_only = 1;
		eq += strlen(PROBE_REQUESTED_PREFIX);
	}
	if (!s[0] || !only(s, LOWER) || !reader_symbol(eq + 1) || !only(c1 + 1, WORD) || !c2[1] ||
	    !only(c2 + 1, WORD))
		return;
	it->reader = eq + 1;
	it->key = c1 + 1;
	it->value = c2 + 1;
}

void probe_config_init(const char *s)
{
	char *p;

	if (!s)
		return;
	have_spec = 1;
	spec_truncated = strlen(s) >= sizeof spec;
	snprintf(spec, sizeof spec, "%s", s);
	for (p = spec; *p && nitems < PROBE_CONFIG_MAX;) {
		size_t n = strcspn(p, ";");
		int last = p[n] == '\0';

		p[n] = '\0';
		if (n)
			parse_item(p, &items[nitems++]);
		p += n + !last;
	}
	if (*p)
		spec_truncated = 1;
}

static int is_integer(const char *s)
{
	s += *s == '-';
	return *s && only(s, "0123456789");
}

static void put_value(char *buf, size_t len, size_t *k, const char *v)
{
	size_t n = strlen(v);

	if (!is_integer(v) || n > 20) {
		probe_json_str(buf, len, k, v);
	} else if (*k + n < len) {
		memcpy(buf + *k, v, n);
		*k += n;
	}
}

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
typedef long (*mi_get_fn)(int);
typedef int (*tc_get_fn)(const char *, size_t *);

/* Reads it through jemalloc's mallctl fn into out (text), as its je_ reader types the value.
 * Returns 0, or -1 with the reason in why. */
static int read_mallctl(const struct item *it, void *fn, char *out, size_t len, char *why,
                        size_t wlen)
{
	union {
		unsigned u;
		ssize_t ss;
		bool b;
		size_t z;
		const char *s;
	} v;
	const char *r = it->reader;
	size_t sz = strcmp(r, "je_unsigned") == 0 ? sizeof v.u
	            : strcmp(r, "je_ssize") == 0  ? sizeof v.ss
	            : strcmp(r, "je_bool") == 0   ? sizeof v.b
	            : strcmp(r, "je_size") == 0   ? sizeof v.z
	                                          : sizeof v.s;

	memset(&v, 0, sizeof v);
	if (((mallctl_fn)fn)(it->key, &v, &sz, NULL, 0) != 0)
		return snprintf(why, wlen, "mallctl(\"%s\") failed", it->key), -1;
	if (strcmp(r, "je_unsigned") == 0)
		snprintf(out, len, "%u", v.u);
	else if (strcmp(r, "je_ssize") == 0)
		snprintf(out, len, "%zd", v.ss);
	else if (strcmp(r, "je_bool") == 0)
		snprintf(out, len, "%s", v.b ? "true" : "false");
	else if (strcmp(r, "je_size") == 0)
		snprintf(out, len, "%zu", v.z);
	else
		snprintf(out, len, "%s", v.s ? v.s : "");
	return 0;
}

/* Reads it through fn into out (text). Returns 0, or -1 with the reason in why. */
static int read_with(const struct item *it, void *fn, char *out, size_t len, char *why, size_t wlen)
{
	const char *r = it->reader;
	unsigned u = 0;
	size_t z = 0, sz;

	if (strcmp(r, "mi_huge_pages") == 0) {
		long long huge = hugetlb_mapped_bytes();
		if (huge < 0)
			return snprintf(why, wlen, "/proc/self/smaps is unreadable"), -1;
		snprintf(out, len, "%lld", huge >> 30);
	} else if (strcmp(r, "je_narenas") == 0) {
		size_t oversize = 0, zs = sizeof oversize;
		sz = sizeof u;
		if (((mallctl_fn)fn)(it->key, &u, &sz, NULL, 0) != 0)
			return snprintf(why, wlen, "mallctl(\"%s\") failed", it->key), -1;
		/* arenas.narenas counts the arena for huge allocations too (docs/tuning.md) */
		if (((mallctl_fn)fn)("opt.oversize_threshold", &oversize, &zs, NULL, 0) == 0 &&
		    oversize && u)
			u--;
		snprintf(out, len, "%u", u);
	} else if (strncmp(r, "mi", 2) == 0) {
		char *end;
		long id = strtol(it->key, &end, 10);
		if (*end || id < 0 || id > 1000)
			return snprintf(why, wlen, "bad option number %s", it->key), -1;
		snprintf(out, len, "%lld",
		         (long long)((mi_get_fn)fn)((int)id) *
		             (strcmp(r, "mi_kib") == 0 ? 1024 : 1));
	} else if (strcmp(r, "tc") == 0) {
		if (!((tc_get_fn)fn)(it->key, &z))
			return snprintf(why, wlen, "%s(\"%s\") failed", reader_symbol("tc"),
			                it->key),
			       -1;
		snprintf(out, len, "%zu", z);
	} else {
		return read_mallctl(it, fn, out, len, why, wlen);
	}
	return 0;
}

/* What is in force for it into out; returns 0, or -1 with the reason it is unreadable. */
static int read_item(const struct item *it, const char *serving, char *out, size_t len, char *why,
                     size_t wlen)
{
	const char *sym = it->reader ? reader_symbol(it->reader) : NULL;
	char where[PATH_MAX];
	void *fn;

	if (!sym)
		return snprintf(why, wlen, "malformed item in %s", PROBE_CONFIG_VAR), -1;
	if (!sym[0])
		return snprintf(why, wlen, "the library offers no reader"), -1;
	if (!(fn = dlsym(RTLD_DEFAULT, sym)))
		return snprintf(why, wlen, "no %s in the process", sym), -1;
	if (!probe_object_of(fn, where, sizeof where) || !serving || strcmp(where, serving) != 0)
		return snprintf(why, wlen, "%s is not in the object serving malloc", sym), -1;
	return read_with(it, fn, out, len, why, wlen);
}

void probe_config_json(char *buf, size_t len, size_t *k, const char *serving)
{
	if (!have_spec)
		return;
	probe_put(buf, len, k, ",\"config\":{");
	for (size_t i = 0; i < nitems; i++) {
		char got[128], why[160];

		probe_put(buf, len, k, i ? "," : "");
		probe_json_str(buf, len, k, items[i].name);
		probe_put(buf, len, k, ":{\"requested\":");
		if (items[i].value)
			put_value(buf, len, k, items[i].value);
		else
			probe_put(buf, len, k, "null");
		if (read_item(&items[i], serving, got, sizeof got, why, sizeof why) == 0) {
			probe_put(buf, len, k,
			          items[i].requested_only ? ",\"read_back\":" : ",\"in_force\":");
			put_value(buf, len, k, got);
			if (items[i].requested_only)
				probe_put(buf, len, k,
				          ",\"unproven\":\"requested, effect unproven\"");
		} else {
			probe_put(buf, len, k, ",\"unreadable\":");
			probe_json_str(buf, len, k, why);
		}
		probe_put(buf, len, k, "}");
	}
	probe_put(buf, len, k, spec_truncated ? "},\"config_truncated\":true" : "}");
}
