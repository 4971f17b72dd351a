/* test_rfstream.c - the results reader that streams (rf_load, common/jsonstream.h) against the
 * one given a whole tree (rf_from_json on jl_load's): for every results fixture the end-to-end
 * tests write (mkbench, tests/e2e/lib.sh), the fuzz corpus, one-byte corruptions and prefixes of a
 * small file, and files whose members come in another order, both give identical documents or
 * both refuse. Every document they accept is also built as the bench engine builds its own while
 * it runs (rf_builder: the head, then round by round), and must be the same. */
#include "check.h"
#include "memfile.h"
#include "common/jsonload.h"
#include "common/jsonstrict.h"
#include "front/results/results.h"

#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct mfile mf;

/* Results documents: the same rf_doc whether streamed (rf_load) or given whole (rf_from_json on
 * jl_load's tree). */
static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int same_usage(const struct rf_doc *da, const struct rf_run *a, const struct rf_doc *db,
                      const struct rf_run *b)
{
	for (int g = 0; g < RF_NREGIMES; g++)
		for (size_t p = 0; p < RF_MAX_PHASES; p++)
			for (int c = 0; c < RF_NCOUNTS; c++)
				if (!same_double(rf_run_usage(da, a, g, p)[c], rf_run_usage(db, b, g, p)[c]))
					return 0;
	return 1;
}

static int same_run(const struct rf_doc *da, const struct rf_run *a, const struct rf_doc *db,
                    const struct rf_run *b)
{
	int same = a->present == b->present && a->ok == b->ok && a->settled == b->settled &&
	           same_double(a->rss_first, b->rss_first) &&
	           same_double(a->rss_last, b->rss_last) && same_double(a->wall_ns, b->wall_ns) &&
	           same_double(a->max_rss_kib, b->max_rss_kib) &&
	           same_double(a->retained_bytes, b->retained_bytes) &&
	           same_double(a->invol_ctx, b->invol_ctx) && same_double(a->steal_s, b->steal_s) &&
	           same_double(a->loadavg_1m, b->loadavg_1m);

	for (int p = 0; same && p < RF_MAX_PHASES; p++)
		same = same_double(a->t_regime[RF_COLD][p], b->t_regime[RF_COLD][p]) &&
		       same_double(a->t_regime[RF_STEADY][p], b->t_regime[RF_STEADY][p]);
	return same && same_usage(da, a, db, b);
}

static const char *same_doc(const struct rf_doc *a, const struct rf_doc *b)
{
	size_t cells = a->narms * a->nwl;

	if (!same_str(a->status, b->status) || a->kind != b->kind ||
	    strcmp(a->machine_id, b->machine_id) != 0 ||
	    !same_str(a->machine_desc, b->machine_desc) || !same_str(a->env, b->env))
		return "status, mode or machine";
	if (a->seq.planned != b->seq.planned || a->seq.first_look != b->seq.first_look ||
	    !same_double(a->seq.share, b->seq.share) || !same_double(a->equivalence, b->equivalence) ||
	    strcmp(a->primary, b->primary) != 0)
		return "the decision plan";
	if (a->narms != b->narms || a->nwl != b->nwl || a->nrounds != b->nrounds ||
	    a->nwarmup != b->nwarmup || a->nfails != b->nfails)
		return "counts";
	for (size_t i = 0; i < a->narms; i++)
		if (!same_str(a->arms[i], b->arms[i]) || !a->arm_config != !b->arm_config ||
		    (a->arm_config && !same_str(a->arm_config[i], b->arm_config[i])))
			return "arms";
	for (size_t i = 0; i < a->nwl; i++) {
		const struct rf_workload *x = &a->wl[i], *y = &b->wl[i];
		if (!same_str(x->name, y->name) || x->nphases != y->nphases ||
		    !same_str(x->checksum, y->checksum) || !same_str(x->work, y->work) ||
		    x->show_phases != y->show_phases)
			return "workloads";
		for (size_t p = 0; p < x->nphases; p++)
			if (!same_str(x->phases[p], y->phases[p]))
				return "phases";
	}
	for (size_t r = 0; r < a->nrounds; r++)
		if (a->round_index[r] != b->round_index[r])
			return "round indices";
	for (size_t k = 0; k < a->nrounds * cells; k++)
		if (!same_run(a, &a->runs[k], b, &b->runs[k]))
			return "runs";
	for (size_t k = 0; k < a->nwarmup * cells; k++)
		if (!same_run(a, &a->warm_runs[k], b, &b->warm_runs[k]))
			return "warm-up runs";
	for (size_t i = 0; i < a->nfails; i++) {
		const struct rf_fail *x = &a->fails[i], *y = &b->fails[i];
		if (x->round != y->round || x->warmup != y->warmup || !same_str(x->arm, y->arm) ||
		    !same_str(x->workload, y->workload) || !same_str(x->status, y->status) ||
		    !same_str(x->signal, y->signal) || x->exit_status != y->exit_status ||
		    !same_str(x->stderr_tail, y->stderr_tail) || !same_str(x->reason, y->reason))
			return "fails";
	}
	for (int g = 0; g < RF_NREGIMES; g++)
		if (a->has_regime[g] != b->has_regime[g])
			return "regimes";
	return a->legacy_reps == b->legacy_reps ? NULL : "legacy reps";
}

