/* benchopt.c - the options of `allocab bench` into struct bench_opts (benchopt.h) through the
 * declarative rows of benchoptab.c (types, ranges, defaults, needs and excludes), the rules that
 * depend on the values, the rounds rule and the plan of a bench; no file system access. */
#include "front/cmd/benchopt.h"
#include "front/cmd/benchoptab.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "front/cmd/commands.h"
#include "front/cmd/gateopt.h"
#include "front/stats/stats.h"
#include "front/plan/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rules between options that depend on their values (the others are the rows' needs and
 * excludes), checked after all of them are read; and the defaults that depend on other options
 * (each stated in its row's default). */
static int check_combinations(struct bench_opts *o, const unsigned char *given, char *err,
                              size_t errlen)
{
	const struct bench_program_opts *p = &o->prog;

	if (o->ncmds == 1)
		return errmsg_fail(err, errlen, "--cmd: a comparison needs at least two commands");
	for (size_t i = 0; i < p->nexpects; i++) {
		size_t k = 0;

		while (k < o->ncmds && strcmp(o->cmd_names[k], p->expect_names[i]) != 0)
			k++;
		if (k == o->ncmds)
			return errmsg_fail(err, errlen, "--expect %s: no --cmd arm of that name",
			                   p->expect_names[i]);
	}
	if (o->gate_argv && o->allocation_set && o->allocation)
		return errmsg_fail(
		    err, errlen,
		    "--allocation sequential and --gate exclude each other: the gate "
		    "stops the bench itself");
	if (o->gate_argv)
		o->allocation = 0;
	if (!o->rounds_set && o->budget_s > 0)
		o->rounds = 0;
	if (!given[O_MINR]) {
		unsigned want = o->gate_argv ? GATE_MIN_ROUNDS : o->min_rounds;
		o->min_rounds = o->rounds && o->rounds < want ? o->rounds : want;
	} else if (o->rounds && o->min_rounds > o->rounds && o->rounds_set) {
		return errmsg_fail(err, errlen, "--min-rounds %u is more than --rounds %u",
		                   o->min_rounds, o->rounds);
	} else if (o->rounds && o->min_rounds > o->rounds) {
		return errmsg_fail(err, errlen,
		                   "--min-rounds %u is more than the default of %u rounds (--rounds)",
		                   o->min_rounds, o->rounds);
	}
	return 0;
}

int bench_parse_args(int argc, char **argv, unsigned rounds, struct bench_opts *o, char *err,
                     size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	memset(o, 0, sizeof *o);
	o->equivalence = NAN;
	opt_defaults(bench_opt_table, O_COUNT, o);
	if (rounds)
		o->rounds = rounds;
	o->params = calloc((size_t)argc + 1, sizeof *o->params);
	o->cmd_names = calloc((size_t)argc + 1, sizeof *o->cmd_names);
	o->arm_specs = calloc((size_t)argc + 1, sizeof *o->arm_specs);
	o->cmd_lines = calloc((size_t)argc + 1, sizeof *o->cmd_lines);
	o->prog.preload_names = calloc((size_t)argc + 1, sizeof *o->prog.preload_names);
	o->prog.preload_paths = calloc((size_t)argc + 1, sizeof *o->prog.preload_paths);
	o->prog.expect_names = calloc((size_t)argc + 1, sizeof *o->prog.expect_names);
	o->prog.expect_allocs = calloc((size_t)argc + 1, sizeof *o->prog.expect_allocs);
	if (!o->params || !o->cmd_names || !o->cmd_lines || !o->arm_specs ||
	    !o->prog.preload_names || !o->prog.preload_paths || !o->prog.expect_names ||
	    !o->prog.expect_allocs)
		goto fail_oom;
	opt_init(&p, argc, argv, 1, bench_opt_table, O_COUNT);
	p.help = "allocab bench";
	while ((k = opt_parse(&p, o, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			goto fail;
		if (k == OPT_ARG) {
			errmsg_fail(err, errlen, "unexpected argument '%s'", v);
			goto fail;
		}
		if (k == O_HELP) {
			o->help = 1;
			return 0;
		}
		o->gate_argv = argv + p.at; /* O_GATE, the only other row without a destination */
		o->gate_argc = argc - p.at;
	}
	o->scale = bench_scale_values.words[o->scale_index];
	if (opt_check(&p, err, errlen) == 0 && check_combinations(o, p.given, err, errlen) == 0) {
		o->prog.allocators = o->allocators;
		return 0;
	}
	goto fail;
fail_oom:
	errmsg_fail(err, errlen, "out of memory");
fail:
	bench_opts_free(o);
	return -1;
}

size_t bench_continuation_args(int argc, char **argv, const char **out)
{
	struct opt_parser p;
	const char *v;
	char err[256];
	size_t n = 0;
	int k;

	opt_init(&p, argc, argv, 1, bench_opt_table, O_COUNT);
	while ((k = opt_next(&p, &v, err, sizeof err)) != OPT_DONE) {
		int end = k == OPT_ERROR ? argc : p.i;

		if (k == O_RESUME || k == O_RDIR || k == O_SHUF)
			continue;
		for (int i = p.at; i < end; i++)
			out[n++] = argv[i];
		if (k == OPT_ERROR)
			break;
	}
	return n;
}

/* A shared-CPU bench with solo rounds: the rounds its solo anchor needs to find a disagreement
 * of ANCHOR_EFFECT_PCT with ANCHOR_POWER at the family level of m comparisons (stats.h,
 * stats_anchor_rounds, at the share the draw gives: 1 / round(1 / F)); 0 otherwise. */
static unsigned anchor_rounds(const struct bench_opts *o, size_t m)
{
	double k = round(1 / o->solo_share), share = k >= 1 ? 1 / k : 1;
	size_t n;

	if (!(o->duet || o->one_cpu) || !(o->solo_share > 0) || !(share < 1))
		return 0;
	n = stats_anchor_rounds(ANCHOR_SD_SHARED, ANCHOR_SD_SOLO, share,
	                        log1p(ANCHOR_EFFECT_PCT / 100), RULE_ALPHA / (double)(m ? m : 1),
	                        ANCHOR_POWER);
	return n > 100000 ? 100000 : (unsigned)n;
}

unsigned bench_rounds_rule(struct bench_opts *o, size_t m, unsigned gate_need, char *warn,
                           size_t len)
{
	unsigned anchor = anchor_rounds(o, m);

	unsigned need = (unsigned)stats_signrank_min_n(RULE_ALPHA, m ? m : 1);

	warn[0] = '\0';
	if (!o->rounds_set && o->budget_s <= 0) {
		unsigned r = need + SPARE_ROUNDS;
		r = r > bench_opt_table[O_ROUNDS].def_u ? r : (unsigned)bench_opt_table[O_ROUNDS].def_u;
		r = gate_need + SPARE_ROUNDS > r ? gate_need + SPARE_ROUNDS : r;
		r = anchor > r ? anchor : r;
		o->rounds = o->min_rounds > r ? o->min_rounds : r;
	} else if (o->rounds_set && o->gate_argv && o->rounds < gate_need) {
		snprintf(
		    warn, len,
		    "--rounds %u cannot give the sequential gate a decision: its last look needs a "
		    "plan of %u rounds (docs/methodology.md, \"Sequential decisions\"); the gate "
		    "will say INCONCLUSIVE",
		    o->rounds, gate_need);
	} else if (!o->rounds_set && !o->min_rounds_set && !o->gate_argv) {
		o->min_rounds = need > o->min_rounds ? need : o->min_rounds;
	} else if (o->rounds_set && o->rounds < need && !o->gate_argv) {
		snprintf(
		    warn, len,
		    "--rounds %u cannot give a verdict: the simultaneous intervals of %zu "
		    "comparison%s at alpha %.2g need %u paired rounds (the smallest n with 2/2^n "
		    "<= alpha/%zu); compare will say \"too few rounds for a verdict\" (use "
		    "--rounds %u or more, or omit it)",
		    o->rounds, m, m == 1 ? "" : "s", RULE_ALPHA, need, m, need);
	}
	if (!warn[0] && o->rounds_set && o->rounds < anchor)
		snprintf(warn, len,
		         "--rounds %u: the solo rounds (--solo-share %g) of so few rounds cannot find a "
		         "%g%% disagreement between the shared and the solo rounds with %g%% power; "
		         "that needs %u rounds (docs/methodology.md, \"Solo anchor rounds\")",
		         o->rounds, o->solo_share, ANCHOR_EFFECT_PCT, ANCHOR_POWER * 100, anchor);
	return need;
}

void bench_plan(const struct bench_opts *o, struct bench_config *c)
{
	c->scale = o->scale;
	c->seed = o->seed;
	c->reps = o->reps;
	c->time = (enum rf_time_policy)o->time;
	c->params = (char **)o->params;
	c->nparams = o->nparams;
	c->rounds = o->rounds;
	c->budget_s = o->budget_s;
	c->warmup = o->warmup;
	c->min_rounds = o->min_rounds;
	c->equivalence = o->equivalence;
	c->primary = o->primary;
	c->timeout_s = o->timeout_s;
	c->grace_s = BENCH_KILL_GRACE_S;
	c->shuffle_seed = o->shuffle_seed_set ? o->shuffle_seed : bench_clock_seed();
	c->pad_max = o->pad_max;
	c->progress = (int)progress_mode_for(o->quiet, 2);
	c->solo_share = o->solo_share;
	c->threads_ok = o->one_cpu_threads;
}

int bench_parse_gate(struct bench_opts *o, struct gate_spec *g, char *err, size_t errlen)
{
	if (gateopt_parse(o->gate_argc, o->gate_argv, g, NULL, err, errlen) != 0)
		return -1;
	if (!isnan(g->equivalence) && !isnan(o->equivalence) && g->equivalence != o->equivalence)
		return errmsg_fail(err, errlen,
		                   "--equivalence %g%% and the gate's --equivalence %g%% differ",
		                   o->equivalence, g->equivalence);
	if (!isnan(g->equivalence))
		o->equivalence = g->equivalence;
	else if (g->slowdown)
		g->equivalence = o->equivalence;
	return 0;
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

void bench_opts_free(struct bench_opts *o)
{
	if (!o)
		return;
	for (size_t i = 0; o->cmd_names && i < o->ncmds; i++)
		free((char *)o->cmd_names[i]);
	for (size_t i = 0; o->prog.preload_names && i < o->prog.npreloads; i++)
		free((char *)o->prog.preload_names[i]);
	for (size_t i = 0; o->prog.expect_names && i < o->prog.nexpects; i++)
		free((char *)o->prog.expect_names[i]);
	free(o->cmd_names);
	free(o->cmd_lines);
	free(o->params);
	free(o->arm_specs);
	free(o->prog.preload_names);
	free(o->prog.preload_paths);
	free(o->prog.expect_names);
	free(o->prog.expect_allocs);
	o->cmd_names = o->cmd_lines = o->params = o->arm_specs = NULL;
	o->ncmds = o->nparams = o->narm_specs = 0;
	memset(&o->prog, 0, sizeof o->prog);
}
