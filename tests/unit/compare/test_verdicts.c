/* test_verdicts.c - the verdicts of docs/methodology.md, "Reading the output", "Equivalence" and
 * "Sequential decisions" on known-answer documents the engine writes (commands mode: one process
 * time per run): the simultaneous level and the verdicts read off the printed interval, the
 * equivalence verdict and its precedence, the claims check with equivalence, and the gate's
 * sequential and equivalence lines. Statistics on fixed data only. */
#include "check.h"
#include "fakebench.h"

#include "front/claims/claims.h"
#include "front/cmd/gateopt.h"
#include "front/compare/compare.h"
#include "front/results/results.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T0 10000000.0 /* the baseline's time, ns */

struct ratios {
	const double *ratio;
};

/* Arm a at T0 x (1 + 0.01 ((7 m) mod 11)); each further arm k at ratio[k - 1] times that, with
 * a wobble of up to +-0.5% different for every round. */
static void ratios_run(void *ctx, long m, int k, size_t w, struct runner_result *r, uint64_t *steal)
{
	const struct ratios *x = ctx;
	double base = T0 * (1 + 0.01 * (double)((m * 7) % 11));
	double f = k ? x->ratio[k - 1] * (1 + 0.001 * ((double)((m * 5 + k * 3) % 11) - 5)) : 1;

	(void)w;
	(void)steal;
	r->wall_ns = (int64_t)round(base * f);
}

/* A commands-mode document the engine writes with the fake runner (tests/unit/fakebench.h): arm
 * "a" and narms more at their ratios (ratios_run), n rounds; plan N (0: none) recorded as
 * config.sequential with first look 6, the plan a sequential gate fixes at its first look, and
 * the bench "decided". */
static cJSON *doc_ratios(const double *ratio, size_t narms, size_t n, size_t plan)
{
	static const char *const names[] = {"a", "b", "c", "d", "e"};
	char dir[] = "/tmp/allocab-verdicts-XXXXXX", path[64], arms[64] = "", nr[32], err[512] = "";
	char *kv[] = {arms, nr, "warmup=0"};
	struct ratios x = {ratio};
	struct fakebench_hooks h = {.ctx = &x, .run = ratios_run};
	struct rf_file info;
	enum jl_why why;
	cJSON *d = NULL;

	snprintf(arms, sizeof arms, "arms=");
	for (size_t k = 0; k <= narms; k++)
		snprintf(arms + strlen(arms), sizeof arms - strlen(arms), "%s%s=1", k ? "," : "",
		         names[k]);
	snprintf(nr, sizeof nr, "rounds=%zu", n);
	if (!mkdtemp(dir))
		return NULL;
	snprintf(path, sizeof path, "%s/bench.json", dir);
	if (fakebench_write_hooks(path, 3, kv, &h, err, sizeof err) != 0 ||
	    rf_bench_read(path, &d, &info, &why, err, sizeof err) != 0)
		d = NULL;
	else
		cJSON_Delete(info.disk);
	CHECK(d != NULL, "known: %zu rounds written by the engine with the fake runner%s%s", n,
	      d ? "" : ": ", err);
	unlink(path);
	rmdir(dir);
	if (d && plan) {
		cJSON *q = cJSON_CreateObject();
		cJSON_ReplaceItemInObject(cJSON_GetObjectItem(d, "config"), "sequential", q);
		cJSON_AddNumberToObject(q, "planned_rounds", (double)plan);
		cJSON_AddNumberToObject(q, "first_look", 6);
		cJSON_ReplaceItemInObject(d, "status", cJSON_CreateString("decided"));
	}
	return d;
}

static struct cmp_report *compare_doc(const cJSON *doc, struct rf_doc **d, double equivalence)
{
	struct cmp_opts o = {
	    .conf = 0.95, .baseline = "a", .equivalence = equivalence, .seq_if_decided = 1};
	struct cmp_report *r = NULL;
	char err[512] = "";

	*d = rf_from_json(doc, "known", err, sizeof err);
	if (!*d || cmp_build(*d, NULL, &o, &r, err, sizeof err) != 0)
		printf("# %s\n", err);
	return r;
}

static const struct cmp_row *row_of(const struct cmp_report *r, const char *cand)
{
	for (size_t i = 0; r && i < r->nrows; i++)
		if (strcmp(r->rows[i].candidate, cand) == 0)
			return &r->rows[i];
	return NULL;
}

/* b 0.2% slower, c 10% faster, d 1.5% faster, e 1% slower, each +-0.5% a round, 12 rounds:
 * four comparisons share 98.75%. */