/* The document the bench engine keeps while it runs (rf_builder: the head, then each round as it
 * ends) against the file's reading d: NULL when they agree in everything a judgement reads. */
static const char *built_differs(const char *path, const struct rf_doc *d)
{
	struct rf_file info;
	enum jl_why why;
	char err[1024];
	cJSON *doc, *round;
	struct rf_builder *b;
	const struct rf_doc *bd;
	const char *bad = NULL;

	if (rf_bench_read(path, &doc, &info, &why, err, sizeof err) != 0)
		return "rf_bench_read refused what rf_load read";
	cJSON_Delete(info.disk);
	if (!(b = rf_builder_new(doc, path, err, sizeof err))) {
		cJSON_Delete(doc);
		return "rf_builder_new refused the head";
	}
	cJSON_ArrayForEach(round, cJSON_GetObjectItemCaseSensitive(doc, "rounds"))
	{
		if (!bad && rf_builder_round(b, round, err, sizeof err) != 0)
			bad = "rf_builder_round refused a round";
	}
	if (!bad && !(bd = rf_builder_doc(b, err, sizeof err)))
		bad = "rf_builder_doc failed";
	if (!bad && (bad = same_doc(d, bd)))
		bad = bad[0] ? bad : "the builder's document differs";
	rf_builder_free(b);
	cJSON_Delete(doc);
	return bad;
}

/* rf_load and rf_from_json(jl_load) of path, or for an allocab-bench/2 file rf_from_json of its
 * equivalent document (rf_bench_read: the whole head over every round): both accept the same
 * document or both refuse. Returns rf_load's document (NULL if refused) or sets *bad. */
static struct rf_doc *rf_both(const char *path, const char **bad, char *err, size_t errlen)
{
	struct rf_doc *ds = NULL, *dw = NULL;
	enum jl_why why;
	cJSON *whole = jl_load(path, &why, err, errlen);
	char err2[1024];

	*bad = NULL;
	if (rf_path_is_lines(path, err2, sizeof err2) == 1) {
		struct rf_file info;
		cJSON_Delete(whole);
		whole = NULL;
		if (rf_bench_read(path, &whole, &info, &why, err2, sizeof err2) == 0)
			cJSON_Delete(info.disk);
	}
	if (whole)
		dw = rf_from_json(whole, path, err2, sizeof err2);
	cJSON_Delete(whole);
	rf_load(path, &ds, err, errlen);
	if (!ds != !dw)
		*bad = ds ? "only the stream accepts" : "only the whole file is accepted";
	else if (ds)
		*bad = same_doc(ds, dw);
	rf_free(dw);
	if (ds && !*bad)
		*bad = built_differs(path, ds);
	return ds;
}

/* path rewritten with its members in the order of `order` (the others after them). */
static int reorder(const char *path, const char *out, const char *const *order)
{
	enum jl_why why;
	char err[512];
	cJSON *doc = jl_load(path, &why, err, sizeof err), *re = cJSON_CreateObject();
	char *text;
	FILE *f;
	int rc = -1;

	for (size_t i = 0; doc && re && order[i]; i++) {
		cJSON *m = cJSON_DetachItemFromObjectCaseSensitive(doc, order[i]);
		if (m)
			cJSON_AddItemToObject(re, order[i], m);
	}
	while (doc && re && doc->child) {
		cJSON *m = cJSON_DetachItemViaPointer(doc, doc->child);
		cJSON_AddItemToObject(re, m->string, m);
	}
	text = doc && re ? cJSON_Print(re) : NULL;
	if (text && (f = fopen(out, "w"))) {
		rc = fputs(text, f) >= 0 ? 0 : -1;
		fclose(f);
	}
	free(text);
	cJSON_Delete(doc);
	cJSON_Delete(re);
	return rc;
}

