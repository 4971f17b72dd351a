/* gate.c - the command lines of `allocab compare` and `allocab gate`, and the gate itself: a
 * margin on t_candidate/t_baseline judged by the whole confidence interval (GUIDE.md §6), shared
 * by `allocab gate` and `allocab bench --gate`. */
#include "gate.h"

#include "atomicio.h"
#include "calibrate.h"
#include "compare.h"
#include "errmsg.h"
#include "numparse.h"
#include "report.h"
#include "resfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CONF 0.95
#define DEFAULT_SEED 1

struct gate_spec {
	char *candidate, *baseline, *phase, *workload, *against;
	int slowdown; /* --max-slowdown; else --min-speedup */
	double pct;
	int on_geomean;
	double conf;
};

static const char compare_usage[] =
    "usage: allocab compare RESULTS [RESULTS2] [--baseline NAME] [--candidate NAME]\n"
    "                       [--workload NAME] [--phase NAME | --phases all]\n"
    "                       [--format table|markdown|json|csv] [-o FILE]\n"
    "                       [--conf 0.95] [--bootstrap N] [--seed N] [--calibration FILE]\n"
    "One file: every arm against the baseline (default system; commands mode: the first arm),\n"
    "paired by round. Two files: every arm of RESULTS2 against the same arm of RESULTS\n"
    "(two-sample; warns when the machines differ). By default the total of every workload and\n"
    "the phases of the pipeline workload, plus the geometric mean over workloads.\n"
    "  --bootstrap N   percentile bootstrap interval (N >= 10000 resamples, seeded by --seed,\n"
    "                  default 1) instead of the signed-rank interval; one file only\n"
    "  --calibration FILE  the noise floor column from this `allocab calibrate` file\n"
    "                  (default: results/calibration.json when it exists): the smallest\n"
    "                  slowdown the calibrated noise lets that many paired rounds detect\n"
    "Convention: speedup 1.12x means the candidate takes 1/1.12 of the baseline's time;\n"
    "improvement % = (1 - t_candidate/t_baseline) x 100.\n"
    "Verdict: faster or slower when the Holm-adjusted p < 1 - conf and the interval excludes\n"
    "1; otherwise no detectable difference; fewer than 2 usable rounds: insufficient data.\n"
    "Exit status: 0 report written, 2 bad input, 1 runtime failure.\n";

static const char gate_usage[] =
    "usage: allocab gate RESULTS --candidate NAME [--baseline NAME] --min-speedup P%\n"
    "                    [--on each|geomean] [--phase NAME] [--workload NAME] [--conf 0.95]\n"
    "       allocab gate NEW --against OLD --max-slowdown P% [--candidate NAME] [--on ...]\n"
    "--min-speedup P: the candidate is at least P% faster: t_candidate/t_baseline <= 1 - P/100.\n"
    "--max-slowdown P: at most P% slower: t_candidate/t_baseline <= 1 + P/100 (with --against,\n"
    "every arm of NEW against the same arm of OLD). P is 0 <= P < 100, written 5, 5% or 2.5%.\n"
    "Each comparison (--on each: every workload's total or --phase; --on geomean: the geometric\n"
    "mean) is PASS when its whole confidence interval satisfies the margin, FAIL when the whole\n"
    "interval violates it, INCONCLUSIVE otherwise. The gate is PASS when all pass, FAIL when any\n"
    "fails, INCONCLUSIVE otherwise (more rounds or a bigger budget can decide it).\n"
    "Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 bad input.\n";

/* "5", "5%" or "2.5%": 0 <= P < 100. */
static int parse_pct(const char *s, double *out)
{
	double v;

	if (num_parse_double(s, 1, &v) < 0 || !(v >= 0 && v < 100))
		return -1;
	*out = v;
	return 0;
}

/* --conf has always taken strtod's leading blanks and '+', which the other numbers refuse. */
static int parse_conf(const char *s, double *out)
{
	double v;

	s += strspn(s, " \t\n\v\f\r");
	if (num_parse_double(s + (*s == '+'), 0, &v) != 0 || !(v >= 0.5 && v < 1))
		return -1;
	*out = v;
	return 0;
}

/* Option NAME's value from "--name value" or "--name=value"; NULL if argv[*i] is not NAME. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	return (*dst = strdup(v)) ? 0 : -1;
}

/* Gate options from argv[start..]; positional arguments go to *pos (at most one) when pos is
 * not NULL. */
