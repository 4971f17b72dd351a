/* rfload.h - private to the results reader (resfile.c, rfrounds.c, rfrecord.c): the loader state, its
 * one-line failures and the strict field readers both files use. Not for other modules. */
#ifndef ALLOCAB_RFLOAD_H
#define ALLOCAB_RFLOAD_H

#include "common/jsonstrict.h"
#include "common/steady.h"
#include "front/results/results.h"

#include <stddef.h>
#include <cjson/cJSON.h>

#define RUN_SCHEMA  "allocab-run/1"
#define RF_MAX_REPS 4096

struct loader {
	struct rf_doc *d;
	char *err;
	size_t errlen;
	int nomem;
	double clock_ticks_per_s; /* USER_HZ, the unit of telemetry.steal_ticks */
	/* rounds (rl_round): per workload the arm of its first ok run (a name in d->arms) and a
	 * copy of that run's record.workload, the runs seen, and the allocated lengths of d's
	 * growing tables; rl_forget frees what they hold */
	const char **first_arm;
	cJSON **first_wl;
	double *rep_t; /* a record's rep times by phase (rl_record), RF_MAX_PHASES x RF_MAX_REPS */
	double *rep_c; /* the same of their CPU times, NAN where a rep has none */
	size_t nruns, runs_cap, warm_cap, index_cap, fails_cap, usage_cap, solo_cap;
};

/* *p (of *cap elements of size elem) grown to hold at least need, doubling (rfrecord.c).
 * Returns 0, or -1 with "out of memory" set. */
int rl_grow(struct loader *l, void **p, size_t *cap, size_t need, size_t elem);
/* Reads the next round of the document (its index must be its place: 0, 1, ...) into l->d's
 * tables. Returns 0, or -1 with the reason set. */
int rl_round(struct loader *l, const cJSON *round);
/* Frees the loader's own memory (not the document). */
void rl_forget(struct loader *l);
/* After the rounds, before rl_forget (rfinput.c): every workload's input from its first ok run's
 * record.workload.input into rf_workload.input. Returns 0, or -1 with the reason set. */
int rl_inputs(struct loader *l);
void rf_input_free(struct rf_input *in);
/* A run's probe figures (rfinput.c): probe.process_count and the calls of probe.counts_total
 * into run (NAN when absent). Returns 0, or -1 with "AT: probe..." set. */
int rl_probe(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at);

/* A command run's CPU time (rfcpu.c): containment.cgroup_cpu's user_ns + sys_ns when the run has
 * it, else process.user_ns + sys_ns, into run's CPU basis (NAN when neither). Returns 0, or -1
 * with the reason set. */
int rl_cpu(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at);
/* After an ok run of w: marks the phases the run has a wall time and no CPU time of. */
void rl_note_cpu(struct rf_workload *w, const struct rf_run *run);
/* Before rf_use_time, once the runs are loaded: every arm's CPU/wall ratio kept for
 * rf_cpu_wall_ratio, and a commands document's workloads flagged single_threaded by those
 * ratios (auto's rule). */
void rl_cpu_auto(struct rf_doc *d);

/* The optional "sessions" list (rfsessions.c), after the rounds: each a known status (one of
 * statuses), the first at round 0, the others in order within the rounds. Returns 0, or -1 with
 * the reason set. */
int rl_sessions(struct loader *l, const cJSON *sessions, const char *const *statuses);

/* Resource counts (rfusage.c): every count NAN; the medians per regime and phase of the reps of
 * a driver record rl_record has read; a command run's process totals as its cold total. Return
 * 0, or -1 with the reason set. */
int rl_usage_reps(struct loader *l, const struct rf_workload *w, const cJSON *reps,
                  struct rf_run *run, const char *at);
int rl_usage_process(struct loader *l, const cJSON *jr, struct rf_run *run, const char *at);

/* The document's "facts" (rffacts.c) into l->d->facts, read strictly; d->fault_ns and
 * d->cpu_vendor from them (absent or null: unknown; the vendor else from machine.cpu_model).
 * Returns 0, or -1 with the reason set. */
int rl_facts(struct loader *l, const cJSON *facts, const cJSON *machine);

/* "PATH: reason" into l->err, as one line whatever the names in it (control characters and bytes
 * that are not UTF-8 as \xNN, common/utf8.h); returns -1. */
