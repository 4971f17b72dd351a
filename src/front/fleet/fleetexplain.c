/* fleetexplain.c - a fleet that explains itself (fleet.h; docs/fleet.md, "A fleet that explains
 * itself"): each comparison's machine effects related to the machines' facts by a meta-regression
 * (stats_meta_reg) on the cost of a minor fault and the CPU vendor, its residual tau^2 beside the
 * plain one, and what sets each machine named odd apart in its facts. */
#include "front/fleet/fleetint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file that stands for unit u of the row (its first session, or the session itself). */
static const struct fleet_machine *unit_machine(const struct fleet_ctx *c, size_t u)
{
	return &c->f->m[u];
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The moderators that vary and are known on every unit, as columns of x (k rows of at most
 * STATS_METAREG_MAX - 1); their names in ex->mod; why others are left out in ex->note. Returns
 * the number of columns. */
static size_t moderators(const struct fleet_ctx *c, const size_t *unit, size_t k, double *x,
                         struct fleet_explain *ex, int with_vendor)
{
	const char *v0 = unit_machine(c, unit[0])->doc->cpu_vendor, *vend[2] = {NULL, NULL};
	size_t p = 0, unknown_f = 0, unknown_v = 0, nv = 0;
	double fmin_ = INFINITY, fmax_ = -INFINITY;
	size_t at = strlen(ex->note);

	for (size_t j = 0; j < k; j++) {
		const struct rf_doc *d = unit_machine(c, unit[j])->doc;
		if (isnan(d->fault_ns))
			unknown_f++;
		else {
			fmin_ = fmin(fmin_, d->fault_ns);
			fmax_ = fmax(fmax_, d->fault_ns);
		}
		if (!d->cpu_vendor)
			unknown_v++;
		else if (strcmp(d->cpu_vendor, v0 ? v0 : "") != 0 && nv < 2 &&
		         (!vend[0] || strcmp(vend[0], d->cpu_vendor) != 0))
			vend[nv++] = d->cpu_vendor;
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
		for (size_t j = 0; j < k; j++)
			x[j * (STATS_METAREG_MAX - 1) + p] = unit_machine(c, unit[j])->doc->fault_ns / 1000;
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
				x[j * (STATS_METAREG_MAX - 1) + p] =
				    strcmp(unit_machine(c, unit[j])->doc->cpu_vendor, vend[v]) == 0;
			snprintf(ex->mod[p++], sizeof ex->mod[0], "CPU vendor %.20s (against %.16s)",
			         vend[v], v0);
		}
	return p;
}

/* What sets the odd machine m apart from the other units in its facts, into buf. */
static void odd_facts(const struct fleet_ctx *c, const size_t *unit, size_t k, size_t m,
                      char *buf, size_t len)
{
	const struct fleet_machine *om = unit_machine(c, m);
	double f[STATS_METAREG_MAX_K];
	size_t nf = 0, at = 0, same_vendor = 0, same_desc = 0;

	for (size_t j = 0; j < k; j++) {
		const struct rf_doc *d = unit_machine(c, unit[j])->doc;
		if (unit[j] == m)
			continue;
		if (!isnan(d->fault_ns) && nf < STATS_METAREG_MAX_K)
			f[nf++] = d->fault_ns;
		same_vendor += d->cpu_vendor && om->doc->cpu_vendor &&
		               !strcmp(d->cpu_vendor, om->doc->cpu_vendor);
		same_desc += d->machine_desc && om->doc->machine_desc &&
		             !strcmp(d->machine_desc, om->doc->machine_desc);
	}
	at = (size_t)snprintf(buf, len, "%s:", om->label);
	if (nf && !isnan(om->doc->fault_ns)) {
		double med;
		qsort(f, nf, sizeof *f, by_value);
		med = nf % 2 ? f[nf / 2] : (f[nf / 2 - 1] + f[nf / 2]) / 2;
		if (med > 0 && (om->doc->fault_ns > 1.5 * med || om->doc->fault_ns < med / 1.5))
			at += (size_t)snprintf(buf + at, len - at,
			                       " a minor fault costs %.3g us, %.2gx the others' median "
			                       "%.3g us;",
			                       om->doc->fault_ns / 1000, om->doc->fault_ns / med,
			                       med / 1000);
	}
	if (at < len && om->doc->cpu_vendor && same_vendor == 0 && k > 1)
		at += (size_t)snprintf(buf + at, len - at, " CPU vendor %s, unlike every other;",
		                       om->doc->cpu_vendor);
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

void fleet_explain(const struct fleet_ctx *c, struct fleet_row *row, const size_t *unit,
                   const double *y, const double *se, size_t k)
{
	struct fleet_explain *ex = &row->ex;
	double *x = calloc(k * (STATS_METAREG_MAX - 1) + 1, sizeof *x);
	size_t p, at;

	memset(ex, 0, sizeof *ex);
	ex->tau2_plain = row->has_meta ? row->meta.tau2 : NAN;
	if (!x || !row->has_meta || k > STATS_METAREG_MAX_K) {
		snprintf(ex->note, sizeof ex->note, "%s",
		         !row->has_meta ? "fewer than two machines" : "not fitted");
		free(x);
		return;
	}
	for (int with_vendor = 1; with_vendor >= 0 && !ex->fitted; with_vendor--) {
		int dropped = !with_vendor && ex->nmods > 1;
		ex->note[0] = '\0';
		p = moderators(c, unit, k, x, ex, with_vendor);
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
		if (stats_meta_reg(y, se, x, k, p + 1, c->f->conf, &ex->reg) == 0)
			ex->fitted = 1;
		else
			snprintf(ex->note + at, sizeof ex->note - at,
			         "%sthe moderators say the same thing on these machines (collinear)",
			         at ? "; " : "");
	}
	at = 0;
	for (size_t i = 0; i < c->f->nm && at < sizeof ex->odd; i++) {
		char one[320];
		size_t u = row->sessions_of ? i : c->f->m[i].unit;
		if (!row->cells[i].odd || (!row->sessions_of && u != i))
			continue;
		odd_facts(c, unit, k, u, one, sizeof one);
		at += (size_t)snprintf(ex->odd + at, sizeof ex->odd - at, "%s%s", at ? "; " : "",
		                       one);
	}
	free(x);
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
		at += (size_t)snprintf(buf + at, len - at, " %s %+.3g [%.3g, %.3g] (p %.2g);",
		                       ex->mod[j], ex->reg.b[j + 1], ex->reg.lo[j + 1],
		                       ex->reg.hi[j + 1], ex->reg.pval[j + 1]);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at,
		                       " residual tau^2 %.3g against %.3g without (ln-ratio scale)",
		                       ex->reg.tau2, ex->tau2_plain);
	if (at < len && ex->tau2_plain > 0)
		at += (size_t)snprintf(buf + at, len - at, ", %.0f%% explained",
		                       100 * fmax(0, 1 - ex->reg.tau2 / ex->tau2_plain));
	if (at < len && ex->note[0])
		snprintf(buf + at, len - at, "; %s", ex->note);
	return buf;
}
