/* ownlib.h - the one finder of the project's own preload libraries (build/liballocab-NAME.so:
 * the probe, the call counter, the recorder; docs/programs.md). The allocators' libraries are
 * resolved the way the dynamic linker resolves them, by a trial run (front/proc/proc.h). */
#ifndef ALLOCAB_OWNLIB_H
#define ALLOCAB_OWNLIB_H

#include <stddef.h>

/* The path of liballocab-NAME.so into out: the file the environment variable env names when env
 * is not NULL and the variable is set and not empty (it must be a readable file; its realpath),
 * else the one next to the running allocab executable, else the one in ../lib/allocab beside it
 * (make install; its realpath). Returns 0, or -1 with a one-line reason in err. */
int ownlib_find(const char *name, const char *env, char *out, size_t len, char *err,
                size_t errlen);

#endif
