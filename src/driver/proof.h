/* proof.h - proves which shared object serves the process's malloc family, so a driver can refuse
 * to measure an allocator other than the one it is named after (LD_PRELOAD, link order). */
#ifndef ALLOCAB_PROOF_H
#define ALLOCAB_PROOF_H

#include <limits.h>

#define PROOF_NSYMS 5

/* The functions that must all resolve into the expected object, in checking order. */
extern const char *const proof_symbols[PROOF_NSYMS];

struct proof {
	int verified;
	char library[PATH_MAX];          /* realpath of the object serving malloc ("" if unknown) */
	char expected[PATH_MAX];         /* "libmimalloc.so.*", or the executable's path */
	char problem[PATH_MAX * 2 + 64]; /* "free is served by X, not Y" when !verified */
};

/* Resolves every proof symbol with dlsym(RTLD_DEFAULT) and dladdr, and checks each lands in the
 * object whose basename starts with `library` (NULL: the executable this code is linked into).
 * Fills *pr; returns 0 when verified, -1 otherwise (pr->problem says what was found). */
int proof_check(const char *library, struct proof *pr);

#endif
