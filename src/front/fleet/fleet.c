/* fleet.c - fleet_build (fleet.h): the machines and their labels, one paired comparison per
 * machine (front/compare), the union of their comparisons as the fleet's rows, then each row's
 * cells and pooling (fleetcell.c), each machine's load and the warnings (fleetload.c). */
#include "front/fleet/fleetint.h"

#include "common/errmsg.h"
#include "common/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The label of d: task.label, else its file name without directory and ".json". */
static char *label_of(const struct rf_doc *d)
{
	const char *base = strrchr(d->path, '/');
	size_t n;

	if (d->label)
		return strdup(d->label);
	base = base ? base + 1 : d->path;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		n -= 5;
	return strndup(base, n);
}

static int check_inputs(struct rf_doc *const *docs, size_t n, const struct cmp_opts *o,
                        char *err, size_t errlen)
{
	if (n < 2 || n > FLEET_MAX_FILES)
		return errmsg_fail(err, errlen, "a fleet is 2 to %d results files, not %zu",
		                   FLEET_MAX_FILES, n);
	if (o->bootstrap)
		return errmsg_fail(err, errlen,
		                   "--bootstrap: a fleet pools the standard errors of the rank "
		                   "intervals (docs/methodology.md, \"A fleet of machines\")");
	for (size_t i = 1; i < n; i++)
		if (docs[i]->kind != docs[0]->kind)
			return errmsg_fail(err, errlen,
			                   "%s holds %s runs and %s holds %s runs: one fleet compares "
			                   "one kind",
			                   docs[0]->path, docs[0]->kind->runs, docs[i]->path,
			                   docs[i]->kind->runs);
	return 0;
}

/* Labels, each once. Returns ST_OK, ST_USAGE or ST_FAIL with err set. */
static enum status set_labels(struct fleet_report *f, char *err, size_t errlen)
{
	for (size_t i = 0; i < f->nm; i++) {
		if (!(f->m[i].label = label_of(f->m[i].doc)))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
		for (size_t j = 0; j < i; j++)
			if (strcmp(f->m[i].label, f->m[j].label) == 0)
				return errmsg_status(
				    ST_USAGE, err, errlen,
				    "%s and %s both name their machine '%s': give each task its own "
				    "label (allocab bench --label, docs/fleet.md)",
				    f->m[j].doc->path, f->m[i].doc->path, f->m[i].label);
	}
	return ST_OK;
}

/* The machine's own paired comparison, or the reason it has none in m->problem. Returns 0, or -1
 * when memory ran out. */
static int machine_report(struct fleet_machine *m, const struct fleet_machine *ref,
                          const struct cmp_opts *o)
{
	const struct rf_doc *d = m->doc;
	struct cmp_opts mo = *o;
	char why[1024];
	int rc;

	/* each machine's rows carry the sequential intervals of its own plan, when it has one: the
	 * gate judges each machine by them, the pooling widens by them (fleetcell.c) */
	if (d->seq.planned)
		mo.seq = &d->seq;
	rf_times_used(d, m->times, sizeof m->times);
	if (m != ref && (d->ran || ref->doc->ran) &&
	    (!d->ran || !ref->doc->ran || strcmp(d->ran, ref->doc->ran) != 0))
		snprintf(why, sizeof why, "ran other commands than %s: %.80s, not %.80s", ref->label,
		         d->ran ? d->ran : "none recorded",
		         ref->doc->ran ? ref->doc->ran : "none recorded");
	else if (rf_arm(d, o->baseline) < 0)
		snprintf(why, sizeof why, "no baseline arm '%s'", o->baseline);
	else if (o->candidate && rf_arm(d, o->candidate) < 0)
		snprintf(why, sizeof why, "no arm '%s'", o->candidate);
	else if (o->workload && rf_workload(d, o->workload) < 0)
		snprintf(why, sizeof why, "no workload '%s'", o->workload);
	else if ((rc = cmp_build(d, NULL, &mo, &m->r, why, sizeof why)) == ST_OK)
		return 0;
	else if (rc == ST_FAIL)
		return -1;
	return (m->problem = strdup(why)) ? 0 : -1;
}

/* The workloads each machine's geometric mean covers (those selected that have the phase), and
 * their union over the fleet. Returns 0, or -1 when memory ran out. */
