/* benchopt.c - the options of `allocab bench` into struct bench_opts (front/plan/plan.h) through
 * the declarative rows of benchoptab.c (types, ranges, defaults, needs and excludes) and the rules
 * that depend on the values; no file system access. */
#include "front/cmd/benchopt.h"
#include "front/cmd/benchoptab.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "front/cmd/commands.h"
#include "front/cmd/gateopt.h"
#include "front/plan/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rules between options that depend on their values (the others are the rows' needs and
 * excludes), checked after all of them are read; and the defaults that depend on other options
 * (each stated in its row's default). */
static int check_combinations(struct bench_opts *o, char *err, size_t errlen)
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
	if (!o->rounds_set && o->cfg.budget_s > 0)
		o->cfg.rounds = 0;
	if (!o->min_rounds_set) {
		unsigned want = o->gate_argv ? PLAN_GATE_MIN_ROUNDS : o->cfg.min_rounds;
		o->cfg.min_rounds = o->cfg.rounds && o->cfg.rounds < want ? o->cfg.rounds : want;
	} else if (o->cfg.rounds && o->cfg.min_rounds > o->cfg.rounds && o->rounds_set) {
		return errmsg_fail(err, errlen, "--min-rounds %u is more than --rounds %u",
		                   o->cfg.min_rounds, o->cfg.rounds);
	} else if (o->cfg.rounds && o->cfg.min_rounds > o->cfg.rounds) {
		return errmsg_fail(err, errlen,
		                   "--min-rounds %u is more than the default of %u rounds (--rounds)",
		                   o->cfg.min_rounds, o->cfg.rounds);
	}
	return 0;
}

int bench_opts_init(struct bench_opts *o, int argc, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->cfg.equivalence = NAN;
	opt_defaults(bench_opt_table, bench_nopts, o);
	o->cfg.params = calloc((size_t)argc + 1, sizeof *o->cfg.params);
	o->cmd_names = calloc((size_t)argc + 1, sizeof *o->cmd_names);
	o->arm_specs = calloc((size_t)argc + 1, sizeof *o->arm_specs);
	o->cmd_lines = calloc((size_t)argc + 1, sizeof *o->cmd_lines);
	o->prog.preload_names = calloc((size_t)argc + 1, sizeof *o->prog.preload_names);
	o->prog.preload_paths = calloc((size_t)argc + 1, sizeof *o->prog.preload_paths);
	o->prog.expect_names = calloc((size_t)argc + 1, sizeof *o->prog.expect_names);
	o->prog.expect_allocs = calloc((size_t)argc + 1, sizeof *o->prog.expect_allocs);
	if (o->cfg.params && o->cmd_names && o->cmd_lines && o->arm_specs && o->prog.preload_names &&
	    o->prog.preload_paths && o->prog.expect_names && o->prog.expect_allocs)
		return 0;
	bench_opts_free(o);
	return errmsg_fail(err, errlen, "out of memory");
}

int bench_opts_finish(struct opt_parser *p, struct bench_opts *o, char *err, size_t errlen)
{
	o->cfg.scale = bench_scale_values.words[o->scale_index];
	if (opt_check(p, err, errlen) != 0 || check_combinations(o, err, errlen) != 0)
		return -1;
	o->prog.allocators = o->allocators;
	return 0;
}

int bench_parse_args(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	if (bench_opts_init(o, argc, err, errlen) != 0)
		return -1;
	opt_init(&p, argc, argv, 1, bench_opt_table, bench_nopts);
	p.help = "allocab bench";
	while ((k = opt_parse(&p, o, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			goto fail;
		if (k == OPT_ARG) {
			errmsg_fail(err, errlen, "unexpected argument '%s'", v);
			goto fail;
		}
		if (!(bench_opt_table[k].flags & OPT_REST)) { /* --help, the other row without one */
			o->help = 1;
			return 0;
		}
		o->gate_argv = argv + p.at; /* --gate */
		o->gate_argc = argc - p.at;
	}
	if (bench_opts_finish(&p, o, err, errlen) == 0)
		return 0;
fail:
	bench_opts_free(o);
	return -1;
}

/* Whether the option called name is one a continuation sets itself. */
static int continuation_own(const char *name)
{
	static const char *const own[] = {"--resume", "--results-dir", "--shuffle-seed", NULL};

	for (size_t i = 0; name && own[i]; i++)
		if (strcmp(name, own[i]) == 0)
			return 1;
	return 0;
}

size_t bench_continuation_args(int argc, char **argv, const char **out)
{
	struct opt_parser p;
	const char *v;
	char err[256];
	size_t n = 0;
	int k;

	opt_init(&p, argc, argv, 1, bench_opt_table, bench_nopts);
	while ((k = opt_next(&p, &v, err, sizeof err)) != OPT_DONE) {
		int end = k == OPT_ERROR ? argc : p.i;

		if (k >= 0 && continuation_own(bench_opt_table[k].name))
			continue;
		for (int i = p.at; i < end; i++)
			out[n++] = argv[i];
		if (k == OPT_ERROR)
			break;
	}
	return n;
}

int bench_parse_gate(const struct bench_opts *o, double *equivalence, struct gate_spec *g,
                     char *err, size_t errlen)
{
	if (gateopt_parse(o->gate_argc, o->gate_argv, g, NULL, err, errlen) != 0)
		return -1;
	if (!isnan(g->equivalence) && !isnan(*equivalence) && g->equivalence != *equivalence)
		return errmsg_fail(err, errlen,
		                   "--equivalence %g%% and the gate's --equivalence %g%% differ",
		                   *equivalence, g->equivalence);
	if (!isnan(g->equivalence))
		*equivalence = g->equivalence;
	else if (g->slowdown)
		g->equivalence = *equivalence;
	return 0;
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
	free(o->cfg.params);
	free(o->arm_specs);
	free(o->prog.preload_names);
	free(o->prog.preload_paths);
	free(o->prog.expect_names);
	free(o->prog.expect_allocs);
	o->cmd_names = o->cmd_lines = o->arm_specs = NULL;
	o->cfg.params = NULL;
	o->ncmds = o->cfg.nparams = o->narm_specs = 0;
	memset(&o->prog, 0, sizeof o->prog);
}
