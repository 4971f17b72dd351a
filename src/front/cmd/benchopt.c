/* benchopt.c - the options of `allocab bench` into struct bench_opts (benchopt.h): syntax,
 * ranges, defaults and the rules between options (the table: benchoptab.c); no file system
 * access. */
#include "front/cmd/benchopt.h"
#include "front/cmd/benchoptab.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "front/cmd/commands.h"
#include "front/cmd/gateopt.h"
#include "front/stats/stats.h"
#include "front/engine/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static int check_param(const char *kv, const char **seen, size_t nseen, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;

	if (!eq || klen == 0 || eq[1] == '\0')
		return errmsg_fail(err, errlen, "--param: '%s' is not KEY=VALUE", kv);
	if (strspn(kv, "abcdefghijklmnopqrstuvwxyz0123456789_") != klen)
		return errmsg_fail(err, errlen, "--param: '%.*s' is not a parameter name",
		                   (int)klen, kv);
	for (size_t i = 0; i < nseen; i++)
		if (strncmp(seen[i], kv, klen + 1) == 0)
			return errmsg_fail(err, errlen, "--param: %.*s is given twice", (int)klen,
			                   kv);
	return 0;
}

static int add_cmd(struct bench_opts *o, const char *v, char *err, size_t errlen)
{
	const char *eq = strchr(v, '=');
	size_t n = eq ? (size_t)(eq - v) : 0;
	char *name;

	if (!eq || !bench_valid_name(v, n) || v[0] == '-')
		return errmsg_fail(
		    err, errlen,
		    "--cmd: '%s' is not NAME=COMMAND with NAME in [A-Za-z0-9_.-], not "
		    "starting with '-'",
		    v);
	if (strspn(eq + 1, " \t") == strlen(eq + 1))
		return errmsg_fail(err, errlen, "--cmd %.*s: empty command", (int)n, v);
	for (size_t i = 0; i < o->ncmds; i++)
		if (strlen(o->cmd_names[i]) == n && strncmp(o->cmd_names[i], v, n) == 0)
			return errmsg_fail(err, errlen, "--cmd: name '%.*s' is given twice", (int)n,
			                   v);
	if (!(name = strndup(v, n)))
		return errmsg_fail(err, errlen, "out of memory");
	o->cmd_names[o->ncmds] = name;
	o->cmd_lines[o->ncmds++] = eq + 1;
	return 0;
}

/* --preload NAME=LIB and --expect NAME=ALLOCATOR: split at the first '=', names unique. */
static int add_pair(const char *opt, const char **names, const char **values, size_t *n,
                    const char *v, char *err, size_t errlen)
{
	const char *eq = strchr(v, '=');
	size_t len = eq ? (size_t)(eq - v) : 0;
	char *name;

	if (!eq || !bench_valid_name(v, len) || v[0] == '-' || !eq[1])
		return errmsg_fail(err, errlen,
		                   "%s: '%s' is not NAME=%s with NAME in [A-Za-z0-9_.-], not "
		                   "starting with '-'",
		                   opt, v, strcmp(opt, "--expect") == 0 ? "ALLOCATOR" : "LIBRARY");
	for (size_t i = 0; i < *n; i++)
		if (strlen(names[i]) == len && strncmp(names[i], v, len) == 0)
			return errmsg_fail(err, errlen, "%s: name '%.*s' is given twice", opt,
			                   (int)len, v);
	if (!(name = strndup(v, len)))
		return errmsg_fail(err, errlen, "out of memory");
	names[*n] = name;
	values[(*n)++] = eq + 1;
	return 0;
}

static int set_program_option(struct bench_program_opts *p, int k, const char *v, char *err,
                              size_t errlen)
{
	switch (k) {
	case O_PROGRAM:
		if (strspn(v, " \t") == strlen(v))
			return errmsg_fail(err, errlen, "--program: empty command");
		p->program = v;
		return 0;
	case O_PRELOAD:
		return add_pair("--preload", p->preload_names, p->preload_paths, &p->npreloads, v,
		                err, errlen);
	case O_EXPECT:
		return add_pair("--expect", p->expect_names, p->expect_allocs, &p->nexpects, v, err,
		                errlen);
	case O_COUNT_CALLS:
		p->count_calls = 1;
		return 0;
	}
	return -1;
}

