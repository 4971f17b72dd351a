/* armspec.h - configured arms, `--arm LABEL=BACKEND[:KEY=VALUE]...` (docs/tuning.md): the
 * parser, and the check that asks the backend's driver (`allocab-BACKEND env --config ...`)
 * whether it takes the settings, which also yields the environment a program needs for them. */
#ifndef ALLOCAB_ARMSPEC_H
#define ALLOCAB_ARMSPEC_H

#include <signal.h>
#include <stddef.h>

struct arm_spec {
	char *label;   /* [A-Za-z0-9_.-]+, the arm's name in results, compare and gate */
	char *backend; /* [a-z0-9_]+: the driver allocab-BACKEND */
	char **config; /* "KEY=VALUE" as given, for the driver's --config */
	size_t nconfig;
};

/* Parses one --arm value into *a (every string malloc'd). Refuses a missing '=', a bad label or
 * backend name, an empty, malformed or repeated KEY=VALUE. Returns 0, or -1 with a one-line
 * reason in err ("--arm: ..."); *a is then empty. */
int armspec_parse(const char *s, struct arm_spec *a, char *err, size_t errlen);

/* Frees what a owns and empties it; accepts NULL. */
void armspec_free(struct arm_spec *a);

/* "mmap_threshold=32M trim_threshold=256M": the settings joined by blanks, into buf. */
void armspec_join(const struct arm_spec *a, char *buf, size_t len);

/* Runs `driver env --config KEY=VALUE...` for a's settings (stop may be NULL). Returns 0 with the
 * output of `driver env --probe ...` (NAME=VALUE lines, the probe's read-back spec
 * ALLOCAB_PROBE_CONFIG among them; malloc'd) in *env when env is not NULL; ST_USAGE when the
 * driver refused a setting (err: its one line); ST_FAIL when it could not be run (err set). */
int armspec_check(const char *driver, const struct arm_spec *a, const volatile sig_atomic_t *stop,
                  char **env, char *err, size_t errlen);

/* Splits the output of `driver env` ("NAME=VALUE" lines) into a NULL-terminated array of
 * malloc'd strings, the form an arm's extra environment takes for a program's runs. Refuses a
 * line that is not NAME=VALUE with NAME in [A-Z0-9_]. Returns the count, or -1 with a reason in
 * err; free the array with armspec_env_free. */
int armspec_env_list(const char *text, char ***env, char *err, size_t errlen);
void armspec_env_free(char **env);

#endif
