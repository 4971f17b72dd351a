/* prose.c - what the formats say besides their tables (exportint.h): the inputs and method, the
 * one-line summary, and what a replay is and predicts. */
#include "front/export/exportint.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* "s" unless n is 1. */
static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* Appends to buf (of len bytes, holding a string) as snprintf does. */
static void add(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t len, const char *fmt, ...)
{
	size_t k = strlen(buf);
	va_list ap;

	if (k + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + k, len - k, fmt, ap);
	va_end(ap);
}

static void describe_doc(const struct rf_doc *d, const char *role, char *buf, size_t len)
{
	char times[512];

	snprintf(buf, len,
	         "%s%s%s (%s, status %s): %zu measured round%s, %zu warm-up round%s discarded; "
	         "measured %s; compared: %s",
	         role, role[0] ? " " : "", d->path, d->kind->mode, d->status,
	         d->nrounds, plural(d->nrounds), d->nwarmup, plural(d->nwarmup),
	         rf_regimes_measured(d), rf_times_used(d, times, sizeof times));
	if (d->nsessions > 1)
		add(buf, len, "; %zu sessions (bench --resume)", d->nsessions);
	for (size_t w = 0; rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && w < d->nwl; w++)
		for (size_t a = 0; a < d->narms; a++) {
			double q = rf_cpu_wall_ratio(d, a, w);
			if (!isnan(q))
				add(buf, len, "%s %s %.2f",
				    a   ? ","
				    : w ? ";"
				        : "; CPU/wall per run:",
				    d->arms[a], q);
		}
}

static void describe_method(const struct cmp_report *r, char *buf, size_t len)
{
	char lv[16], lv2[16], over[320];
	size_t m2 = r->fam[CMP_FAMILY_SECONDARY].m;

	cmp_level_text(r->family_conf, lv, sizeof lv);
	cmp_level_text(r->fam[CMP_FAMILY_SECONDARY].conf, lv2, sizeof lv2);
	if (export_two_families(r))
		snprintf(over, sizeof over,
		         "at %s%% each, simultaneous %g%% over the %zu primary comparison%s "
		         "(Bonferroni), and at %s%% each, simultaneous %g%% over the %zu secondary "
		         "one%s, a family of their own",
		         lv, 100 * r->conf, r->family, r->family == 1 ? "" : "s", lv2,
		         100 * r->conf, m2, m2 == 1 ? "" : "s");
	else if (r->family > 1)
		snprintf(over, sizeof over,
		         "at %s%% each, simultaneous %g%% over the %zu comparisons "
		         "(Bonferroni)",
		         lv, 100 * r->conf, r->family);
	else
		snprintf(over, sizeof over, "at %s%% (one comparison)", lv);
	if (r->paired)
		snprintf(
		    buf, len,
		    "method: rounds paired; d = ln(t_candidate/t_baseline) per round; speedup = "
		    "exp(-HL(d)), Hodges-Lehmann; intervals: %s %s; per-comparison %g%% "
		    "intervals and p-values (Wilcoxon signed-rank) in --format json and csv",
		    r->bootstrap ? "percentile bootstrap over rounds" : "Wilcoxon signed-rank",
		    over, 100 * r->conf);
	else
		snprintf(buf, len,
		         "method: rounds of two files cannot be paired; speedup = exp(-shift), "
		         "two-sample Hodges-Lehmann shift of log times; intervals: Mann-Whitney "
		         "(Moses) %s; per-comparison %g%% intervals and p-values (Mann-Whitney) in "
		         "--format json and csv",
		         over, 100 * r->conf);
}

size_t export_method_lines(const struct cmp_report *r, int without_convention,
                           char (*line)[EXPORT_LINE])
{
	size_t n = 0;

	for (const struct rf_doc *d = r->base; d; d = d == r->cand ? NULL : r->cand) {
		describe_doc(d,
		             r->paired      ? ""
		             : d == r->base ? "baseline:"
		                            : "candidate:",
		             line[n++], EXPORT_LINE);
		if (r->paired) {
			snprintf(line[n++], EXPORT_LINE, "baseline arm: %s", r->baseline);
			break;
		}
	}
	describe_method(r, line[n++], EXPORT_LINE);
	export_describe_regimes(r, line[n++], EXPORT_LINE);
	if (r->bootstrap)
		snprintf(line[n++], EXPORT_LINE, "bootstrap: %u resamples, seed %llu", r->bootstrap,
		         (unsigned long long)r->seed);
	if (!without_convention)
		snprintf(line[n++], EXPORT_LINE, "convention: %s", CMP_CONVENTION);
	export_rule(r, line[n++], EXPORT_LINE);
	if (r->calibration)
		snprintf(line[n++], EXPORT_LINE, "%s", r->calibration);
	return n;
}