static int geomean_sets(struct fleet_ctx *c)
{
	size_t cap = 0;

	for (size_t i = 0; i < c->f->nm; i++)
		cap += c->f->m[i].doc->nwl;
	c->gm_union = calloc(cap + 1, sizeof *c->gm_union);
	c->gm_count = calloc(c->f->nm + 1, sizeof *c->gm_count);
	if (!c->gm_union || !c->gm_count)
		return -1;
	for (size_t i = 0; i < c->f->nm; i++) {
		const struct rf_doc *d = c->f->m[i].doc;
		for (size_t w = 0; w < d->nwl; w++) {
			size_t k = 0;
			if ((c->o->workload && strcmp(c->o->workload, d->wl[w].name) != 0) ||
			    rf_phase(&d->wl[w], c->gphase) < 0)
				continue;
			c->gm_count[i]++;
			while (k < c->ngm_union && strcmp(c->gm_union[k], d->wl[w].name) != 0)
				k++;
			if (k == c->ngm_union)
				c->gm_union[c->ngm_union++] = d->wl[w].name;
		}
	}
	return 0;
}

/* One comparison of one machine, with the key that identifies it across machines. */
struct entry {
	char *key;
	size_t machine, seq; /* seq: order of first appearance (geomeans after the rest) */
	const struct cmp_row *row;
};

static int by_key(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Every machine's rows with their keys into *out (*n of them). Returns 0, or -1 (memory). */
static int collect(const struct fleet_report *f, struct entry **out, size_t *n)
{
	size_t total = 0, k = 0, seq = 0;
	struct entry *e;

	for (size_t i = 0; i < f->nm; i++)
		total += f->m[i].r ? f->m[i].r->nrows : 0;
	if (!(e = calloc(total + 1, sizeof *e)))
		return -1;
	for (int geo = 0; geo < 2; geo++)
		for (size_t i = 0; i < f->nm; i++)
			for (size_t j = 0; f->m[i].r && j < f->m[i].r->nrows; j++) {
				const struct cmp_row *row = &f->m[i].r->rows[j];
				if ((row->workload == NULL) != geo)
					continue;
				e[k] = (struct entry){.machine = i, .seq = seq++, .row = row};
				if (asprintf(&e[k].key, "%d\x1f%s\x1f%s\x1f%s\x1f%s", (int)row->regime,
				             row->workload ? row->workload : "\x01", row->phase,
				             row->candidate, row->baseline) < 0) {
					e[k].key = NULL;
					*out = e, *n = k;
					return -1;
				}
				k++;
			}
	*out = e;
	*n = k;
	return 0;
}

static int by_first_seen(const void *a, const void *b)
{
	const struct entry *const *x = a, *const *y = b;

	return ((*x)->seq > (*y)->seq) - ((*x)->seq < (*y)->seq);
}

/* The fleet's rows from the sorted entries: one per key, in order of first appearance. */
static int make_rows(struct fleet_ctx *c, struct entry *e, size_t n)
{
	struct fleet_report *f = c->f;
	struct entry **first = calloc(n + 1, sizeof *first);
	const struct cmp_row **cells = calloc(f->nm + 1, sizeof *cells);
	size_t ng = 0;
	int rc = first && cells ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < n; i++)
		if (i == 0 || strcmp(e[i].key, e[i - 1].key) != 0)
			first[ng++] = &e[i];
	if (rc == 0)
		qsort(first, ng, sizeof *first, by_first_seen);
	if (rc == 0 && !(f->rows = calloc(ng + 1, sizeof *f->rows)))
		rc = -1;
	for (size_t g = 0; rc == 0 && g < ng; g++) {
		struct fleet_row *row = &f->rows[f->nrows++];
		const struct cmp_row *r0 = first[g]->row;

		*row = (struct fleet_row){.workload = r0->workload, .phase = r0->phase,
		                          .candidate = r0->candidate, .baseline = r0->baseline,
		                          .regime = r0->regime};
		f->compared[r0->regime] = 1;
		memset(cells, 0, f->nm * sizeof *cells);
		for (struct entry *x = first[g]; x < e + n && strcmp(x->key, first[g]->key) == 0; x++)
			cells[x->machine] = x->row;
		rc = fleet_fill_row(c, row, cells);
	}
	free(first);
	free(cells);
	return rc;
}