static int parse_gate(int argc, char **argv, int start, struct gate_spec *g, const char **pos,
                      char *err, size_t errlen)
{
	static const char *const str_opts[] = {"--candidate", "--baseline", "--phase", "--workload",
	                                       "--against"};
	int have_margin = 0;

	for (int i = start; i < argc; i++) {
		int missing = 0, done = 0;
		const char *v;
		char **dst[] = {&g->candidate, &g->baseline, &g->phase, &g->workload, &g->against};

		for (size_t k = 0; k < 5 && !done; k++)
			if ((v = opt_value(argc, argv, &i, str_opts[k], &missing))) {
				if (!v[0])
					return errmsg_fail(err, errlen, "%s: empty name",
					                   str_opts[k]);
				if (set_str(dst[k], v) != 0)
					return errmsg_fail(err, errlen, "out of memory");
				done = 1;
			}
		if (done)
			continue;
		for (int slow = 0; slow < 2 && !done && !missing; slow++) {
			const char *name = slow ? "--max-slowdown" : "--min-speedup";
			if (!(v = opt_value(argc, argv, &i, name, &missing)))
				continue;
			if (have_margin++)
				return errmsg_fail(err, errlen,
				                   "give one of --min-speedup or --max-slowdown");
			if (parse_pct(v, &g->pct) != 0)
				return errmsg_fail(
				    err, errlen,
				    "%s '%s': want a percentage 0 <= P < 100, e.g. 5%%", name, v);
			g->slowdown = slow;
			done = 1;
		}
		if (done)
			continue;
		if (!missing && (v = opt_value(argc, argv, &i, "--on", &missing))) {
			if (strcmp(v, "each") != 0 && strcmp(v, "geomean") != 0)
				return errmsg_fail(err, errlen, "--on '%s': want each or geomean",
				                   v);
			g->on_geomean = strcmp(v, "geomean") == 0;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--conf", &missing))) {
			if (parse_conf(v, &g->conf) != 0)
				return errmsg_fail(err, errlen,
				                   "--conf '%s': want a level in [0.5, 1)", v);
		} else if (missing) {
			return errmsg_fail(err, errlen, "%s needs a value", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return errmsg_fail(err, errlen, "unknown option '%s'", argv[i]);
		} else if (!pos || *pos) {
			return errmsg_fail(err, errlen, "unexpected argument '%s'", argv[i]);
		} else {
			*pos = argv[i];
		}
	}
	if (!have_margin)
		return errmsg_fail(err, errlen, "give --min-speedup P%% or --max-slowdown P%%");
	if (!g->against && !g->candidate)
		return errmsg_fail(err, errlen, "give --candidate NAME (or --against OLD)");
	if (g->against && g->baseline)
		return errmsg_fail(err, errlen,
		                   "--baseline and --against exclude each other: with --against "
		                   "every arm is judged against itself in OLD");
	return 0;
}

struct gate_spec *gate_spec_parse(int argc, char **argv, char *err, size_t errlen)
{
	struct gate_spec *g = calloc(1, sizeof *g);

	if (!g) {
		errmsg_fail(err, errlen, "out of memory");
		return NULL;
	}
	g->conf = DEFAULT_CONF;
	if (parse_gate(argc, argv, 1, g, NULL, err, errlen) != 0) {
		gate_spec_free(g);
		return NULL;
	}
	return g;
}

void gate_spec_free(struct gate_spec *g)
{
	if (!g)
		return;
	free(g->candidate);
	free(g->baseline);
	free(g->phase);
	free(g->workload);
	free(g->against);
	free(g);
}

static void print_warning(FILE *f, const char *cmd, const char *w)
{
	int loud = strncmp(w, "WARNING: ", 9) == 0;

	fprintf(f, "allocab: %s: %s %s\n", cmd, loud ? "WARNING:" : "warning:", loud ? w + 9 : w);
}

static const char *outcome_name(enum gate_outcome o)
{
	return o == GATE_PASS ? "PASS" : o == GATE_FAIL ? "FAIL" : "INCONCLUSIVE";
}

/* One comparison against the bound on t_candidate/t_baseline. */
static enum gate_outcome judge_row(const struct gate_spec *g, const struct cmp_report *r,
                                   const struct cmp_row *row, double bound, FILE *out)
{
	double m = log(bound);
	enum gate_outcome o;
	char n[64];

	if (r->paired)
		snprintf(n, sizeof n, "%zu", row->n);
	else
		snprintf(n, sizeof n, "%zu+%zu", row->n_base, row->n_cand);
	/* With too few rounds an exact interval cannot reach the level asked: it is then the widest
	 * interval there is, at a lower confidence, and must not decide anything. */
	int short_level = row->usable && row->d.level < g->conf - 1e-9;
	if (!row->usable || short_level)
		o = GATE_INCONCLUSIVE;
	else
		o = row->d.hi <= m ? GATE_PASS : row->d.lo > m ? GATE_FAIL : GATE_INCONCLUSIVE;
	if (!out)
		return o;
	fprintf(out, "%-12s %s/%s %s ", outcome_name(o), row->workload ? row->workload : "geomean",
	        row->phase, row->candidate);
	if (r->paired)
		fprintf(out, "vs %s: ", row->baseline);
	else
		fprintf(out, "of %s vs %s: ", r->cand->path, r->base->path);
	if (!row->usable) {
		fprintf(out, "insufficient data (%s usable rounds; at least 2 needed)\n", n);
		return o;
	}
	fprintf(out, "%s", r->paired ? "t_cand/t_base" : "t_new/t_old");
	static const char *const relation[] = {
	    [GATE_PASS] = "<=", [GATE_FAIL] = ">", [GATE_INCONCLUSIVE] = "straddles"};
	fprintf(out, " %.3g%% CI [%.3f, %.3f] %s %.3f (speedup %.3fx, n %s", 100 * row->d.level,
	        exp(row->d.lo), exp(row->d.hi), short_level ? "undecided vs" : relation[o], bound,
	        cmp_speedup(row->d.est), n);
	if (short_level)
		fprintf(out,
		        "; the interval reaches only %.3g%% confidence, below the %g%% asked: "
		        "more rounds needed",
		        100 * row->d.level, 100 * g->conf);
	else if (o == GATE_INCONCLUSIVE && r->paired && row->sd > 0 && row->d.est != m) {
		size_t need = stats_rounds_needed(row->sd, fabs(row->d.est - m), 1 - g->conf, 0.8);
		if (need > 1000)
			fprintf(out, "; the estimate is too close to the margin for more rounds to "
			             "decide it soon");
		else if (need > row->n)
			fprintf(out, "; about %zu rounds could decide it if the estimate holds",
			        need);
	}
	fprintf(out, ")\n");
	return o;
}

static void describe_rule(const struct gate_spec *g, const struct cmp_report *r, double bound,
                          char *buf, size_t len)
{
	const char *dir = g->slowdown ? "slower" : "faster", *most = g->slowdown ? "most" : "least";

	if (g->against)
		snprintf(buf, len, "%s of %s at %s %g%% %s than in %s: t_new/t_old <= %.4g",
		         g->candidate ? g->candidate : "every arm", r->cand->path, most, g->pct,
		         dir, r->base->path, bound);
	else
		snprintf(buf, len, "%s at %s %g%% %s than %s: t_candidate/t_baseline <= %.4g",
		         g->candidate, most, g->pct, dir, r->baseline, bound);
}

/* Warns when the margin is below the minimum detectable effect of the paired rounds judged. */
static void margin_note(const struct gate_spec *g, const struct cmp_report *r,
                        const struct cmp_row *row, FILE *out, FILE *warn)
{
	char msg[512], line[640];

	if (!r->paired || !row->usable ||
	    !calib_margin_warning(row->sd, row->n, g->pct, 1 - g->conf, CALIB_POWER, msg,
	                          sizeof msg))
		return;
	snprintf(line, sizeof line, "%s/%s %s: %s", row->workload ? row->workload : "geomean",
	         row->phase, row->candidate, msg);
	if (out)
		fprintf(out, "note: %s\n", line);
	if (warn)
		print_warning(warn, "gate", line);
}

/* Judges one loaded document (cand) against its baseline arm or against OLD. */
static enum gate_outcome judge(const struct gate_spec *g, struct rf_doc *cand, FILE *out,
                               FILE *warn, char *err, size_t errlen)
{
	struct cmp_opts o = {.baseline = g->baseline,
	                     .candidate = g->candidate,
	                     .workload = g->workload,
	                     .phase = g->phase ? g->phase : "total",
	                     .conf = g->conf};
	struct rf_doc *old = NULL;
	struct cmp_report *r = NULL;
	double bound = g->slowdown ? 1 + g->pct / 100 : 1 - g->pct / 100;
	size_t count[4] = {0}, judged = 0;
	char rule[512];

	if (g->against && !(old = rf_load(g->against, err, errlen)))
		return GATE_USAGE;
	if (cmp_build(old ? old : cand, old ? cand : NULL, &o, &r, err, errlen) != 0) {
		rf_free(old);
		return GATE_USAGE;
	}
	for (size_t i = 0; warn && i < r->nwarn; i++)
		if ((long)i != r->verdict_warning)
			print_warning(warn, "gate", r->warn[i]);
	int any_geomean = 0;
	for (size_t i = 0; i < r->nrows; i++)
		any_geomean |= r->rows[i].workload == NULL;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (g->on_geomean && any_geomean && row->workload)
			continue;
		if (!g->on_geomean && !row->workload)
			continue;
		count[judge_row(g, r, row, bound, out)]++;
		judged++;
		margin_note(g, r, row, out, warn);
	}
	describe_rule(g, r, bound, rule, sizeof rule);
	enum gate_outcome res = count[GATE_FAIL]                      ? GATE_FAIL
	                        : count[GATE_INCONCLUSIVE] || !judged ? GATE_INCONCLUSIVE
	                                                              : GATE_PASS;
	if (out)
		fprintf(out,
		        "gate: %s (%zu pass, %zu fail, %zu inconclusive; %s over the whole %g%% "
		        "interval, on %s)\n",
		        outcome_name(res), count[GATE_PASS], count[GATE_FAIL],
		        count[GATE_INCONCLUSIVE], rule, 100 * g->conf,
		        g->on_geomean ? "the geometric mean" : "each workload");
	cmp_free(r);
	rf_free(old);
	return res;
}

