/* cmpfamily.c - the rows of a report (compare.c's cmp_build_one): which arms, workloads, phases
 * and regimes are compared, each row's family (primary or secondary), the geometric means, and the
 * first pass that counts each family's size, the comparisons its intervals' level is shared by
 * (docs/methodology.md, "Multiplicity: the question and the rest"). */
#include "front/compare/cmpint.h"

#include "common/errmsg.h"
#include "common/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int want_phase(const struct cmp_opts *o, const struct rf_workload *w, size_t p)
{
	if (o->phase)
		return strcmp(w->phases[p], o->phase) == 0;
	if (o->all_phases || w->show_phases)
		return 1;
	return strcmp(w->phases[p], "total") == 0;
}

static int selected(const struct cmp_opts *o, const char *wl)
{
	return !o->workload || strcmp(o->workload, wl) == 0;
}

static struct cmp_row *new_row(struct cmp_builder *b, const char *wl, const char *phase,
                               const char *cand, const char *base)
{
	struct cmp_row *row = &b->r->rows[b->r->nrows++];

	memset(row, 0, sizeof *row);
	cmp_row_set_na(row);
	row->workload = wl;
	row->regime = b->g;
	row->phase = phase;
	row->candidate = cand;
	row->baseline = base;
	return row;
}

/* Candidate arm indices into cand (paired: into base) and their baseline indices. */
static size_t pick_arms(const struct cmp_report *r, const struct cmp_opts *o, size_t base_arm,
                        size_t *ca, size_t *ba)
{
	const struct rf_doc *c = r->paired ? r->base : r->cand;
	size_t n = 0;

	for (size_t a = 0; a < c->narms; a++) {
		int b = r->paired ? (int)base_arm : rf_arm(r->base, c->arms[a]);
		if (b < 0 || (r->paired && a == base_arm) ||
		    (o->candidate && strcmp(o->candidate, c->arms[a]) != 0))
			continue;
		ca[n] = a;
		ba[n++] = (size_t)b;
	}
	return n;
}

/* Whether phase p of workload w (of the candidates' document) has times of regime g: always,
 * unless the documents have that regime only for other phases (a program's phases that ran
 * once have no steady time, its total never has one: docs/programs.md). */
static int phase_has(const struct cmp_report *r, const struct rf_workload *w, size_t p,
                     enum rf_regime g)
{
	const struct rf_doc *c = r->paired ? r->base : r->cand;

	return w->measured[g][p] || !c->has_regime[g] ||
	       rf_phase_measured(r->base, w->name, w->phases[p], g);
}

/* The regime of the primary rows of phase p of workload w: the one asked, else steady when the
 * report compares steady times of it, else cold. */
static enum rf_regime primary_regime(const struct cmp_report *r, const struct rf_workload *w,
                                     size_t p)
{
	if (r->primary.regime >= 0)
		return (enum rf_regime)r->primary.regime;
	return r->compared[RF_STEADY] && phase_has(r, w, p, RF_STEADY) ? RF_STEADY : RF_COLD;
}

/* The family of a row of workload w (NULL: a geometric mean), phase index p, regime b->g. */
static enum cmp_family family_of(const struct cmp_builder *b, const struct rf_workload *w, size_t p)
{
	const struct cmp_report *r = b->r;
	const char *ph = r->primary.phase;

	if (b->o->per_comparison || r->primary.all)
		return CMP_FAMILY_PRIMARY;
	if (!w || strcmp(w->phases[p], ph) != 0 || primary_regime(r, w, p) != b->g)
		return CMP_FAMILY_SECONDARY;
	return CMP_FAMILY_PRIMARY;
}

/* Rows of one comparison come steady first, cold beside it. */
static const enum rf_regime regime_order[RF_NREGIMES] = {RF_STEADY, RF_COLD};

/* The arms compared: candidate ca[k] (of the candidates' document) against baseline ba[k]. */
struct arm_pairs {
	size_t n, *ca, *ba;
};

/* The rows of phase p of workload wc of the candidates' document, one per arm pair and regime
 * compared; wb and pb: that workload and phase in the baseline's document. */