static int set_option(struct bench_opts *o, int k, const char *v, char *err, size_t errlen)
{
	uint64_t u;
	double d;

	switch (k) {
	case O_ALLOC:
		o->allocators = v;
		return 0;
	case O_WL:
		o->workloads = v;
		return 0;
	case O_SCALE:
		if (!in_list(bench_scale_values.words, v))
			return errmsg_fail(
			    err, errlen, "--scale: unknown scale '%s' (small, default, large)", v);
		o->scale = v;
		return 0;
	case O_SEED:
	case O_SHUF:
		if (num_parse_u64(v, &u) != 0 || u > BENCH_SEED_MAX)
			return errmsg_fail(err, errlen,
			                   "%s '%s': want a whole number from 0 to %llu",
			                   bench_opt_table[k].name, v, BENCH_SEED_MAX);
		*(k == O_SEED ? &o->seed : &o->shuffle_seed) = u;
		*(k == O_SEED ? &o->seed_set : &o->shuffle_seed_set) = 1;
		return 0;
	case O_PARAM:
		if (check_param(v, o->params, o->nparams, err, errlen) != 0)
			return -1;
		o->params[o->nparams++] = v;
		return 0;
	case O_REPS:
	case O_ROUNDS:
	case O_WARMUP:
	case O_MINR: {
		static const uint64_t lo[] = {
		    [O_REPS] = 1, [O_ROUNDS] = 1, [O_WARMUP] = 0, [O_MINR] = 1};
		static const uint64_t hi[] = {
		    [O_REPS] = 1000, [O_ROUNDS] = 100000, [O_WARMUP] = 1000, [O_MINR] = 100000};
		static const char *const what[] = {[O_REPS] =
		                                       "auto or a whole number of repetitions",
		                                   [O_ROUNDS] = "a whole number of rounds",
		                                   [O_WARMUP] = "a whole number of warm-up rounds",
		                                   [O_MINR] = "a whole number of rounds"};
		if (k == O_REPS && strcmp(v, bench_reps_values.words[0]) == 0) {
			o->reps = 0, o->reps_set = 1;
			return 0;
		}
		if (num_parse_u64(v, &u) != 0 || u < lo[k] || u > hi[k])
			return errmsg_fail(err, errlen, "%s '%s': want %s from %llu to %llu",
			                   bench_opt_table[k].name, v, what[k],
			                   (unsigned long long)lo[k], (unsigned long long)hi[k]);
		if (k == O_REPS)
			o->reps = (unsigned)u, o->reps_set = 1;
		else if (k == O_ROUNDS)
			o->rounds = (unsigned)u, o->rounds_set = 1;
		else if (k == O_WARMUP)
			o->warmup = (unsigned)u;
		else
			o->min_rounds = (unsigned)u, o->min_rounds_set = 1;
		return 0;
	}
	case O_BUDGET:
	case O_TIMEOUT:
		if (num_parse_double(v, 0, &d) != 0 || !(d >= 0.001 && d <= 1e7))
			return errmsg_fail(
			    err, errlen, "%s '%s': want a number of seconds from 0.001 to 10000000",
			    bench_opt_table[k].name, v);
		*(k == O_BUDGET ? &o->budget_s : &o->timeout_s) = d;
		return 0;
	case O_PAD:
		if (num_parse_u64(v, &u) != 0 || u > BENCH_PAD_MAX_LIMIT)
			return errmsg_fail(
			    err, errlen,
			    "--pad-max '%s': want a whole number of bytes from 0 to %d", v,
			    BENCH_PAD_MAX_LIMIT);
		o->pad_max = (size_t)u;
		return 0;
	case O_OUT:
		if (!*v || strcmp(v, "-") == 0)
			return errmsg_fail(err, errlen,
			                   "-o: needs a file name (the results are rewritten "
			                   "after every round)");
		o->out = v;
		return 0;
	case O_RESUME:
		if (!*v)
			return errmsg_fail(err, errlen, "--resume: needs a results file");
		o->resume = v;
		return 0;
	case O_RDIR:
	case O_DDIR:
		if (!*v)
			return errmsg_fail(err, errlen, "%s: empty directory name",
			                   bench_opt_table[k].name);
		*(k == O_RDIR ? &o->results_dir : &o->driver_dir) = v;
		return 0;
	case O_CMD:
		return add_cmd(o, v, err, errlen);
	case O_ARM:
		o->arm_specs[o->narm_specs++] = v;
		return 0;
	case O_LABEL:
		if (!bench_task_valid_label(v))
			return errmsg_fail(
			    err, errlen,
			    "--label '%.40s': want 1 to %d characters of [A-Za-z0-9_.:@+-]", v,
			    BENCH_TASK_LABEL_MAX);
		o->label = v;
		return 0;
	case O_SHARD:
		if (bench_task_parse_shard(v, &u) != 0)
			return errmsg_fail(err, errlen,
			                   "--shard '%s': want a whole number from 0 to %llu", v,
			                   (unsigned long long)BENCH_TASK_SHARD_MAX);
		o->shard = v;
		return 0;
	case O_QUIET:
		o->quiet = 1;
		return 0;
	case O_ALLOCATION:
		o->allocation = strcmp(v, "sequential") == 0;
		o->allocation_set = 1;
		if (!o->allocation && strcmp(v, "none") != 0)
			return errmsg_fail(err, errlen,
			                   "--allocation: '%s' is not sequential or none", v);
		return 0;
	case O_TIME:
		if (rf_time_policy_parse(v, &o->time) != 0)
			return errmsg_fail(err, errlen, "--time: '%s' is not wall, cpu or auto", v);
		return 0;
	case O_EQUIVALENCE:
		if (gateopt_pct(v, &d) != 0 || !(d > 0))
			return errmsg_fail(
			    err, errlen,
			    "--equivalence '%s': want a percentage 0 < M < 100, e.g. 2%%", v);
		o->equivalence = d;
		return 0;
	case O_PRIMARY: {
		struct cmp_primary p;
		if (cmp_primary_parse(v, &p, err, errlen) != 0)
			return -1;
		o->primary = v;
		return 0;
	}
	case O_DUET:
		o->duet = 1;
		return 0;
	}
	return set_program_option(&o->prog, k, v, err, errlen);
}

