/* preload.h - the preload machinery of the front end (docs/programs.md): finding the shared
 * library of an allocator the way the dynamic linker would, its version, the project's own
 * preload libraries (build/liballocab-NAME.so), and composing LD_PRELOAD. The allocator is only
 * ever loaded into a short-lived trial process, never into allocab itself. */
#ifndef ALLOCAB_PRELOAD_H
#define ALLOCAB_PRELOAD_H

#include <limits.h>
#include <stddef.h>

/* What a library name or path resolves to. */
struct preload_lib {
	char path[PATH_MAX]; /* realpath of the object ld.so loads */
	char allocator[32];  /* known allocator name (common/allocknown.h) by its basename, or "" */
	char version[64];    /* the allocator's own answer (mi_version, mallctl "version",
	                        tc_version), "" if it has none */
};

/* Resolves lib (a soname searched as LD_PRELOAD searches, or a path) by a trial run of
 * `/bin/sh -c :` with LD_PRELOAD=lib:probe (probe: the path of liballocab-probe.so): the probe
 * reports the realpath ld.so loaded and, for an allocator serving malloc, its version. Returns 0
 * with *out filled, or -1 with a one-line reason in err (the dynamic linker's "cannot be
 * preloaded" message when it could not load lib). */
int preload_resolve(const char *lib, const char *probe, struct preload_lib *out, char *err,
                    size_t errlen);

/* The known allocators (system first) whose Debian library resolves on this machine, as a
 * comma-separated list in buf ("system,mimalloc,jemalloc,tcmalloc"). Returns how many. */
int preload_installed(const char *probe, char *buf, size_t len);

/* Path of the project's preload library build/liballocab-NAME.so: next to the running allocab
 * executable, else in ../lib/allocab beside it (make install). Returns 0, or -1 with a reason
 * ("liballocab-probe.so not found next to ...; run make"). */
int preload_find_own(const char *name, char *out, size_t len, char *err, size_t errlen);

/* Joins the non-empty, non-NULL entries of v[0..n) with ':' into buf. Returns 0, or -1 when it
 * does not fit. */
int preload_join(const char *const *v, size_t n, char *buf, size_t len);

#endif
