/* calibreport.c - the output of `allocab calibrate`: an A/A bench document analysed
 * (calib_analyze), printed as the noise-floor report and written as the allocab-calibration/1
 * file, with what the file records about the bench it comes from. */
#include "common/atomicio.h"
#include "common/status.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"
#include "front/calib/calib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fmt_pct(double pct, char *buf, size_t len)
{
	if (isfinite(pct))
		snprintf(buf, len, "%.2g%%", pct);
	else
		snprintf(buf, len, "none");
}

/* A percentage from sd, rounds, alpha and power (calib_mde_pct, calib_equiv_pct). */
typedef double pct_fn(double, size_t, double, double);
/* Rounds from sd, effect, alpha and power (calib_rounds_for, calib_seq_rounds_for). */
typedef size_t rounds_fn(double, double, double, double);

/* A percentage of the rounds run and of each --for-rounds (the MDE, the equivalence margin), with
 * no newline. */
static void print_sizes(FILE *f, const char *head, const char *sign, pct_fn *pct,
                        const struct calib_result *r, const struct calib_plan *plan)
{
	char a[32];

	fputs(head, f);
	for (size_t i = 0; i <= 4; i++) {
		size_t n = i == 0 ? r->n : plan->for_rounds[i - 1];
		if (!n)
			break;
		fmt_pct(pct(r->noise.sd, n, plan->alpha, plan->power), a, sizeof a);
		fprintf(f, "%s%zu rounds %s%s", i ? " | " : "", n, sign, a);
	}
}

/* One line of rounds per effect, fixed-n (calib_rounds_for) or sequential. */
static void print_rounds(FILE *f, const char *head, rounds_fn *rounds, const struct calib_result *r,
                         const struct calib_plan *plan, double round_s)
{
	fputs(head, f);
	for (size_t i = 0; i < plan->neffects; i++) {
		size_t k = rounds(r->noise.sd, plan->effects[i], plan->alpha, plan->power);

		fprintf(f, "%s%.3g%%: ", i ? " | " : "", plan->effects[i]);
		if (k && round_s > 0)
			fprintf(f, "%zu (~%.0f s)", k, (double)k * round_s);
		else if (k)
			fprintf(f, "%zu", k);
		else
			fprintf(f, "-");
	}
	fprintf(f, "\n");
}

