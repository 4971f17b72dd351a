/* rfmarks.c - the phases a program marked itself (a command run's "phase_marks", or a replay
 * record's, the phases of the process it replayed; docs/results-format.md): their names into the
 * workload's phases after those its runs time themselves, their cold and steady times into the
 * run, read from the spans and regimes the bench or the driver wrote. */
#include "front/results/rfload.h"

#include "marks/marks.h"
#include "common/steady.h"

#include <math.h>
#include <string.h>

_Static_assert(RF_MAX_PHASES >= PHASEMARK_MAX_PHASES + 1, "marked phases and total fit");

/* The index of the marked phase name in w: appended for the first marked run, else looked up. */
static int phase_slot(struct loader *l, struct rf_workload *w, const char *name, int first,
                      const char *at)
{
	int p = rf_phase(w, name);

	if (p >= 0 && (size_t)p < w->nrecord)
		return rl_fail(l, "%s: phase_marks: '%s' is a phase the run times itself", at, name);
	if (!first && p < 0)
		return rl_fail(l, "%s: phase_marks: phase '%s' that the first marked run of %s lacks",
		               at, name, w->name);
	if (!first)
		return p;
	if (p >= 0)
		return rl_fail(l, "%s: phase_marks: '%s' listed twice", at, name);
	if (w->nphases == RF_MAX_PHASES)
		return rl_fail(l, "%s: phase_marks: more than %d phases with the run's own", at,
		               RF_MAX_PHASES);
	if (!(w->phases[w->nphases] = strdup(name)))
		return rl_nomem(l);
	return (int)w->nphases++;
}

/* The CPU times of a phase's spans (cpu_ns beside wall_ns: marks that carry the process's CPU
 * clock), n of them, into cpu (NAN for a span of no measurable CPU time). Absent or null: all
 * NAN (marks written without CPU time). */
static int load_cpu(struct loader *l, const cJSON *ph, const char *name, int n, double *cpu,
                    const char *at)
{
	const cJSON *c = rl_get(ph, "cpu_ns");

	for (int i = 0; i < n; i++)
		cpu[i] = NAN;
	if (!c || cJSON_IsNull(c))
		return 0;
	if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) != n)
		return rl_fail(l, "%s: phase_marks: cpu_ns of '%s' is not an array as long as wall_ns",
		               at, name);
	for (int i = 0; i < n; i++) {
		const cJSON *v = cJSON_GetArrayItem(c, i);
		if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
		    v->valuedouble > RF_MAX_WALL_NS || v->valuedouble != floor(v->valuedouble))
			return rl_fail(l,
			               "%s: phase_marks: cpu_ns[%d] of '%s' is not an integer in 0..%.0f",
			               at, i, name, RF_MAX_WALL_NS);
		cpu[i] = v->valuedouble >= 1 ? v->valuedouble : NAN;
	}
	return 0;
}

/* The CPU time the kernel counted for run jr: its containment.cgroup_cpu or its process (wait4),
 * user + sys, the larger; NAN when it has neither (a replay's record). */
static double kernel_cpu(const cJSON *jr)
{
	const cJSON *src[2] = {rl_get(rl_get(jr, "containment"), "cgroup_cpu"),
	                       rl_get(jr, "process")};
	double most = NAN;

	for (int i = 0; i < 2; i++) {
		const cJSON *u = rl_get(src[i], "user_ns"), *y = rl_get(src[i], "sys_ns");
		if (cJSON_IsNumber(u) && cJSON_IsNumber(y) &&
		    (isnan(most) || u->valuedouble + y->valuedouble > most))
			most = u->valuedouble + y->valuedouble;
	}
	return most;
}

/* Whether the CPU times of a phase's n spans together stay within what the kernel counted for the
 * whole run, run_cpu (NAN: not known, not checked). */