static enum status add_phase_rows(struct cmp_builder *b, const struct arm_pairs *ap, size_t wc,
                                  size_t p, size_t wb, size_t pb)
{
	struct cmp_report *r = b->r;
	const struct rf_doc *c = r->paired ? r->base : r->cand;
	const struct rf_workload *w = &c->wl[wc];
	enum status rc = ST_OK;

	for (size_t k = 0; rc == 0 && k < ap->n; k++)
		for (int i = 0; rc == 0 && i < RF_NREGIMES; i++) {
			struct cmp_row *row;
			if (!r->compared[b->g = regime_order[i]] || !phase_has(r, w, p, b->g))
				continue;
			row = new_row(b, w->name, w->phases[p], c->arms[ap->ca[k]],
			              r->base->arms[ap->ba[k]]);
			row->family = family_of(b, w, p);
			if (r->paired) {
				const struct cmp_at base = {r->base, ap->ba[k], wc, p};
				const struct cmp_at cand = {r->base, ap->ca[k], wc, p};
				rc = cmp_row_paired(b, row, &base, &cand);
			} else {
				const struct cmp_at base = {r->base, ap->ba[k], wb, pb};
				const struct cmp_at cand = {r->cand, ap->ca[k], wc, pb};
				rc = cmp_row_unpaired(b, row, &base, &cand);
			}
		}
	return rc;
}

/* The geometric means of phase gphase over the workloads of sb and sc, one per arm pair and
 * regime compared. */
static enum status add_geomean_rows(struct cmp_builder *b, const struct arm_pairs *ap,
                                    const struct cmp_gm_set *sb, const struct cmp_gm_set *sc,
                                    const char *gphase)
{
	struct cmp_report *r = b->r;
	const struct rf_doc *c = r->paired ? r->base : r->cand;
	enum status rc = ST_OK;

	for (size_t k = 0; rc == 0 && sb->n >= 2 && k < ap->n; k++)
		for (int i = 0; rc == 0 && i < RF_NREGIMES; i++) {
			struct cmp_row *row;
			if (!r->compared[b->g = regime_order[i]])
				continue;
			row =
			    new_row(b, NULL, gphase, c->arms[ap->ca[k]], r->base->arms[ap->ba[k]]);
			row->family = family_of(b, NULL, 0);
			rc = cmp_row_geomean(b, row, sb, sc, ap->ba[k], ap->ca[k]);
		}
	return rc;
}

static void gm_add(struct cmp_gm_set *s, size_t w, size_t ph)
{
	s->w[s->n] = w;
	s->ph[s->n++] = ph;
}

/* The rows of each workload and phase of the candidates' document c, and the workloads of the
 * geometric means (phase gphase) into sb and sc. */
static enum status add_workload_rows(struct cmp_builder *b, const struct arm_pairs *ap,
                                     struct cmp_gm_set *sb, struct cmp_gm_set *sc,
                                     const char *gphase)
{
	struct cmp_report *r = b->r;
	const struct rf_doc *c = r->paired ? r->base : r->cand;
	enum status rc = ST_OK;

	for (size_t wc = 0; rc == 0 && wc < c->nwl; wc++) {
		const struct rf_workload *w = &c->wl[wc];
		int wb = r->paired ? (int)wc : rf_workload(r->base, w->name);
		if (wb < 0 || !selected(b->o, w->name))
			continue;
		for (size_t p = 0; rc == 0 && p < w->nphases; p++) {
			if (!want_phase(b->o, w, p))
				continue;
			int pb = rf_phase(&r->base->wl[wb], w->phases[p]);
			if (pb < 0)
				continue;
			if (strcmp(w->phases[p], gphase) == 0) {
				gm_add(sb, (size_t)wb, (size_t)pb);
				gm_add(sc, wc, p);
			}
			rc = add_phase_rows(b, ap, wc, p, (size_t)wb, (size_t)pb);
		}
	}
	return rc;
}

