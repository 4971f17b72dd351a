/* steady.h - the rule that splits the repetitions of one process into regimes
 * (docs/methodology.md, "Cold start and steady state"): the first repetition is cold, the last
 * `window` are steady, those between are warm-up. Pure functions on fixed series, shared by the
 * driver (which stops repeating once the rule is met) and the tests. */
#ifndef ALLOCAB_STEADY_H
#define ALLOCAB_STEADY_H

#include <stddef.h>
#include <stdint.h>

enum steady_regime { STEADY_COLD, STEADY_WARMUP, STEADY_STEADY, STEADY_NREGIMES };

#define STEADY_WINDOW    3    /* reps whose times must agree */
#define STEADY_MIN_AFTER 3    /* reps after the cold one before the rule is tried */
#define STEADY_TOL       0.05 /* relative tolerance of agreement and of "no more improvement" */
#define STEADY_MAX_REPS  20   /* default cap on reps in total, the cold one included */
#define STEADY_MAX_S     10.0 /* default cap on the seconds spent after the cold rep */

struct steady_rule {
	size_t window;    /* >= 1 */
	size_t min_after; /* >= window */
	double tol;       /* >= 0 */
};

/* The default rule: window 3, at least 3 reps after the cold one, tolerance 5%. */
struct steady_rule steady_default_rule(void);

/* Whether the reps after the cold one, t[0..n) (times in any positive unit, in run order), have
 * settled: n >= min_after and either (a) the last window agree, max/min - 1 <= tol, or
 * (b) n >= 2 * window and the medians of the last two windows agree, max/min - 1 <= tol (no
 * trend left, only scatter). Non-positive or non-finite times never settle. */
int steady_is_settled(const double *t, size_t n, const struct steady_rule *r);

/* The smallest prefix length j <= n of t at which steady_is_settled holds, or 0 if none: where a
 * driver repeating until the rule is met would have stopped. */
size_t steady_settled_at(const double *t, size_t n, const struct steady_rule *r);

/* The regimes of the n >= 1 spans of a phase a program marked (docs/programs.md, "Phases your
 * program marks"), ns[0..n) their times in order, into g[0..n): the first is cold, the last
 * ceil((n - 1) / 2) of the others steady, those between warm-up. The labels depend on n alone, so
 * every run that marks a phase n times has the same spans steady. Returns whether the run
 * settled: 1 when the rule is met on a prefix of the spans after the cold one whose last window
 * begins at or before the first steady span (the warm-up the rule sees ends in time), or when
 * there are 3 to 64 steady spans and they show no trend beyond their noise (a noisy but flat
 * phase, whose mean holds no warm-up): on the log scale neither their least-squares slope, as
 * the change from the first steady span to the last, nor the first steady span against the mean
 * of the others (warm-up that reaches into it) is both beyond the two-sided 1% level of
 * Student's t (k - 2 degrees of freedom for k steady spans) and larger than r->tol; 0 when
 * neither, -1 for a single span (no steady regime). Linear in n. */
int steady_spans(const int64_t *ns, size_t n, const struct steady_rule *r,
                 enum steady_regime *g);
/* The mean of the times ns[0..n) labelled steady in g, NAN for none: a marked phase's steady
 * time, over the same spans in every run (a median would pick a different span in each). */
double steady_spans_mean(const int64_t *ns, const enum steady_regime *g, size_t n);

/* The regime of each of nreps reps (the cold one included): rep 0 cold, the last
 * min(window, nreps - 1) steady, the others warm-up. */
void steady_assign(size_t nreps, const struct steady_rule *r, enum steady_regime *out);

/* "cold", "warmup", "steady"; NULL for anything else. */
const char *steady_regime_name(enum steady_regime g);
/* The regime named s, or -1. */
int steady_regime_parse(const char *s);

#endif