static int cpu_within(struct loader *l, const double *cpu, int n, double run_cpu, const char *name,
                      const char *at)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += isnan(cpu[i]) ? 0 : cpu[i];
	if (!isnan(run_cpu) && sum > phasemark_cpu_most(run_cpu))
		return rl_fail(l,
		               "%s: phase_marks: the spans of '%s' hold %.0f ns of CPU time, more "
		               "than the %.0f ns the kernel counted for the whole run",
		               at, name, sum, run_cpu);
	return 0;
}

/* The mean of the steady spans' times t (k of them at idx), NAN when one is NAN or none: every
 * run that marks the phase as often has the same spans steady (common/steady.h). */
static double steady_of(const double *t, const int *idx, size_t k)
{
	double sum = 0;

	for (size_t i = 0; i < k; i++)
		sum += t[idx[i]];
	return k ? sum / (double)k : NAN;
}

/* Whether a command run's spans t[0..n) (ns; NAN: none) settled by steady_spans, the rule of
 * this version, when the file labels them as steady_spans does (rg: the regimes read); else
 * `given`, the file's own flag (older files labelled spans by another rule). A driver's record
 * keeps its flag: its rule (regimes.rule) may have another tolerance. */
static int settled_now(const double *t, const int *rg, int n, int given)
{
	int64_t ns[RF_MAX_REPS];
	enum steady_regime g[RF_MAX_REPS];
	struct steady_rule rule = steady_default_rule();
	int s;

	for (int i = 0; i < n; i++) {
		if (!(t[i] >= 1))
			return given;
		ns[i] = (int64_t)t[i];
	}
	s = steady_spans(ns, (size_t)n, &rule, g);
	for (int i = 0; i < n; i++)
		if ((int)g[i] != rg[i])
			return given;
	return s;
}

/* One phase's spans (ph, its name valid), into phase p of run: cold = the first, steady = the
 * mean of those labelled steady, of the wall times and of the CPU times when the marks have them,
 * which together hold no more than the kernel counted for the run (run_cpu). Sets
 * run->settled_phase[p] from its "settled" (-1 when null), judged again by this version's rule
 * when the spans allow (settled_now). */
static int load_spans(struct loader *l, const cJSON *ph, struct rf_run *run, int p, double run_cpu,
                      const char *at)
{
	const char *name = rl_get_str(ph, "name");
	int settled;
	const cJSON *wall = rl_get(ph, "wall_ns"), *rg = rl_get(ph, "regimes"),
	            *st = rl_get(ph, "settled");
	const char *on = rl_get_str(ph, "regimes_time");
	int n = cJSON_GetArraySize(wall), idx[RF_MAX_REPS], reg[RF_MAX_REPS];
	double w[RF_MAX_REPS], cpu[RF_MAX_REPS];
	size_t k = 0;

	if (!cJSON_IsArray(wall) || !cJSON_IsArray(rg) || n < 1 || n > RF_MAX_REPS ||
	    cJSON_GetArraySize(rg) != n)
		return rl_fail(l,
		               "%s: phase_marks: wall_ns and regimes of '%s' are not two arrays of "
		               "1 to %d entries",
		               at, name, RF_MAX_REPS);
	if (load_cpu(l, ph, name, n, cpu, at) != 0 || cpu_within(l, cpu, n, run_cpu, name, at) != 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const cJSON *gi = cJSON_GetArrayItem(rg, i);
		int r = cJSON_IsString(gi) ? steady_regime_parse(gi->valuestring) : -1;
		if (!rl_wall_ns(cJSON_GetArrayItem(wall, i), &w[i]))
			return rl_fail(l,
			               "%s: phase_marks: wall_ns[%d] is not a positive integer of at "
			               "most %.0f",
			               at, i, RF_MAX_WALL_NS);
		if (r < 0 || (i == 0) != (r == STEADY_COLD))
			return rl_fail(l, "%s: phase_marks: regimes[%d] of '%s' is not %s", at, i,
			               name, i == 0 ? "cold" : "warmup or steady");
		if (r == STEADY_STEADY)
			idx[k++] = i;
		reg[i] = r;
	}
	run->t_regime[RF_COLD][p] = run->t_basis[RF_TIME_WALL][RF_COLD][p] = w[0];
	run->t_basis[RF_TIME_CPU][RF_COLD][p] = cpu[0];
	run->t_regime[RF_STEADY][p] = run->t_basis[RF_TIME_WALL][RF_STEADY][p] =
	    steady_of(w, idx, k);
	run->t_basis[RF_TIME_CPU][RF_STEADY][p] = steady_of(cpu, idx, k);
	if (st && !cJSON_IsBool(st) && !cJSON_IsNull(st))
		return rl_fail(l, "%s: phase_marks: settled is not true, false or null", at);
	settled = cJSON_IsBool(st) ? cJSON_IsTrue(st) : -1;
	if (settled >= 0 && rf_kind_has(l->d, RF_KIND_WHOLE_PROCESS))
		settled = settled_now(on && strcmp(on, "cpu") == 0 ? cpu : w, reg, n, settled);
	run->settled_phase[p] = (signed char)settled;
	return 0;
}

