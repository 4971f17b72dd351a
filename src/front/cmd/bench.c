/* bench.c - the `allocab bench` command line: its options (benchopt.h) and its gate's, the plan
 * built from them (front/plan/plan.h), the run (front/engine/engine.h); what it says after the
 * run is benchtell.c's. */
#include "front/cmd/commands.h"
#include "front/plan/plan.h"
#include "front/cmd/benchopt.h"
#include "front/cmd/benchtell.h"
#include "common/errmsg.h"
#include "common/optdoc.h"
#include "common/status.h"
#include "front/cmd/gateopt.h"

#include <stdio.h>
#include <string.h>

/* The gate's options into p (bench_parse_gate), its phase the results' primary rows unless
 * --primary names others. Returns 0, or -1 with err. */
static int gate_into(struct bench_plan *p, struct bench_opts *o, char *err, size_t errlen)
{
	if (o->gate_argv && bench_parse_gate(o, &p->c.equivalence, &p->gate, err, errlen) != 0)
		return -1;
	if (o->gate_argv)
		p->c.gate = &p->gate;
	if (p->c.gate && !p->c.primary && p->gate.phase && strcmp(p->gate.phase, "total") != 0) {
		snprintf(p->primary, sizeof p->primary, "%s%s", p->gate.phase,
		         p->gate.regime_given && p->gate.regime == CMP_REGIMES_COLD ? ":cold" : "");
		p->c.primary = p->primary;
	}
	return 0;
}

/* The plan, run and told. Returns the bench's status. */
static enum status bench_go(struct bench_opts *o, int argc, char **argv)
{
	struct bench_plan p;
	struct bench_result r = {0};
	struct bench_tell tell;
	char err[4096 + 256];
	cJSON *doc = NULL;
	enum status rc = plan_init(&p, o, argc, argv, err, sizeof err);

	if (rc != ST_OK) {
		errmsg_print(stderr, "bench", "%s", err);
		plan_free(&p);
		return rc;
	}
	rc = gate_into(&p, o, err, sizeof err) != 0 ? ST_USAGE : ST_OK;
	if (rc == ST_OK)
		rc = plan_build(&p, o, err, sizeof err);
	if (rc != ST_USAGE && *p.stop)
		rc = errmsg_status(ST_INTERRUPTED, err, sizeof err,
		                   "interrupted before the first round; nothing written");
	tell = (struct bench_tell){o, &p.c, p.paths[0], argc, argv};
	if (rc == ST_OK) {
		rc = bench_run(&p.c, p.stop, &doc, &r, err, sizeof err);
		p.c.resume = p.c.resume_disk = NULL;
	}
	if (rc == ST_OK) {
		rc = bench_tell_done(&tell, &r, doc);
		cJSON_Delete(doc);
	} else {
		bench_tell_failed(&tell, &r, err);
	}
	plan_free(&p);
	return rc;
}

int bench_main(int argc, char **argv)
{
	struct bench_opts o;
	char err[4096 + 256];
	enum status rc;

	if (bench_parse_args(argc, argv, &o, err, sizeof err) != 0) {
		errmsg_print(stderr, "bench", "%s", err);
		return ST_USAGE;
	}
	if (o.help) {
		optdoc_usage(stdout, &bench_doc, NULL);
		bench_opts_free(&o);
		return ST_OK;
	}
	if (o.resume && !o.out)
		o.out = o.resume; /* the file continued is appended to */
	rc = bench_go(&o, argc, argv);
	bench_opts_free(&o);
	return rc;
}