static void test_simultaneous(void)
{
	const double ratio[] = {1.002, 0.9, 0.985, 1.01};
	cJSON *doc = doc_ratios(ratio, 4, 12, 0);
	struct rf_doc *d = NULL;
	struct cmp_report *r = compare_doc(doc, &d, 2);
	const struct cmp_row *b = row_of(r, "b"), *c = row_of(r, "c"), *e = row_of(r, "d");
	const struct cmp_row *s = row_of(r, "e");
	char v[128];

	CHECK(r && r->family == 4 && fabs(r->family_conf - (1 - 0.05 / 4)) < 1e-12,
	      "family: 4 comparisons, each interval at 1 - 0.05/4");
	CHECK(b && c && e && b->d.level >= r->family_conf && b->d_each.level >= 0.95 &&
	          b->d_each.level < b->d.level && b->d.lo <= b->d_each.lo &&
	          b->d.hi >= b->d_each.hi,
	      "family: the printed interval reaches the family level and contains the 95%% one");
	CHECK(b && b->verdict == CMP_EQUIVALENT && b->d.lo < 0 && b->d.hi > 0 &&
	          !strcmp(cmp_verdict_text(b, v, sizeof v), "equivalent within ±2%"),
	      "b, 0.2%% slower, interval across 1x and inside ±2%%: equivalent within ±2%% (%s)",
	      b ? cmp_verdict_text(b, v, sizeof v) : "");
	CHECK(s && s->verdict == CMP_SLOWER && s->equivalent &&
	          !strcmp(cmp_verdict_text(s, v, sizeof v), "slower, within ±2%"),
	      "e, 1%% slower: slower, and within ±2%%: both said (%s)",
	      s ? cmp_verdict_text(s, v, sizeof v) : "");
	CHECK(c && c->verdict == CMP_FASTER && !c->equivalent && c->d.hi < 0,
	      "c, 10%% faster: faster, not equivalent");
	CHECK(e && e->verdict == CMP_FASTER && e->equivalent &&
	          !strcmp(cmp_verdict_text(e, v, sizeof v), "faster, within ±2%"),
	      "d, 1.5%% faster, interval inside ±2%%: both said (%s)",
	      e ? cmp_verdict_text(e, v, sizeof v) : "");
	cmp_free(r);
	rf_free(d);
	r = compare_doc(doc, &d, 0.5);
	s = row_of(r, "e");
	CHECK(s && s->verdict == CMP_SLOWER && !s->equivalent,
	      "e with a margin of 0.5%%: slower, not equivalent");
	cmp_free(r);
	rf_free(d);
	r = compare_doc(doc, &d, 0);
	b = row_of(r, "b");
	CHECK(b && isnan(b->equiv_pct) && b->verdict != CMP_EQUIVALENT,
	      "margin 0: no equivalence verdict");
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* A claim of 10-25% against b (equivalent within 2%) is refuted with that reason; one of 0-3%
 * against it is partly or confirmed, without one. */
static void test_claims_equivalence(void)
{
	static const char claims_text[] =
	    "{\"schema\":\"allocab-claims/1\",\"claims\":["
	    "{\"name\":\"10-25% faster\",\"allocator\":\"b\",\"speedup\":[1.1,1.25],"
	    "\"source\":\"s\",\"targets\":[{\"workload\":\"command\"}]},"
	    "{\"name\":\"about the same\",\"allocator\":\"b\",\"speedup\":[0.97,1.03],"
	    "\"source\":\"s\",\"targets\":[{\"workload\":\"command\"}]},"
	    "{\"name\":\"10% faster\",\"allocator\":\"c\",\"speedup\":[1.2,1.3],"
	    "\"source\":\"s\",\"targets\":[{\"workload\":\"command\"}]}]}";
	const double ratio[] = {1.01, 0.9};
	cJSON *doc = doc_ratios(ratio, 2, 12, 0);
	struct rf_doc *d = NULL;
	struct cmp_report *r = compare_doc(doc, &d, 2);
	char err[256] = "", v[128];
	struct claims_file *f = claims_parse(claims_text, strlen(claims_text), "claims", err, sizeof err);
	struct claims_result *res = f && r ? claims_check(f, r) : NULL;

	CHECK(res && res->n == 3, "claims: three checks (%s)", err);
	if (res && res->n == 3) {
		CHECK(res->checks[0].verdict == CLAIM_REFUTED &&
		          !strcmp(claims_verdict_text(&res->checks[0], v, sizeof v),
		                  "refuted: equivalent within ±2%"),
		      "claims: 10-25%% against an interval within ±2%%: %s", v);
		CHECK(res->checks[1].verdict == CLAIM_CONFIRMED &&
		          !strcmp(claims_verdict_text(&res->checks[1], v, sizeof v), "confirmed"),
		      "claims: 0.97-1.03x contains the interval: confirmed, no reason (%s)", v);
		CHECK(res->checks[2].verdict == CLAIM_REFUTED &&
		          !strcmp(claims_verdict_text(&res->checks[2], v, sizeof v), "refuted"),
		      "claims: c is refuted, but not equivalent: no reason (%s)", v);
		CHECK(res->checks[0].level >= r->family_conf,
		      "claims: judged on the printed, family-level interval");
	}
	claims_result_free(res);
	claims_free(f);
	cmp_free(r);
	rf_free(d);
	cJSON_Delete(doc);
}

/* The gate of `allocab gate` on a document, its lines in out. */
static int gate(const cJSON *doc, const char *args, char *out, size_t len, char *err,
                size_t errlen)
{
	char buf[512], *argv[32], *save;
	int argc = 0;
	struct gate_spec g;
	enum gate_outcome o;
	FILE *f;
	int rc;

	out[0] = '\0';
	f = fmemopen(out, len, "w");
	snprintf(buf, sizeof buf, "gate %s", args);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	rc = gateopt_parse(argc, argv, &g, NULL, err, errlen) != 0
	         ? -1
	         : gate_spec_eval(&g, doc, f, &o, err, errlen);
	fclose(f);
	return rc ? -1 : (int)o;
}

/* b 1% slower: --max-slowdown 0 FAILs it; with --equivalence 2% it passes as equivalent, and
 * the line says so. */
static void test_gate_equivalence(void)
{
	const double ratio[] = {1.01};
	cJSON *doc = doc_ratios(ratio, 1, 12, 0);
	char out[4096], err[256] = "";

	CHECK(gate(doc, "--candidate b --baseline a --max-slowdown 0", out, sizeof out, err,
	           sizeof err) == GATE_FAIL,
	      "gate: 1%% slower fails --max-slowdown 0 (%s)", err);
	CHECK(gate(doc, "--candidate b --baseline a --max-slowdown 0 --equivalence 2%", out,
	           sizeof out, err, sizeof err) == GATE_PASS &&
	          strstr(out, "within ±2% of 1x") && strstr(out, "PASS by equivalence") &&
	          strstr(out, "or within ±2% (equivalent)"),
	      "gate: --equivalence 2%% passes it, the line and the rule say why");
	CHECK(gate(doc, "--candidate b --baseline a --max-slowdown 0 --equivalence 0.5%", out,
	           sizeof out, err, sizeof err) == GATE_FAIL,
	      "gate: a margin of 0.5%% does not cover 1%%: FAIL");
	CHECK(gate(doc, "--candidate b --baseline a --min-speedup 0 --equivalence 2%", out,
	           sizeof out, err, sizeof err) == -1 &&
	          strstr(err, "--equivalence relaxes a no-regression requirement"),
	      "gate: --equivalence with --min-speedup is refused (%s)", err);
	cJSON_Delete(doc);
}

/* c 10% faster over 20 rounds of a plan of 40: the fixed-n interval would PASS --min-speedup 5%
 * much earlier; the sequential interval decides only where its level allows, and says so. */
static void test_gate_sequential(void)
{
	const double ratio[] = {0.9};
	cJSON *seq = doc_ratios(ratio, 1, 20, 40), *early = doc_ratios(ratio, 1, 10, 40);
	cJSON *fixed = doc_ratios(ratio, 1, 10, 0);
	char out[4096], err[256] = "";
	struct stats_seq_plan p = {.planned = 40, .first_look = 6};

	CHECK(gate(fixed, "--candidate b --baseline a --min-speedup 5%", out, sizeof out, err,
	           sizeof err) == GATE_PASS &&
	          !strstr(out, "sequential"),
	      "gate: 10 rounds without a plan: the fixed-n 95%% interval passes");
	CHECK(gate(early, "--candidate b --baseline a --min-speedup 5%", out, sizeof out, err,
	           sizeof err) == GATE_INCONCLUSIVE &&
	          strstr(out, "sequential interval reaches only") &&
	          strstr(out, "plan of 40 rounds: decisions from round 14 on") &&
	          strstr(out, "after round 10 of 40 planned"),
	      "gate: the same 10 rounds of a plan of 40 decide nothing, and the line says from "
	      "when");
	CHECK(gate(seq, "--candidate b --baseline a --min-speedup 5%", out, sizeof out, err,
	           sizeof err) == GATE_PASS &&
	          strstr(out, "sequential 99.") &&
	          strstr(out, "sequential: after round 20 of the 40 planned, 15 looks from round 6 "
	                      "on") &&
	          strstr(out, "c = 2.2414"),
	      "gate: 20 rounds of 40 pass on the sequential interval, the rule named");
	CHECK(stats_seq_first_decision(&p, 0.05) == 14, "gate: a plan of 40 decides from round 14");
	cJSON_Delete(seq);
	cJSON_Delete(early);
	cJSON_Delete(fixed);
}

/* A plan of an adaptive-allocation bench spends alpha_share 0.8 of alpha in its first stage: the
 * rule line prints the boundary of the alpha it uses (0.04 at 95%: c = 2.3263, not 2.2414 of
 * 0.05), and this look's level is the one its interval is taken at. */
static void test_gate_sequential_share(void)
{
	const double ratio[] = {0.9};
	cJSON *doc = doc_ratios(ratio, 1, 20, 40);
	cJSON *q = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "config"), "sequential");
	char out[4096], err[256] = "", want[64], lv[16];
	struct stats_seq_plan p = {.planned = 40, .first_look = 6, .share = 0.8};

	cJSON_AddNumberToObject(q, "alpha_share", 0.8);
	snprintf(want, sizeof want, "sqrt(40/20))) = %s%%",
	         cmp_level_text(1 - stats_seq_alpha(&p, 20, 0.05), lv, sizeof lv));
	CHECK(gate(doc, "--candidate b --baseline a --min-speedup 5%", out, sizeof out, err,
	           sizeof err) == GATE_PASS &&
	          strstr(out, "c = 2.3263") && !strstr(out, "c = 2.2414") && strstr(out, want) &&
	          strstr(out, "c for alpha 0.04: this stage of an extendable plan spends 80% of "
	                      "the 5% error") &&
	          strstr(out, "95% over every look of the plan and its extensions, 96% over this "
	                      "stage's"),
	      "gate: alpha_share 0.8: the rule line prints c = 2.3263 and the level it uses (%s)",
	      want);
	CHECK(fabs(stats_seq_boundary(stats_seq_spent(&p, 0.05)) - 2.3263) < 5e-5 &&
	          stats_seq_alpha(&p, 40, 0.05) == stats_seq_alpha_at(1, 0.04),
	      "stats: a plan's levels and its printed boundary come from one alpha, 0.05 x 0.8");
	cJSON_Delete(doc);
}