/* The rules of --program, --preload, --expect and --count-calls. */
static int check_program(const struct bench_opts *o, const unsigned char *given, char *err,
                         size_t errlen)
{
	static const int program_excludes[] = {O_SCALE, O_SEED, O_PARAM, O_REPS, O_DDIR};
	const struct bench_program_opts *p = &o->prog;

	if (p->program && o->ncmds)
		return errmsg_fail(err, errlen, "--program and --cmd exclude each other");
	for (size_t i = 0; p->program && i < sizeof program_excludes / sizeof *program_excludes;
	     i++)
		if (given[program_excludes[i]])
			return errmsg_fail(err, errlen, "--program cannot be combined with %s",
			                   bench_opt_table[program_excludes[i]].name);
	if (p->npreloads && !p->program)
		return errmsg_fail(err, errlen, "--preload needs --program");
	if (p->nexpects && !o->ncmds)
		return errmsg_fail(err, errlen, "--expect needs --cmd arms");
	for (size_t i = 0; i < p->nexpects; i++) {
		size_t k = 0;

		while (k < o->ncmds && strcmp(o->cmd_names[k], p->expect_names[i]) != 0)
			k++;
		if (k == o->ncmds)
			return errmsg_fail(err, errlen, "--expect %s: no --cmd arm of that name",
			                   p->expect_names[i]);
	}
	if (p->count_calls && !p->program && !p->nexpects)
		return errmsg_fail(err, errlen,
		                   "--count-calls needs --program, or --cmd arms with --expect");
	if (o->duet && p->program)
		return errmsg_fail(
		    err, errlen, "--duet pairs driver runs; it cannot be combined with --program");
	return 0;
}

