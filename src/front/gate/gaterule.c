/* gaterule.c - the gate's rule (docs/methodology.md, "The gate", "Sequential decisions"): which
 * interval each decision reads, the level it must reach, and the verdict of one comparison.
 * Shared by the judging (gate.c) and the lines (gateline.c). */
#include "front/gate/gateint.h"

#include "common/status.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *gate_outcome_name(enum gate_outcome o)
{
	return o == GATE_PASS ? "PASS" : o == GATE_FAIL ? "FAIL" : "INCONCLUSIVE";
}

enum status gate_outcome_status(enum gate_outcome o)
{
	return o == GATE_PASS ? ST_OK : o == GATE_FAIL ? ST_FAIL : ST_INCONCLUSIVE;
}

/* A decision needs the interval at the level asked: exact rank intervals cannot reach every
 * level with few rounds, and a sequential look asks more the earlier it comes. */
int gate_reached(struct gate_iv v)
{
	return v.asked < 1 && v.iv->level >= v.asked - 1e-9;
}

struct gate_iv gate_pass_iv(const struct gate_ctx *c, const struct cmp_row *row)
{
	if (c->seq)
		return (struct gate_iv){&row->d_seq, row->seq_asked};
	return (struct gate_iv){&row->d, c->g->conf};
}

struct gate_iv gate_fail_iv(const struct gate_ctx *c, const struct cmp_row *fam)
{
	if (c->seq)
		return (struct gate_iv){&fam->d_seq, fam->seq_asked};
	return (struct gate_iv){&fam->d, c->fam_conf};
}

double gate_fail_bound(const struct gate_ctx *c)
{
	return isnan(c->equiv) ? c->m : fmax(c->m, c->equiv);
}

int gate_equivalent(const struct gate_ctx *c, struct gate_iv v)
{
	return !isnan(c->equiv) && v.iv->lo >= -c->equiv && v.iv->hi <= c->equiv;
}

/* The verdict of one comparison: PASS when its interval at the gate's level lies wholly within
 * the bound (or, with an equivalence margin, within it), FAIL when its interval at the family
 * level lies wholly beyond the bound (and the equivalence margin), INCONCLUSIVE otherwise or
 * when an interval cannot reach its level. */
enum gate_outcome gate_verdict(const struct gate_ctx *c, const struct cmp_row *row,
                               const struct cmp_row *fam)
{
	struct gate_iv pass = gate_pass_iv(c, row), fail = gate_fail_iv(c, fam);

	if (!row->usable || !gate_reached(pass))
		return GATE_INCONCLUSIVE;
	if (pass.iv->hi <= c->m || gate_equivalent(c, pass))
		return GATE_PASS;
	if (fam->usable && gate_reached(fail) && fail.iv->lo > gate_fail_bound(c))
		return GATE_FAIL;
	return GATE_INCONCLUSIVE;
}

int gate_lacks_steady(const struct cmp_opts *o, const struct rf_doc *d)
{
	return !rf_phase_measured(d, o->workload, o->phase ? o->phase : "total", RF_STEADY) &&
	       d->has_regime[RF_COLD];
}

/* The measured runs of an arm: all of them, those that failed (failed, crashed, timeout,
 * invalid) and those unverified, and the first failure's status and signal. */
struct arm_count {
	size_t runs, failed, unverified;
	char what[64];
};

/* The measured runs of arm on workload wl (NULL: every workload) in d into *c. */
static void count_arm(const struct rf_doc *d, const char *arm, const char *wl, struct arm_count *c)
{
	size_t *runs = &c->runs, *failed = &c->failed, *unverified = &c->unverified;
	int a = rf_arm(d, arm);

	*runs = *failed = *unverified = 0;
	if (a < 0)
		return;
	for (size_t r = 0; r < d->nrounds; r++)
		for (size_t w = 0; w < d->nwl; w++)
			if ((!wl || strcmp(d->wl[w].name, wl) == 0) &&
			    rf_run(d, r, (size_t)a, w)->present)
				(*runs)++;
	for (size_t i = 0; i < d->nfails; i++) {
		const struct rf_fail *f = &d->fails[i];
		if (f->warmup || strcmp(f->arm, arm) != 0 || (wl && strcmp(f->workload, wl) != 0))
			continue;
		if (strcmp(f->status, "unverified") == 0) {
			(*unverified)++;
			continue;
		}
		if ((*failed)++ == 0)
			snprintf(c->what, sizeof c->what, "%s%s%s", f->status, f->signal ? " " : "",
			         f->signal ? f->signal : "");
	}
}

void gate_count_failures(const struct rf_doc *base, const struct rf_doc *cand,
                         const struct cmp_row *row, struct gate_failures *out)
{
	struct arm_count c = {0}, b = {0};

	count_arm(cand, row->candidate, row->workload, &c);
	count_arm(base, row->baseline, row->workload, &b);
	out->cand_runs += c.runs;
	out->cand_failed += c.failed;
	out->cand_unverified += c.unverified;
	out->base_runs += b.runs;
	out->base_failed += b.failed;
	out->base_unverified += b.unverified;
	if (!out->cand_what[0])
		memcpy(out->cand_what, c.what, sizeof c.what);
	if (!out->base_what[0])
		memcpy(out->base_what, b.what, sizeof b.what);
}

enum gate_outcome gate_failure_rule(enum gate_outcome v, const struct gate_failures *f)
{
	if (f->cand_failed > f->base_failed)
		return GATE_FAIL;
	if (v == GATE_PASS && (f->cand_failed || f->base_failed || f->cand_unverified ||
	                       f->base_unverified))
		return GATE_INCONCLUSIVE;
	return v;
}

void gate_print_failures(FILE *out, const struct cmp_row *row, const struct gate_failures *f)
{
	if (!(f->cand_failed || f->base_failed || f->cand_unverified || f->base_unverified))
		return;
	fprintf(out, "  failed runs: %s %zu of %zu%s%s%s", row->candidate, f->cand_failed,
	        f->cand_runs, f->cand_what[0] ? " (first: " : "", f->cand_what,
	        f->cand_what[0] ? ")" : "");
	if (f->cand_unverified)
		fprintf(out, " and %zu unverified", f->cand_unverified);
	fprintf(out, ", %s %zu of %zu%s%s%s", row->baseline, f->base_failed, f->base_runs,
	        f->base_what[0] ? " (first: " : "", f->base_what, f->base_what[0] ? ")" : "");
	if (f->base_unverified)
		fprintf(out, " and %zu unverified", f->base_unverified);
	fprintf(out, ": %s (a failure removes its round, and the rounds left favour the arm that "
	             "failed; docs/ci.md, \"Failed runs\")\n",
	        f->cand_failed > f->base_failed
	            ? "the candidate fails more often than the baseline: FAIL whatever its times"
	            : "never PASS while runs fail");
}
