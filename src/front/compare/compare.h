/* compare.h - the analysis behind `allocab compare` and `allocab gate`: from loaded results to a
 * list of comparisons (speedup, interval, p-values, verdict, memory), the failed runs, the rounds
 * whose noise telemetry spiked and the warnings a reader must see. Plain structs, no printing;
 * front/export/export.h renders them. Method: docs/methodology.md. */
#ifndef ALLOCAB_COMPARE_H
#define ALLOCAB_COMPARE_H

#include "common/status.h"
#include "front/results/results.h"
#include "front/stats/stats.h"

#include <stddef.h>
#include <stdint.h>

#define CMP_CONVENTION                                                                             \
	"speedup 1.12x means the candidate takes 1/1.12 of the baseline's time; "                  \
	"improvement % = (1 - t_candidate/t_baseline) x 100"
#define CMP_MIN_BOOTSTRAP 10000
#define CMP_MAX_BOOTSTRAP 100000
/* Bootstrap cost: resamples x measured rounds, each resample one Hodges-Lehmann estimate. */
#define CMP_MAX_BOOT_POINTS 1e7
#define CMP_DRIFT_P         0.01 /* Spearman p below which rounds are not exchangeable */

/* The verdicts, read off the printed interval (docs/methodology.md, "Reading the output"):
 * CMP_FASTER or CMP_SLOWER when it lies wholly beyond 1, CMP_EQUIVALENT when it lies inside the
 * equivalence margin +-M (cmp_opts.equivalence), else CMP_NO_DIFFERENCE. CMP_TOO_FEW: no verdict, and none
 * possible with these rounds: no interval of them reaches the family level (the exact
 * interval's widest level is 1 - 2/2^n; cmp_row.need). */
enum cmp_verdict {
	CMP_INSUFFICIENT,
	CMP_NO_DIFFERENCE,
	CMP_FASTER,
	CMP_SLOWER,
	CMP_TOO_FEW,
	CMP_EQUIVALENT
};
/* The equivalence margin compare and the claims check use when none is given (percent). */
#define CMP_DEFAULT_EQUIVALENCE 2.0

/* Which regimes a report compares (--regime): both (steady rows first), or one. */
enum cmp_regimes { CMP_REGIMES_BOTH, CMP_REGIMES_COLD, CMP_REGIMES_STEADY };
#define CMP_REGIMES_COUNT 3

/* The name of r ("both" for a value out of range). */
const char *cmp_regimes_name(enum cmp_regimes r);

/* The two families of a report (docs/methodology.md, "Multiplicity: the question and the rest"):
 * the primary rows are the question a report answers, simultaneous at the family level among
 * themselves; every other row shown is secondary, simultaneous at the same level among the
 * secondary rows only. Each family holds its own level: a secondary row never widens a primary
 * interval, and a primary claim never rests on a secondary one. */
enum cmp_family { CMP_FAMILY_PRIMARY, CMP_FAMILY_SECONDARY };
#define CMP_NFAMILIES 2

/* Which rows are primary (--primary): by default (all 0, phase "") each workload's compared
 * phase (cmp_opts.phase, else total) in its primary regime: steady where that phase has steady
 * times (drivers that repeat, a phase a program repeats), else cold (a program's total, a phase
 * it ran once); the geometric mean and every other row are secondary. */
struct cmp_primary {
	int all;        /* every row primary: one family over the report (earlier versions) */
	char phase[64]; /* "": cmp_opts.phase, else total */
	int regime;     /* -1: steady where the phase has steady times, else cold; else rf_regime */
};

/* "all", PHASE or PHASE:REGIME (regime cold or steady) into *out: 0, or -1 with a one-line
 * reason in err. */
int cmp_primary_parse(const char *s, struct cmp_primary *out, char *err, size_t errlen);
/* What p asks for, in words ("each workload's total, steady where it has steady times, else
 * cold"; "" stands for total). Returns buf. */
const char *cmp_primary_text(const struct cmp_primary *p, char *buf, size_t len);
/* "primary" or "secondary". */
const char *cmp_family_name(enum cmp_family f);

