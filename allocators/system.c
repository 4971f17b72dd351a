/* system.c - glibc's malloc (ptmalloc2), the baseline: nothing is linked beyond libc, so malloc
 * must resolve into libc.so.6. Counters from mallinfo2(), which sums every arena. Options: the
 * mallopt parameters, set in the process before the first rep, and the tcache tunables, which
 * glibc reads from GLIBC_TUNABLES only at start (docs/tuning.md says how each is proven). */
#include "driver/backend.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int system_version(char *buf, size_t len)
{
	snprintf(buf, len, "%s", gnu_get_libc_version());
	return 0;
}

static size_t system_counters(struct backend_counter *out, size_t cap)
{
	struct mallinfo2 mi = mallinfo2();
	const struct backend_counter c[] = {
	    {"allocated_bytes", (int64_t)(mi.uordblks + mi.hblkhd)},
	    {"arena_bytes", (int64_t)mi.arena},
	    {"mmap_bytes", (int64_t)mi.hblkhd},
	    {"free_bytes", (int64_t)mi.fordblks},
	    {"releasable_bytes", (int64_t)mi.keepcost},
	};
	size_t n = cap < sizeof c / sizeof c[0] ? cap : sizeof c / sizeof c[0];

	memcpy(out, c, n * sizeof c[0]);
	return n;
}

/* mallopt takes an int. */
#define MALLOPT_MAX 2147483647
/* The largest threshold glibc's dynamic adjustment reaches (64-bit). */
#define MMAP_THRESHOLD_MAX ((int64_t)32 << 20)
#define PROBE_SLACK        64

static const struct backend_option system_options[] = {
    {.name = "mmap_threshold",
     .type = BACKEND_OPT_BYTES,
     .unit = "bytes",
     .min = 0,
     .max = MALLOPT_MAX,
     .def = 128 << 10,
     .def_text = "128k (dynamic)",
     .help = "requests of at least this size get their own mmap; setting it stops glibc's "
             "dynamic adjustment",
     .source = "mallopt(M_MMAP_THRESHOLD)",
     .env = "glibc.malloc.mmap_threshold",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_PROBE,
     .id = M_MMAP_THRESHOLD},
    {.name = "trim_threshold",
     .type = BACKEND_OPT_BYTES,
     .unit = "bytes",
     .min = 0,
     .max = MALLOPT_MAX,
     .def = 128 << 10,
     .def_text = "128k (dynamic)",
     .help = "free memory at the top of the heap above this is returned to the system",
     .source = "mallopt(M_TRIM_THRESHOLD)",
     .env = "glibc.malloc.trim_threshold",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_ACCEPTED,
     .id = M_TRIM_THRESHOLD},
    {.name = "top_pad",
     .type = BACKEND_OPT_BYTES,
     .unit = "bytes",
     .min = 0,
     .max = MALLOPT_MAX,
     .def = 128 << 10,
     .help = "extra bytes requested from the system whenever the heap grows (and kept on trim)",
     .source = "mallopt(M_TOP_PAD)",
     .env = "glibc.malloc.top_pad",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_ACCEPTED,
     .id = M_TOP_PAD},
    {.name = "mmap_max",
     .type = BACKEND_OPT_INT,
     .unit = "count",
     .min = 0,
     .max = 2147483647,
     .def = 65536,
     .help = "most blocks served by mmap at once; 0 never uses mmap for a block",
     .source = "mallopt(M_MMAP_MAX)",
     .env = "glibc.malloc.mmap_max",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_PROBE,
     .id = M_MMAP_MAX},
    {.name = "arena_max",
     .type = BACKEND_OPT_INT,
     .unit = "count",
     .min = 1,
     .max = 65536,
     .def_text = "8 x CPUs",
     .help = "most arenas (heaps) the threads of the process share",
     .source = "mallopt(M_ARENA_MAX)",
     .env = "glibc.malloc.arena_max",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_ACCEPTED,
     .id = M_ARENA_MAX},
    {.name = "arena_test",
     .type = BACKEND_OPT_INT,
     .unit = "count",
     .min = 1,
     .max = 65536,
     .def = 8,
     .help = "arenas created before arena_max is enforced",
     .source = "mallopt(M_ARENA_TEST)",
     .env = "glibc.malloc.arena_test",
     .apply = BACKEND_APPLY_CALL,
     .proof = BACKEND_PROOF_ACCEPTED,
     .id = M_ARENA_TEST},
    {.name = "tcache_count",
     .type = BACKEND_OPT_INT,
     .unit = "count",
     .min = 0,
     .max = 65535,
     .def = 7,
     .help = "freed blocks each thread keeps per size class in its cache",
     .source = "tunable glibc.malloc.tcache_count",
     .env = "glibc.malloc.tcache_count",
     .apply = BACKEND_APPLY_ENV,
     .proof = BACKEND_PROOF_LOADER},
    {.name = "tcache_max",
     .type = BACKEND_OPT_BYTES,
     .unit = "bytes",
     .min = 0,
     .max = 1032,
     .def = 1032,
     .help = "largest request served from the per-thread cache",
     .source = "tunable glibc.malloc.tcache_max",
     .env = "glibc.malloc.tcache_max",
     .apply = BACKEND_APPLY_ENV,
     .proof = BACKEND_PROOF_LOADER},
    {.name = "mxfast",
     .type = BACKEND_OPT_BYTES,
     .unit = "bytes",
     .min = 0,
     .max = 160,
     .def = 128,
     .help = "largest request served from the fastbins (0 disables them)",
     .source = "tunable glibc.malloc.mxfast (mallopt M_MXFAST)",
     .env = "glibc.malloc.mxfast",
     .apply = BACKEND_APPLY_ENV,
     .proof = BACKEND_PROOF_LOADER},
};

