/* config.h - a driver's allocator configuration (`run --config KEY=VALUE`, docs/tuning.md):
 * parsing against the backend's declared options, the environment a setting needs at process
 * start (and the re-execution that puts it there), applying the in-process settings, reading
 * back what is in force, and the JSON of the run record and of `list`/`info`. Every function
 * takes the backend table as an argument, so the unit tests link without an allocator. */
#ifndef ALLOCAB_CONFIG_H
#define ALLOCAB_CONFIG_H

#include "common/opt.h"
#include "driver/backend.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONFIG_MAX 32
/* Set in the environment of the re-executed driver: the environment was applied once. */
#define CONFIG_EXEC_VAR "ALLOCAB_CONFIG_EXEC"
/* The read-back spec `env --probe` prints for the preload probe (docs/results-format.md). */
#define PROBE_CONFIG_VAR "ALLOCAB_PROBE_CONFIG"
/* Put before the READER of a setting whose reader only returns the library's parse of the
 * request (BACKEND_PROOF_REQUESTED): the probe then records it as "requested, effect unproven". */
#define PROBE_REQUESTED_PREFIX "requested_"

struct config {
	const struct backend_ops *b;
	size_t n;
	struct backend_setting set[CONFIG_MAX];
	/* filled by config_verify */
	enum backend_read read[CONFIG_MAX];
	/* valid where read[i] is BACKEND_READ_VALUE; for BACKEND_PROOF_REQUESTED options the
	 * library's parse of the request, which is not reported as in force */
	int64_t in_force[CONFIG_MAX];
	char why[CONFIG_MAX][160]; /* reason where read[i] is BACKEND_READ_FAIL */
	int verified;
	char problem[512]; /* the first difference when !verified */
};

/* One environment assignment. */
struct config_env {
	char name[64];
	char value[2048];
};

/* An empty configuration of backend b. */
void config_init(struct config *c, const struct backend_ops *b);

/* Adds "KEY=VALUE" (value in the option's syntax: integer, bytes with k/M/G, or a choice name).
 * Returns 0, or -1 with a one-line reason in err ("--config narenas: '0' is out of range
 * 1..1024"): unknown key, bad syntax, out of range, not a multiple, given twice, too many. */
int config_add(struct config *c, const char *kv, char *err, size_t errlen);

/* --config KEY=VALUE as a row of a command's option table (common/opt.h): repeatable, each value
 * added by config_add to the configuration the settings' field F (a struct config *) points to,
 * with config_add's messages; the field NULL refuses the option. run and env share it. */
#define CONFIG_OPT_HELP                                                                            \
	"set an allocator option (see `list`; docs/tuning.md); repeatable; the record says what "  \
	"the allocator reports in force"
#define CONFIG_OPT_ROW(T, F)                                                                       \
	{"--config", 0, OPT_VALUE | OPT_REPEAT, "KEY=VALUE", .help = CONFIG_OPT_HELP,             \
	 .dest = OPT_FIELD_(T, F, struct config *), .set = config_opt_set}
/* The row's setter: config_add(*(struct config **)(settings + o's dest), v). */
int config_opt_set(void *settings, const struct opt *o, const char *v, char *err, size_t errlen);

/* The environment that applies c to a process: every setting when all is set (what a program
 * arm needs), else only the BACKEND_APPLY_ENV ones (what the driver needs). Writes at most cap
 * assignments to out and returns their number, or -1 with the reason in err. */
int config_env(const struct config *c, int all, struct config_env *out, size_t cap, char *err,
               size_t errlen);

/* The value of the probe's read-back spec (PROBE_CONFIG_VAR) for c:
 * "NAME=READER:KEY:VALUE" items joined by ';', READER "none" (and KEY empty) where the library
 * offers no reader, prefixed with PROBE_REQUESTED_PREFIX where it reads only the request; VALUE
 * is the integer, or the choice name of an enum option. Returns 0, or -1
 * with the reason in err (too long for len). */
int config_probe_spec(const struct config *c, char *buf, size_t len, char *err, size_t errlen);

/* Makes sure the process started with the BACKEND_APPLY_ENV settings of c in its environment:
 * returns 0 when it did (or none is needed); otherwise sets them and CONFIG_EXEC_VAR and
 * re-executes /proc/self/exe with argv, which does not return. Returns -1 with the reason in err
 * when exec fails or when the re-executed process still lacks them. */
int config_exec_env(const struct config *c, char *const *argv, char *err, size_t errlen);

/* Applies the BACKEND_APPLY_CALL settings. Returns 0, or -1 with the reason in err. */
int config_apply(const struct config *c, char *err, size_t errlen);

/* Reads back every setting (after the last rep) and sets c->verified: every value read or
 * probed equals the request, every environment setting is in the environment. */
void config_verify(struct config *c);

/* The run record's "configuration" object (docs/results-format.md); NULL when out of memory. */
cJSON *config_json(const struct config *c);

/* Writes an option's value as --config takes it: "32M" for exact multiples of byte counts,
 * the choice name for an enum, else decimal. */
void config_format(const struct backend_option *o, int64_t v, char *buf, size_t len);

/* The options of b as JSON (array) for `list`/`info`; with current, each gets "in_force" as
 * config_read reports it now (null when unreadable). NULL when out of memory. */
cJSON *config_options_json(const struct backend_ops *b, int current);

/* The same as text lines on f. */
void config_options_text(const struct backend_ops *b, FILE *f, int current);

/* Names of the proof kinds ("read", "probe", "loader", "accepted", "environment"). */
const char *config_proof_name(enum backend_opt_proof p);

#endif
