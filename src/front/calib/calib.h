/* calib.h - the noise floor of this machine (docs/calibration.md): A/A rounds, one backend
 * against itself, reduced to the spread of the per-round log ratios, the false positives the
 * method makes on them, their drift, and the minimum detectable effect for a number of rounds or
 * a budget. The pure computations (calib_*) work on caller-owned arrays; calibrate.c also reads
 * and writes the allocab-calibration/1 file that `compare` and `gate` consult. The report is
 * calib_report below; the command is front/cmd/calibrate.c. */
#ifndef ALLOCAB_CALIB_H
#define ALLOCAB_CALIB_H

#include "front/results/results.h"
#include "common/status.h"
#include "front/stats/stats.h"

#include <stddef.h>
#include <stdio.h>
#include <cjson/cJSON.h>

#define CALIB_SCHEMA       "allocab-calibration/1"
#define CALIB_DEFAULT_PATH "results/calibration.json"
#define CALIB_ALPHA        0.05
#define CALIB_POWER        0.80
#define CALIB_BLOCK        10 /* rounds per A/A sub-comparison */
#define CALIB_MAX_EFFECTS  8
/* What a calibration file and the command line accept (docs/calibration.md). */
#define CALIB_ALPHA_MIN  1e-6 /* alpha in [CALIB_ALPHA_MIN, CALIB_ALPHA_MAX) */
#define CALIB_ALPHA_MAX  0.5
#define CALIB_POWER_MIN  0.01 /* power in [CALIB_POWER_MIN, CALIB_POWER_MAX) */
#define CALIB_POWER_MAX  1.0
#define CALIB_MAX_ROUNDS 1000000000ull
#define CALIB_MAX_SD     100.0 /* of log ratios: e^100 is no timing */
/* Theil-Sen slopes of calib_drift: all pairs up to this many, else a seeded sample of them. */
#define CALIB_MAX_SLOPES ((size_t)1 << 22)
#define CALIB_SLOPE_SEED 0x7e115e7ULL

/* Spread and A/A verdict of the log ratios d_r = ln(t_B / t_A). */
struct calib_noise {
	size_t n;
	double sd, mad;            /* sample sd; MAD scaled to the normal sd */
	struct stats_interval est; /* Hodges-Lehmann, signed-rank interval at 1 - alpha */
	double p;                  /* Wilcoxon signed-rank */
	int false_positive;        /* the interval excludes 0: the method would call A != A */
};

/* Disjoint blocks of `size` consecutive rounds, each judged as its own A/A comparison. */
struct calib_blocks {
	size_t size, count, rejected; /* rejected: blocks whose interval excludes 0 */
};

/* Trend of a series against its round index; the slope from at most CALIB_MAX_SLOPES pairs. */
struct calib_drift {
	double rho, p; /* Spearman rank correlation and its two-sided p */
	double slope;  /* Theil-Sen: median of pairwise slopes, units per round */
};

/* Each returns 0, or -1 when memory ran out or the input is too short (n < 2; blocks: size < 2). */
int calib_noise(const double *d, size_t n, double alpha, struct calib_noise *out);
int calib_blocks(const double *d, size_t n, size_t size, double alpha, struct calib_blocks *out);
int calib_drift(const double *x, size_t n, struct calib_drift *out);

/* Effect sizes in percent of time (t_B / t_A = 1 + pct/100) and log ratios, both ways. */
double calib_pct(double log_ratio); /* (exp(d) - 1) x 100 */
double calib_log(double pct);       /* ln(1 + pct/100) */
/* Minimum detectable slowdown in percent for n rounds of log-ratio sd (stats_mde); INFINITY when
 * n rounds cannot reach alpha at all. */
double calib_mde_pct(double sd, size_t n, double alpha, double power);
/* Rounds for an effect of pct percent (stats_rounds_needed on calib_log(pct)); 0 if invalid. */
size_t calib_rounds_for(double sd, double pct, double alpha, double power);
/* The same for the sequential gate of bench --gate: the plan of rounds that decides an effect of
 * pct percent with that power (stats_seq_rounds_needed); 0 if invalid. */
size_t calib_seq_rounds_for(double sd, double pct, double alpha, double power);
/* The smallest equivalence margin in percent that n rounds establish with that power when the
 * true difference is 0 (stats_equiv_margin); INFINITY when n rounds cannot reach alpha. */
double calib_equiv_pct(double sd, size_t n, double alpha, double power);