/* One-byte corruptions and prefixes of a small results file: rf_load and rf_from_json agree. */
static void rf_mutations(const char *path)
{
	static const char subst[] = {'x', '9', '"', '\x01'};
	size_t n = 0, total = 0, bad = 0;
	char err[1024], *text = jl_read(path, &n, err, sizeof err);

	if (!text)
		return;
	for (size_t k = 0; k < n; k += 29) {
		for (size_t c = 0; c <= sizeof subst; c++) {
			const char *d;
			char keep = text[k];
			if (c < sizeof subst)
				text[k] = subst[c];
			if (mf_set(&mf, text, c < sizeof subst ? n : k) == 0) {
				rf_free(rf_both(mf.path, &d, err, sizeof err));
				total++;
				if (d && bad++ < 5)
					printf("# byte %zu as 0x%02x: %s (%s)\n", k,
					       c < sizeof subst ? subst[c] : 0, d, err);
			}
			text[k] = keep;
		}
	}
	free(text);
	CHECK(bad == 0,
	      "%zu corruptions and prefixes of a %zu-byte results file: rf_load and "
	      "rf_from_json agree",
	      total, n);
}

/* path with line appended (a newline after it) into the memory file. */
static int with_line(const char *path, const char *line)
{
	size_t n = 0;
	char err[256], *text = jl_read(path, &n, err, sizeof err), *all;
	int rc = -1;

	if (text && (all = malloc(n + strlen(line) + 2))) {
		memcpy(all, text, n);
		sprintf(all + n, "%s\n", line);
		rc = mf_set(&mf, all, n + strlen(line) + 1);
		free(all);
	}
	free(text);
	return rc;
}

/* An allocab-bench/2 file read in one pass (the rounds with the header) against its equivalent
 * document: as written, with an update line after the rounds that moves config (the rounds are
 * then read again under the new head) or only its sequential plan (they are not), and for the
 * first fixture (all) its corruptions and prefixes. */
static void rf_lines_checks(const char *path, const char *args, int all)
{
	static const char *const ups[] = {
	    "{\"updated_utc\":\"2026-12-02T00:00:00Z\",\"config\":{\"time\":\"wall\"}}",
	    "{\"updated_utc\":\"2026-12-02T00:00:00Z\",\"config\":{\"sequential\":null}}",
	    "{\"updated_utc\":\"2026-12-02T00:00:00Z\",\"config\":{\"sequential\":{\"rule\":\"x\","
	    "\"planned_rounds\":12,\"first_look\":4,\"alpha_share\":0.8}}}",
	    "{\"updated_utc\":\"2026-12-02T00:00:00Z\",\"config\":{\"sequential\":{\"planned_rounds\":"
	    "2,\"first_look\":3}}}",
	    "{\"updated_utc\":\"2026-12-02T00:00:00Z\",\"config\":{\"arms\":[]}}",
	    "{\"updated_utc\":\"2026-12-02T00:00:00Z\",\"status\":\"nonsense\"}",
	};
	char err[1024];
	const char *bad;
	struct rf_doc *d = rf_both(path, &bad, err, sizeof err);

	CHECK(!bad, "mkbench %s, as allocab-bench/2: rf_load agrees with its equivalent document%s%s "
	      "(%s)", args, bad ? ": " : "", bad ? bad : "", d ? "accepted" : err);
	rf_free(d);
	for (size_t u = 0; all && u < sizeof ups / sizeof *ups; u++) {
		if (with_line(path, ups[u]) != 0)
			continue;
		d = rf_both(mf.path, &bad, err, sizeof err);
		CHECK(!bad, "mkbench %s, /2, then update %s: rf_load agrees%s%s (%s)", args, ups[u],
		      bad ? ": " : "", bad ? bad : "", d ? "accepted" : err);
		rf_free(d);
	}
	if (all) {
		int keep = dup(2), quiet = open("/dev/null", O_WRONLY);
		/* a prefix ends in a torn line, which rf_load reports on stderr */
		if (keep >= 0 && quiet >= 0)
			dup2(quiet, 2);
		rf_mutations(path);
		if (keep >= 0 && quiet >= 0)
			dup2(keep, 2);
		if (keep >= 0)
			close(keep);
		if (quiet >= 0)
			close(quiet);
	}
}

