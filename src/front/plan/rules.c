/* rules.c - the rules that size a bench:
 * the rounds rule with the solo anchor's need and the sequential gate's smallest plan
 * (front/plan/plan.h; docs/methodology.md, "Multiplicity"). */
#include "front/plan/plan.h"
#include "front/gate/gate.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdio.h>

/* A shared-CPU bench with solo rounds: the rounds its solo anchor needs to find a disagreement
 * of PLAN_ANCHOR_EFFECT_PCT with PLAN_ANCHOR_POWER at the family level of m comparisons (stats.h,
 * stats_anchor_rounds, at the share the draw gives: 1 / round(1 / F)); 0 otherwise. */
static unsigned anchor_rounds(const struct bench_opts *o, const struct bench_config *c, size_t m)
{
	double k = round(1 / c->solo_share), share = k >= 1 ? 1 / k : 1;
	size_t n;

	if (!(o->duet || o->one_cpu) || !(c->solo_share > 0) || !(share < 1))
		return 0;
	n = stats_anchor_rounds(PLAN_ANCHOR_SD_SHARED, PLAN_ANCHOR_SD_SOLO, share,
	                        log1p(PLAN_ANCHOR_EFFECT_PCT / 100), PLAN_RULE_ALPHA / (double)(m ? m : 1),
	                        PLAN_ANCHOR_POWER);
	return n > 100000 ? 100000 : (unsigned)n;
}

unsigned bench_rounds_rule(const struct bench_opts *o, struct bench_config *c, size_t m,
                           unsigned gate_need, char *warn, size_t len)
{
	unsigned anchor = anchor_rounds(o, c, m);

	unsigned need = (unsigned)stats_signrank_min_n(PLAN_RULE_ALPHA, m ? m : 1);

	warn[0] = '\0';
	if (!o->rounds_set && c->budget_s <= 0) {
		unsigned r = need + PLAN_SPARE_ROUNDS;
		r = r > PLAN_DEFAULT_ROUNDS ? r : PLAN_DEFAULT_ROUNDS;
		r = gate_need + PLAN_SPARE_ROUNDS > r ? gate_need + PLAN_SPARE_ROUNDS : r;
		r = anchor > r ? anchor : r;
		c->rounds = c->min_rounds > r ? c->min_rounds : r;
	} else if (o->rounds_set && o->gate_argv && c->rounds < gate_need) {
		snprintf(
		    warn, len,
		    "--rounds %u cannot give the sequential gate a decision: its last look needs a "
		    "plan of %u rounds (docs/methodology.md, \"Sequential decisions\"); the gate "
		    "will say INCONCLUSIVE",
		    c->rounds, gate_need);
	} else if (!o->rounds_set && !o->min_rounds_set && !o->gate_argv) {
		c->min_rounds = need > c->min_rounds ? need : c->min_rounds;
	} else if (o->rounds_set && c->rounds < need && !o->gate_argv) {
		snprintf(
		    warn, len,
		    "--rounds %u cannot give a verdict: the simultaneous intervals of %zu "
		    "comparison%s at alpha %.2g need %u paired rounds (the smallest n with 2/2^n "
		    "<= alpha/%zu); compare will say \"too few rounds for a verdict\" (use "
		    "--rounds %u or more, or omit it)",
		    c->rounds, m, m == 1 ? "" : "s", PLAN_RULE_ALPHA, need, m, need);
	}
	if (!warn[0] && o->rounds_set && c->rounds < anchor)
		snprintf(warn, len,
		         "--rounds %u: the solo rounds (--solo-share %g) of so few rounds cannot find a "
		         "%g%% disagreement between the shared and the solo rounds with %g%% power; "
		         "that needs %u rounds (docs/methodology.md, \"Solo anchor rounds\")",
		         c->rounds, c->solo_share, PLAN_ANCHOR_EFFECT_PCT, PLAN_ANCHOR_POWER * 100, anchor);
	return need;
}

unsigned bench_gate_need(const struct gate_spec *g, size_t nwl, size_t narms)
{
	size_t k = 1;

	if (!g->on_geomean && !g->workload)
		k = nwl;
	if (g->against && !g->candidate)
		k *= narms;
	return (unsigned)stats_seq_min_planned((1 - g->conf) / (double)(k ? k : 1));
}
