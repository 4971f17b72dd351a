/* cmpdoc.h - allocab-bench/1 documents built in memory for the unit tests of compare and gate
 * (tests/unit/compare/test_compare_*.c): a document with its arms and workloads, its rounds and runs of a given
 * time, loaded, compared, the rows of the report found, and the report rendered in a format. */
#ifndef ALLOCAB_TEST_CMPDOC_H
#define ALLOCAB_TEST_CMPDOC_H

#include "check.h"

#include "front/compare/compare.h"
#include "front/export/exportint.h"
#include "front/results/results.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fingerprint.h"

#define BASE_NS 100000000.0

static inline cJSON *doc_new(const char *arms, const char *workloads, const char *machine_id)
{
	cJSON *d = cJSON_CreateObject(), *cfg, *m;
	char buf[256], *tok, *save;

	cJSON_AddStringToObject(d, "schema", "allocab-bench/1");
	cJSON_AddStringToObject(d, "status", "complete");
	cfg = cJSON_AddObjectToObject(d, "config");
	cJSON_AddStringToObject(cfg, "mode", "drivers");
	cJSON *a = cJSON_AddArrayToObject(cfg, "arms"),
	      *w = cJSON_AddArrayToObject(cfg, "workloads");
	snprintf(buf, sizeof buf, "%s", arms);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		cJSON_AddItemToArray(a, cJSON_CreateString(tok));
	snprintf(buf, sizeof buf, "%s", workloads);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		cJSON_AddItemToArray(w, cJSON_CreateString(tok));
	m = cJSON_AddObjectToObject(d, "machine");
	/* the reader recomputes machine.id from the fields: another id is another CPU model */
	snprintf(buf, sizeof buf, "Test CPU%s%s", strcmp(machine_id, "aaaa000000000001") ? " " : "",
	         strcmp(machine_id, "aaaa000000000001") ? machine_id : "");
	cJSON_AddStringToObject(m, "cpu_model", buf);
	cJSON_AddNumberToObject(m, "online_cpus", 2);
	cJSON_AddStringToObject(m, "kernel", "6.1.0");
	fingerprint_id(m, buf);
	cJSON_AddStringToObject(m, "id", buf);
	cJSON_AddObjectToObject(m, "env");
	cJSON_AddArrayToObject(d, "rounds");
	return d;
}

static inline cJSON *round_new(cJSON *doc, int warmup)
{
	cJSON *rounds = cJSON_GetObjectItem(doc, "rounds"), *r = cJSON_CreateObject();

	cJSON_AddNumberToObject(r, "index", cJSON_GetArraySize(rounds));
	cJSON_AddBoolToObject(r, "warmup", warmup);
	cJSON_AddItemToArray(rounds, r);
	return cJSON_AddArrayToObject(r, "runs");
}

struct run_opt {
	const char *status;   /* NULL: ok */
	const char *checksum; /* NULL: the common one */
	int rows;             /* params.rows; 0: 100 */
	double steal_ticks;
	double rss_kib; /* 0: 1000 */
};

/* A run whose total (and, for workload "pipeline", phase "read" = total/2, with the flag
 * show_phases as its driver writes it) takes t_ns. */
static inline void run_add(cJSON *runs, const char *arm, const char *wl, double t_ns,
                           const struct run_opt *o)
{
	static const struct run_opt none;
	cJSON *r = cJSON_CreateObject(), *rec, *reps, *rep, *ph, *x;
	int pipeline = strcmp(wl, "pipeline") == 0;

	o = o ? o : &none;
	cJSON_AddStringToObject(r, "arm", arm);
	cJSON_AddStringToObject(r, "workload", wl);
	cJSON_AddStringToObject(r, "status", o->status ? o->status : "ok");
	x = cJSON_AddObjectToObject(r, "process");
	cJSON_AddNumberToObject(x, "wall_ns", round(t_ns));
	x = cJSON_AddObjectToObject(r, "telemetry");
	cJSON_AddNumberToObject(x, "steal_ticks", o->steal_ticks);
	cJSON_AddNumberToObject(x, "loadavg_1m", 0.5);
	cJSON_AddItemToArray(runs, r);
	if (o->status) {
		cJSON_AddStringToObject(r, "signal", "SIGSEGV");
		cJSON_AddStringToObject(r, "stderr_tail", "boom\n");
		return;
	}
	rec = cJSON_AddObjectToObject(r, "record");
	cJSON_AddStringToObject(rec, "schema", "allocab-run/1");
	x = cJSON_AddObjectToObject(rec, "workload");
	cJSON_AddStringToObject(x, "name", wl);
	if (pipeline)
		cJSON_AddItemToArray(cJSON_AddArrayToObject(x, "flags"),
		                     cJSON_CreateString("show_phases"));
	cJSON_AddStringToObject(x, "scale", "small");
	cJSON_AddNumberToObject(x, "seed", 42);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(x, "params"), "rows",
	                        o->rows ? o->rows : 100);
	x = cJSON_AddArrayToObject(rec, "phases");
	cJSON_AddItemToArray(x, cJSON_CreateString("total"));
	if (pipeline)
		cJSON_AddItemToArray(x, cJSON_CreateString("read"));
	reps = cJSON_AddArrayToObject(rec, "reps");
	rep = cJSON_CreateObject();
	cJSON_AddItemToArray(reps, rep);
	ph = cJSON_AddObjectToObject(rep, "phases");
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(ph, "total"), "wall_ns", round(t_ns));
	if (pipeline)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(ph, "read"), "wall_ns",
		                        round(t_ns / 2));
	cJSON_AddStringToObject(rec, "checksum", o->checksum ? o->checksum : "00000000000000aa");
	x = cJSON_AddObjectToObject(rec, "rusage");
	cJSON_AddNumberToObject(x, "max_rss_kib", o->rss_kib ? o->rss_kib : 1000);
	cJSON_AddNumberToObject(x, "involuntary_ctx_switches", 3);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(rec, "rss"), "retained_bytes", 1 << 20);
}

static inline struct rf_doc *load(cJSON *doc, const char *name)
{
	char err[512] = "";
	struct rf_doc *d = rf_from_json(doc, name, err, sizeof err);

	CHECK(d != NULL, "%s loads%s%s", name, d ? "" : ": ", d ? "" : err);
	return d;
}

static inline struct cmp_report *build(const struct rf_doc *b, const struct rf_doc *c,
                                       const struct cmp_opts *o)
{
	struct cmp_report *r = NULL;
	char err[512] = "";

	if (cmp_build(b, c, o, &r, err, sizeof err) != 0)
		printf("# cmp_build: %s\n", err);
	return r;
}

static inline const struct cmp_row *find_row(const struct cmp_report *r, const char *wl,
                                             const char *phase, const char *cand)
{
	for (size_t i = 0; r && i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (((!wl && !row->workload) ||
		     (wl && row->workload && !strcmp(wl, row->workload))) &&
		    !strcmp(phase, row->phase) && !strcmp(cand, row->candidate))
			return row;
	}
	return NULL;
}

static const struct cmp_opts defaults = {.conf = 0.95, .seed = 1};

/* The report in the format named (export.h), or NULL. */
static inline char *render(const struct cmp_report *r, const char *format)
{
	struct export_input in = {.r = r, .margin = NAN};
	char *buf = NULL, err[256];
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	if (m) {
		export_find(format)->write(m, &in, err, sizeof err);
		fclose(m);
	}
	return buf;
}

#endif