/* The fixtures, written by `bash SCRIPT DIR`: this test's own (small, warm-up rounds, a failed
 * one), then every distinct `mkbench FILE ARGS` of tests/e2e/e2e_*.sh (the production writer's
 * allocab-bench/2 files), each as its allocab-bench/1 document (lib.sh's onedocs, one Python for all of them), into
 * DIR/fN.json, the /2 file as DIR/fN.lines,
 * with their arguments in DIR/fN.args. */
static const char mkbench_all[] =
    "set -e; . tests/e2e/lib.sh; n=0\n"
    "{ echo 'arms=system=1,mimalloc=0.8 rounds=1 warmup=2 wls=parquet_load reps=4 "
    "fail=system:-1'\n"
    "  grep -hE '^[[:space:]]*mkbench ' tests/e2e/e2e_*.sh | awk '{$1 = \"\"; $2 = \"\"; print}' |"
    " sort -u; } |\n"
    "while read -r args; do\n"
    "  mkbench \"$1/f$n.jsonl\" $args\n"
    "  cp \"$1/f$n.jsonl\" \"$1/f$n.lines\"\n"
    "  echo \"$args\" >\"$1/f$n.args\"\n"
    "  n=$((n + 1))\n"
    "done\n"
    "onedocs \"$1\"\n";

/* A round with a member nested `depth` deep in all (the file's object, rounds and the round
 * included): rf_load and rf_from_json agree, at the limit and one above. */
static void rf_deep(const char *path)
{
	size_t n = 0;
	char err[1024], *text = jl_read(path, &n, err, sizeof err), *at;

	if (!text || !(at = strstr(text, "{\"index\":0,")))
		return free(text);
	for (unsigned depth = JST_MAX_DEPTH; depth <= JST_MAX_DEPTH + 1; depth++) {
		size_t inner = depth - 3, head = (size_t)(at + 1 - text), len = 0;
		char *deep = malloc(n + 2 * inner + 16);
		const char *bad = "memfd";
		struct rf_doc *d;
		if (!deep)
			break;
		memcpy(deep, text, head);
		len = head + (size_t)sprintf(deep + head, "\"deep\":");
		memset(deep + len, '[', inner);
		memset(deep + len + inner, ']', inner);
		len += 2 * inner;
		deep[len++] = ',';
		memcpy(deep + len, text + head, n - head);
		len += n - head;
		d = mf_set(&mf, deep, len) == 0 ? rf_both(mf.path, &bad, err, sizeof err) : NULL;
		CHECK(!bad && !d == (depth > JST_MAX_DEPTH),
		      "a round with a member nesting %u deep in all: %s by both%s%s", depth,
		      d ? "accepted" : "refused", d ? "" : ": ", d ? "" : err);
		rf_free(d);
		free(deep);
	}
	free(text);
}

/* A second "rounds" member, after the first or before it: both readers refuse, the same way. */
static void rf_twice(const char *path)
{
	static const char *const extra[] = {",\"rounds\":[]}", ",\"rounds\":null}"};
	size_t n = 0;
	char err[1024], err2[1024], *text = jl_read(path, &n, err, sizeof err), *end;

	if (!text || !(end = strrchr(text, '}')))
		return free(text);
	for (int first = 0; first < 2; first++) {
		for (size_t k = 0; k < 2; k++) {
			size_t head = (size_t)(end - text), len;
			char *t = malloc(n + 32);
			struct rf_doc *ds = NULL, *dw = NULL;
			enum jl_why why;
			cJSON *whole;
			if (!t)
				break;
			if (first) /* {"rounds":null, then the rest */
				len = (size_t)sprintf(t, "{\"rounds\":%s,%s", k ? "null" : "[]",
				                      text + 1);
			else
				len = head + (size_t)sprintf((char *)memcpy(t, text, head) + head,
				                             "%s", extra[k]);
			err[0] = err2[0] = '\0';
			if (mf_set(&mf, t, len) == 0) {
				rf_load(mf.path, &ds, err, sizeof err);
				whole = jl_load(mf.path, &why, err2, sizeof err2);
				dw = whole ? rf_from_json(whole, mf.path, err2, sizeof err2) : NULL;
				cJSON_Delete(whole);
				CHECK(!ds && !dw && strstr(err, "member 'rounds' appears twice") &&
				          strcmp(err, err2) == 0,
				      "a second rounds member (%s, %s): refused by both: %s",
				      first ? "first" : "last", k ? "null" : "an array", err2);
			}
			rf_free(ds);
			rf_free(dw);
			free(t);
		}
	}
	free(text);
}

