/* benchjudge.c - what the bench engine judges between rounds, stages 4 and 6 of a round
 * (benchengine.h): the judgement of the round's evidence (a proof no later round can change, the
 * rounds rule against the budget, the phases asked for, adaptive allocation: the cells that still
 * run, benchalloc.c; the sequential gate), and the decisions: whether the budget holds another
 * round, the plan of the sequential decisions fixed at the first look (docs/methodology.md,
 * "Sequential decisions"). With --resume, the budget and --rounds count this session's rounds;
 * the plan and the first look count every measured round of the file. */
#include "front/engine/benchengine.h"
#include "common/errmsg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the budget forbids another measured round of this session. The estimate is the mean
 * measured round of this session, each scaled to a whole round by the share of its time the cells
 * that ran take (bench_cells_share), times that share for the cells still running. */
static int engine_budget_spent(const struct engine *e)
{
	const struct bench_config *c = e->c;
	unsigned measured = e->measured - e->measured0;
	double elapsed, round_s;

	if (c->budget_s <= 0 || engine_warming(e) || measured < c->min_rounds || measured == 0 ||
	    measured < e->need_session)
		return 0;
	elapsed = (double)(engine_now(e) - e->t_start) / 1e9;
	round_s = (double)e->measured_ns / 1e9 / measured * bench_cells_share(&e->cells);
	return elapsed + round_s > c->budget_s;
}

/* compare's family level (docs/methodology.md, "Multiplicity"). */
#define NEED_ALPHA 0.05

/* Commands mode: the phases compare shows of each workload, from the first ok run of each in
 * round (its marks): the total, and per marked phase its cold row and, marked more than once,
 * its steady row. 1 per workload without marks. */
static void marked_rows(const struct engine *e, const cJSON *round, size_t *shown)
{
	const struct bench_config *c = e->c;
	const cJSON *run;

	for (size_t w = 0; w < c->nwl; w++)
		shown[w] = 0;
	cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(round, "runs"))
	{
		const char *wl = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "workload"));
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(run, "phase_marks"), "phases"), *p;

		for (size_t w = 0; wl && w < c->nwl; w++) {
			if (shown[w] || strcmp(c->wl[w].name, wl) != 0 || !cJSON_IsArray(ph))
				continue;
			shown[w] = 1;
			cJSON_ArrayForEach(p, ph)
			shown[w] += 1 + (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "wall_ns")) > 1);
		}
	}
	for (size_t w = 0; w < c->nwl; w++)
		shown[w] = shown[w] ? shown[w] : 1;
}

/* The comparisons compare will make: with the phases a program marked in round (this session's
 * first) counted. */
static size_t need_comparisons(const struct engine *e, const cJSON *round)
{
	const struct bench_config *c = e->c;
	size_t m = c->need_comparisons, *shown;

	if (bench_any_arm(c, ARM_KIND_MARKS_PHASES) && (shown = calloc(c->nwl + 1, sizeof *shown))) {
		marked_rows(e, round, shown);
		m = bench_comparisons(c, shown);
		free(shown);
	}
	return m;
}

/* --rounds (compare's fixed-n verdicts) short of the fixed rounds rule: said before the first
 * round unless a resumed file's rounds or the phases the program marked change the count. */
static void need_rounds_warning(const struct engine *e, size_t m, unsigned fixed)
{
	const struct bench_config *c = e->c;

	if (c->rounds && e->measured0 + c->rounds < fixed &&
	    (e->measured0 || fixed > c->need_rounds) && c->progress != PROGRESS_NONE)
		fprintf(stderr,
		        "allocab: bench: WARNING: --rounds %u gives %u measured rounds in all%s%.0u%s; a "
		        "verdict on its %zu comparison%s (the phases the program marked counted) needs "
		        "at least %u: give --rounds %u or more (docs/methodology.md, \"Multiplicity\")\n",
		        c->rounds, e->measured0 + c->rounds, e->measured0 ? " (" : "", e->measured0,
		        e->measured0 ? " in the file)" : "", m, m == 1 ? "" : "s", fixed,
		        fixed - e->measured0);
}

/* The budget (elapsed seconds spent of it) against the need measured rounds of m comparisons:
 * when it holds fewer, extended to them (need_extends) or said to be unable to decide. */
