/* cmdopt.c - the values of the options several commands share (front/cmd/cmdopt.h). */
#include "front/cmd/cmdopt.h"

#include "common/numparse.h"
#include "front/compare/compare.h"
#include "front/export/export.h"
#include "front/results/results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const time_words[] = {"cpu", "auto", "wall", NULL};
const struct opt_values cmdopt_time_values = {time_words, NULL};
const int cmdopt_time_map[] = {RF_POLICY_CPU, RF_POLICY_AUTO, RF_POLICY_WALL};

/* compare's names, in the order of enum cmp_regimes. */
static const char *regimes_at(size_t i, const char **summary)
{
	(void)summary;
	return i < CMP_REGIMES_COUNT ? cmp_regimes_name((enum cmp_regimes)i) : NULL;
}
const struct opt_values cmdopt_regimes_values = {NULL, regimes_at};

/* The gate's: steady, then cold (both is refused: the gate decides on one). */
const int cmdopt_regime_map[] = {CMP_REGIMES_STEADY, CMP_REGIMES_COLD};
static const char *regime_at(size_t i, const char **summary)
{
	(void)summary;
	return i < 2 ? cmp_regimes_name((enum cmp_regimes)cmdopt_regime_map[i]) : NULL;
}
const struct opt_values cmdopt_regime_values = {NULL, regime_at};

static const char *const phases_words[] = {"all", NULL};
const struct opt_values cmdopt_phases_values = {phases_words, NULL};

static const char *format_at(size_t i, const char **summary)
{
	const struct exporter *x = export_at(i);

	if (x)
		*summary = x->summary;
	return x ? x->name : NULL;
}
const struct opt_values cmdopt_format_values = {NULL, format_at};

/* --conf has always taken strtod's leading blanks and '+', which the other numbers refuse. */
static int conf_level(const char *s, double *out)
{
	double v;

	s += strspn(s, " \t\n\v\f\r");
	if (num_parse_double(s + (*s == '+'), 0, &v) != 0 || !(v >= 0.5 && v < 1))
		return -1;
	*out = v;
	return 0;
}

double cmdopt_margin_ratio(const struct cmdopt_margin *m)
{
	if (m->speedup)
		return 1 - m->speedup_pct / 100;
	return m->slowdown ? 1 + m->slowdown_pct / 100 : NAN;
}

int cmdopt_help(const struct opt_doc *d, int argc, char **argv, int first)
{
	struct opt_parser p;
	const char *inl;
	int help_row = opt_find(d->opts, d->nopts, "--help", &inl);

	opt_init(&p, argc, argv, first, d->opts, d->nopts);
	if (help_row < 0 || !opt_seen(&p, help_row))
		return 0;
	optdoc_usage(stdout, d, NULL);
	return 1;
}

int cmdopt_set_conf(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	double *dst = (double *)((char *)settings + o->dest - 1);

	if (conf_level(v, dst) == 0)
		return 0;
	return opt_value(o, v, dst, err, errlen);
}
