/* gateopt.c - the gate's options (front/cmd/gateopt.h), read by `allocab gate` and by
 * `allocab bench --gate`, and the margin and level values compare reads too. */
#include "front/cmd/gateopt.h"

#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"

#include <math.h>
#include <string.h>

int gateopt_pct(const char *s, double *out)
{
	double v;

	if (num_parse_double(s, 1, &v) < 0 || !(v >= 0 && v < 100))
		return -1;
	*out = v;
	return 0;
}

int gateopt_equivalence(const char *s, double *out, char *err, size_t errlen)
{
	if (gateopt_pct(s, out) != 0)
		return errmsg_fail(err, errlen,
		                   "--equivalence '%s': want a percentage 0 <= M < 100, e.g. 2%%", s);
	return 0;
}

/* --conf has always taken strtod's leading blanks and '+', which the other numbers refuse. */
int gateopt_conf(const char *s, double *out)
{
	double v;

	s += strspn(s, " \t\n\v\f\r");
	if (num_parse_double(s + (*s == '+'), 0, &v) != 0 || !(v >= 0.5 && v < 1))
		return -1;
	*out = v;
	return 0;
}

enum {
	G_CANDIDATE,
	G_BASELINE,
	G_PHASE,
	G_WORKLOAD,
	G_AGAINST,
	G_MIN_SPEEDUP,
	G_MAX_SLOWDOWN,
	G_ON,
	G_CONF,
	G_REGIME,
	G_EQUIVALENCE,
	G_COUNT
};

/* Each option may be given again (the last one counts) but the margin, which is given once. */
static const struct opt gate_opts[G_COUNT] = {
    [G_CANDIDATE] = {"--candidate", 0, OPT_VALUE | OPT_REPEAT},
    [G_BASELINE] = {"--baseline", 0, OPT_VALUE | OPT_REPEAT},
    [G_PHASE] = {"--phase", 0, OPT_VALUE | OPT_REPEAT},
    [G_WORKLOAD] = {"--workload", 0, OPT_VALUE | OPT_REPEAT},
    [G_AGAINST] = {"--against", 0, OPT_VALUE | OPT_REPEAT},
    [G_MIN_SPEEDUP] = {"--min-speedup", 0, OPT_VALUE | OPT_REPEAT},
    [G_MAX_SLOWDOWN] = {"--max-slowdown", 0, OPT_VALUE | OPT_REPEAT},
    [G_ON] = {"--on", 0, OPT_VALUE | OPT_REPEAT},
    [G_CONF] = {"--conf", 0, OPT_VALUE | OPT_REPEAT},
    [G_REGIME] = {"--regime", 0, OPT_VALUE | OPT_REPEAT},
    [G_EQUIVALENCE] = {"--equivalence", 0, OPT_VALUE | OPT_REPEAT},
};

static int gate_option(struct gate_spec *g, int k, const char *v, int *have_margin, char *err,
                       size_t errlen)
{
	const char **dst[] = {[G_CANDIDATE] = &g->candidate,
	                [G_BASELINE] = &g->baseline,
	                [G_PHASE] = &g->phase,
	                [G_WORKLOAD] = &g->workload,
	                [G_AGAINST] = &g->against};

	switch (k) {
	case G_MIN_SPEEDUP:
	case G_MAX_SLOWDOWN:
		if ((*have_margin)++)
			return errmsg_fail(err, errlen,
			                   "give one of --min-speedup or --max-slowdown");
		if (gateopt_pct(v, &g->pct) != 0)
			return errmsg_fail(err, errlen,
			                   "%s '%s': want a percentage 0 <= P < 100, e.g. 5%%",
			                   gate_opts[k].name, v);
		g->slowdown = k == G_MAX_SLOWDOWN;
		return 0;
	case G_ON:
		if (strcmp(v, "each") != 0 && strcmp(v, "geomean") != 0)
			return errmsg_fail(err, errlen, "--on '%s': want each or geomean", v);
		g->on_geomean = strcmp(v, "geomean") == 0;
		return 0;
	case G_CONF:
		if (gateopt_conf(v, &g->conf) != 0)
			return errmsg_fail(err, errlen, "--conf '%s': want a level in [0.5, 1)", v);
		return 0;
	case G_EQUIVALENCE:
		return gateopt_equivalence(v, &g->equivalence, err, errlen);
	case G_REGIME:
		if (cmp_regimes_parse(v, &g->regime) != 0 || g->regime == CMP_REGIMES_BOTH)
			return errmsg_fail(
			    err, errlen,
			    "--regime '%s': want steady or cold (the gate decides on one regime)",
			    v);
		g->regime_given = 1;
		return 0;
	}
	if (!v[0])
		return errmsg_fail(err, errlen, "%s: empty name", gate_opts[k].name);
	*dst[k] = v;
	return 0;
}

/* Gate options from argv[1..]; positional arguments go to *pos (at most one) when pos is not
 * NULL. */
static int parse_gate(int argc, char **argv, struct gate_spec *g, const char **pos, char *err,
                      size_t errlen)
{
	struct opt_parser p;
	int have_margin = 0, k;
	const char *v;

	opt_init(&p, argc, argv, 1, gate_opts, G_COUNT);
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k == OPT_ARG && (!pos || *pos))
			return errmsg_fail(err, errlen, "unexpected argument '%s'", v);
		if (k == OPT_ARG)
			*pos = v;
		else if (gate_option(g, k, v, &have_margin, err, errlen) != 0)
			return -1;
	}
	if (!have_margin)
		return errmsg_fail(err, errlen, "give --min-speedup P%% or --max-slowdown P%%");
	if (!isnan(g->equivalence) && !g->slowdown)
		return errmsg_fail(err, errlen,
		                   "--equivalence relaxes a no-regression requirement "
		                   "(--max-slowdown), not --min-speedup");
	if (!g->against && !g->candidate)
		return errmsg_fail(err, errlen, "give --candidate NAME (or --against OLD)");
	if (g->against && g->baseline)
		return errmsg_fail(err, errlen,
		                   "--baseline and --against exclude each other: with --against "
		                   "every arm is judged against itself in OLD");
	return 0;
}

int gateopt_parse(int argc, char **argv, struct gate_spec *g, const char **pos, char *err,
                  size_t errlen)
{
	gate_spec_init(g);
	return parse_gate(argc, argv, g, pos, err, errlen);
}
