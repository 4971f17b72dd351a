/* params.h - the driver's `run` command line as plain data: strict parsing and validation of
 * options and workload parameters. The options are typed rows of common/opt.h (type, range,
 * default, destination in struct run_opts); a parameter's value is read by a row made from its
 * wl_param. No I/O and no exit: every function returns an error with a one-line reason in the
 * rows' form ("--param rows: 0 is out of range [1, 4096]") that the caller prints. */
#ifndef ALLOCAB_PARAMS_H
#define ALLOCAB_PARAMS_H

#include "common/opt.h"
#include "driver/workload.h"

struct config;

#include <stddef.h>
#include <stdint.h>

#define PARAMS_SEED_DEFAULT 42
/* Seeds are JSON numbers in the results: 2^53 - 1 is the largest that every reader keeps exact. */
#define PARAMS_SEED_MAX 9007199254740991ULL
#define PARAMS_REPS_MAX 1000
/* Limits on one driver run (docs/workloads.md, "Limits"). The other half of memory is for the
 * system, the front end, and the allocator's own overhead and fragmentation. */
#define PARAMS_MEM_SHARE   2
#define PARAMS_WORK_FACTOR 100
/* The work limit of a workload whose input decides its work (workload.h, input_cost) is counted
 * in estimated seconds: PARAMS_WORK_FACTOR runs of this many, about what one run of the other
 * workloads at --scale large takes on the 2-core machine of docs/workloads.md. */
#define PARAMS_WORK_RUN_S 10.0

/* How many reps a run makes (docs/methodology.md, "Cold start and steady state"). */
enum params_reps_mode { PARAMS_REPS_AUTO, PARAMS_REPS_FIXED };

struct run_opts {
	const struct workload *wl;
	enum wl_scale scale; /* an int-sized enum: the --scale row's OPT_ENUM destination */
	uint64_t seed;
	enum params_reps_mode reps_mode; /* auto unless --reps N */
	int reps;          /* fixed: --reps N; auto: the cap, --max-reps (default 20) */
	double steady_tol; /* --steady-tol P%: the rule's tolerance as a fraction */
	unsigned max_reps; /* --max-reps, copied into reps with --reps auto */
	double steady_tol_pct; /* --steady-tol as given, in percent */
	int steady_cpu;    /* --steady-time cpu: the rule judges the reps' CPU times, not wall */
	const char *out;   /* "-" is stdout; points into argv */
	struct config *config; /* --config's settings (driver/config.h), or NULL */
	int64_t
	    value[WL_MAX_PARAMS]; /* effective values in table order: scale default or --param */
	unsigned char given[WL_MAX_PARAMS]; /* 1 where --param set the value */
	const char *str[WL_MAX_PARAMS];     /* string parameters' values ("" if unset); into argv */
};

/* Parses the arguments that follow "run" (argc/argv exclude "run") against a NULL-terminated
 * registry: one WORKLOAD and the options of params_run_options() (--param KEY=VALUE, --scale,
 * --seed, --reps N|auto, --max-reps N (auto only), --steady-tol P%, --steady-time wall|cpu,
 * --out, --config KEY=VALUE into o->config by config_add; o->config NULL refuses it), each as
 * "--opt VALUE" or "--opt=VALUE", in any order, their defaults and ranges those of the rows.
 * Giving an option or a KEY twice is an error; --help is ignored (the caller looks for it first).
 * The caller sets o->config; the rest of *o is reset. Returns 0 with *o filled, or -1 with the
 * reason in err. *o keeps pointers into argv. */
int params_parse_run(int argc, char *const *argv, const struct workload *const *registry,
                     struct run_opts *o, char *err, size_t errlen);

/* The option table of `run` (common/opt.h), n rows: the usage and man page entries of the
 * driver's options (driver.c). */
const struct opt *params_run_options(size_t *n);
/* The index of its --help row (-h too; hidden): parsed, left to the caller (opt_seen). */
int params_help_row(void);
/* The driver's --help row, in the table of every command. */
#define PARAMS_HELP_ROW {"--help", 'h', OPT_REPEAT | OPT_HIDDEN, NULL, .help = NULL}

/* "small" | "default" | "large" (the --scale row's words); "?" for another value. */
const char *params_scale_name(enum wl_scale s);

/* Whether a parameter's value is text (WL_PARAM_STRING). */
int params_is_string(const struct wl_param *p);

/* Whether a parameter's values are byte counts (and so accept k/M/G suffixes). */
int params_is_bytes(const struct wl_param *p);

/* Writes v the way `list` shows it: "64M" for exact binary multiples of byte counts, else decimal.
 */
void params_format(const struct wl_param *p, int64_t v, char *buf, size_t len);

/* Runs the workload's own check() on o's values, then refuses a footprint (every buffer the
 * workload keeps) above 1/PARAMS_MEM_SHARE of phys_bytes (physical memory), and work (its work()
 * times --reps) above PARAMS_WORK_FACTOR runs at the large preset. Returns 0, or -1 with the
 * reason in err. */
int params_validate(const struct run_opts *o, uint64_t phys_bytes, char *err, size_t errlen);

/* After the workload's setup(): refuses its loaded input (*c, from its input_cost) with the same
 * limits as params_validate: a footprint above 1/PARAMS_MEM_SHARE of phys_bytes, and c->run_s
 * times --reps above PARAMS_WORK_FACTOR runs of PARAMS_WORK_RUN_S seconds. Returns 0, or -1 with
 * the reason in err. */
int params_validate_input(const struct run_opts *o, const struct wl_input_cost *c,
                          uint64_t phys_bytes, char *err, size_t errlen);

/* Number of names in a workload's phases list (0 for NULL), at most WL_MAX_PHASES. */
size_t params_nphases(const struct workload *wl);

#endif
