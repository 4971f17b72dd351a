/* fleetload.c - what else ran on each machine of a fleet (its runs' telemetry), and the fleet's
 * warnings (fleet.h). */
#include "front/fleet/fleetint.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void fleet_machine_load(struct fleet_machine *m)
{
	const struct rf_doc *d = m->doc;
	size_t cells = d->narms * d->nwl, n = 0, nl = 0, busy = 0;
	double *others = calloc(d->nrounds * cells + 1, sizeof *others);
	double *load = calloc(d->nrounds * cells + 1, sizeof *load);

	m->busy_share = m->others = m->load = NAN;
	for (size_t r = 0; others && load && r < d->nrounds; r++)
		for (size_t a = 0; a < d->narms; a++)
			for (size_t w = 0; w < d->nwl; w++) {
				const struct rf_run *run = rf_run(d, r, a, w);
				if (!run->present)
					continue;
				if (!isnan(run->loadavg_1m))
					load[nl++] = run->loadavg_1m;
				if (isnan(run->runnable))
					continue;
				others[n] = run->runnable >= 1 ? run->runnable - 1 : 0;
				busy += others[n++] >= 1;
			}
	m->load_runs = n;
	if (n) {
		m->busy_share = (double)busy / (double)n;
		m->others = median_of(others, n);
		m->busy = m->busy_share >= FLEET_BUSY_SHARE;
	}
	m->load = median_of(load, nl);
	free(others);
	free(load);
}

