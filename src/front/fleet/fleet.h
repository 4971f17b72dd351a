/* fleet.h - results of several machines merged (`allocab merge`, `allocab gate` with several
 * files; docs/fleet.md): each file is one machine, compared within itself (paired rounds,
 * front/compare/compare.h); each comparison is then pooled across the machines by a
 * random-effects meta-analysis of the per-machine Hodges-Lehmann log ratios (stats_meta_re), with
 * the heterogeneity, a prediction interval for a new machine, and the machines that lie apart.
 * A machine whose file lacks an arm, a workload, a phase or a regime the others have, that did
 * other work, or whose comparison has too few rounds, keeps its row with the reason and is never
 * pooled. Method: docs/methodology.md, "A fleet of machines". Plain structs, no printing. */
#ifndef ALLOCAB_FLEET_H
#define ALLOCAB_FLEET_H

#include "common/status.h"
#include "front/compare/compare.h"
#include "front/results/results.h"
#include "front/stats/stats.h"

#include <stddef.h>

#define FLEET_MAX_FILES 1024
/* A machine is busy when another task was runnable before at least this share of its runs. */
#define FLEET_BUSY_SHARE 0.5

struct fleet_machine {
	char *label;              /* task.label, else the file name without its directory and .json */
	const struct rf_doc *doc; /* the caller's */
	struct cmp_report *r;     /* its own paired comparison; NULL when none (problem says why) */
	char *problem;            /* why the machine has no comparison at all, or NULL */
	/* What else ran on it (telemetry.runnable of its measured runs): runs with a sample, the
	 * share of them before which another task was runnable, the median of those other tasks, the
	 * median 1-minute load average (NAN unknown); busy: share >= FLEET_BUSY_SHARE. */
	size_t load_runs;
	double busy_share, others, load;
	int busy;
	/* Which machine it is (fleetgroup.c; docs/fleet.md, "One machine, several files"): unit is
	 * the index of the first file of its machine (files of one boot id are sessions of one
	 * machine), nsessions the files of that machine that are not copies; copy_of the index of an
	 * earlier file with the very same measurements (a copy under another label), else -1. */
	size_t unit, nsessions;
	long copy_of;
	char times[160]; /* which time its comparisons use (rf_times_used) */
};

/* One machine in one fleet comparison. */
struct fleet_cell {
	const struct cmp_row *row; /* its comparison, or NULL when it has none */
	int pooled;                /* entered the meta-analysis */
	char why[192];             /* not pooled: the reason, one line; "" when pooled */
	double y, se;              /* log ratio (Hodges-Lehmann) and the standard error pooled */
	/* the fixed-n standard error (fleet_row_se); below se when the machine's bench stopped on
	 * its sequential intervals and se is its sequential interval's (docs/fleet.md, "Machines
	 * that stopped on a sequential decision") */
	double se_fixed;
	double resid;              /* studentized deleted residual (3 machines pooled or more); NAN */
	int odd;                   /* |resid| > the row's odd_bound: the others do not predict it */
	int copy;                  /* not pooled because it repeats another file's measurements */
	int excludes;              /* its own interval excludes the pooled estimate */
};

/* What the machines' facts explain of one comparison (fleetexplain.c; docs/fleet.md, "A fleet
 * that explains itself"): a meta-regression of the units' log ratios on the fault cost and the
 * CPU vendor, when they vary and there are enough machines; else why not in note. */
struct fleet_explain {
	int fitted;
	size_t nmods;                          /* moderators: reg.b[1..nmods] */
	char mod[STATS_METAREG_MAX - 1][64];   /* their names */
	struct stats_metareg reg;
	double tau2_plain;                     /* the pooled row's tau^2, without moderators */
	/* the share of tau2_plain the moderators explain (1 - tau^2 / tau2_plain, at least 0), when
	 * supported: tau2_plain > 0 and the omnibus test reg.qm_p below 1 - conf; else NAN, and
	 * why in unsupported */
	double r2;
	char unsupported[160];
	/* the fault cost as measured: each file's is the mean of the bench's start and end, each
	 * machine's the mean of its sessions'; the largest start-to-end change among them, or "" */
	char spread[200];
	char note[320];                        /* moderators left out, or why nothing was fitted */
	char odd[640];                         /* what sets each machine named odd apart, or "" */
};