/* Rules between options, checked after all of them are read. */
static int check_combinations(struct bench_opts *o, const unsigned char *given, char *err,
                              size_t errlen)
{
	static const int drivers_only[] = {O_ALLOC, O_SCALE, O_SEED, O_PARAM,
	                                   O_REPS,  O_DDIR,  O_ARM};

	if (o->ncmds == 1)
		return errmsg_fail(err, errlen, "--cmd: a comparison needs at least two commands");
	if (check_program(o, given, err, errlen) != 0)
		return -1;
	for (size_t i = 0; o->ncmds && i < sizeof drivers_only / sizeof drivers_only[0]; i++)
		if (given[drivers_only[i]])
			return errmsg_fail(err, errlen, "--cmd cannot be combined with %s",
			                   bench_opt_table[drivers_only[i]].name);
	if (o->out && o->results_dir)
		return errmsg_fail(err, errlen, "-o and --results-dir exclude each other");
	if (o->resume && o->results_dir)
		return errmsg_fail(
		    err, errlen,
		    "--resume writes the file it continues (or -o), not --results-dir");
	if (o->resume && o->gate_argv)
		return errmsg_fail(
		    err, errlen,
		    "--resume and --gate exclude each other: a sequential gate's plan is "
		    "fixed at its first look, and rounds added after it are not covered "
		    "(docs/methodology.md, \"Resuming a bench\")");
	if (o->duet && o->ncmds)
		return errmsg_fail(err, errlen,
		                   "--duet pairs driver runs; it cannot be combined with --cmd");
	if (o->gate_argv && o->allocation_set && o->allocation)
		return errmsg_fail(
		    err, errlen,
		    "--allocation sequential and --gate exclude each other: the gate "
		    "stops the bench itself");
	if (o->gate_argv)
		o->allocation = 0;
	if (!o->rounds_set)
		o->rounds = o->budget_s > 0 ? 0 : DEFAULT_ROUNDS;
	if (!given[O_MINR]) {
		unsigned want = o->gate_argv ? GATE_MIN_ROUNDS : DEFAULT_MIN_ROUNDS;
		o->min_rounds = o->rounds && o->rounds < want ? o->rounds : want;
	} else if (o->rounds && o->min_rounds > o->rounds)
		return errmsg_fail(err, errlen, "--min-rounds %u is more than --rounds %u",
		                   o->min_rounds, o->rounds);
	return 0;
}

int bench_parse_args(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	memset(o, 0, sizeof *o);
	o->scale = "default";
	o->seed = DEFAULT_SEED;
	o->reps = 0;
	o->time = RF_POLICY_CPU;
	o->allocation = 1;
	o->warmup = DEFAULT_WARMUP;
	o->timeout_s = DEFAULT_TIMEOUT_S;
	o->pad_max = DEFAULT_PAD_MAX;
	o->equivalence = NAN;
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
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE) {
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
		if (k == O_GATE) {
			o->gate_argv = argv + p.at;
			o->gate_argc = argc - p.at;
		} else if (set_option(o, k, v, err, errlen) != 0)
			goto fail;
	}
	if (check_combinations(o, p.given, err, errlen) == 0) {
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

unsigned bench_rounds_rule(struct bench_opts *o, size_t m, unsigned gate_need, char *warn,
                           size_t len)
{
	unsigned need = (unsigned)stats_signrank_min_n(RULE_ALPHA, m ? m : 1);

	warn[0] = '\0';
	if (!o->rounds_set && o->budget_s <= 0) {
		unsigned r = need + SPARE_ROUNDS;
		r = r > DEFAULT_ROUNDS ? r : DEFAULT_ROUNDS;
		r = gate_need + SPARE_ROUNDS > r ? gate_need + SPARE_ROUNDS : r;
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
	return need;
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