static int system_apply(const struct backend_setting *s, char *err, size_t errlen)
{
	if (mallopt(s->opt->id, (int)s->value) == 1)
		return 0;
	snprintf(err, errlen, "mallopt(%s, %lld) refused", s->opt->source + 8, (long long)s->value);
	return -1;
}

static const struct backend_setting *find(const struct backend_setting *cfg, size_t n, int id)
{
	for (size_t i = 0; i < n; i++)
		if (cfg[i].opt->apply == BACKEND_APPLY_CALL && cfg[i].opt->id == id)
			return &cfg[i];
	return NULL;
}

/* Whether malloc(size) got its own mmap: mallinfo2's count of mmapped blocks grows. */
static int mmapped(size_t size)
{
	size_t before = mallinfo2().hblks, after;
	void *p = malloc(size);

	after = mallinfo2().hblks;
	free(p);
	return p && after > before;
}

/* After malloc_trim, a request larger than all free memory glibc holds must go to the system:
 * it is mmapped exactly when it reaches the threshold and fewer than mmap_max blocks are. */
static enum backend_read system_probe(const struct backend_option *o,
                                      const struct backend_setting *cfg, size_t ncfg,
                                      int64_t *value, char *err, size_t errlen)
{
	const struct backend_setting *thr = find(cfg, ncfg, M_MMAP_THRESHOLD);
	const struct backend_setting *max = find(cfg, ncfg, M_MMAP_MAX);
	struct mallinfo2 mi;
	size_t held, big;
	int allowed;

	if (!ncfg)
		return BACKEND_READ_NONE;
	malloc_trim(0);
	held = mallinfo2().fordblks + PROBE_SLACK;
	/* Smaller first: freeing a mmapped block raises glibc's dynamic threshold. */
	if (thr && (size_t)thr->value > held + PROBE_SLACK && mmapped((size_t)thr->value - 64)) {
		snprintf(err, errlen, "a %lld-byte block was mmapped", (long long)thr->value - 64);
		return BACKEND_READ_FAIL;
	}
	malloc_trim(0);
	mi = mallinfo2();
	held = mi.fordblks + PROBE_SLACK;
	allowed = mi.hblks < (size_t)(max ? max->value : 65536);
	big = (size_t)(thr ? thr->value : MMAP_THRESHOLD_MAX);
	big = big > held + (1 << 16) ? big : held + (1 << 16);
	if (mmapped(big) != allowed) {
		snprintf(err, errlen, "a %zu-byte block was %smmapped (%zu mmapped blocks)", big,
		         allowed ? "not " : "", mi.hblks);
		return BACKEND_READ_FAIL;
	}
	*value = o->id == M_MMAP_THRESHOLD ? thr->value : max->value;
	return BACKEND_READ_VALUE;
}

/* The dynamic loader's own parse of this process's GLIBC_TUNABLES: `ld.so --list-tunables`
 * run with the same environment prints "glibc.malloc.NAME: VALUE (min: ..., max: ...)". */
static int loader_value(const char *name, int64_t *value, char *err, size_t errlen)
{
	Dl_info di;
	char buf[8192], *line;
	size_t n = 0, len = strlen(name);
	int fd[2], status;
	ssize_t k;
	pid_t pid;

	if (!dladdr((void *)getauxval(AT_BASE), &di) || !di.dli_fname || pipe(fd) != 0) {
		snprintf(err, errlen, "cannot find the dynamic loader");
		return -1;
	}
	if ((pid = fork()) == 0) {
		char *argv[] = {(char *)di.dli_fname, "--list-tunables", NULL};
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execve(di.dli_fname, argv, environ);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && n < sizeof buf - 1 && (k = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "%s --list-tunables failed", di.dli_fname);
		return -1;
	}
	for (line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, name, len) == 0 && line[len] == ':') {
			*value = (int64_t)strtoull(line + len + 1, NULL, 0);
			return 0;
		}
	snprintf(err, errlen, "%s --list-tunables does not list %s", di.dli_fname, name);
	return -1;
}

static enum backend_read system_read(const struct backend_option *o,
                                     const struct backend_setting *cfg, size_t ncfg, int64_t *value,
                                     char *err, size_t errlen)
{
	const char *t = getenv("GLIBC_TUNABLES");

	switch (o->proof) {
	case BACKEND_PROOF_PROBE:
		return system_probe(o, cfg, ncfg, value, err, errlen);
	case BACKEND_PROOF_LOADER:
		if (!t || !strstr(t, o->env))
			return BACKEND_READ_NONE;
		return loader_value(o->env, value, err, errlen) == 0 ? BACKEND_READ_VALUE
		                                                     : BACKEND_READ_FAIL;
	default:
		return BACKEND_READ_NONE;
	}
}

const struct backend_ops backend = {
    .name = "system",
    .flags = BACKEND_BASELINE,
    .library = "libc.so.",
    .version = system_version,
    .counters = system_counters,
    .options = system_options,
    .noptions = sizeof system_options / sizeof system_options[0],
    .env_var = "GLIBC_TUNABLES",
    .env_assign = '=',
    .env_sep = ':',
    .config_apply = system_apply,
    .config_read = system_read,
};
