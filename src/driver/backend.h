/* backend.h - the allocator backend interface. Each allocators/<name>.c defines exactly one
 * `const struct backend_ops backend` and is linked last into build/allocab-<name>. The driver core
 * reaches the allocator only through this table (plus plain malloc/free, which the backend serves).
 */
#ifndef ALLOCAB_BACKEND_H
#define ALLOCAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#define BACKEND_MAX_COUNTERS 8

struct backend_counter {
	const char *name; /* JSON key, snake_case with unit: "allocated_bytes" */
	int64_t value;
};

struct backend_ops {
	const char *name; /* "system", "mimalloc", ...: the driver is build/allocab-<name> */
	/* Basename prefix of the shared object that must define the malloc the process uses, e.g.
	 * "libc.so." or "libmimalloc.so.". NULL means the driver executable itself defines it. */
	const char *library;
	/* Writes the version into buf (always NUL-terminated). Returns 0, or -1 if unknown. */
	int (*version)(char *buf, size_t len);
	/* Writes up to cap counters of the allocator's own accounting (allocated and resident bytes
	 * where it keeps them) and returns how many. Static names; no allocation visible to
	 * callers. */
	size_t (*counters)(struct backend_counter *out, size_t cap);
};

extern const struct backend_ops backend;

#endif