static int add(struct fleet_report *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int add(struct fleet_report *f, const char *fmt, ...)
{
	char **nw = realloc(f->warn, (f->nwarn + 1) * sizeof *nw);
	va_list ap;
	int rc;

	if (!nw)
		return -1;
	f->warn = nw;
	va_start(ap, fmt);
	rc = vasprintf(&f->warn[f->nwarn], fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -1;
	f->nwarn++;
	return 0;
}

/* The busy machines in one line (one machine: its figures; several: their names and the range of
 * their shares; the machines table has each one's). Copies are their original's. */
static int busy_warning(struct fleet_report *f, size_t *idx)
{
	size_t n = 0;
	double lo = 1, hi = 0;
	char names[512];

	for (size_t i = 0; i < f->nm; i++)
		if (f->m[i].busy && f->m[i].copy_of < 0) {
			idx[n++] = i;
			lo = fmin(lo, f->m[i].busy_share);
			hi = fmax(hi, f->m[i].busy_share);
		}
	if (n == 1) {
		const struct fleet_machine *m = &f->m[idx[0]];
		return add(f,
		           "WARNING: %s was busy: another task was runnable before %.0f%% of its runs "
		           "(median %.0f other; load average %.2f on %.0f CPUs): its times carry "
		           "that contention; run one bench per machine (docs/fleet.md)",
		           m->label, 100 * m->busy_share, m->others, m->load, m->doc->online_cpus);
	}
	if (n == 0)
		return 0;
	fleet_names(f, idx, n, names, sizeof names);
	return add(f,
	           "WARNING: %s were busy: another task was runnable before %.0f%% to %.0f%% of "
	           "their runs (the machines table has each one's): their times carry that "
	           "contention; run one bench per machine (docs/fleet.md)",
	           names, 100 * lo, 100 * hi);
}

/* Each machine's own problems and warnings, one line per text with the machines that have it. */
static int machine_warnings(struct fleet_report *f, size_t *idx)
{
	size_t nt = 0, cap = 0;
	struct text {
		const char *s, *path;
		int problem;
	} *t = NULL;
	int rc = 0;

	for (size_t i = 0; i < f->nm; i++)
		cap += 1 + (f->m[i].r ? f->m[i].r->nwarn : 0);
	if (!(t = calloc(cap + 1, sizeof *t)))
		return -1;
	for (size_t i = 0; i < f->nm; i++) {
		const struct fleet_machine *m = &f->m[i];
		if (m->copy_of >= 0)
			continue;
		if (m->problem)
			t[nt++] = (struct text){m->problem, m->doc->path, 1};
		for (size_t w = 0; m->r && w < m->r->nwarn; w++)
			if ((long)w != m->r->verdict_warning)
				t[nt++] = (struct text){m->r->warn[w], NULL, 0};
	}
	for (size_t k = 0; rc == 0 && k < nt; k++) {
		size_t n = 0;
		char names[512];
		int first = 1;
		for (size_t j = 0; j < k && first; j++)
			first = t[j].problem != t[k].problem || strcmp(t[j].s, t[k].s) != 0;
		if (!first)
			continue;
		for (size_t i = 0; i < f->nm; i++) {
			const struct fleet_machine *m = &f->m[i];
			int has = t[k].problem && m->problem && !strcmp(m->problem, t[k].s);
			for (size_t w = 0; !t[k].problem && !has && m->r && w < m->r->nwarn; w++)
				has = (long)w != m->r->verdict_warning && !strcmp(m->r->warn[w], t[k].s);
			if (has && m->copy_of < 0)
				idx[n++] = i;
		}
		fleet_names(f, idx, n, names, sizeof names);
		if (t[k].problem && n == 1)
			rc |= add(f, "%s (%s): no comparison: %s", names, t[k].path, t[k].s);
		else if (t[k].problem)
			rc |= add(f, "%s: no comparison: %s", names, t[k].s);
		else
			rc |= add(f, "%s: %s", names, t[k].s);
	}
	free(t);
	return rc;
}

/* One line per machine that is more than one file: its copies (counted once), then its sessions
 * (pooled as sessions of one machine); and one line per file whose machine.id was not its own. */
static int same_machine(struct fleet_report *f)
{
	size_t *idx = calloc(f->nm + 1, sizeof *idx), n;
	char names[512];
	int rc = idx ? 0 : -1;

	for (size_t o = 0; rc == 0 && o < f->nm; o++) {
		n = 0;
		for (size_t i = o + 1; f->m[o].copy_of < 0 && i < f->nm; i++)
			if (f->m[i].copy_of == (long)o)
				idx[n++] = i;
		if (n) {
			fleet_names(f, idx, n, names, sizeof names);
			rc |= add(f,
			          "WARNING: %s %s the measurements of %s (identical rounds): one "
			          "machine is not %zu by new labels; counted once",
			          names, n == 1 ? "repeats" : "repeat", f->m[o].label, n + 1);
		}
	}
	for (size_t u = 0; rc == 0 && u < f->nm; u++) {
		if (f->m[u].unit != u || f->m[u].copy_of >= 0)
			continue;
		n = 0;
		for (size_t i = 0; i < f->nm; i++)
			if (f->m[i].unit == u && f->m[i].copy_of < 0)
				idx[n++] = i;
		if (n >= 2) {
			fleet_names(f, idx, n, names, sizeof names);
			rc |= add(f,
			          "WARNING: %s ran on one machine (boot id %s): %zu sessions of one "
			          "machine, pooled as such (a random effect within it), not as %zu "
			          "machines (docs/fleet.md, \"One machine, several files\")",
			          names, f->m[u].doc->boot_id, n, n);
		}
	}
	for (size_t i = 0; rc == 0 && i < f->nm; i++)
		if (f->m[i].doc->machine_id_stored)
			rc |= add(f,
			          "WARNING: %s: machine.id %.20s does not match its fields (%s): the "
			          "recomputed id is used",
			          f->m[i].doc->path, f->m[i].doc->machine_id_stored,
			          f->m[i].doc->machine_id);
	free(idx);
	return rc;
}

/* The machines whose benches stopped on their sequential intervals: their rows' fixed-n intervals
 * do not allow for that stop, the gate and the pooling use their sequential intervals. */
static int stopped_warning(struct fleet_report *f, size_t *idx)
{
	size_t n = 0;
	double most = 1;
	char names[512];

	for (size_t i = 0; i < f->nm; i++) {
		int wide = 0;
		for (size_t r = 0; r < f->nrows; r++) {
			const struct fleet_cell *c = &f->rows[r].cells[i];
			if (c->pooled && c->se > c->se_fixed) {
				wide = 1;
				most = fmax(most, c->se / c->se_fixed);
			}
		}
		if (wide)
			idx[n++] = i;
	}
	if (n == 0)
		return 0;
	fleet_names(f, idx, n, names, sizeof names);
	return add(f,
	           "%s: %s stopped on %s sequential intervals (a plan, and a decision or cells "
	           "that left): the machine rows' fixed-n intervals do not allow for that stop; "
	           "the pooling weighs %s by the standard error of %s sequential interval (up to "
	           "%.2fx the fixed-n one), and the gate judges each machine by its own plan "
	           "(docs/fleet.md, \"Machines that stopped on a sequential decision\")",
	           names, n == 1 ? "its bench" : "their benches", n == 1 ? "its" : "their",
	           n == 1 ? "it" : "them", n == 1 ? "its" : "their", most);
}

int fleet_warnings(struct fleet_report *f)
{
	size_t unpooled = 0, rows = 0;
	int rc = same_machine(f);

	size_t *idx = calloc(f->nm + 1, sizeof *idx);

	if (!idx)
		return -1;
	rc |= busy_warning(f, idx);
	rc |= machine_warnings(f, idx);
	rc |= stopped_warning(f, idx);
	free(idx);
	for (size_t i = 0; i < f->nrows; i++) {
		size_t k = 0;
		for (size_t j = 0; j < f->nm; j++)
			k += !f->rows[i].cells[j].pooled && !f->rows[i].cells[j].copy;
		unpooled += k;
		rows += k > 0;
	}
	if (unpooled)
		rc |= add(f,
		          "%zu machine comparison%s in %zu fleet row%s not pooled (a missing arm, "
		          "workload, phase or regime, other work, or too few rounds): each machine's "
		          "row says why",
		          unpooled, unpooled == 1 ? " is" : "s are", rows, rows == 1 ? "" : "s");
	return rc ? -1 : 0;
}

int fleet_drop_telemetry(struct fleet_report *f)
{
	for (size_t i = 0; i < f->nm; i++)
		if (f->m[i].r)
			cmp_drop_telemetry(f->m[i].r);
	for (size_t i = 0; i < f->nwarn; i++)
		free(f->warn[i]);
	free(f->warn);
	f->warn = NULL;
	f->nwarn = 0;
	return fleet_warnings(f);
}