static void need_budget(struct engine *e, size_t m, unsigned need, double elapsed)
{
	const struct bench_config *c = e->c;
	double round_s = elapsed / (double)(e->done - e->done0), want;
	unsigned holds = e->measured + (c->budget_s > elapsed && round_s > 0
	                                    ? (unsigned)((c->budget_s - elapsed) / round_s)
	                                    : 0);

	if (holds >= need)
		return;
	want = elapsed + (double)(need - e->measured) * round_s;
	want = want < 60 ? ceil(want) : ceil(want / 10) * 10;
	if (c->need_extends)
		e->need_session = need - e->measured0;
	if (c->progress == PROGRESS_NONE)
		return;
	fprintf(stderr,
	        "allocab: bench: %s: a budget of %g s holds about %u measured round%s (%.1f s a "
	        "round); a verdict on its %zu comparison%s needs at least %u: ",
	        c->need_extends ? "note" : "WARNING", c->budget_s, holds, holds == 1 ? "" : "s",
	        round_s, m, m == 1 ? "" : "s", need);
	if (c->need_extends)
		fprintf(stderr,
		        "the budget is extended to them, about %.0f s (give --budget %.0f or more to "
		        "plan for it; docs/methodology.md, \"Multiplicity\")\n",
		        want, want);
	else
		fprintf(stderr,
		        "this budget cannot decide: give --budget %.0f or more (docs/methodology.md, "
		        "\"Multiplicity\")\n",
		        want);
}

/* After this session's first round (round), the rounds rule on the comparisons compare will make
 * (with the phases a program marked in that round counted) against the rounds the budget holds
 * at that round's time: extends the budget to them (need_extends) or says on stderr that this
 * budget cannot decide, and by how much. */
static void engine_need_check(struct engine *e, const cJSON *round)
{
	const struct bench_config *c = e->c;
	double elapsed = (double)(engine_now(e) - e->t_start) / 1e9;
	size_t m = need_comparisons(e, round);
	unsigned need = c->need_rounds, fixed;

	if (!m || c->gate)
		return;
	need = (unsigned)stats_signrank_min_n(NEED_ALPHA, m) > need
	           ? (unsigned)stats_signrank_min_n(NEED_ALPHA, m)
	           : need;
	fixed = need;
	if (c->alloc && stats_seq_min_planned(NEED_ALPHA / (double)m) > need)
		need = (unsigned)stats_seq_min_planned(NEED_ALPHA / (double)m);
	e->need_total = need;
	if (c->progress == PROGRESS_TTY && e->progress_shown)
		fputs("\r\033[K", stderr);
	need_rounds_warning(e, m, fixed);
	if (c->budget_s <= 0 || c->rounds || e->measured >= need)
		return;
	need_budget(e, m, need, elapsed);
}

/* The plan of the sequential decisions (the gate's, adaptive allocation's), fixed at the first
 * look and recorded in the document: the measured rounds of a resumed file plus --rounds, else
 * the rounds done plus those the rest of the budget holds at the mean measured round time of this
 * session (round times, not the log ratios, decide it). Fixed once. */
static void engine_fix_plan(struct engine *e)
{
	const struct bench_config *c = e->c;
	unsigned measured = e->measured - e->measured0;
	double left, round_s;

	if (e->plan.planned)
		return;
	e->plan.first_look = c->min_rounds;
	/* adaptive allocation's plan can be extended by --resume; a gate's ends the bench */
	e->plan.share = c->gate ? 0 : SEQ_FIRST_SHARE;
	if (c->rounds) {
		e->plan.planned = e->measured0 + c->rounds;
	} else {
		left = c->budget_s - (double)(engine_now(e) - e->t_start) / 1e9;
		round_s = (double)e->measured_ns / 1e9 / (measured ? measured : 1);
		e->plan.planned =
		    e->measured + (left > 0 && round_s > 0 ? (size_t)(left / round_s) : 0);
		if (e->need_session && e->plan.planned < e->need_total)
			e->plan.planned = e->need_total;
	}
	benchdoc_set_plan(e->doc, &e->plan);
	e->res->planned = e->plan.planned;
}

/* An extendable plan (share > 0) whose horizon the measured rounds reached: its next stage
 * (stats_seq_extend), recorded; nothing otherwise. */
static void engine_plan_advance(struct engine *e)
{
	int moved = 0;

	while (e->plan.planned && e->measured >= e->plan.planned && e->plan.share > 0 &&
	       stats_seq_extend(&e->plan) == 0)
		moved = 1;
	if (!moved)
		return;
	benchdoc_set_plan(e->doc, &e->plan);
	e->res->planned = e->plan.planned;
}