/* Where the variance is (vardecomp.c; docs/methodology.md, "Where the variance is"): log rep
 * times of many processes, several reps each, split into rep to rep within a process, and process
 * to process, which is split again into what consecutive processes share (the machine's load over
 * seconds and minutes) and what is specific to one process (layout, page placement, CPU). */
struct calib_var_input {
	const double *y;     /* log times; process p's reps, in run order, are y[start[p]..start[p+1]) */
	const size_t *start; /* nproc + 1 offsets, nondecreasing */
	const size_t *cell;  /* per process its arm x workload cell, < ncells: cell means are removed */
	size_t nproc, ncells;
};

struct calib_var {
	size_t nproc, nobs;
	double reps;     /* harmonic mean of the reps per process */
	double within;   /* rep to rep: pooled variance of the reps around their process's mean */
	double rep_rho;  /* lag-1 autocorrelation of those residuals (NAN when all are 0) */
	double between;  /* process to process: variance of the process means around their cell's
	                    mean (df: processes - cells) less within / reps; at least 0 */
	double moment;   /* of between, the lag-1 autocovariance of the centred process means in the
	                    order they ran, clamped to [0, between]: what neighbours in time share */
	double process;  /* between - moment: specific to the process */
};

/* Decomposes in's log times (processes in the order they ran). Returns 0, or -1 when a process
 * has no rep, a cell is out of range, a time is not finite, no process has two reps, there are
 * fewer than cells + 2 processes, or memory ran out. */
int calib_vardecomp(const struct calib_var_input *in, struct calib_var *out);
/* The variance of one process's estimate from `reps` reps under v: between + within / reps. */
double calib_var_sample(const struct calib_var *v, double reps);
/* The reps per process that minimise variance x cost when a process costs process_s seconds
 * beyond its measured reps and a rep rep_s: sqrt(within x process_s / (between x rep_s));
 * INFINITY when between is 0 or a cost is invalid. */
double calib_var_best_reps(const struct calib_var *v, double process_s, double rep_s);

/* The budget's yield (yield.c; docs/methodology.md, "The budget's yield"): what a comparison got
 * and what more rounds would buy, planned from the sd of its own log ratios as calibrate plans. */
struct cmp_row;
struct calib_yield {
	int decided;        /* faster, slower or equivalent, or decided by its sequential interval */
	double half_pct;    /* half-width of its interval now (calib_half_pct) */
	/* planned, as calibrate plans, from sd = calib_interval_sd of its interval, at the level a
	 * = 1 - that interval's level (the report's family level): */
	double half2_pct;   /* expected with twice its rounds: calib_mde_pct(sd, 2n, a, 0.5) */
	size_t for_verdict; /* undecided: rounds a verdict needs if the estimate holds,
	                       calib_rounds_for(sd, |estimate|, a, power); 0 when decided or the
	                       estimate is 0; SIZE_MAX beyond reach */
};

/* The half-width of an interval of log ratios in percent of time: 100 (exp((hi - lo) / 2) - 1). */
double calib_half_pct(const struct stats_interval *d);
/* The per-round sd of log ratios that a rank interval of n rounds implies: the sd whose normal
 * interval at d's level, deflated by the signed-rank efficiency 3/pi, is as wide:
 * (hi - lo) / 2 x sqrt(n 3/pi) / z_{1-(1-level)/2}. Robust to outliers as the interval is; NAN
 * for n < 2 or an empty interval. */
double calib_interval_sd(const struct stats_interval *d, size_t n);
/* The yield of one paired comparison row. Returns 0, or -1 when the row is not usable. */
int calib_yield(const struct cmp_row *row, double power, struct calib_yield *out);
/* Prints the yield of every comparison `allocab compare` makes by default on the bench document
 * doc to f. Returns ST_OK, or with err set ST_USAGE (the document cannot be compared) or
 * ST_FAIL (out of memory). */
enum status calib_yield_report(const cJSON *doc, FILE *f, char *err, size_t errlen);

/* One calibrated comparison of a calibration file, for `compare`. */
struct calib_entry {
	char *workload, *phase;
	size_t rounds;
	double sd;         /* of the A/A log ratios */
	enum rf_time time; /* the time those compared ("time"; wall when absent) */
};

struct calib_file {
	char *path, *backend, *scale, *created_utc;
	char desc[512];      /* one line for reports: path, backend, scale, date */
	char machine_id[17]; /* "" if absent */
	double alpha, power;
	size_t n;
	struct calib_entry *e;
};