/* One comparison across the fleet. */
struct fleet_row {
	const char *workload; /* NULL: the geometric mean over the workloads */
	const char *phase, *candidate, *baseline;
	enum rf_regime regime;
	struct fleet_cell *cells; /* one per machine, in the machines' order */
	size_t npooled;          /* files pooled */
	/* the units pooled (meta.k): machines, each the random-effects pool of its sessions; or,
	 * when every file pooled is a session of one machine (sessions_of its label), the sessions */
	size_t nunits;
	const char *sessions_of;
	int has_meta;            /* nunits >= 2: meta is set */
	struct stats_meta meta;  /* on the log ratio ln(t_candidate / t_baseline) */
	double odd_bound;        /* stats_meta_odd_bound(1 - conf, npooled), NAN below 3 machines */
	size_t nodd, nexcludes;  /* machines named either way */
	struct fleet_explain ex;
};

struct fleet_report {
	size_t nm;
	struct fleet_machine *m;
	size_t nrows;
	struct fleet_row *rows; /* the workloads' comparisons in first-seen order, geomeans last */
	double conf;
	enum cmp_regimes regimes;
	int compared[RF_NREGIMES]; /* regimes some row compares */
	size_t nunits; /* machines: files that are not copies, sessions of one machine counted once */
	size_t nwarn;
	char **warn; /* one line each: busy machines, machines without comparisons, their warnings */
};

/* Builds the fleet of docs[0..n) (2 <= n <= FLEET_MAX_FILES, one machine each, owned by the
 * caller and kept alive until fleet_free) with the options of compare (o->bootstrap must be 0:
 * the standard errors come from the rank intervals). Returns ST_OK and *out, or with a one-line
 * reason in err: ST_USAGE for input that cannot be merged (two files with one label, files of
 * drivers and of commands, a bootstrap, no comparison on any machine), ST_FAIL when memory ran
 * out. */
enum status fleet_build(struct rf_doc *const *docs, size_t n, const struct cmp_opts *o,
                        struct fleet_report **out, char *err, size_t errlen);
void fleet_free(struct fleet_report *f);

/* Leaves the machines' telemetry out (each machine's cmp_drop_telemetry) and words the warnings
 * again. Returns 0, or -1 when memory ran out. */
int fleet_drop_telemetry(struct fleet_report *f);

/* The standard error the fleet weights a machine's comparison by: that of its Hodges-Lehmann
 * estimate, from its signed-rank interval at the fleet's level, one comparison at a time
 * (cmp_row.d_each), never from an interval widened for a family of comparisons
 * (docs/fleet.md, "Which standard error"). NAN when the row has none. merge and the gate both
 * pool with it, or with the wider one of its sequential interval when the machine's bench
 * stopped on a sequential decision (fleet_cell.se). */
double fleet_row_se(const struct cmp_row *r);

/* The pooled interval of row at another level (e.g. a gate's Bonferroni level) into *lo, *hi:
 * mu -+ t_{k-1} x se. Returns 0, or -1 when the row has no pooled estimate. */
int fleet_pooled_at(const struct fleet_row *row, double conf, double *lo, double *hi);

/* The row's explanation in one line ("meta-regression on 7 machines: fault cost (per us) +0.0026
 * [...]; residual tau^2 ... against ... without, 84% explained", or "not related to the machines'
 * facts: WHY"). Returns buf. */
const char *fleet_explain_text(const struct fleet_row *row, char *buf, size_t len);

/* "workload/phase" ("geomean" for the geometric mean; the phase only when not total) into buf.
 * Returns buf. */
const char *fleet_row_name(const struct fleet_row *row, char *buf, size_t len);

#endif
