/* gaterule.c - the gate's rule (docs/methodology.md, "The gate", "Sequential decisions"): which
 * interval each decision reads, the level it must reach, and the verdict of one comparison.
 * Shared by the judging (gate.c) and the lines (gateline.c). */
#include "front/gate/gateint.h"

#include "common/status.h"

#include <math.h>

const char *gate_outcome_name(enum gate_outcome o)
{
	return o == GATE_PASS ? "PASS" : o == GATE_FAIL ? "FAIL" : "INCONCLUSIVE";
}

int gate_outcome_status(enum gate_outcome o)
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