struct cmp_opts {
	const char *baseline;  /* one file: the baseline arm; NULL = the document's (rf_doc.baseline) */
	const char *candidate; /* NULL = every arm but the baseline (two files: every common arm) */
	const char *workload;  /* NULL = every workload */
	const char *phase;  /* NULL = the total, or every phase of a workload flagged show_phases */
	int all_phases;     /* every phase of every workload */
	double conf;        /* interval level, e.g. 0.95; alpha = 1 - conf */
	uint32_t bootstrap; /* 0 = signed-rank interval; else resamples (>= CMP_MIN_BOOTSTRAP) */
	uint64_t seed;      /* bootstrap seed */
	enum cmp_regimes regimes; /* both by default */
	/* 0: every interval simultaneous at the family level 1 - (1 - conf)/m, Bonferroni over the
	 * report's m usable comparisons (what compare prints and decides on); 1: each at conf (the
	 * gate, which sets its own levels; every row is then primary) */
	int per_comparison;
	/* the primary rows; NULL: the default (struct cmp_primary), or the document's
	 * config.primary when it has one (bench --primary) */
	const struct cmp_primary *primary;
	double equivalence; /* M percent: equivalent within +-M% (rows' verdicts); NAN: none */
	/* when not NULL: every row also gets its sequential interval after its n of the plan's N
	 * rounds at its family's level (d_seq; docs/methodology.md, "Sequential decisions") */
	const struct stats_seq_plan *seq;
	/* with seq: each row's d (what every format prints, what its verdict reads) is d_seq */
	int seq_shown;
	/* one file whose bench stopped on its sequential decisions (status decided, a plan): seq is
	 * its plan and seq_shown set (compare's report; the gate, the fleet and the engine ask
	 * their own) */
	int seq_if_decided;
};

/* One comparison. d is the log ratio ln(t_candidate / t_baseline): negative = candidate faster. */
struct cmp_row {
	const char *workload; /* NULL: the geometric mean over workloads */
	const char *phase, *candidate, *baseline;
	enum rf_regime regime;   /* the times compared: the cold rep or the steady reps */
	size_t n;                /* paired: usable rounds; two files: min(n_base, n_cand) */
	size_t n_base, n_cand;   /* ok runs behind each side */
	int usable;              /* n >= 2: the figures below are set, else NAN */
	enum cmp_family family;  /* the family whose level its intervals share */
	/* estimate and the interval the verdict rests on, the one every format prints: at its
	 * family's level (cmp_report.fam[row.family].conf) */
	struct stats_interval d;
	struct stats_interval
	    d_rank; /* signed-rank (paired) or Mann-Whitney (two files), at its family's level */
	int has_boot;
	struct stats_interval d_boot; /* percentile bootstrap, when asked for (paired only), likewise */
	struct stats_interval d_each; /* the same method's interval at conf, per comparison */
	int has_seq;                  /* d_seq is set (cmp_opts.seq) */
	struct stats_interval d_seq;  /* the sequential interval at its family's level */
	double seq_asked; /* the nominal level d_seq must reach to decide; 1: no decision yet */
	double sd;        /* standard deviation of the per-round log ratios (paired) */
	double p;         /* Wilcoxon signed-rank (paired) or Mann-Whitney, two-sided */
	double p_adj;     /* Bonferroni over the report: min(1, m p) (per comparison: p) */
	enum cmp_verdict verdict;
	int equivalent;     /* d reaches its family's level and lies within +-equiv_pct */
	double equiv_pct;   /* the report's equivalence margin (NAN: none) */
	double med_base_ns, med_cand_ns; /* median times over the ok runs of each side */
	double rss_ratio; /* peak RSS, candidate / baseline: median of paired ratios */
	size_t rss_n;
	double retained_base, retained_cand; /* median retained RSS, bytes */
	double peak_base_kib, peak_cand_kib; /* median peak RSS */
	/* per side, over its ok runs: median time of each regime (NAN: none), median resident set
	 * after the first and after the last rep, median growth (last - first), runs that did not
	 * settle (record.regimes.settled false) */
	double med_regime_base[RF_NREGIMES], med_regime_cand[RF_NREGIMES];
	double rss_first_base, rss_first_cand, rss_last_base, rss_last_cand;
	double growth_base, growth_cand;
	size_t unsettled_base, unsettled_cand;
	/* probed runs (a --program bench, --cmd with --expect), per side, medians over the ok runs:
	 * processes per run (probe.process_count) and, with --count-calls, malloc-family calls per
	 * run (probe.counts_total); NAN when the runs carry none */
	double processes_base, processes_cand, calls_base, calls_cand;
	double drift_rho, drift_p; /* log ratios (two files: log times) against round index */
	int drift;                 /* drift_p < CMP_DRIFT_P */
	size_t flagged;            /* usable rounds with a telemetry spike on either side */
	double floor_pct; /* noise floor from a calibration: MDE in % at n rounds; NAN if none */
	size_t need; /* CMP_TOO_FEW: rounds (per file with two files) a verdict needs; else 0 */
	/* a shared-CPU bench's shared rounds disagreed with its solo rounds (struct cmp_solo): the
	 * figures above are the solo rounds' */
	int solo_decided;
};