/* Reads and validates an allocab-calibration/1 file through jl_load (common/jsonload.h: regular
 * files only, size-capped, nothing after the JSON value). Returns it (free with calib_file_free)
 * or NULL with "PATH: problem" in err; *absent is 1 when the file does not exist, else 0.
 * Refused: a wrong schema, missing backend or config.scale, alpha or power out of range, rounds
 * not an integer, sd not null or finite in 0..CALIB_MAX_SD, a workload and phase listed twice. */
struct calib_file *calib_load(const char *path, int *absent, char *err, size_t errlen);
/* The same checks on a document in memory, named path in messages, into *out. Returns ST_OK, or
 * with *out NULL and the reason in err ST_USAGE (invalid) or ST_FAIL (out of memory). */
enum status calib_from_json(const cJSON *doc, const char *path, struct calib_file **out,
                            char *err, size_t errlen);
/* The entry of a workload and phase, or NULL. */
const struct calib_entry *calib_find(const struct calib_file *c, const char *workload,
                                     const char *phase);
void calib_file_free(struct calib_file *c);

struct cmp_report;
/* What calib_apply gives compare: the calibration file (NULL: none applies; the caller frees it
 * with calib_file_free) and a warning ("" when none). */
struct calib_floor {
	struct calib_file *file;
	char warn[1024];
};
/* compare's noise floor: loads the calibration at path (NULL: CALIB_DEFAULT_PATH, skipped when
 * absent, invalid, or from another machine than r's results) into out->file and sets floor_pct
 * of every paired row of r whose workload and phase it calibrated: the MDE at the row's rounds,
 * alpha 1 - r->family_conf (the level of its intervals). When it set any, r->calibration points
 * to out->file->desc. Returns 0, with out->warn set when the default file is invalid or a given
 * one does not apply (other machine, nothing calibrated), or -1 with err set when a given path
 * cannot be read. */
int calib_apply(struct cmp_report *r, const char *path, struct calib_floor *out, char *err,
                size_t errlen);

/* What `allocab calibrate` reports for one workload (and phase) of an A/A document. */
struct calib_result {
	const char *workload, *phase; /* point into the rf_doc */
	enum rf_time time;            /* the time compared (the document's config.time) */
	size_t n;
	double *d;          /* n log ratios in round order (owned) */
	double median_a_ns; /* median time of arm A */
	double round_s;     /* median wall time of the two runs of a round, seconds */
	struct calib_noise noise;
	struct calib_blocks blocks;
	struct calib_drift drift_ratio; /* of d: rounds are not exchangeable when it trends */
	struct calib_drift drift_time;  /* of ln t_A: session drift, which pairing cancels */
};

struct calib_plan {
	double alpha, power;
	size_t block;
	size_t for_rounds[4]; /* MDE rows to report; 0 ends the list */
	double for_budget_s;  /* 0: none */
	double effects[CALIB_MAX_EFFECTS];
	size_t neffects;
};

/* What an A/A analysis compares: arm b over arm a of every workload at phase (NULL: total),
 * judged by plan. */
struct calib_ask {
	const char *a, *b, *phase;
	const struct calib_plan *plan;
};

/* The A/A analysis ask describes of doc. Returns 0 with *out (calib_results_free) and *nout, or
 * -1 with a reason in err. */
int calib_analyze(const struct rf_doc *doc, const struct calib_ask *ask, struct calib_result **out,
                  size_t *nout, char *err, size_t errlen);
void calib_results_free(struct calib_result *r, size_t n);

/* The allocab-calibration/1 document (caller owns it): meta holds backend, runs_file, config and
 * machine members copied in as given. NULL when memory ran out. */
cJSON *calib_json(const struct calib_result *r, size_t n, const struct calib_plan *plan,
                  double suite_round_s, const cJSON *meta);

/* The report of `allocab calibrate` (calibreport.c). Analyses what ask names (arms a and b, the
 * phase, the plan) of an A/A allocab-bench/1 document, named where->runs_path in messages and in
 * the file, prints the noise-floor report to where->report and writes the calibration to
 * where->out atomically. Returns
 * ST_OK, or with err set ST_FAIL on a runtime failure or ST_USAGE when the document is not an A/A
 * comparison (common/status.h). */
struct calib_where {
	const char *runs_path; /* the A/A document's name in messages and in the calibration */
	const char *out;       /* the calibration file written */
	FILE *report;          /* where the report is printed */
};
enum status calib_report(const cJSON *doc, const struct calib_ask *ask,
                         const struct calib_where *where, char *err, size_t errlen);

#endif
