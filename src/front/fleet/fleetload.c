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

static int machine_warnings(struct fleet_report *f, const struct fleet_machine *m)
{
	int rc = 0;

	if (m->busy)
		rc |= add(f,
		          "WARNING: %s was busy: another task was runnable before %.0f%% of its runs "
		          "(median %.0f other; load average %.2f on %.0f CPUs): its times carry "
		          "that contention; run one bench per machine (docs/fleet.md)",
		          m->label, 100 * m->busy_share, m->others, m->load, m->doc->online_cpus);
	if (m->problem)
		rc |= add(f, "%s (%s): no comparison: %s", m->label, m->doc->path, m->problem);
	for (size_t i = 0; m->r && i < m->r->nwarn; i++)
		if ((long)i != m->r->verdict_warning)
			rc |= add(f, "%s: %s", m->label, m->r->warn[i]);
	return rc;
}

/* Two files from one running kernel are two sessions of one machine, not two machines. */
static int same_machine(struct fleet_report *f)
{
	int rc = 0;

	for (size_t i = 0; i < f->nm; i++)
		for (size_t j = 0; j < i && f->m[i].doc->boot_id; j++)
			if (f->m[j].doc->boot_id && !strcmp(f->m[i].doc->boot_id, f->m[j].doc->boot_id))
				rc |= add(f,
				          "WARNING: %s and %s ran on one machine (boot id %s): two "
				          "sessions, not two machines, and the pooling counts that "
				          "machine twice",
				          f->m[j].label, f->m[i].label, f->m[i].doc->boot_id);
	return rc;
}

int fleet_warnings(struct fleet_report *f)
{
	size_t unpooled = 0, rows = 0;
	int rc = same_machine(f);

	for (size_t i = 0; i < f->nm; i++)
		rc |= machine_warnings(f, &f->m[i]);
	for (size_t i = 0; i < f->nrows; i++) {
		size_t k = 0;
		for (size_t j = 0; j < f->nm; j++)
			k += !f->rows[i].cells[j].pooled;
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