/* A shared-CPU bench (--one-cpu, --duet) with solo anchor rounds (rf_doc.round_solo): its rows
 * are built from the shared rounds and checked against the same rows of the solo rounds
 * (cmpsolo.c; docs/methodology.md, "Solo anchor rounds"). Per workload row usable in both: each
 * set's estimate, and ratio, the difference of the solo rounds' mean log ratio over the shared
 * ones' with its Welch interval (Welch-Satterthwaite df) at the row's family level, so that
 * exp(ratio) = speedup_shared / speedup_solo (as geometric means); they disagree when that
 * interval excludes 1 (equally, p < 1 - level), and then the row is the solo rounds'
 * (solo_decided). */
/* The fewest rounds of each placement the test is made with: below it Welch's interval runs
 * above its level (docs/validation.md, "One CPU against its solo rounds": 5.4-6.6% with 4 solo
 * rounds, 4.6-5.5% from 6 on, normal noise at level 0.05). */
#define CMP_SOLO_MIN_ROUNDS STATS_WELCH_MIN_N
struct cmp_solo {
	const struct cmp_row *row; /* the report's row */
	size_t n_shared, n_solo;
	struct stats_interval shared, solo; /* each set's log-ratio interval at the family level */
	enum cmp_verdict shared_verdict, solo_verdict;
	struct stats_interval ratio; /* ln(speedup_shared / speedup_solo) */
	double p, df;                /* Welch's two-sided p and degrees of freedom (NAN: none) */
	/* both sets had CMP_SOLO_MIN_ROUNDS (else no test); tested and ratio excludes 0 */
	int reached, disagree;
	char mechanism[320]; /* the likely mechanism of a disagreement, from the runs' records */
};
/* The agreement of a row's per-round log ratios in its shared and its solo rounds at level conf
 * (the row's family level): sets s->ratio (mean solo - mean shared with its Welch interval at
 * conf), s->p, s->df, s->reached and s->disagree (reached, and the interval excludes 0). Returns
 * 0, or -1 when a set is empty, holds a non-finite value, or memory ran out. */
int cmp_solo_agree(const double *shared, size_t n_shared, const double *solo, size_t n_solo,
                   double conf, struct cmp_solo *s);