enum gate_outcome gate_spec_eval(const struct gate_spec *g, const cJSON *bench, FILE *out,
                                 char *err, size_t errlen)
{
	struct rf_doc *d = rf_from_json(bench, "the bench document", err, errlen);
	enum gate_outcome o;

	if (!d)
		return GATE_USAGE;
	o = judge(g, d, out, NULL, err, errlen);
	rf_free(d);
	return o;
}

int gate_main(int argc, char **argv)
{
	struct gate_spec *g;
	const char *path = NULL;
	struct rf_doc *d = NULL;
	char err[1024] = "out of memory";
	int rc = 0;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(gate_usage, stdout);
			return 0;
		}
	if (argc < 2) {
		fputs(gate_usage, stderr);
		return GATE_USAGE;
	}
	if ((g = calloc(1, sizeof *g))) {
		g->conf = DEFAULT_CONF;
		rc = parse_gate(argc, argv, 1, g, &path, err, sizeof err);
	}
	if (g && rc == 0 && !path)
		rc = errmsg_fail(err, sizeof err, "give the results file to judge");
	if (g && rc == 0 && (d = rf_load(path, err, sizeof err)))
		rc = (int)judge(g, d, stdout, stderr, err, sizeof err);
	else
		rc = GATE_USAGE;
	if (rc == GATE_USAGE)
		fprintf(stderr, "allocab: gate: %s\n", err);
	rf_free(d);
	gate_spec_free(g);
	fflush(stdout);
	return rc;
}

