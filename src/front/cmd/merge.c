/* merge.c - `allocab merge`: the results files of several machines (a job array's tasks, a CI
 * matrix's legs), each compared within itself, pooled per comparison across the machines
 * (front/fleet/fleet.h), rendered by one of the formats of front/export/export.h. docs/fleet.md. */
#include "front/cmd/commands.h"

#include "common/errmsg.h"
#include "common/opt.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "front/cmd/cmdopt.h"
#include "front/cmd/report.h"
#include "front/export/export.h"
#include "front/fleet/fleet.h"
#include "front/results/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct merge_args {
	struct cmp_opts o;
	const char **files;
	size_t nfiles;
	const char *format, *out;
	struct cmdopt_margin m; /* the gate margin to draw */
	double margin;          /* its bound on t_candidate/t_baseline, or NAN */
	int no_telemetry;
};

/* compare's options that choose what is compared (cmdopt.h); the arms may be given once. */
#define MA struct merge_args
static const struct opt merge_opts[] = {
    CMDOPT_BASELINE(MA, o.baseline,
                    "system on every machine; a --cmd or --program bench: the "
                    "first file's first arm"),
    CMDOPT_CANDIDATE(MA, o.candidate),
    CMDOPT_WORKLOAD(MA, o.workload),
    CMDOPT_PHASE(MA, o.phase),
    CMDOPT_PHASES(MA, o.all_phases),
    CMDOPT_REGIMES(MA, o.regimes),
    CMDOPT_CONF(MA, o.conf),
    CMDOPT_FORMAT(MA, format),
    CMDOPT_OUT(MA, out),
    CMDOPT_MIN_SPEEDUP(MA, m),
    CMDOPT_MAX_SLOWDOWN(MA, m),
    CMDOPT_NO_TELEMETRY(MA, no_telemetry),
    CMDOPT_HELP,
};
#undef MA

const struct opt_doc merge_doc = {
    .prog = "allocab merge",
    .synopsis = (const char *const[]){"RESULTS RESULTS... [OPTIONS]", NULL},
    .about = "Each results file is one machine (its task label, allocab bench --label, names "
             "it; else its file name). Every machine is compared within its own file, arms "
             "paired by round, as `allocab compare FILE` compares it; each comparison is then "
             "pooled across the machines by a random-effects meta-analysis of the machines' "
             "Hodges-Lehmann log ratios (each weighted by the standard error of its rank "
             "interval at --conf): DerSimonian-Laird tau^2, Hartung-Knapp-Sidik-Jonkman "
             "interval with its max(1, q) floor (t with k-1 df), I^2, and a prediction interval "
             "for a new machine of the fleet (t with k-2 df). A machine is named odd when its "
             "studentized deleted residual exceeds t_{k-1, 1-alpha/(2k)}: the others do not "
             "predict it. A file that repeats another's measurements counts once; files of one "
             "boot id are sessions of one machine, pooled within it first. The machines' "
             "effects are related to their facts (fault cost, CPU vendor) by a meta-regression, "
             "its residual tau^2 beside the plain one. A machine that lacks an arm, workload, "
             "phase or regime the others have, did other work (other commands, another time), "
             "or has fewer than 2 usable rounds keeps its row with the reason and is not pooled "
             "(docs/fleet.md).\n",
    .opts = merge_opts,
    .nopts = (sizeof merge_opts / sizeof merge_opts[0]),
    .notes = "Convention: speedup 1.12x means the candidate takes 1/1.12 of the baseline's "
             "time.\n"
             "Exit status: 0 report written, 2 bad input, 1 runtime failure (README.md, \"Exit "
             "status\").\n",
};

