/* allocknown.h - the allocators allocab knows by name: how their shared objects are called, which
 * Debian library a bench preloads for them, which symbols betray one linked into an executable,
 * and how the probe asks one its version.
 * Header-only, free of dependencies, so that both the front end and the preload libraries of
 * src/preload/ (docs/programs.md) read the same table. */
#ifndef ALLOCAB_ALLOCKNOWN_H
#define ALLOCAB_ALLOCKNOWN_H

#include <stddef.h>
#include <string.h>

#define ALLOCKNOWN_NSYMS 6

/* How the version function version_sym is called, and its answer written (the "version" of a
 * probe record, docs/results-format.md). */
enum alloc_known_version {
	ALLOC_VERSION_LIBC,    /* no symbol: gnu_get_libc_version(), as "glibc 2.36" */
	ALLOC_VERSION_INT,     /* int f(void), 209 as "2.0.9" (mi_version) */
	ALLOC_VERSION_MALLCTL, /* mallctl("version"): its string up to the first '-' */
	ALLOC_VERSION_MAJMIN,  /* f(&major, &minor, NULL) (tc_version), as "major.minor" */
};

struct alloc_known {
	const char *name;     /* arm name: system, mimalloc, jemalloc, tcmalloc */
	const char *prefix;   /* basename prefix of the object that serves malloc for it */
	const char *preload;  /* the Debian shared library a bench preloads (NULL: system) */
	const char *package;  /* the Debian package shipping it */
	const char *marks[6]; /* defined symbols that mark it inside an executable, NULL-ended */
	enum alloc_known_version version;
	const char *version_sym; /* the function asked, when it is in the object serving malloc */
};

static const struct alloc_known alloc_known_table[] = {
    {"system", "libc.so", NULL, "libc6", {NULL}, ALLOC_VERSION_LIBC, NULL},
    {"mimalloc",
     "libmimalloc",
     "libmimalloc.so.2",
     "libmimalloc2.0",
     {"mi_version", "mi_malloc", NULL},
     ALLOC_VERSION_INT,
     "mi_version"},
    {"jemalloc",
     "libjemalloc",
     "libjemalloc.so.2",
     "libjemalloc2",
     {"mallctl", "je_mallctl", "_rjem_mallctl", "_rjem_je_mallctl", NULL},
     ALLOC_VERSION_MALLCTL,
     "mallctl"},
    {"tcmalloc",
     "libtcmalloc",
     "libtcmalloc_minimal.so.4",
     "libgoogle-perftools4",
     {"tc_version", "tc_malloc", NULL},
     ALLOC_VERSION_MAJMIN,
     "tc_version"},
};

#define ALLOC_KNOWN_COUNT (sizeof alloc_known_table / sizeof alloc_known_table[0])

/* The functions whose serving object the probe reports, in record order. */
static const char *const alloc_known_syms[ALLOCKNOWN_NSYMS] = {
    "malloc", "free", "calloc", "realloc", "posix_memalign", "aligned_alloc",
};

/* The entry named name, or NULL. */
static inline const struct alloc_known *alloc_known_by_name(const char *name)
{
	for (size_t i = 0; i < ALLOC_KNOWN_COUNT; i++)
		if (strcmp(alloc_known_table[i].name, name) == 0)
			return &alloc_known_table[i];
	return NULL;
}

/* Whether k is the platform's own allocator (glibc's malloc, in libc): the one nothing is preloaded
 * for, and the arm a program bench compares against by default. */
static inline int alloc_known_platform(const struct alloc_known *k)
{
	return k && !k->preload;
}

/* The entry whose object basename starts with its prefix (path may have directories), or NULL. */
static inline const struct alloc_known *alloc_known_by_object(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < ALLOC_KNOWN_COUNT; i++)
		if (strncmp(base, alloc_known_table[i].prefix,
		            strlen(alloc_known_table[i].prefix)) == 0)
			return &alloc_known_table[i];
	return NULL;
}

/* The entry one of whose marks is the symbol name sym, or NULL. */
static inline const struct alloc_known *alloc_known_by_mark(const char *sym)
{
	for (size_t i = 0; i < ALLOC_KNOWN_COUNT; i++)
		for (size_t k = 0; alloc_known_table[i].marks[k]; k++)
			if (strcmp(alloc_known_table[i].marks[k], sym) == 0)
				return &alloc_known_table[i];
	return NULL;
}

#endif