/* Adaptive allocation after a measured round: asks which cells still run. Returns 1 when none
 * does (every comparison is decided), 0 otherwise, -1 on an error (err set). Asked after every
 * round from the first measured one of this session and --min-rounds measured rounds in all. */
static int engine_allocate(struct engine *e, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;

	if (!c->alloc || e->done - e->done0 <= c->warmup || e->measured < c->min_rounds)
		return 0;
	engine_fix_plan(e);
	if (bench_cells_update(&e->cells, c, e->tables, err, errlen) != 0)
		return -1;
	e->share = bench_cells_share(&e->cells);
	return bench_cells_needed(&e->cells) == 0;
}

/* The gate on the rounds so far (out: its lines, or NULL), from the tables built as the rounds
 * ended (never reading the document again). Returns 0 with *g, or -1 (err set). */
static int engine_gate_judge(struct engine *e, FILE *out, enum gate_outcome *g, char *err,
                             size_t errlen)
{
	const struct rf_doc *d = rf_builder_doc(e->tables, err, errlen);

	return d ? gate_spec_judge(e->c->gate, d, out, g, err, errlen) : -1;
}

/* The gate's judgement (engine_gate_judge), the verdict recorded in the document and the result:
 * returns the gate_outcome, or -1 (err set). */
static int engine_gate_check(struct engine *e, FILE *out, char *err, size_t errlen)
{
	enum gate_outcome g;

	if (engine_gate_judge(e, out, &g, err, errlen) != 0)
		return -1;
	benchdoc_set_string(e->doc, "gate_outcome", gate_outcome_name(g));
	e->res->gate = (int)g;
	return (int)g;
}

int engine_gate_final(struct engine *e, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int g;

	if (!mem)
		return errmsg_fail(err, errlen, "out of memory");
	g = engine_gate_check(e, mem, err, errlen);
	fclose(mem);
	if (g >= 0) {
		fputs(text ? text : "", stdout);
		benchdoc_set_decision(e->doc, gate_outcome_name((enum gate_outcome)g), e->measured,
		                      e->looks, text);
	}
	free(text);
	return g;
}

size_t bench_comparisons(const struct bench_config *c, const size_t *shown)
{
	size_t per_arm = c->nwl >= 2;
	/* drivers that repeat measure two regimes, each compared (docs/methodology.md) */
	size_t regimes = bench_all_arms(c, ARM_KIND_DRIVER_RECORD) && c->reps != 1 ? 2 : 1;

	if (c->narms < 2)
		return 0;
	/* the primary family: one row per candidate and workload, in one regime */
	if (!c->primary || strcmp(c->primary, "all") != 0)
		return (c->narms - 1) * c->nwl;
	for (size_t i = 0; i < c->nwl; i++)
		per_arm += shown ? shown[i] : 1;
	return (c->narms - 1) * per_arm * regimes;
}

int engine_gate_precheck(struct engine *e, char *err, size_t errlen)
{
	struct gate_spec g = *e->c->gate;
	const struct rf_doc *d = rf_builder_doc(e->tables, err, errlen);

	/* a phase is a name only the runs' records and marks bring: engine_phases_named checks it */
	g.phase = NULL;
	return d ? gate_spec_judge(&g, d, NULL, &(enum gate_outcome){0}, err, errlen) : -1;
}

/* The phases of the workloads of d (gate_wl: that one only, NULL every one) as "W: a, b; ...",
 * the total left out. */
static void phase_list(const struct rf_doc *d, const char *gate_wl, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t w = 0; w < d->nwl && at < len; w++) {
		const struct rf_workload *wl = &d->wl[w];
		size_t shown = 0;
		if (gate_wl && strcmp(gate_wl, wl->name) != 0)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s: ", at ? "; " : "", wl->name);
		for (size_t p = 0; p < wl->nphases && at < len; p++)
			if (strcmp(wl->phases[p], "total") != 0)
				at += (size_t)snprintf(buf + at, len - at, "%s%s", shown++ ? ", " : "",
				                       wl->phases[p]);
		if (!shown && at < len)
			at += (size_t)snprintf(buf + at, len - at, "its total alone, no phase marked");
	}
}

/* Whether a workload of d (wl: that one only) times phase: 1 found, 0 not while some such
 * workload has had no ok run yet, -1 not in any (every one has had an ok run). */