int rl_fail(struct loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether s (may be NULL) can name an arm, a workload or a phase: non-empty, no control
 * character or DEL (allocab never writes such a name, and it would break every text format). */
int rl_is_name(const char *s);
/* "PATH: out of memory", remembered for errno ENOMEM; returns -1. */
int rl_nomem(struct loader *l);
/* Whether s (may be NULL) is one of the NULL-terminated list: a status among the known ones. */
int rl_in_list(const char *s, const char *const *list);
/* rfconfig.c: the document's config (arms, workloads, grid, arm configurations, baseline, time,
 * and rl_decision_plan's part) into l->d; rl_decision_plan: config.equivalence_pct,
 * config.primary and config.sequential (the plan of a sequential gate) alone. Each returns 0, or
 * -1 with the reason set. */
int rl_config(struct loader *l, const cJSON *cfg);
int rl_decision_plan(struct loader *l, const cJSON *cfg);
/* Member key of o when o is an object, else NULL; rl_get_str: the same if it is a string. */
const cJSON *rl_get(const cJSON *o, const char *key);
const char *rl_get_str(const cJSON *o, const char *key);
/* rl_get for keys looked up in the order a writer puts them: the search starts after *cur (the
 * member the last lookup in o found; NULL before the first) and wraps around; *cur is set to the
 * member found. The same member as rl_get's in an object without a repeated name, which strict
 * reading guarantees (docs/results-format.md, "Reading files"). */
const cJSON *rl_get_after(const cJSON *o, const cJSON **cur, const char *key);
/* v as compact JSON text ("null" for NULL), malloc'd; NULL when memory ran out. */
char *rl_compact(const cJSON *v);
/* A figure that may be absent or null (*out NAN), else a finite number in [0, hi]. Returns 0, or
 * -1 with "AT: OBJ.KEY is not a number in 0..HI". */
int rl_opt_num(struct loader *l, const cJSON *o, const char *key, double hi, const char *at,
               const char *obj, double *out);
/* A resource count (docs/results-format.md, "Resource counts") that may be absent or null (*out
 * NAN), else an integer in [0, RF_MAX_FIGURE]. rl_count: the value v, 0 (*out the count, NAN when
 * absent or null) or -1 when it is no such integer (*out NAN); rl_opt_count: o's member key, 0
 * or -1 with "AT: OBJ.KEY is not an integer in 0..1e+18". */
int rl_count(const cJSON *v, double *out);
int rl_opt_count(struct loader *l, const cJSON *o, const char *key, const char *at,
                 const char *obj, double *out);
/* A time: an integer number of nanoseconds in 1..RF_MAX_WALL_NS. Returns 1 and *out, else 0. */
int rl_wall_ns(const cJSON *v, double *out);
/* The allocab-run/1 record of an ok run of workload wi by arm (a name in l->d->arms; at: where,
 * for messages): phases, median time per phase into run, the times of each regime (cold,
 * steady), whether the run settled, memory figures (the resident set after the first and the last
 * rep), and the check that it did the work of the workload's first ok run (l->first_arm,
 * l->first_wl). Returns 0 or -1 with the reason set. */
int rl_record(struct loader *l, size_t wi, const char *arm, const cJSON *rec, struct rf_run *run,
              const char *at);
/* The phases an ok command run jr of workload wi marked itself (its "phase_marks", rfmarks.c):
 * the first marked run appends their names to the workload's phases, every other ok run must
 * mark the same ones (or, when the first marked none, none); their cold time (the first span)
 * and steady time (mean of the steady spans) into run, run->settled from theirs (0 when one
 * never settled). Returns 0 or -1 with the reason set. */
int rl_marks(struct loader *l, size_t wi, const cJSON *jr, struct rf_run *run, const char *at);

/* An allocab-bench/2 file read line by line (rflines.c). */
struct rl_lines {
	const char *path;
	int fd;
	char *buf;                /* file bytes [foff, foff + blen), the next line at bpos */
	size_t bufcap, blen, bpos, foff;
	int rewound;              /* the second pass (the rounds) has begun */
	size_t size, cap, nodes;  /* the file's size when opened, the size cap, values parsed */
	size_t first;    /* where the line after the header starts */
	size_t end;      /* where the complete lines end */
	size_t nrounds;  /* round lines among them */
	int torn;        /* the last line: 1 has no newline, 2 holds truncated JSON */
	int nomem;
	cJSON *head;     /* the header with every update line merged */
	struct jst_arena arena; /* the round line rl_lines_rounds read last */
	/* The rounds read as the first pass finds them (rl_lines_open's live), and the values their
	 * lines hold; reread: that reading was dropped, and the rounds are read again. */
	struct loader *live;
	size_t live_nodes;
	int reread;
};
/* Opens path (jl_open's limits), parses its header and update lines strictly and finds its round
 * lines and a torn last line. Returns 0, or -1 with err and *why (s freed).
 * With live: live->head(live->l, header) first, then every round line, as it is found, through
 * rl_round into live->l, the file read once. That reading stands only while the rounds are read
 * under the header as the file's whole head would have them: an update line that sets a member of
 * config other than sequential, a failed head or rl_round, or a round line that does not parse,
 * drops it (s->reread set, live left to the caller to free), and the rounds are then read from the
 * second pass (rl_lines_rounds), which finds every error in the order it always has. */
/* The loader rl_lines_open reads the rounds into as it finds them, and its head. */
struct rl_live {
	struct loader *l;
	int (*head)(struct loader *, const cJSON *);
};
int rl_lines_open(struct rl_lines *s, const char *path, const struct rl_live *live,
                  enum jl_why *why, char *err, size_t errlen);
/* Every round line of ln through rl_round. Returns 0, or -1 with the reason set. */
int rl_lines_rounds(struct loader *l, struct rl_lines *ln);
/* The one line that reports s's torn last line. */
void rl_lines_torn(const struct rl_lines *s, char *msg, size_t len);
void rl_lines_close(struct rl_lines *s);
/* rfkind.c: the arm d is compared against when its file names no config.baseline: its kind's
 * fallback_baseline when d has that arm, else its first arm. */
const char *rl_fallback_baseline(const struct rf_doc *d);

#endif