/* A file whose bench stopped on its sequential decisions, compared alone: its table shows the
 * sequential intervals of its plan (valid for that stop) and reads its verdicts off them; one not
 * yet at its look's level has none; the same rounds without the stop keep the fixed-n ones. */
static void test_decided_table(void)
{
	const double ratio[] = {0.9};
	cJSON *seq = doc_ratios(ratio, 1, 20, 40), *early = doc_ratios(ratio, 1, 10, 40);
	cJSON *fixed = doc_ratios(ratio, 1, 20, 0);
	struct rf_doc *ds = NULL, *de = NULL, *df = NULL;
	struct cmp_report *rs = compare_doc(seq, &ds, 2), *re = compare_doc(early, &de, 2);
	struct cmp_report *rf = compare_doc(fixed, &df, 2);
	const struct cmp_row *s = row_of(rs, "b"), *e = row_of(re, "b"), *f = row_of(rf, "b");
	int note = 0, stale = 0;

	for (size_t i = 0; rs && i < rs->nwarn; i++) {
		note |= strstr(rs->warn[i], "the intervals and verdicts here are the sequential ones of "
		                            "its plan of 40 rounds, valid for that stop") != NULL;
		stale |= strstr(rs->warn[i], "these fixed-n intervals do not allow") != NULL;
	}
	CHECK(rs && s && rs->seq_shown && s->has_seq && s->d.lo == s->d_seq.lo &&
	          s->d.hi == s->d_seq.hi && s->d.lo < s->d_rank.lo && s->d.level > s->d_rank.level,
	      "decided: the printed interval is the sequential one, wider than the fixed-n one");
	CHECK(s && s->verdict == CMP_FASTER && note && !stale,
	      "decided: 10%% faster over 20 of 40 planned rounds: faster on the sequential interval, "
	      "said once, without the fixed-n warning");
	CHECK(e && e->verdict == CMP_TOO_FEW && e->need == 40,
	      "decided at round 10 of 40: below its look's level, no verdict yet (the plan's 40)");
	CHECK(rf && f && !rf->seq_shown && f->d.lo == f->d_rank.lo && f->verdict == CMP_FASTER,
	      "no plan: the fixed-n interval, as before");
	cmp_free(rs);
	cmp_free(re);
	cmp_free(rf);
	rf_free(ds);
	rf_free(de);
	rf_free(df);
	cJSON_Delete(seq);
	cJSON_Delete(early);
	cJSON_Delete(fixed);
}

int main(void)
{
	test_gate_sequential_share();
	test_decided_table();
	test_simultaneous();
	test_claims_equivalence();
	test_gate_equivalence();
	test_gate_sequential();
	return CHECK_DONE();
}