enum status cmp_add_rows(struct cmp_builder *b, size_t base_arm)
{
	struct cmp_report *r = b->r;
	const struct rf_doc *c = r->paired ? r->base : r->cand;
	const char *gphase = b->o->phase ? b->o->phase : "total";
	struct arm_pairs ap = {.ca = calloc(c->narms + 1, sizeof *ap.ca),
	                       .ba = calloc(c->narms + 1, sizeof *ap.ba)};
	struct cmp_gm_set sb = {0}, sc = {0};
	enum status rc = ap.ca && ap.ba ? ST_OK : ST_FAIL;

	ap.n = ap.ca && ap.ba ? pick_arms(r, b->o, base_arm, ap.ca, ap.ba) : 0;
	sb.w = calloc(c->nwl + 1, sizeof *sb.w);
	sb.ph = calloc(c->nwl + 1, sizeof *sb.ph);
	sc.w = calloc(c->nwl + 1, sizeof *sc.w);
	sc.ph = calloc(c->nwl + 1, sizeof *sc.ph);
	if (!sb.w || !sb.ph || !sc.w || !sc.ph)
		rc = ST_FAIL;
	if (rc == 0)
		rc = add_workload_rows(b, &ap, &sb, &sc, gphase);
	if (rc == 0)
		rc = add_geomean_rows(b, &ap, &sb, &sc, gphase);
	free(sb.w);
	free(sb.ph);
	free(sc.w);
	free(sc.ph);
	free(ap.ca);
	free(ap.ba);
	return rc;
}

/* The size of each family the intervals' level is shared by: its usable rows, counted by a pass
 * of cmp_add_rows that computes no statistic (every row primary and alone when each comparison
 * stands alone). A report without a primary row (the phase or regime asked is not among the rows)
 * is refused when the primary rows were asked for (--primary); the document's config.primary
 * gives way to the default, and a report without the default's rows either is one family. */
enum status cmp_count_family(struct cmp_builder *b, size_t base_arm, int asked, char *err,
                             size_t errlen)
{
	struct cmp_report *r = b->r;
	size_t rows[CMP_NFAMILIES] = {0};
	enum status rc = ST_OK;

	struct cmp_primary dflt = {.regime = -1};

	snprintf(dflt.phase, sizeof dflt.phase, "%s", b->o->phase ? b->o->phase : "total");
	memset(r->fam, 0, sizeof r->fam);
	for (int pass = 0; !b->o->per_comparison && rc == 0; pass++) {
		size_t nrows;
		memset(r->fam, 0, sizeof r->fam);
		memset(rows, 0, sizeof rows);
		b->counting = 1;
		rc = cmp_add_rows(b, base_arm);
		b->counting = 0;
		for (size_t i = 0; i < r->nrows; i++) {
			r->fam[r->rows[i].family].m += r->rows[i].usable;
			rows[r->rows[i].family]++;
		}
		nrows = r->nrows;
		r->nrows = 0;
		if (rc != 0 || nrows == 0 || rows[CMP_FAMILY_PRIMARY] > 0)
			break;
		if (asked) {
			char what[160];
			rc = errmsg_status(ST_USAGE, err, errlen,
			                   "--primary: no comparison of this report is %s",
			                   cmp_primary_text(&r->primary, what, sizeof what));
			break;
		}
		/* the document's config.primary names rows this report lacks: the default's */
		if (pass == 0 && (r->primary.all || r->primary.regime != dflt.regime ||
		                  strcmp(r->primary.phase, dflt.phase) != 0)) {
			r->primary = dflt;
			continue;
		}
		r->primary = (struct cmp_primary){.all = 1, .regime = -1};
		r->fam[CMP_FAMILY_PRIMARY].m += r->fam[CMP_FAMILY_SECONDARY].m;
		r->fam[CMP_FAMILY_SECONDARY].m = 0;
		break;
	}
	for (int f = 0; f < CMP_NFAMILIES; f++) {
		size_t m = r->fam[f].m ? r->fam[f].m : 1;
		r->fam[f].conf = 1 - (1 - r->conf) / (double)m;
	}
	if (b->o->per_comparison)
		r->fam[CMP_FAMILY_PRIMARY].conf = r->conf;
	r->family = r->fam[CMP_FAMILY_PRIMARY].m ? r->fam[CMP_FAMILY_PRIMARY].m : 1;
	r->family_conf = r->fam[CMP_FAMILY_PRIMARY].conf;
	return rc;
}