struct cmp_report {
	int paired;                       /* one file: rounds paired; else two-sample */
	/* the rows' intervals are the sequential ones of the file's plan (a bench that stopped on
	 * its sequential decisions, compared alone: cmp_build) */
	int seq_shown;
	enum cmp_regimes regimes;         /* as asked */
	int compared[RF_NREGIMES];        /* regimes that have rows */
	const struct rf_doc *base, *cand; /* the same document when paired */
	const char *baseline;             /* paired: the baseline arm */
	double conf;
	/* per family: m, the usable comparisons its level is shared by (1 per comparison; 0: a
	 * family without rows), its level 1 - (1 - conf)/m, and the rounds its verdicts need */
	struct cmp_family_size {
		size_t m;
		double conf;
		size_t need;
	} fam[CMP_NFAMILIES];
	struct cmp_primary primary; /* the primary rows, as applied (phase resolved) */
	size_t family;      /* the primary family's m (fam[CMP_FAMILY_PRIMARY].m, at least 1) */
	double family_conf; /* the primary family's level: the level the report is read by */
	double equivalence; /* the margin in percent, NAN: none */
	uint32_t bootstrap;
	uint64_t seed;
	size_t nrows, nflags, nwarn;
	struct cmp_row *rows;
	struct noise_flag *flags; /* telemetry spikes in the documents compared */
	char **warn;              /* one line each, no newline */
	const char *calibration;  /* what floor_pct comes from (front/calib/calib.h), or NULL; not owned */
	long verdict_warning;     /* index in warn of the note that too few rounds leave no verdict
	                             possible (irrelevant to the gate), or -1 */
	size_t need;              /* rounds every primary comparison needs for a verdict */
	long telemetry_warning;   /* index in warn of the telemetry counts, or -1 */
	/* a shared-CPU bench with solo rounds: the checks (nsolo), the rounds of each placement,
	 * and the views of the document the rows were built from (owned) */
	struct cmp_solo *solo;
	size_t nsolo, solo_rounds, shared_rounds;
	struct rf_doc *views[2];
};

/* Builds the comparisons of cand against base (cand NULL: one file, arms paired by round).
 * Returns ST_OK (common/status.h) and in *out a report the caller frees with cmp_free, which
 * points into base and cand (keep them alive); or, with a one-line reason in err, ST_USAGE for
 * input that cannot be compared (unknown arm/workload/phase, files that did different work or
 * share no arm) and ST_FAIL when memory ran out. */
enum status cmp_build(const struct rf_doc *base, const struct rf_doc *cand,
                      const struct cmp_opts *o, struct cmp_report **out, char *err, size_t errlen);
void cmp_free(struct cmp_report *r);
/* Leaves the runs' telemetry out of r: its warning and its flags (for a summary that must stay
 * short; the comparisons keep their telemetry_flagged_rounds). */
void cmp_drop_telemetry(struct cmp_report *r);

/* Conversions from a log ratio d = ln(t_candidate / t_baseline). */
double cmp_speedup(double d);     /* exp(-d) */
double cmp_improvement(double d); /* (1 - exp(d)) x 100 */
/* The verdict's stable name: "faster", "slower", "equivalent", "no detectable difference",
 * "insufficient data" or "too few rounds for a verdict". */
const char *cmp_verdict_name(enum cmp_verdict v);
/* The verdict as a reader sees it: "equivalent within ±M%", "faster, within ±M%" (both hold),
 * "too few rounds for a verdict: need N", else the name. Returns buf. */
const char *cmp_verdict_text(const struct cmp_row *row, char *buf, size_t len);
/* A level as a percentage, to a fortieth of its complement (0.95 "95", 0.9875 "98.75", 0.999167
 * "99.917"): what every format and the gate print. Returns buf. */
const char *cmp_level_text(double level, char *buf, size_t len);
/* log(1 + pct/100): the equivalence margin on the log-ratio scale (NAN unless pct > 0). */
double cmp_equiv_log(double pct);
/* The level row's family shares: r->fam[row->family].conf. */
double cmp_row_family_conf(const struct cmp_report *r, const struct cmp_row *row);
/* Whether row's sequential interval (has_seq: cmp_opts.seq) decides it: it reached the level its
 * look asks and lies beyond 0 (faster or slower) or within the equivalence margin (equivalent).
 * Adaptive allocation lets a comparison stop on this (docs/methodology.md). */