static void print_result(FILE *f, const struct calib_result *r, const struct calib_plan *plan,
                         double round_s)
{
	char a[32];

	fprintf(f, "\n%s (%s): %zu paired rounds, median %.3g ms\n", r->workload, r->phase, r->n,
	        r->median_a_ns / 1e6);
	if (r->n < 2) {
		fprintf(f, "  fewer than 2 usable rounds: nothing to report\n");
		return;
	}
	fprintf(f, "  spread of ln(tB/tA)  sd %.4f, MAD %.4f\n", r->noise.sd, r->noise.mad);
	fprintf(f, "  A/A estimate         %+.2f%% [%+.2f%%, %+.2f%%] (%.1f%%), p = %.3g: %s\n",
	        calib_pct(r->noise.est.est), calib_pct(r->noise.est.lo), calib_pct(r->noise.est.hi),
	        r->noise.est.level * 100, r->noise.p,
	        r->noise.false_positive ? "FALSE POSITIVE (A differs from A)" : "no difference");
	if (r->blocks.count)
		fprintf(f, "  blocks of %zu rounds   %zu of %zu with a false positive\n",
		        r->blocks.size, r->blocks.rejected, r->blocks.count);
	fprintf(f,
	        "  drift                ratios rho %+.2f (p %.2g); times rho %+.2f (p %.2g), "
	        "%+.2f%% per round%s\n",
	        r->drift_ratio.rho, r->drift_ratio.p, r->drift_time.rho, r->drift_time.p,
	        calib_pct(r->drift_time.slope),
	        r->drift_ratio.p < 0.01 ? "; the ratios trend: rounds are not exchangeable" : "");
	snprintf(a, sizeof a, "  MDE (%.0f%% power)      ", plan->power * 100);
	print_sizes(f, a, "", calib_mde_pct, r, plan);
	if (plan->for_budget_s > 0 && round_s > 0) {
		size_t k = (size_t)floor(plan->for_budget_s / round_s);

		fmt_pct(calib_mde_pct(r->noise.sd, k, plan->alpha, plan->power), a, sizeof a);
		fprintf(f, " | %.0f s (%zu rounds) %s", plan->for_budget_s, k, a);
	}
	fprintf(f, "\n");
	print_rounds(f, "  rounds needed        ", calib_rounds_for, r, plan, round_s);
	print_rounds(f, "  with bench --gate    ", calib_seq_rounds_for, r, plan, round_s);
	snprintf(a, sizeof a, "  equivalence (%.0f%%)    ", plan->power * 100);
	print_sizes(f, a, "±", calib_equiv_pct, r, plan);
	fprintf(f, "\n");
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Median wall time of the measured rounds of a bench document, in seconds (NAN if none). */
static double suite_round_s(const cJSON *doc)
{
	const cJSON *round;
	double *w = malloc(((size_t)cJSON_GetArraySize(get(doc, "rounds")) + 1) * sizeof *w), m;
	size_t n = 0;

	if (!w)
		return NAN;
	cJSON_ArrayForEach(round, get(doc, "rounds"))
	{
		const cJSON *ns = get(round, "wall_ns");

		if (!cJSON_IsTrue(get(round, "warmup")) && cJSON_IsNumber(ns))
			w[n++] = ns->valuedouble / 1e9;
	}
	m = n ? stats_median(w, n) : NAN;
	free(w);
	return m;
}

/* The allocator name and version an arm's records report, or NULL. */
static const cJSON *arm_allocator(const cJSON *doc, const char *arm)
{
	const cJSON *round, *run;

	cJSON_ArrayForEach(round, get(doc, "rounds")) cJSON_ArrayForEach(run, get(round, "runs"))
	{
		const cJSON *a = get(run, "arm"), *al = get(get(run, "record"), "allocator");

		if (cJSON_IsString(a) && strcmp(a->valuestring, arm) == 0 &&
		    cJSON_IsString(get(al, "name")))
			return al;
	}
	return NULL;
}

/* Checks that arms a and b ran the same allocator; writes its name into backend. */
static int same_backend(const cJSON *doc, const struct calib_ask *ask, char *backend, size_t len,
                        char *err, size_t errlen)
{
	const char *a = ask->a, *b = ask->b;
	const cJSON *x = arm_allocator(doc, a), *y = arm_allocator(doc, b);
	const cJSON *vx = get(x, "version"), *vy = get(y, "version");

	if (!x || !y) {
		snprintf(err, errlen, "arm %s has no run record with an allocator", x ? b : a);
		return -1;
	}
	if (strcmp(get(x, "name")->valuestring, get(y, "name")->valuestring) != 0 ||
	    (cJSON_IsString(vx) && cJSON_IsString(vy) &&
	     strcmp(vx->valuestring, vy->valuestring))) {
		snprintf(
		    err, errlen,
		    "arms %s and %s ran different allocators (%.64s %.32s, %.64s %.32s): not an "
		    "A/A comparison",
		    a, b, get(x, "name")->valuestring,
		    cJSON_IsString(vx) ? vx->valuestring : "(version unknown)",
		    get(y, "name")->valuestring,
		    cJSON_IsString(vy) ? vy->valuestring : "(version unknown)");
		return -1;
	}
	snprintf(backend, len, "%s", get(x, "name")->valuestring);
	return 0;
}

/* What calib_report makes of an A/A bench document: its reading, analysis and backend, and the
 * paths of the runs (read) and of the calibration (written). */
struct calib_out {
	const char *runs_path, *out;
	struct rf_doc *rf;
	struct calib_result *r;
	size_t n;
	char backend[256];
	double round_s;
};

static cJSON *meta_json(const cJSON *doc, const struct calib_ask *ask, const struct calib_out *o)
{
	static const char *const copy[] = {"scale",  "seed",     "params",       "reps",
	                                   "warmup", "budget_s", "shuffle_seed", "pad_max_bytes",
	                                   "duet",   NULL};
	const cJSON *cfg = get(doc, "config");
	cJSON *m = cJSON_CreateObject(), *tool, *arms, *c;
	char now[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
	tool = cJSON_AddObjectToObject(m, "tool");
	cJSON_AddStringToObject(tool, "name", "allocab");
	cJSON_AddStringToObject(tool, "version", ALLOCAB_VERSION);
	cJSON_AddStringToObject(m, "created_utc", now);
	cJSON_AddStringToObject(m, "backend", o->backend);
	arms = cJSON_AddArrayToObject(m, "arms");
	cJSON_AddItemToArray(arms, cJSON_CreateString(ask->a));
	cJSON_AddItemToArray(arms, cJSON_CreateString(ask->b));
	cJSON_AddStringToObject(m, "runs_file", o->runs_path);
	c = cJSON_AddObjectToObject(m, "config");
	for (size_t i = 0; copy[i]; i++)
		if (get(cfg, copy[i]))
			cJSON_AddItemToObject(c, copy[i], cJSON_Duplicate(get(cfg, copy[i]), 1));
	cJSON_AddNumberToObject(c, "rounds", (double)o->rf->nrounds);
	cJSON_AddNumberToObject(c, "alpha", ask->plan->alpha);
	cJSON_AddNumberToObject(c, "power", ask->plan->power);
	cJSON_AddNumberToObject(c, "block", (double)ask->plan->block);
	if (get(doc, "machine"))
		cJSON_AddItemToObject(m, "machine", cJSON_Duplicate(get(doc, "machine"), 1));
	return m;
}

/* The document read and analysed into o. Returns 0, or -1 with err (not an A/A bench of
 * drivers, or unreadable). */
static int analyze_doc(const cJSON *doc, const struct calib_ask *ask, struct calib_out *o,
                       char *err, size_t errlen)
{
	if (!(o->rf = rf_from_json(doc, o->runs_path, err, errlen)))
		return -1;
	if (!cJSON_IsString(get(get(doc, "config"), "scale"))) {
		snprintf(err, errlen,
		         "%s: config.scale is not a preset name: not a bench of drivers",
		         o->runs_path);
		return -1;
	}
	if (same_backend(doc, ask, o->backend, sizeof o->backend, err, errlen) != 0 ||
	    calib_analyze(o->rf, ask, &o->r, &o->n, err, errlen) != 0)
		return -1;
	return 0;
}

/* The allocab-calibration/1 file of o, checked by its own reader, written to o->out atomically. */
static enum status write_calibration(const cJSON *doc, const struct calib_ask *ask,
                                     const struct calib_out *o, char *err, size_t errlen)
{
	cJSON *meta = NULL, *cal = NULL;
	struct calib_file *check = NULL;
	char *text = NULL;
	enum status rc = ST_FAIL;

	if (!(meta = meta_json(doc, ask, o)) ||
	    !(cal = calib_json(o->r, o->n, ask->plan, o->round_s, meta)) ||
	    !(text = utf8_fix(jst_print(cal, 1)))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if ((rc = calib_from_json(cal, o->out, &check, err, errlen)) != ST_OK)
		goto out;
	rc = atomic_write(o->out, text, strlen(text), err, errlen) != 0 ? ST_FAIL : ST_OK;
out:
	calib_file_free(check);
	free(text);
	cJSON_Delete(cal);
	cJSON_Delete(meta);
	return rc;
}

static void print_report(FILE *f, const cJSON *doc, const struct calib_ask *ask,
                         const struct calib_out *o)
{
	fprintf(f,
	        "allocab calibrate: %s against itself (%s vs %s), %zu measured rounds, scale %s, "
	        "alpha %.3g, power %.0f%%\n",
	        o->backend, ask->a, ask->b, o->rf->nrounds,
	        cJSON_IsString(get(get(doc, "config"), "scale"))
	            ? get(get(doc, "config"), "scale")->valuestring
	            : "?",
	        ask->plan->alpha, ask->plan->power * 100);
	if (isfinite(o->round_s))
		fprintf(f, "a round of these workloads takes %.3g s (median); runs in %s\n",
		        o->round_s, o->runs_path);
	for (size_t i = 0; i < o->n; i++)
		print_result(f, &o->r[i], ask->plan, o->round_s);
	fprintf(f,
	        "\nMDE: smallest slowdown detected with that power; effects are t_B/t_A - 1. With "
	        "bench --gate: the plan of rounds\nthe sequential gate needs for it. "
	        "Equivalence: the smallest margin M for which two equal arms are found\n"
	        "equivalent within ±M with that power (compare --equivalence, gate "
	        "--equivalence).\n"
	        "calibration written to %s\n",
	        o->out);
}

enum status calib_report(const cJSON *doc, const struct calib_ask *ask,
                         const struct calib_where *where, char *err, size_t errlen)
{
	struct calib_out o = {
	    .runs_path = where->runs_path, .out = where->out, .round_s = suite_round_s(doc)};
	enum status rc = ST_USAGE;

	if (analyze_doc(doc, ask, &o, err, errlen) == 0 &&
	    (rc = write_calibration(doc, ask, &o, err, errlen)) == ST_OK)
		print_report(where->report, doc, ask, &o);
	calib_results_free(o.r, o.n);
	rf_free(o.rf);
	return rc;
}