/* The verdict counts of the rows of regime g: "steady: 2 faster, 1 no detectable difference". */
static void counts(const struct cmp_report *r, enum rf_regime g, char *buf, size_t len)
{
	static const enum cmp_verdict order[] = {CMP_FASTER,        CMP_SLOWER,  CMP_EQUIVALENT,
	                                         CMP_NO_DIFFERENCE, CMP_TOO_FEW, CMP_INSUFFICIENT};
	size_t n[sizeof order / sizeof order[0]] = {0}, shown = 0;
	char eq[48];

	for (size_t i = 0; i < r->nrows; i++)
		for (size_t k = 0; r->rows[i].regime == g && k < sizeof order / sizeof order[0];
		     k++)
			n[k] += r->rows[i].verdict == order[k];
	snprintf(eq, sizeof eq, "equivalent within ±%g%%", r->equivalence);
	add(buf, len, "%s ", rf_regime_name(g));
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
		if (n[k])
			add(buf, len, "%s%zu %s", shown++ ? ", " : "", n[k],
			    order[k] == CMP_EQUIVALENT ? eq
			    : order[k] == CMP_TOO_FEW  ? "too few rounds for a verdict"
			                               : cmp_verdict_name(order[k]));
}

/* "mimalloc 1.250x [1.200, 1.300] faster", with " on parquet_load" for a workload's row. */
static void headline(const struct cmp_row *row, char *buf, size_t len)
{
	char vt[96];

	add(buf, len, "%s", row->candidate);
	if (row->workload)
		add(buf, len, " on %s%s%s", row->workload, strcmp(row->phase, "total") ? "/" : "",
		    strcmp(row->phase, "total") ? row->phase : "");
	if (row->usable)
		add(buf, len, " %.3fx [%.3f, %.3f]", cmp_speedup(row->d.est),
		    cmp_speedup(row->d.hi), cmp_speedup(row->d.lo));
	add(buf, len, " %s", cmp_verdict_text(row, vt, sizeof vt));
}

/* The rows the summary names, of the leading regime g: every geometric mean; without one, every
 * total when there are at most three, else the decided row of the largest effect. */
static size_t headlines(const struct cmp_report *r, enum rf_regime g, const struct cmp_row **out,
                        size_t max, int *largest)
{
	size_t n = 0, totals = 0;
	const struct cmp_row *big = NULL;

	for (size_t i = 0; i < r->nrows && n < max; i++)
		if (r->rows[i].regime == g && !r->rows[i].workload)
			out[n++] = &r->rows[i];
	if (n)
		return n;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (row->regime != g || strcmp(row->phase, "total") != 0)
			continue;
		if (totals++ < max)
			out[n++] = row;
		if ((row->verdict == CMP_FASTER || row->verdict == CMP_SLOWER) &&
		    (!big || fabs(row->d.est) > fabs(big->d.est)))
			big = row;
	}
	if (totals <= 3)
		return n;
	out[0] = big;
	*largest = 1;
	return big != NULL;
}

void export_summary(const struct cmp_report *r, char *buf, size_t len)
{
	enum rf_regime lead = r->compared[RF_STEADY] ? RF_STEADY : RF_COLD;
	const struct cmp_row *h[8];
	int largest = 0;
	size_t nh = headlines(r, lead, h, sizeof h / sizeof h[0], &largest), loud = 0, shown = 0;

	snprintf(buf, len, "%zu comparison%s: ", r->nrows, plural(r->nrows));
	for (int g = RF_STEADY; g >= RF_COLD; g--)
		if (r->compared[g]) {
			if (shown++)
				add(buf, len, "; ");
			counts(r, (enum rf_regime)g, buf, len);
		}
	for (size_t i = 0; i < nh; i++) {
		if (i == 0)
			add(buf, len, ". %s%s: ", h[0]->workload ? "" : "Geometric mean, ",
			    rf_regime_name(lead));
		else
			add(buf, len, "; ");
		headline(h[i], buf, len);
	}
	if (nh && largest)
		add(buf, len, " (the largest decided effect)");
	for (size_t i = 0; i < r->nwarn; i++)
		loud += strncmp(r->warn[i], "WARNING: ", 9) == 0;
	if (r->nwarn)
		add(buf, len, ". %zu warning%s%s", r->nwarn, plural(r->nwarn),
		    loud ? ", read them first" : "");
}

