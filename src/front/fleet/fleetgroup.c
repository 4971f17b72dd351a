/* fleetgroup.c - which files of a fleet are one machine (fleet.h; docs/fleet.md, "One machine,
 * several files"): a file whose measurements are those of an earlier file (a copy under another
 * label) is that file, counted once; files of one boot id are sessions of one machine, pooled as
 * a random effect within it. And the names of a group in one line, however many there are. */
#include "front/fleet/fleetint.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* A digest of what d measured: its arms, workloads (their work and checksums) and every measured
 * run's status, times and telemetry: two machines never measure all of these alike. */
static uint64_t digest(const struct rf_doc *d)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv(h, &d->nrounds, sizeof d->nrounds);
	for (size_t a = 0; a < d->narms; a++)
		h = fnv(h, d->arms[a], strlen(d->arms[a]) + 1);
	for (size_t w = 0; w < d->nwl; w++) {
		const struct rf_workload *x = &d->wl[w];
		h = fnv(h, x->name, strlen(x->name) + 1);
		if (x->work)
			h = fnv(h, x->work, strlen(x->work) + 1);
		if (x->checksum)
			h = fnv(h, x->checksum, strlen(x->checksum) + 1);
	}
	for (size_t r = 0; r < d->nrounds; r++)
		for (size_t a = 0; a < d->narms; a++)
			for (size_t w = 0; w < d->nwl; w++) {
				const struct rf_run *run = rf_run(d, r, a, w);
				unsigned char st[2] = {(unsigned char)run->present,
				                       (unsigned char)run->ok};
				h = fnv(h, st, sizeof st);
				double tel[4] = {run->runnable, run->loadavg_1m, run->wall_ns,
				                 run->max_rss_kib};
				if (run->ok)
					h = fnv(h, run->t_basis, sizeof run->t_basis);
				h = fnv(h, tel, sizeof tel);
			}
	return h;
}

static int same_shape(const struct rf_doc *a, const struct rf_doc *b)
{
	return a->nrounds == b->nrounds && a->narms == b->narms && a->nwl == b->nwl;
}

int fleet_group(struct fleet_report *f)
{
	uint64_t *h = calloc(f->nm + 1, sizeof *h);

	if (!h)
		return -1;
	for (size_t i = 0; i < f->nm; i++)
		h[i] = digest(f->m[i].doc);
	f->nunits = 0;
	for (size_t i = 0; i < f->nm; i++) {
		struct fleet_machine *m = &f->m[i];
		const char *boot = m->doc->boot_id;

		m->copy_of = -1;
		m->unit = i;
		for (size_t j = 0; j < i && m->copy_of < 0; j++)
			if (f->m[j].copy_of < 0 && h[j] == h[i] && same_shape(f->m[j].doc, m->doc))
				m->copy_of = (long)j;
		if (m->copy_of >= 0) {
			m->unit = f->m[m->copy_of].unit;
			continue;
		}
		for (size_t j = 0; j < i && boot; j++)
			if (f->m[j].copy_of < 0 && f->m[j].doc->boot_id &&
			    strcmp(f->m[j].doc->boot_id, boot) == 0) {
				m->unit = f->m[j].unit;
				break;
			}
		f->nunits += m->unit == i;
	}
	for (size_t i = 0; i < f->nm; i++) {
		f->m[i].nsessions = 0;
		for (size_t j = 0; j < f->nm; j++)
			f->m[i].nsessions += f->m[j].unit == f->m[i].unit && f->m[j].copy_of < 0;
	}
	free(h);
	return 0;
}

void fleet_names(const struct fleet_report *f, const size_t *idx, size_t n, char *buf, size_t len)
{
	size_t shown = n > 4 ? 3 : n, at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < shown && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
		                       f->m[idx[i]].label);
	if (n > shown && at < len)
		snprintf(buf + at, len - at, " (%zu more)", n - shown);
}
