/* benchjudge.c - what the bench engine judges between rounds (benchengine.h): whether the budget
 * holds another round, the plan of the sequential decisions fixed at the first look
 * (docs/methodology.md, "Sequential decisions"), adaptive allocation (the cells that still run:
 * benchalloc.c) and the sequential gate. With --resume, the budget and --rounds count this
 * session's rounds; the plan and the first look count every measured round of the file. */
#include "front/run/benchengine.h"
#include "common/errmsg.h"

#include <stdio.h>
#include <stdlib.h>

/* Whether the budget forbids another measured round. The estimate is the mean measured round
 * of this session, each scaled to a whole round by the share of its time the cells that ran take
 * (bench_cells_share), times that share for the cells still running. */
int engine_budget_spent(const struct engine *e)
{
	const struct bench_config *c = e->c;
	unsigned measured = e->measured - e->measured0;
	double elapsed, round_s;

	if (c->budget_s <= 0 || engine_warming(e) || measured < c->min_rounds || measured == 0)
		return 0;
	elapsed = (double)(engine_now(e) - e->t_start) / 1e9;
	round_s = (double)e->measured_ns / 1e9 / measured * bench_cells_share(&e->cells);
	return elapsed + round_s > c->budget_s;
}

/* The plan of the sequential decisions (the gate's, adaptive allocation's), fixed at the first
 * look and recorded in the document: the measured rounds of a resumed file plus --rounds, else
 * the rounds done plus those the rest of the budget holds at the mean measured round time of this
 * session (round times, not the log ratios, decide it). */
void engine_fix_plan(struct engine *e)
{
	const struct bench_config *c = e->c;
	unsigned measured = e->measured - e->measured0;
	double left, round_s;

	if (e->plan.planned)
		return;
	e->plan.first_look = c->min_rounds;
	if (c->rounds) {
		e->plan.planned = e->measured0 + c->rounds;
	} else {
		left = c->budget_s - (double)(engine_now(e) - e->t_start) / 1e9;
		round_s = (double)e->measured_ns / 1e9 / (measured ? measured : 1);
		e->plan.planned =
		    e->measured + (left > 0 && round_s > 0 ? (size_t)(left / round_s) : 0);
	}
	benchdoc_set_plan(e->doc, &e->plan);
	e->res->planned = e->plan.planned;
}

/* Asked after every round from the first measured one of this session and --min-rounds measured
 * rounds in all. */
int engine_allocate(struct engine *e, char *err, size_t errlen)
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

/* From the tables built as the rounds ended (never reading the document again). */
int engine_gate_judge(struct engine *e, FILE *out, enum gate_outcome *g, char *err, size_t errlen)
{
	const struct rf_doc *d = rf_builder_doc(e->tables, err, errlen);

	return d ? gate_spec_judge(e->c->gate, d, out, g, err, errlen) : -1;
}

int engine_gate_check(struct engine *e, FILE *out, char *err, size_t errlen)
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