int cmp_row_seq_decided(const struct cmp_row *row);
/* The equivalence margin to use: given when it is not NAN, else the document's
 * (config.equivalence_pct) when it has one, else dflt. */
double cmp_pick_equivalence(double given, const struct rf_doc *d, double dflt);

/* Replays (cmpreplay.c): a workload that ran on an input (rf_workload.input: a recorded process
 * replayed, docs/workloads.md) measures that process's allocation stream only. Its speedup
 * predicts the whole program's by docs/methodology.md, "Does the replay predict the program?":
 * P = t_prog / (t_prog - (t_replay,base - t_replay,cand)), with t_replay,base the baseline's
 * median cold replay time, t_replay,cand = t_replay,base / s for the cold row's speedup s, and
 * t_prog the program's own time (the recorded process's duration from the trace, or the
 * baseline's median of a --program bench). The interval is the row's, carried through P (P grows
 * with s); the two times are taken as known. */
struct cmp_program {
	const char *path; /* a --program bench whose time is t_ns, or NULL: the trace's */
	const char *arm;  /* the arm of it timed */
	double t_ns;
};

struct cmp_prediction {
	const struct cmp_row *row; /* the replay's cold comparison of one candidate */
	double est, lo, hi;        /* the predicted speedup and interval; hi INFINITY: unbounded */
};

struct cmp_replay {
	const char *workload;
	const struct rf_input *input; /* the process replayed (may be NULL for an old record) */
	enum rf_regime regime;        /* the regime the prediction rests on: cold */
	double t_prog_ns;             /* NAN: unknown */
	const char *t_prog_from;      /* the --program bench it comes from; NULL: the trace */
	const char *t_prog_arm;       /* its arm */
	double t_replay_ns;           /* the baseline's median cold replay time */
	size_t n;
	struct cmp_prediction *p; /* one per candidate with a usable cold row */
	char why_not[320];        /* n == 0: why no prediction */
};

/* The replays among r's workloads (those with an input), each with its predictions or why there
 * are none; prog NULL: the program's time is the trace's. Returns 0 and *out (cmp_replays_free,
 * NULL and *n 0 when none), or -1 when memory ran out. */
int cmp_replays(const struct cmp_report *r, const struct cmp_program *prog, struct cmp_replay **out,
                size_t *n);
void cmp_replays_free(struct cmp_replay *x, size_t n);
/* The program's time from a --program (or --cmd) bench prog: the median process time of its ok
 * measured runs of arm (NULL, or an arm it lacks: its baseline), the arm used in *used. Returns 0,
 * or -1 with the reason in err (not a commands bench, no ok run). */
int cmp_program_time(const struct rf_doc *prog, const char *arm, double *t_ns, const char **used,
                     char *err, size_t errlen);

/* What a comparison's difference is made of (attrib.c; docs/methodology.md, "What a difference is
 * made of"). Per round (two files: per run) the compared time t is split into user time, system
 * time and the rest, t - user - sys (CPU time: what the medians of the three leave; wall time:
 * the time off the CPU), so the parts' paired differences cand - base add up to the total's in
 * every round. Each difference's Hodges-Lehmann estimate and signed-rank interval (two files: the
 * HL shift) are at the row's family level, in ns; the parts' estimates need not sum to the
 * total's, so adds_up says whether their sum lies within the total's interval. Minor faults per
 * rep: the HL of the paired differences of the counts (differences, not log ratios: a count can
 * be 0, and a difference in faults times the cost of a fault is a difference in system time). */
enum cmp_part { CMP_PART_USER, CMP_PART_SYS, CMP_PART_REST, CMP_NPARTS };