static int parse_merge(int argc, char **argv, struct merge_args *a, char *err, size_t errlen)
{
	struct opt_parser p;
	const char *v;
	int k;

	if (!(a->files = calloc((size_t)argc + 1, sizeof *a->files)))
		return errmsg_fail(err, errlen, "out of memory");
	opt_init(&p, argc, argv, 1, merge_opts, (sizeof merge_opts / sizeof merge_opts[0]));
	p.help = "allocab merge";
	while ((k = opt_parse(&p, a, &v, err, errlen)) != OPT_DONE) {
		if (k == OPT_ERROR)
			return -1;
		if (k >= 0) /* --help, answered before the parse (cmdopt_help) */
			continue;
		a->files[a->nfiles++] = v; /* k is OPT_ARG: every other row has a destination */
	}
	if (a->nfiles < 2)
		return errmsg_fail(err, errlen,
		                   "give the results files of two machines or more (one file: "
		                   "allocab compare)");
	if (a->nfiles > FLEET_MAX_FILES)
		return errmsg_fail(err, errlen, "%zu results files: at most %d", a->nfiles,
		                   FLEET_MAX_FILES);
	a->margin = cmdopt_margin_ratio(&a->m);
	return opt_check(&p, err, errlen);
}

struct render_ctx {
	const struct exporter *x;
	struct export_fleet_input in;
};

static int render_one(FILE *f, const void *ctx, char *err, size_t errlen)
{
	const struct render_ctx *c = ctx;

	return c->x->write_fleet(f, &c->in, err, errlen);
}

static int render(const struct fleet_report *f, const struct exporter *x,
                  const struct merge_args *a, char *err, size_t errlen)
{
	struct render_ctx c = {x, {.f = f, .margin = a->margin, .width = report_width(a->out)}};

	return report_write(a->out, render_one, &c, err, errlen);
}

/* Loads every file (any failure ends it), builds the fleet and writes the report. */
/* Loads the files, builds their fleet and renders it. Returns ST_OK, or ST_USAGE or ST_FAIL with
 * err set. */
static enum status merge_run(struct merge_args *a, const struct exporter *x, char *err,
                             size_t errlen)
{
	struct rf_doc **d = calloc(a->nfiles, sizeof *d);
	struct fleet_report *f = NULL;
	enum status rc = d ? ST_OK : errmsg_status(ST_FAIL, err, errlen, "out of memory");

	for (size_t i = 0; rc == ST_OK && i < a->nfiles; i++)
		rc = rf_load(a->files[i], &d[i], err, errlen);
	if (rc == ST_OK)
		rc = fleet_build(d, a->nfiles, &a->o, &f, err, errlen);
	if (rc == ST_OK && a->no_telemetry && fleet_drop_telemetry(f) != 0)
		rc = errmsg_status(ST_FAIL, err, errlen, "out of memory");
	for (size_t i = 0; rc == ST_OK && !(x->flags & EXPORT_WARNINGS) && i < f->nwarn; i++)
		errmsg_warn(stderr, "merge", f->warn[i]);
	if (rc == ST_OK && render(f, x, a, err, errlen) != 0)
		rc = ST_FAIL;
	fleet_free(f);
	for (size_t i = 0; d && i < a->nfiles; i++)
		rf_free(d[i]);
	free(d);
	return rc;
}

int merge_main(int argc, char **argv)
{
	struct merge_args a = {.margin = NAN};
	const struct exporter *x = NULL;
	char err[1024], names[256];
	enum status rc = ST_OK;

	if (cmdopt_help(&merge_doc, argc, argv, 1))
		return ST_OK;
	if (argc < 2) {
		optdoc_usage(stderr, &merge_doc, NULL);
		return ST_USAGE;
	}
	opt_defaults(merge_opts, (sizeof merge_opts / sizeof merge_opts[0]), &a);
	if (parse_merge(argc, argv, &a, err, sizeof err) != 0)
		rc = ST_USAGE;
	else if (!(x = export_find(a.format)) || !x->write_fleet)
		rc = errmsg_status(ST_USAGE, err, sizeof err, "--format: '%s' is not one of %s", a.format,
		                   export_names(names, sizeof names, ", ", ", "));
	if (rc == ST_OK)
		rc = merge_run(&a, x, err, sizeof err);
	if (rc != ST_OK)
		errmsg_print(stderr, "merge", "%s", err);
	free(a.files);
	return rc;
}