struct compare_args {
	struct cmp_opts o;
	const char *files[2];
	size_t nfiles;
	const char *format, *out, *calibration;
};

static int parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen)
{
	static const char *const str_opts[] = {"--baseline",   "--candidate", "--workload",
	                                       "--phase",      "--format",    "-o",
	                                       "--calibration"};
	const char **dst[] = {&a->o.baseline, &a->o.candidate, &a->o.workload, &a->o.phase,
	                      &a->format,     &a->out,         &a->calibration};
	uint64_t u;

	for (int i = 1; i < argc; i++) {
		int missing = 0, done = 0;
		const char *v;

		for (size_t k = 0; k < 7 && !done && !missing; k++)
			if ((v = opt_value(argc, argv, &i, str_opts[k], &missing))) {
				if (!v[0])
					return errmsg_fail(err, errlen, "%s: empty value",
					                   str_opts[k]);
				*dst[k] = v;
				done = 1;
			}
		if (done)
			continue;
		if (!missing && (v = opt_value(argc, argv, &i, "--phases", &missing))) {
			if (strcmp(v, "all") != 0)
				return errmsg_fail(err, errlen,
				                   "--phases '%s': only 'all' is known", v);
			a->o.all_phases = 1;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--conf", &missing))) {
			if (parse_conf(v, &a->o.conf) != 0)
				return errmsg_fail(err, errlen,
				                   "--conf '%s': want a level in [0.5, 1)", v);
		} else if (!missing && (v = opt_value(argc, argv, &i, "--bootstrap", &missing))) {
			if (num_parse_u64(v, &u) != 0 || u < CMP_MIN_BOOTSTRAP || u > 10000000)
				return errmsg_fail(
				    err, errlen, "--bootstrap '%s': want %d to 10000000 resamples",
				    v, CMP_MIN_BOOTSTRAP);
			a->o.bootstrap = (uint32_t)u;
		} else if (!missing && (v = opt_value(argc, argv, &i, "--seed", &missing))) {
			if (num_parse_u64(v, &u) != 0)
				return errmsg_fail(err, errlen,
				                   "--seed '%s': want an unsigned integer", v);
			a->o.seed = u;
		} else if (missing) {
			return errmsg_fail(err, errlen, "%s needs a value", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return errmsg_fail(err, errlen, "unknown option '%s'", argv[i]);
		} else if (a->nfiles == 2) {
			return errmsg_fail(err, errlen,
			                   "unexpected argument '%s': at most two results files",
			                   argv[i]);
		} else {
			a->files[a->nfiles++] = argv[i];
		}
	}
	if (a->nfiles == 0)
		return errmsg_fail(err, errlen, "give a results file");
	if (a->o.phase && a->o.all_phases)
		return errmsg_fail(err, errlen, "--phase and --phases exclude each other");
	return 0;
}

static int render(const struct cmp_report *r, enum report_format f, const char *path, char *err,
                  size_t errlen)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&buf, &n);
	int rc;

	if (!mem)
		return errmsg_fail(err, errlen, "out of memory");
	rc = report_write(mem, r, f);
	if (fclose(mem) != 0 || rc != 0)
		rc = errmsg_fail(err, errlen, "out of memory");
	else if (atomic_write(path ? path : "-", buf, n, err, errlen) != 0)
		rc = -1;
	free(buf);
	return rc;
}

