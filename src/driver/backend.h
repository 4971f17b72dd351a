/* backend.h - the allocator backend interface. Each allocators/<name>.c defines exactly one
 * `const struct backend_ops backend` and is linked last into build/allocab-<name>. The driver core
 * reaches the allocator only through this table (plus plain malloc/free, which the backend serves).
 */
#ifndef ALLOCAB_BACKEND_H
#define ALLOCAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#define BACKEND_MAX_COUNTERS 8

/* ---- options: the allocator's own tuning knobs (docs/tuning.md) ---- */

enum backend_opt_type {
	BACKEND_OPT_INT,   /* decimal integer */
	BACKEND_OPT_BYTES, /* integer with an optional k/K, M or G suffix (2^10, 2^20, 2^30) */
	BACKEND_OPT_ENUM,  /* one of choices[]; the value is its index */
};

/* Where a driver applies an option. */
enum backend_opt_apply {
	BACKEND_APPLY_CALL, /* the backend's apply hook, in the process, before the first rep */
	BACKEND_APPLY_ENV,  /* the environment at process start: the driver re-executes itself */
};

/* How a driver proves the option is in force, strongest first (the run record's "proof"). */
enum backend_opt_proof {
	BACKEND_PROOF_READ,   /* the allocator reports the value in effect (arenas.narenas, not
	                         opt.narenas; mimalloc's huge pages from /proc/self/smaps) */
	BACKEND_PROOF_PROBE,  /* behaviour observed after the last rep matches the value */
	BACKEND_PROOF_LOADER, /* the dynamic loader's own parse of the environment string */
	/* the allocator's reader returns its parse of the request, not the value its effect shows
	 * (jemalloc's opt.thp): "requested, effect unproven"; in_force stays null */
	BACKEND_PROOF_REQUESTED,
	BACKEND_PROOF_ACCEPTED, /* the setter reported success; the library has no getter */
	BACKEND_PROOF_ENV,      /* the variable was in the environment at start; no getter */
};

/* Text is held in arrays, not pointers: a table of pointers would need one dynamic relocation
 * per pointer in these position-independent drivers, in the tables that must fit below the
 * fixed code address (docs/allocators.md, "Same code addresses in every driver"). */
struct backend_option {
	char name[32]; /* --config KEY: snake_case */
	enum backend_opt_type type;
	char unit[8];      /* "bytes", "ms", "count", "MiB", "0/1", "" */
	int64_t min, max;  /* inclusive range of values the library applies */
	int64_t align;     /* values must be multiples of this (0 or 1: any) */
	int64_t def;       /* the library's default, unless def_text says otherwise */
	char def_text[24]; /* "", or the default in words ("4 x CPUs") */
	char choices[64];  /* BACKEND_OPT_ENUM: the names, comma-separated; value i is the i-th */
	char help[112];    /* one line */
	char source[48];   /* the library's name for it: "mallopt(M_MMAP_THRESHOLD)" */
	char env[48];      /* its environment form (see backend_ops.env_var) */
	enum backend_opt_apply apply;
	enum backend_opt_proof proof;
	int id;       /* backend-private: mallopt parameter, mi_option_t, ... */
	char key[48]; /* backend-private: mallctl name, numeric property */
};

/* The i-th name of an enum option's choices into buf (len bytes); "" when there is none. */
const char *backend_choice(const struct backend_option *o, int64_t i, char *buf, size_t len);

/* The index of name among an enum option's choices, or -1. */
int64_t backend_choice_index(const struct backend_option *o, const char *name);

/* One requested value of an option. */
struct backend_setting {
	const struct backend_option *opt;
	int64_t value; /* ENUM: index into opt->choices */
};

/* What config_read reports. */
enum backend_read {
	BACKEND_READ_VALUE, /* *value is what is in force (BACKEND_PROOF_REQUESTED: what the library
	                       took from the request) */
	BACKEND_READ_NONE,  /* the library offers no way to read it (proof ACCEPTED or ENV) */
	BACKEND_READ_FAIL,  /* the read or the probe failed; err says why */
};

struct backend_counter {
	const char *name; /* JSON key, snake_case with unit: "allocated_bytes" */
	int64_t value;
};

/* What a backend is for, declared in its table; the front end reads them from `list --json`
 * ("allocator"."flags") and never decides by a backend's name. */
enum backend_flags {
	/* The platform's own allocator: the arm every other is compared against by default. */
	BACKEND_BASELINE = 1u << 0,
	/* A harness check (a known injected cost, docs/calibration.md), not an allocator to compare:
	 * run only when asked for by name (-a), never by default. */
	BACKEND_CALIBRATION = 1u << 1,
};

struct backend_ops {
	const char *name; /* "system", "mimalloc", ...: the driver is build/allocab-<name> */
	unsigned flags;   /* enum backend_flags */
	/* Basename prefix of the shared object that must define the malloc the process uses, e.g.
	 * "libc.so." or "libmimalloc.so.". NULL means the driver executable itself defines it. */
	const char *library;
	/* Writes the version into buf (always NUL-terminated). Returns 0, or -1 if unknown. */
	int (*version)(char *buf, size_t len);
	/* Writes up to cap counters of the allocator's own accounting (allocated and resident bytes
	 * where it keeps them) and returns how many. Static names; no allocation visible to
	 * callers. */
	size_t (*counters)(struct backend_counter *out, size_t cap);

	/* Tuning options (NULL, 0: none) and how they are spelled in the environment of a program:
	 * with env_var (e.g. "MALLOC_CONF") every option is one item opt->env, env_assign, value,
	 * items joined by env_sep; without it every option is its own variable opt->env=value. */
	const struct backend_option *options;
	size_t noptions;
	const char *env_var;
	char env_assign, env_sep;
	/* Applies a BACKEND_APPLY_CALL setting in this process. Returns 0, or -1 with the reason
	 * (the library refused it) in err. */
	int (*config_apply)(const struct backend_setting *s, char *err, size_t errlen);
	/* Reads back what is in force for option o; cfg[0..ncfg) is the whole requested
	 * configuration (ncfg 0 for `info`, where probes return BACKEND_READ_NONE). A probe may
	 * allocate and is only called after the last rep. */
	enum backend_read (*config_read)(const struct backend_option *o,
	                                 const struct backend_setting *cfg, size_t ncfg,
	                                 int64_t *value, char *err, size_t errlen);
	/* How the preload probe reads option o back in a program (docs/results-format.md, "Probe
	 * records"): writes "READER:KEY" (e.g. "je_unsigned:opt.narenas") into buf and returns 0,
	 * or returns -1 when the library offers no reader. NULL: no option can be read back. */
	int (*config_probe)(const struct backend_option *o, char *buf, size_t len);
};

extern const struct backend_ops backend;

#endif