/* The fewest and the most spans of phase p in w's ok runs so far, with n more. */
static void count_spans(struct rf_workload *w, int p, unsigned n)
{
	if (!w->spans_lo[p] || n < w->spans_lo[p])
		w->spans_lo[p] = n;
	if (n > w->spans_hi[p])
		w->spans_hi[p] = n;
}

int rl_marks(struct loader *l, size_t wi, const cJSON *jr, struct rf_run *run, const char *at)
{
	struct rf_workload *w = &l->d->wl[wi];
	const cJSON *pm = rl_get(jr, "phase_marks"), *phases = rl_get(pm, "phases"), *ph;
	int has = pm && !cJSON_IsNull(pm), first = w->marked == 0 && has, all_settled = 1, prior;
	unsigned seen = 0;

	if (has && !cJSON_IsObject(pm))
		return rl_fail(l, "%s: phase_marks is not an object or null", at);
	if (w->marked == 0)
		w->marked = has ? 1 : -1;
	else if ((w->marked > 0) != has)
		return rl_fail(l, "%s: phase_marks %s, where the first ok run of %s %s", at,
		               has ? "present" : "missing", w->name,
		               has ? "marked no phase" : "marked phases");
	if (!has)
		return 0;
	if (!cJSON_IsArray(phases) || cJSON_GetArraySize(phases) < 1 ||
	    cJSON_GetArraySize(phases) > PHASEMARK_MAX_PHASES ||
	    (!first && (size_t)cJSON_GetArraySize(phases) != w->nphases - w->nrecord))
		return rl_fail(l,
		               "%s: phase_marks.phases is not an array of the %s phases of %s "
		               "(1 to %d)",
		               at, first ? "marked" : "same", w->name, PHASEMARK_MAX_PHASES);
	prior = run->settled;
	run->settled = -1;
	cJSON_ArrayForEach(ph, phases)
	{
		const char *name = rl_get_str(ph, "name");
		int p, settled;
		if (!name || !phasemark_valid_name(name, strlen(name)))
			return rl_fail(l, "%s: phase_marks: a phase without a valid name", at);
		if ((p = phase_slot(l, w, name, first, at)) < 0)
			return -1;
		if (seen & (1u << p))
			return rl_fail(l, "%s: phase_marks: '%s' listed twice", at, name);
		seen |= 1u << p;
		if (load_spans(l, ph, run, p, kernel_cpu(jr), at) != 0)
			return -1;
		count_spans(w, p, (unsigned)cJSON_GetArraySize(rl_get(ph, "wall_ns")));
		settled = run->settled_phase[p];
		if (settled >= 0)
			run->settled = all_settled &= settled;
	}
	if (prior >= 0)
		run->settled = run->settled < 0 ? prior : prior && run->settled;
	w->show_phases = 1;
	return 0;
}