static int phase_found(const struct rf_doc *d, const char *wl, const char *phase)
{
	int pending = 0;

	for (size_t w = 0; w < d->nwl; w++) {
		if (wl && strcmp(wl, d->wl[w].name) != 0)
			continue;
		if (rf_phase(&d->wl[w], phase) >= 0)
			return 1;
		pending |= d->wl[w].nphases == 0 ||
		           (rf_kind_has(d, RF_KIND_WHOLE_PROCESS) && d->wl[w].marked == 0);
	}
	return pending ? 0 : -1;
}

/* After each round until it holds: the phase --primary names and the gate's --phase must be
 * timed by some workload (a program's marks, a driver's record) once every such workload has had
 * an ok run. Returns 0 (found, or not known yet), or -1 with the reason in err. */
static int engine_phases_named(struct engine *e, char *err, size_t errlen)
{
	const struct bench_config *c = e->c;
	const struct gate_spec *g = c->gate;
	const char *gp = g && g->phase && strcmp(g->phase, "total") != 0 ? g->phase : NULL;
	struct cmp_primary p = {.regime = -1};
	char ignored[256], list[1024];
	struct rf_doc *d;
	int fg = 1, fp = 1;

	if (e->phases_named)
		return 0;
	if (!c->primary || cmp_primary_parse(c->primary, &p, ignored, sizeof ignored) != 0 ||
	    p.all || strcmp(p.phase, "total") == 0)
		p.phase[0] = '\0';
	/* a document the reader refuses is judged by the gate, which says why */
	if ((!gp && !p.phase[0]) || !(d = rf_from_json(e->doc, "bench", ignored, sizeof ignored))) {
		e->phases_named = 1;
		return 0;
	}
	if (gp)
		fg = phase_found(d, g->workload, gp);
	if (p.phase[0])
		fp = phase_found(d, NULL, p.phase);
	e->phases_named = fg != 0 && fp != 0;
	if (fg < 0 || fp < 0) {
		phase_list(d, fg < 0 ? g->workload : NULL, list, sizeof list);
		errmsg_fail(err, errlen,
		            "%s %s: no ok run times a phase '%s' (%s): the rows asked for would never "
		            "be measured; name a phase the program marks (docs/programs.md, \"Phases "
		            "your program marks\")",
		            fg < 0 ? "--gate --phase" : "--primary", fg < 0 ? gp : c->primary,
		            fg < 0 ? gp : p.phase, list);
	}
	rf_free(d);
	return fg < 0 || fp < 0 ? -1 : 0;
}

/* Whether this session has run its --rounds. */
static int engine_session_done(const struct engine *e)
{
	return !engine_warming(e) && e->c->rounds && e->measured - e->measured0 >= e->c->rounds;
}

enum status engine_judge_round(struct engine *e, struct engine_round *r, char *err,
                               size_t errlen)
{
	const struct bench_config *c = e->c;
	int first = e->done == e->done0 + 1, rc, g;

	r->verdict = NULL;
	if (first && !engine_session_done(e) && bench_report_hopeless(c, r->round, NULL) > 0) {
		r->verdict = "aborted";
		return ST_OK;
	}
	if (first)
		engine_need_check(e, r->round);
	if (engine_phases_named(e, err, errlen) != 0 || (rc = engine_allocate(e, err, errlen)) < 0)
		return ST_USAGE;
	if (rc == 1) {
		r->verdict = "decided";
		return ST_OK;
	}
	if (!c->gate || e->done - e->done0 <= c->warmup || e->measured < c->min_rounds)
		return ST_OK;
	engine_fix_plan(e);
	e->looks++;
	e->res->looks = e->looks;
	if ((g = engine_gate_check(e, NULL, err, errlen)) < 0)
		return ST_USAGE;
	if (g == GATE_PASS || g == GATE_FAIL)
		r->verdict = "decided";
	return ST_OK;
}

const char *engine_decide(struct engine *e, const struct engine_round *r)
{
	if (r && r->verdict)
		return r->verdict;
	if (e->stop && *e->stop)
		return "interrupted";
	if (engine_session_done(e))
		return "complete";
	if (engine_budget_spent(e))
		return "budget";
	if (engine_warming(e))
		return NULL;
	if (e->done0)
		engine_plan_advance(e); /* a continuation past an extendable plan: its next stage */
	if (e->plan.planned && e->measured >= e->plan.planned)
		return e->c->budget_s > 0 ? "budget" : "complete";
	return NULL;
}