/* The rows and warnings of c->f. Returns ST_OK, ST_USAGE when no machine has a comparison, or
 * ST_FAIL when memory ran out, with err set. */
static enum status build(struct fleet_ctx *c, char *err, size_t errlen)
{
	struct fleet_report *f = c->f;
	struct entry *e = NULL;
	size_t n = 0;
	enum status st = ST_OK;
	int rc = 0;

	rc = fleet_group(f);
	for (size_t i = 0; rc == 0 && i < f->nm; i++)
		rc = machine_report(&f->m[i], &f->m[0], c->o);
	if (rc == 0)
		rc = geomean_sets(c);
	if (rc == 0)
		rc = collect(f, &e, &n);
	if (rc == 0 && n > 1)
		qsort(e, n, sizeof *e, by_key);
	if (rc == 0 && n == 0) {
		const struct fleet_machine *m = &f->m[0];
		for (size_t i = 0; i < f->nm && !m->problem; i++)
			m = &f->m[i];
		st = errmsg_status(ST_USAGE, err, errlen, "no machine has a comparison (%s: %s)",
		                   m->doc->path, m->problem ? m->problem : "no rows");
	} else if (rc == 0) {
		rc = make_rows(c, e, n);
	}
	for (size_t i = 0; i < f->nm; i++)
		fleet_machine_load(&f->m[i]);
	if (rc == 0 && st == ST_OK)
		rc = fleet_warnings(f);
	for (size_t i = 0; i < n; i++)
		free(e[i].key);
	free(e);
	if (rc != 0)
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	return st;
}

enum status fleet_build(struct rf_doc *const *docs, size_t n, const struct cmp_opts *o,
                        struct fleet_report **out, char *err, size_t errlen)
{
	struct fleet_report *f;
	struct cmp_opts mo = *o;
	struct fleet_ctx c = {.o = &mo};
	enum status rc;

	*out = NULL;
	if (check_inputs(docs, n, o, err, errlen) != 0)
		return ST_USAGE;
	if (!mo.baseline)
		mo.baseline = docs[0]->kind->fallback_baseline ? docs[0]->kind->fallback_baseline
		                                               : docs[0]->arms[0];
	c.gphase = mo.phase ? mo.phase : "total";
	if (!(f = calloc(1, sizeof *f)) || !(f->m = calloc(n, sizeof *f->m))) {
		free(f);
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	c.f = f;
	f->nm = n;
	f->conf = o->conf;
	f->regimes = o->regimes;
	for (size_t i = 0; i < n; i++)
		f->m[i].doc = docs[i];
	rc = set_labels(f, err, errlen);
	if (rc == ST_OK)
		rc = build(&c, err, errlen);
	free(c.gm_union);
	free(c.gm_count);
	if (rc != ST_OK) {
		fleet_free(f);
		return rc;
	}
	*out = f;
	return ST_OK;
}

void fleet_free(struct fleet_report *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nrows; i++)
		free(f->rows[i].cells);
	free(f->rows);
	for (size_t i = 0; i < f->nm; i++) {
		free(f->m[i].label);
		free(f->m[i].problem);
		cmp_free(f->m[i].r);
	}
	free(f->m);
	for (size_t i = 0; i < f->nwarn; i++)
		free(f->warn[i]);
	free(f->warn);
	free(f);
}

int fleet_pooled_at(const struct fleet_row *row, double conf, double *lo, double *hi)
{
	double t;

	if (!row->has_meta || !(conf > 0 && conf < 1))
		return -1;
	t = stats_t_quantile(1 - (1 - conf) / 2, (double)(row->meta.k - 1));
	*lo = row->meta.mu - t * row->meta.se;
	*hi = row->meta.mu + t * row->meta.se;
	return 0;
}

const char *fleet_row_name(const struct fleet_row *row, char *buf, size_t len)
{
	int total = strcmp(row->phase, "total") == 0;

	snprintf(buf, len, "%s%s%s", row->workload ? row->workload : "geomean", total ? "" : "/",
	         total ? "" : row->phase);
	return buf;
}