struct cmp_attrib {
	const struct cmp_row *row;
	int usable; /* a workload row whose runs carry user and system times in >= 2 rounds */
	int cpu;    /* the row compares CPU time (the rest is a residual), else wall time */
	size_t n;   /* pairs (two files: the smaller side's runs) */
	struct stats_interval total;            /* cand - base of the compared time, ns */
	struct stats_interval part[CMP_NPARTS]; /* the same of each part */
	double parts_sum;                       /* the sum of the parts' estimates */
	int adds_up;                            /* parts_sum lies within total's interval */
	double share[CMP_NPARTS];               /* part estimate / total estimate (NAN at 0) */
	struct stats_interval minflt;           /* cand - base of minor faults per rep */
	/* medians per rep over each side's runs */
	double minflt_base, minflt_cand, majflt_base, majflt_cand;
	double user_base, user_cand, sys_base, sys_cand; /* ns */
};

/* One attribution per row of r (in row order; rows without one have usable 0: the geometric
 * means, phases without counts, runs written before the counts existed). Returns 0 and *out
 * (cmp_attribs_free), or -1 when memory ran out. */
int cmp_attribs(const struct cmp_report *r, struct cmp_attrib **out);
void cmp_attribs_free(struct cmp_attrib *a);
/* "user", "sys", "rest". */
const char *cmp_part_name(enum cmp_part p);

/* The machine facts (rf_doc.facts, at the start) in which two documents differ: a bit per fact,
 * the fault cost when the ranges [min, max] of the two are disjoint (cmpfacts.c). 0 when either
 * has no facts. */
enum cmp_fact {
	CMP_FACT_VENDOR = 1u << 0,
	CMP_FACT_MODEL = 1u << 1,
	CMP_FACT_HYPERVISOR = 1u << 2,
	CMP_FACT_KERNEL = 1u << 3,
	CMP_FACT_THP = 1u << 4,
	CMP_FACT_FAULT = 1u << 5,
};
unsigned cmp_facts_differ(const struct rf_doc *a, const struct rf_doc *b);

/* Noise (noise.c): runs disturbed from outside the benchmark: a run whose involuntary context switches,
 * stolen CPU time or load average lie beyond what this very bench shows as normal for the machine
 * is flagged, so that a reader can see which rounds to distrust. Flags never remove data:
 * dropping rounds after looking at them would bias the estimate. Also the warnings about the
 * documents: a different machine or allocator environment moves numbers as much as an allocator.
 * Method: docs/methodology.md, "Noise telemetry and drift". */
#define NOISE_FENCE_IQR 3.0 /* flagged: value > max(Q3 + 3 IQR of the values above 0, floor) */

struct noise_flag {
	const struct rf_doc *doc;
	size_t pos;         /* position among the document's measured rounds */
	size_t round;       /* the round's index */
	size_t arm, wl;     /* indices into the document */
	const char *metric; /* static name, e.g. "loadavg_1m" */
	double value, threshold;
};

/* Appends a flag to *flags (grown with realloc, owned by the caller) for every ok measured run of
 * doc whose telemetry lies beyond the bench's normal: Q3 + NOISE_FENCE_IQR x IQR of the values
 * above 0 (how much there is when there is any) over the ok runs of all arms of the same workload
 * for context switches, of every workload for the machine-wide steal and load average, and at
 * least the metric's floor (the floor alone with fewer than 4 such values, however few the
 * runs). Returns 0, or -1 when memory ran out (*flags still valid). */
int noise_flag_spikes(const struct rf_doc *doc, struct noise_flag **flags, size_t *nflags);
/* Whether run (pos, arm, wl) of doc carries a flag. */
int noise_spiked(const struct noise_flag *flags, size_t nflags, const struct rf_doc *doc,
                 size_t pos, size_t arm, size_t wl);
/* Appends to *warn (grown with realloc; lines malloc'd, owned by the caller) what a reader must
 * know about the documents themselves: a bench that did not end as asked (statuses other than
 * complete, budget and decided), allocator-steering environment
 * variables, and when b is not NULL a machine fingerprint or environment that differs from a's.
 * Returns 0, or -1 when memory ran out. */
int noise_doc_warnings(const struct rf_doc *a, const struct rf_doc *b, char ***warn, size_t *nwarn);
/* Appends one formatted line to *warn (as noise_doc_warnings). Returns 0, or -1 (memory). */
int noise_warnf(char ***warn, size_t *nwarn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
