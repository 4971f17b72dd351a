/* compare.c - `allocab compare`: speedups with intervals from one or two results files
 * (front/analysis/compare.h), rendered by front/analysis/report.h. */
#include "front/cmd/commands.h"

#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/numparse.h"
#include "common/opt.h"
#include "common/status.h"
#include "front/analysis/calibrate.h"
#include "front/analysis/compare.h"
#include "front/analysis/report.h"
#include "front/analysis/resfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CONF 0.95
#define DEFAULT_SEED 1

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
    "Exit status: 0 report written, 2 bad input, 1 runtime failure (README.md, \"Exit status\").\n";

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

struct compare_args {
	struct cmp_opts o;
	const char *files[2];
	size_t nfiles;
	const char *format, *out, *calibration;
};

enum {
	C_BASELINE,
	C_CANDIDATE,
	C_WORKLOAD,
	C_PHASE,
	C_FORMAT,
	C_OUT,
	C_CALIBRATION,
	C_PHASES,
	C_CONF,
	C_BOOTSTRAP,
	C_SEED,
	C_COUNT
};

/* Each option may be given again; the last one counts. */
static const struct opt compare_opts[C_COUNT] = {
    [C_BASELINE] = {"--baseline", 0, OPT_VALUE | OPT_REPEAT},
    [C_CANDIDATE] = {"--candidate", 0, OPT_VALUE | OPT_REPEAT},
    [C_WORKLOAD] = {"--workload", 0, OPT_VALUE | OPT_REPEAT},
    [C_PHASE] = {"--phase", 0, OPT_VALUE | OPT_REPEAT},
    [C_FORMAT] = {"--format", 0, OPT_VALUE | OPT_REPEAT},
    [C_OUT] = {NULL, 'o', OPT_VALUE | OPT_REPEAT},
    [C_CALIBRATION] = {"--calibration", 0, OPT_VALUE | OPT_REPEAT},
    [C_PHASES] = {"--phases", 0, OPT_VALUE | OPT_REPEAT},
    [C_CONF] = {"--conf", 0, OPT_VALUE | OPT_REPEAT},
    [C_BOOTSTRAP] = {"--bootstrap", 0, OPT_VALUE | OPT_REPEAT},
    [C_SEED] = {"--seed", 0, OPT_VALUE | OPT_REPEAT},
};

static int compare_option(struct compare_args *a, struct opt_parser *p, int k, const char *v,
                          char *err, size_t errlen)
{
	const char **dst[] = {[C_BASELINE] = &a->o.baseline,    [C_CANDIDATE] = &a->o.candidate,
	                      [C_WORKLOAD] = &a->o.workload,    [C_PHASE] = &a->o.phase,
	                      [C_FORMAT] = &a->format,          [C_OUT] = &a->out,
	                      [C_CALIBRATION] = &a->calibration};
	uint64_t u;

	switch (k) {
	case C_PHASES:
		if (strcmp(v, "all") != 0)
			return errmsg_fail(err, errlen, "--phases '%s': only 'all' is known", v);
		a->o.all_phases = 1;
		return 0;
	case C_CONF:
		if (parse_conf(v, &a->o.conf) != 0)
			return errmsg_fail(err, errlen, "--conf '%s': want a level in [0.5, 1)", v);
		return 0;
	case C_BOOTSTRAP:
		if (num_parse_u64(v, &u) != 0 || u < CMP_MIN_BOOTSTRAP || u > 10000000)
			return errmsg_fail(err, errlen,
			                   "--bootstrap '%s': want %d to 10000000 resamples", v,
			                   CMP_MIN_BOOTSTRAP);
		a->o.bootstrap = (uint32_t)u;
		return 0;
	case C_SEED:
		if (num_parse_u64(v, &u) != 0)
			return errmsg_fail(err, errlen, "--seed '%s': want an unsigned integer", v);
		a->o.seed = u;
		return 0;
	}
	if (!v[0])
		return errmsg_fail(err, errlen, "%s: empty value", opt_name(p, k));
	*dst[k] = v;
	return 0;
}

static int parse_compare(int argc, char **argv, struct compare_args *a, char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	opt_init(&p, argc, argv, 1, compare_opts, C_COUNT);
	while ((k = opt_next(&p, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k != OPT_ARG && compare_option(a, &p, k, v, err, errlen) != 0)
			return -1;
		if (k == OPT_ARG && a->nfiles == 2)
			return errmsg_fail(
			    err, errlen, "unexpected argument '%s': at most two results files", v);
		if (k == OPT_ARG)
			a->files[a->nfiles++] = v;
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
	int rc = ST_OK;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(compare_usage, stdout);
			return ST_OK;
		}
	if (argc < 2) {
		fputs(compare_usage, stderr);
		return ST_USAGE;
	}
	if (parse_compare(argc, argv, &a, err, sizeof err) != 0)
		rc = ST_USAGE;
	else if (report_format_parse(a.format, &f) != 0) {
		errmsg_fail(err, sizeof err, "--format '%s': want table, markdown, json or csv",
		            a.format);
		rc = ST_USAGE;
	}
	for (size_t i = 0; rc == ST_OK && i < a.nfiles; i++)
		rc = rf_load(a.files[i], &d[i], err, sizeof err);
	if (rc == ST_OK)
		rc = cmp_build(d[0], d[1], &a.o, &r, err, sizeof err);
	if (rc == ST_OK &&
	    calib_apply(r, a.calibration, &cal, calwarn, sizeof calwarn, err, sizeof err) != 0)
		rc = ST_USAGE;
	else if (rc == 0 && calwarn[0])
		errmsg_warn(stderr, "compare", calwarn);
	if (rc == 0) {
		for (size_t i = 0; i < r->nwarn; i++)
			errmsg_warn(stderr, "compare", r->warn[i]);
		if (render(r, f, a.out, err, sizeof err) != 0)
			rc = ST_FAIL;
	}
	if (rc)
		fprintf(stderr, "allocab: compare: %s\n", err);
	cmp_free(r);
	calib_file_free(cal);
	rf_free(d[0]);
	rf_free(d[1]);
	return rc;
}