static void test_results(void)
{
	static const char *const late[] = {"schema", "tool",    "status", "rounds",
	                                   "config", "machine", NULL};
	static const char *const first[] = {"rounds", NULL};
	char dir[] = "/tmp/allocab-jsr.XXXXXX", path[128], moved[160], args[512], err[1024];
	size_t nb = 0, accepted = 0;
	char cmd[300];
	glob_t g;
	FILE *f;

	if (!mkdtemp(dir))
		return;
	if (access("tests/e2e/lib.sh", R_OK) != 0) {
		SKIP("rfstream fixtures", "tests/e2e/lib.sh not found (run from the repository's root)");
		rmdir(dir);
		return;
	}
	snprintf(path, sizeof path, "%s/mk.sh", dir);
	if (!(f = fopen(path, "w")))
		return;
	fputs(mkbench_all, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "bash %s %s", path, dir);
	CHECK(system(cmd) == 0, "mkbench wrote the fixtures of tests/e2e/e2e_*.sh");
	unlink(path);
	for (size_t i = 0;; i++, nb++) {
		struct rf_doc *d;
		const char *bad;
		snprintf(path, sizeof path, "%s/f%zu.args", dir, i);
		if (!(f = fopen(path, "r")))
			break;
		if (!fgets(args, sizeof args, f))
			args[0] = '\0';
		args[strcspn(args, "\n")] = '\0';
		fclose(f);
		unlink(path);
		snprintf(path, sizeof path, "%s/f%zu.json", dir, i);
		d = rf_both(path, &bad, err, sizeof err);
		CHECK(!bad, "mkbench %s: rf_load and rf_from_json agree%s%s (%s)", args,
		      bad ? ": " : "", bad ? bad : "", d ? "accepted" : err);
		accepted += d != NULL;
		if (i == 0) {
			rf_mutations(path);
			rf_deep(path);
			rf_twice(path);
		}
		for (int o = 0; o < (i == 0 ? 2 : 1); o++) {
			struct rf_doc *d2;
			snprintf(moved, sizeof moved, "%s.moved%d", path, o);
			if (reorder(path, moved, o ? first : late) != 0)
				continue;
			d2 = rf_both(moved, &bad, err, sizeof err);
			CHECK(!bad && !d == !d2 && (!d || !same_doc(d, d2)),
			      "mkbench %s with %s: loads as the original%s%s", args,
			      o ? "rounds first" : "config and machine after rounds",
			      bad ? ": " : "", bad ? bad : "");
			rf_free(d2);
			unlink(moved);
		}
		rf_free(d);
		unlink(path);
		snprintf(path, sizeof path, "%s/f%zu.lines", dir, i);
		rf_lines_checks(path, args, i == 0);
		unlink(path);
	}
	CHECK(nb >= 20 && accepted + 2 >= nb, "%zu of %zu fixtures accepted", accepted, nb);
	if (glob("tests/fuzz/corpus/results/*.json", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *bad;
			struct rf_doc *d = rf_both(g.gl_pathv[i], &bad, err, sizeof err);
			CHECK(!bad, "%s: rf_load and rf_from_json agree%s%s (%s)", g.gl_pathv[i],
			      bad ? ": " : "", bad ? bad : "", d ? "accepted" : err);
			rf_free(d);
		}
		globfree(&g);
	}
	rmdir(dir);
}

int main(void)
{
	if (mf_open(&mf) < 0) {
		CHECK(0, "memfd_create");
		return CHECK_DONE();
	}
	test_results();
	close(mf.fd);
	return CHECK_DONE();
}
