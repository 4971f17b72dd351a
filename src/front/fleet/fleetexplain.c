/* fleetexplain.c - a fleet that explains itself (fleet.h; docs/fleet.md, "A fleet that explains
 * itself"): each comparison's machine effects related to the machines' facts by a meta-regression
 * (stats_meta_reg) on the cost of a minor fault (each machine's the mean over its sessions of the
 * mean of each bench's start and end) and the CPU vendor, the moderators' tests, its residual
 * tau^2 beside the plain one and whether the share explained is supported, and what sets each
 * machine named odd apart in its facts. */
#include "front/fleet/fleetint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The machines' facts per unit of the row: the files that stand for unit u are its pooled
 * sessions (or the session itself when the row pools one machine's sessions). */
struct unit_facts {
	double fault[STATS_METAREG_MAX_K]; /* ns: the mean of its files' (NAN: one lacks it) */
	const char *vendor[STATS_METAREG_MAX_K];
};

static int stands_for(const struct fleet_ctx *c, const struct fleet_row *row, size_t i, size_t u)
{
	return row->sessions_of ? i == u : row->cells[i].pooled && c->f->m[i].unit == u;
}

/* fa's fault costs and vendors of the k units, and ex->spread: the largest change of the fault
 * cost between a bench's start and its end over the files used. */
static void unit_facts(const struct fleet_ctx *c, const struct fleet_row *row, const size_t *unit,
                       size_t k, struct unit_facts *fa, struct fleet_explain *ex)
{
	double worst = 0;
	const struct fleet_machine *wm = NULL;

	for (size_t j = 0; j < k; j++) {
		double sum = 0;
		size_t n = 0;
		fa->vendor[j] = NULL;
		for (size_t i = 0; i < c->f->nm; i++) {
			const struct rf_doc *d = c->f->m[i].doc;
			double a = d->facts[0].fault_median, b = d->facts[1].fault_median;
			if (!stands_for(c, row, i, unit[j]))
				continue;
			sum += d->fault_ns;
			n++;
			if (!fa->vendor[j])
				fa->vendor[j] = d->cpu_vendor;
			if (d->facts[0].present && d->facts[1].present && a > 0 && b > 0 &&
			    fabs(b - a) / fmin(a, b) > worst) {
				worst = fabs(b - a) / fmin(a, b);
				wm = &c->f->m[i];
			}
		}
		fa->fault[j] = n ? sum / (double)n : NAN;
	}
	ex->spread[0] = '\0';
	if (wm && worst > 0.1)
		snprintf(ex->spread, sizeof ex->spread,
		         "the fault cost moved up to %.0f%% within one bench (%s: %.3g -> %.3g us): "
		         "each machine's is the mean of its benches' start and end, a moderator "
		         "measured with error (its slope is biased toward 0)",
		         100 * worst, wm->label, wm->doc->facts[0].fault_median / 1000,
		         wm->doc->facts[1].fault_median / 1000);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The moderators that vary and are known on every unit, as columns of x (k rows of at most
 * STATS_METAREG_MAX - 1); their names in ex->mod; why others are left out in ex->note. The fault
 * cost enters centred on the units' mean, in us (exact for large costs; the intercept is then at
 * the mean). Returns the number of columns. */
static size_t moderators(const struct unit_facts *fa, size_t k, double *x,
                         struct fleet_explain *ex, int with_vendor)
{
	const char *v0 = fa->vendor[0], *vend[2] = {NULL, NULL};
	size_t p = 0, unknown_f = 0, unknown_v = 0, nv = 0;
	double fmin_ = INFINITY, fmax_ = -INFINITY, mean = 0;
	size_t at = strlen(ex->note);

	for (size_t j = 0; j < k; j++) {
		if (isnan(fa->fault[j]))
			unknown_f++;
		else {
			fmin_ = fmin(fmin_, fa->fault[j]);
			fmax_ = fmax(fmax_, fa->fault[j]);
		}
		if (!fa->vendor[j])
			unknown_v++;
		else if (strcmp(fa->vendor[j], v0 ? v0 : "") != 0 && nv < 2 &&
		         (!vend[0] || strcmp(vend[0], fa->vendor[j]) != 0))
			vend[nv++] = fa->vendor[j];
	}
	if (unknown_f)
		at += (size_t)snprintf(ex->note + at, sizeof ex->note - at,
		                       "%sfault cost unknown on %zu of %zu machines (no facts)",
		                       at ? "; " : "", unknown_f, k);
	else if (!(fmax_ > fmin_))
		at += (size_t)snprintf(ex->note + at, sizeof ex->note - at,
		                       "%sno variation in the fault cost (%.3g us everywhere)",
		                       at ? "; " : "", fmin_ / 1000);
	else {
		mean = 0;
		for (size_t j = 0; j < k; j++)
			mean += (fa->fault[j] - fmin_) / (double)k;
		for (size_t j = 0; j < k; j++)
			x[j * (STATS_METAREG_MAX - 1) + p] = ((fa->fault[j] - fmin_) - mean) / 1000;
		snprintf(ex->mod[p++], sizeof ex->mod[0], "fault cost (per us)");
	}
	if (unknown_v)
		at += (size_t)snprintf(ex->note + at, sizeof ex->note - at,
		                       "%sCPU vendor unknown on %zu of %zu machines", at ? "; " : "",
		                       unknown_v, k);
	else if (nv == 0)
		at += (size_t)snprintf(ex->note + at, sizeof ex->note - at,
		                       "%sno variation in the CPU vendor (%s everywhere)",
		                       at ? "; " : "", v0);
	else if (with_vendor)
		for (size_t v = 0; v < nv; v++) {
			for (size_t j = 0; j < k; j++)
				x[j * (STATS_METAREG_MAX - 1) + p] = strcmp(fa->vendor[j], vend[v]) == 0;
			snprintf(ex->mod[p++], sizeof ex->mod[0], "CPU vendor %.20s (against %.16s)",
			         vend[v], v0);
		}
	return p;
}

/* The units a row's fit is over: the j-th of the k is machine unit[j], with its estimate y[j] and
 * standard error se[j]. */
struct units {
	const size_t *unit;
	const double *y, *se;
	size_t k;
};

/* What sets the odd machine m (the unit at jm) apart from the other units in its facts, into
 * buf. */
static void odd_facts(const struct fleet_ctx *c, const struct units *us, size_t jm,
                      const struct unit_facts *fa, char *buf, size_t len)
{
	const size_t *unit = us->unit, k = us->k;
	const struct fleet_machine *om = &c->f->m[unit[jm]];
	const char *ov = fa->vendor[jm];
	double f[STATS_METAREG_MAX_K], of = fa->fault[jm];
	size_t nf = 0, at = 0, same_vendor = 0, same_desc = 0;

	for (size_t j = 0; j < k; j++) {
		const struct rf_doc *d = c->f->m[unit[j]].doc;
		if (j == jm)
			continue;
		if (!isnan(fa->fault[j]))
			f[nf++] = fa->fault[j];
		same_vendor += fa->vendor[j] && ov && !strcmp(fa->vendor[j], ov);
		same_desc += d->machine_desc && om->doc->machine_desc &&
		             !strcmp(d->machine_desc, om->doc->machine_desc);
	}
	at = (size_t)snprintf(buf, len, "%s:", om->label);
	if (nf && !isnan(of)) {
		double med;
		qsort(f, nf, sizeof *f, by_value);
		med = nf % 2 ? f[nf / 2] : (f[nf / 2 - 1] + f[nf / 2]) / 2;
		if (med > 0 && (of > 1.5 * med || of < med / 1.5))
			at += (size_t)snprintf(buf + at, len - at,
			                       " a minor fault costs %.3g us, %.2gx the others' median "
			                       "%.3g us;",
			                       of / 1000, of / med, med / 1000);
	}
	if (at < len && ov && same_vendor == 0 && k > 1)
		at += (size_t)snprintf(buf + at, len - at, " CPU vendor %s, unlike every other;", ov);
	if (at < len && om->doc->machine_desc && same_desc == 0 && k > 1)
		at += (size_t)snprintf(buf + at, len - at, " machine %s, unlike every other;",
		                       om->doc->machine_desc);
	if (at < len && om->busy)
		at += (size_t)snprintf(buf + at, len - at, " busy (another task runnable before "
		                                           "%.0f%% of its runs);",
		                       100 * om->busy_share);
	if (at < len && buf[at - 1] == ':')
		snprintf(buf + at, len - at, " nothing in its facts (fault cost, CPU vendor, "
		                             "machine, load) sets it apart");
	else if (at < len)
		buf[at - 1] = '\0';
}

/* The fit on fa's moderators, the vendor left out when both do not fit; ex->fitted, or why not in
 * ex->note. x: k rows of STATS_METAREG_MAX - 1. */
static void fit(const struct fleet_ctx *c, const struct unit_facts *fa, const struct units *us,
                double *x, struct fleet_explain *ex)
{
	const size_t k = us->k;
	size_t p, at;

	for (int with_vendor = 1; with_vendor >= 0 && !ex->fitted; with_vendor--) {
		int dropped = !with_vendor && ex->nmods > 1;
		ex->note[0] = '\0';
		p = moderators(fa, k, x, ex, with_vendor);
		if (dropped)
			snprintf(ex->note + strlen(ex->note), sizeof ex->note - strlen(ex->note),
			         "%sCPU vendor left out: %zu machines too few for both moderators, or the "
			         "two collinear",
			         ex->note[0] ? "; " : "", k);
		ex->nmods = p;
		at = strlen(ex->note);
		if (p == 0)
			break;
		if (k < p + 3) {
			snprintf(ex->note + at, sizeof ex->note - at,
			         "%stoo few machines: %zu for %zu coefficients (a fit needs %zu, so "
			         "that t has 2 degrees of freedom)",
			         at ? "; " : "", k, p + 1, p + 3);
			continue;
		}
		/* the rows of x are STATS_METAREG_MAX - 1 wide; stats_meta_reg wants p wide */
		for (size_t j = 0; j < k; j++)
			memmove(x + j * p, x + j * (STATS_METAREG_MAX - 1), p * sizeof *x);
		if (stats_meta_reg(us->y, us->se, x, k, p + 1, c->f->conf, &ex->reg) == 0)
			ex->fitted = 1;
		else
			snprintf(ex->note + at, sizeof ex->note - at,
			         "%sthe moderators say the same thing on these machines (collinear)",
			         at ? "; " : "");
	}
}

/* Whether the share of tau^2 explained is supported: a plain tau^2 above 0 to explain, and the
 * moderators' omnibus test significant at the fleet's level; ex->r2, or why not. */
static void support(const struct fleet_ctx *c, struct fleet_explain *ex)
{
	ex->r2 = NAN;
	ex->unsupported[0] = '\0';
	if (!ex->fitted)
		return;
	if (!(ex->tau2_plain > 0))
		snprintf(ex->unsupported, sizeof ex->unsupported,
		         "tau^2 without moderators is 0: the machines differ no more than their "
		         "standard errors say, nothing to explain");
	else if (!(ex->reg.qm_p < 1 - c->f->conf))
		snprintf(ex->unsupported, sizeof ex->unsupported,
		         "no moderator significant (omnibus p %.2g, not below %.2g)", ex->reg.qm_p,
		         1 - c->f->conf);
	else
		ex->r2 = fmax(0, 1 - ex->reg.tau2 / ex->tau2_plain);
}

void fleet_explain(const struct fleet_ctx *c, struct fleet_row *row, const size_t *unit,
                   const double *y, const double *se, size_t k)
{
	struct fleet_explain *ex = &row->ex;
	const struct units us = {unit, y, se, k};
	double *x = calloc(k * (STATS_METAREG_MAX - 1) + 1, sizeof *x);
	struct unit_facts *fa = malloc(sizeof *fa);
	size_t at = 0;

	memset(ex, 0, sizeof *ex);
	ex->tau2_plain = row->has_meta ? row->meta.tau2 : NAN;
	ex->r2 = NAN;
	if (!x || !fa || !row->has_meta || k > STATS_METAREG_MAX_K) {
		snprintf(ex->note, sizeof ex->note, "%s",
		         !row->has_meta ? "fewer than two machines" : "not fitted");
		free(x);
		free(fa);
		return;
	}
	unit_facts(c, row, unit, k, fa, ex);
	fit(c, fa, &us, x, ex);
	support(c, ex);
	for (size_t i = 0; i < c->f->nm && at < sizeof ex->odd; i++) {
		char one[320];
		size_t u = row->sessions_of ? i : c->f->m[i].unit, jm = 0;
		if (!row->cells[i].odd || (!row->sessions_of && u != i))
			continue;
		while (jm < k && unit[jm] != u)
			jm++;
		if (jm == k)
			continue;
		odd_facts(c, &us, jm, fa, one, sizeof one);
		at += (size_t)snprintf(ex->odd + at, sizeof ex->odd - at, "%s%s", at ? "; " : "",
		                       one);
	}
	free(x);
	free(fa);
}

const char *fleet_explain_text(const struct fleet_row *row, char *buf, size_t len)
{
	const struct fleet_explain *ex = &row->ex;
	size_t at;

	if (!ex->fitted) {
		snprintf(buf, len, "not related to the machines' facts: %s",
		         ex->note[0] ? ex->note : "nothing to relate");
		return buf;
	}
	at = (size_t)snprintf(buf, len, "meta-regression on %zu machines:", ex->reg.k);
	for (size_t j = 0; j < ex->nmods && at < len; j++)
		at += (size_t)snprintf(buf + at, len - at, " %s %+.3g (SE %.3g, p %.2g) [%.3g, %.3g];",
		                       ex->mod[j], ex->reg.b[j + 1], ex->reg.se[j + 1],
		                       ex->reg.pval[j + 1], ex->reg.lo[j + 1], ex->reg.hi[j + 1]);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at,
		                       " all moderators: QM %.3g on %zu df, p %.2g (F, Knapp-Hartung);"
		                       " residual tau^2 %.3g against %.3g without (ln-ratio scale)",
		                       ex->reg.qm, ex->nmods, ex->reg.qm_p, ex->reg.tau2,
		                       ex->tau2_plain);
	if (at < len && !isnan(ex->r2))
		at += (size_t)snprintf(buf + at, len - at, ", %.0f%% explained%s", 100 * ex->r2,
		                       ex->reg.tau2 > 0 ? "" : " (the residual tau^2 is truncated at 0)");
	else if (at < len)
		at += (size_t)snprintf(buf + at, len - at, "; R^2 not supported: %s",
		                       ex->unsupported);
	if (at < len && ex->spread[0])
		at += (size_t)snprintf(buf + at, len - at, "; %s", ex->spread);
	if (at < len && ex->note[0])
		snprintf(buf + at, len - at, "; %s", ex->note);
	return buf;
}