/* "process 5 (pid 19285, /usr/bin/sort: sort -n) of trace sort.trace". */
static void what_replayed(const struct rf_input *in, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!in) {
		add(buf, len, "a recorded process (its record does not say which)");
		return;
	}
	add(buf, len, "process");
	if (!isnan(in->index))
		add(buf, len, " %.0f", in->index);
	if (!isnan(in->pid))
		add(buf, len, " (pid %.0f%s%s%s%s)", in->pid, in->exe ? ", " : "",
		    in->exe ? in->exe : "", in->command ? ": " : "",
		    in->command ? in->command : "");
	if (in->trace)
		add(buf, len, " of trace %s", in->trace);
}

/* The first two lines of a replay: what it replays, and the caveat. */
static void replay_head(const struct cmp_replay *x, char (*line)[EXPORT_LINE])
{
	const struct rf_input *in = x->input;
	char what[EXPORT_LINE / 2];

	what_replayed(in, what, sizeof what);
	snprintf(line[0], EXPORT_LINE, "replay (workload %s): %s", x->workload, what);
	if (in && !isnan(in->events))
		add(line[0], EXPORT_LINE, ", %.0f calls", in->events);
	if (in && !isnan(in->threads))
		add(line[0], EXPORT_LINE, ", %.0f thread%s", in->threads,
		    in->threads == 1 ? "" : "s");
	if (in && !isnan(in->duration_ns))
		add(line[0], EXPORT_LINE, ", %.3f s while recorded", in->duration_ns * 1e-9);
	if (in && in->ended)
		add(line[0], EXPORT_LINE, ", ended by %s", in->ended);
	snprintf(line[1], EXPORT_LINE,
	         "replay: the allocation stream only: the program's own computation, I/O and the "
	         "cache effects of its data accesses are not in it; the speedups of %s are the "
	         "allocators' on that stream, not the program's (docs/methodology.md, \"Does the "
	         "replay predict the program?\")",
	         x->workload);
}

/* "1.002x [0.999, 1.004]", an unbounded end as "inf". */
static void prediction_text(const struct cmp_prediction *p, char *buf, size_t len)
{
	char lv[16];

	if (isinf(p->hi))
		snprintf(buf, len, "%.3fx [%.3f, unbounded]", p->est, p->lo);
	else
		snprintf(buf, len, "%.3fx [%.3f, %.3f]", p->est, p->lo, p->hi);
	add(buf, len, " (%s%%, from %.3fx [%.3f, %.3f] on the replay)",
	    cmp_level_text(p->row->d.level, lv, sizeof lv), cmp_speedup(p->row->d.est),
	    cmp_speedup(p->row->d.hi), cmp_speedup(p->row->d.lo));
}

size_t export_replay_lines(const struct export_input *in, char (*line)[EXPORT_LINE], size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < in->nreplays && n + 3 <= max; k++) {
		const struct cmp_replay *x = &in->replays[k];
		replay_head(x, line + n);
		n += 2;
		if (!x->n) {
			snprintf(line[n++], EXPORT_LINE,
			         "predicted speedup of the whole program: cannot be computed: %s",
			         x->why_not);
			continue;
		}
		snprintf(
		    line[n], EXPORT_LINE,
		    "predicted speedup of the whole program (%s regime): t_prog / (t_prog - "
		    "(t_replay,%s - t_replay,candidate)), t_replay,%s %.3f ms, t_prog %.3f ms = ",
		    rf_regime_name(x->regime), x->p[0].row->baseline, x->p[0].row->baseline,
		    x->t_replay_ns * 1e-6, x->t_prog_ns * 1e-6);
		if (x->t_prog_from)
			add(line[n], EXPORT_LINE, "the median time of arm %s in %s", x->t_prog_arm,
			    x->t_prog_from);
		else
			add(line[n], EXPORT_LINE,
			    "the process's duration while recorded (recording slows a program, so "
			    "the "
			    "prediction leans towards 1x; --program-results FILE takes a --program "
			    "bench's time instead)");
		add(line[n++], EXPORT_LINE,
		    "; the interval carries the replay's through, the two times taken as known:");
		for (size_t i = 0; i < x->n && n < max; i++) {
			char t[256];
			prediction_text(&x->p[i], t, sizeof t);
			snprintf(line[n++], EXPORT_LINE, "  %s: %s", x->p[i].row->candidate, t);
		}
	}
	return n;
}

const char *export_replay_note(const struct export_input *in, const char *wl, char *buf, size_t len)
{
	for (size_t k = 0; wl && k < in->nreplays; k++)
		if (strcmp(in->replays[k].workload, wl) == 0) {
			char what[EXPORT_LINE / 2];
			what_replayed(in->replays[k].input, what, sizeof what);
			snprintf(buf, len,
			         "replay of %s: the allocation stream only, not the program", what);
			return buf;
		}
	return NULL;
}