int compare_main(int argc, char **argv)
{
	struct compare_args a = {.o = {.conf = DEFAULT_CONF, .seed = DEFAULT_SEED},
	                         .format = "table"};
	struct rf_doc *d[2] = {NULL, NULL};
	struct cmp_report *r = NULL;
	struct calib_file *cal = NULL;
	enum report_format f = REPORT_TABLE;
	char err[1024], calwarn[1024];
	int rc = 0;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(compare_usage, stdout);
			return 0;
		}
	if (argc < 2) {
		fputs(compare_usage, stderr);
		return 2;
	}
	if (parse_compare(argc, argv, &a, err, sizeof err) != 0)
		rc = 2;
	else if (report_format_parse(a.format, &f) != 0) {
		errmsg_fail(err, sizeof err, "--format '%s': want table, markdown, json or csv",
		            a.format);
		rc = 2;
	}
	for (size_t i = 0; rc == 0 && i < a.nfiles; i++)
		if (!(d[i] = rf_load(a.files[i], err, sizeof err)))
			rc = errno == ENOMEM ? 1 : 2;
	if (rc == 0 && (rc = cmp_build(d[0], d[1], &a.o, &r, err, sizeof err)) != 0)
		rc = rc == -2 ? 1 : 2;
	if (rc == 0 &&
	    calib_apply(r, a.calibration, &cal, calwarn, sizeof calwarn, err, sizeof err) != 0)
		rc = 2;
	else if (rc == 0 && calwarn[0])
		print_warning(stderr, "compare", calwarn);
	if (rc == 0) {
		for (size_t i = 0; i < r->nwarn; i++)
			print_warning(stderr, "compare", r->warn[i]);
		if (render(r, f, a.out, err, sizeof err) != 0)
			rc = 1;
	}
	if (rc)
		fprintf(stderr, "allocab: compare: %s\n", err);
	cmp_free(r);
	calib_file_free(cal);
	rf_free(d[0]);
	rf_free(d[1]);
	return rc;
}
