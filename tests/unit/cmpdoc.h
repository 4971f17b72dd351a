/* cmpdoc.h - allocab-bench documents for the unit tests of compare and gate
 * (tests/unit/compare/test_compare*.c, test_attrib.c), written by the production writer: the bench
 * engine with the fake runner of tests/unit/fakebench.h (drivers mode, no warm-up round unless
 * asked), whose runs take the times a test sets round by round (struct cmpdoc, cmpdoc_set); read
 * back as the allocab-bench/1-shaped document (rf_bench_read), loaded, compared, the rows of the
 * report found, and the report rendered in a format. */
#ifndef ALLOCAB_TEST_CMPDOC_H
#define ALLOCAB_TEST_CMPDOC_H

#include "check.h"
#include "fakebench.h"

#include "front/compare/compare.h"
#include "front/export/exportint.h"
#include "front/results/results.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CMPDOC_BASE_NS 100000000.0
#define CMPDOC_ROUNDS  12
#define CMPDOC_ARMS    4
#define CMPDOC_WLS     3

enum cmpdoc_end { CMPDOC_OK, CMPDOC_FAILED, CMPDOC_CRASHED, CMPDOC_LEFT };

/* What a run is besides its time; all zero: ok, as every other run. */
struct cmpdoc_opt {
	enum cmpdoc_end end; /* failed: exits 1; crashed: SIGSEGV, stderr "boom"; left: the cell has
	                      * left the rounds from this one on (adaptive allocation) */
	const char *checksum; /* NULL: the common one */
	int rows;             /* params.rows; 0: 100 */
	double steal_ticks;   /* stolen while it ran (its telemetry) */
	double cpu;           /* > 0: every rep's total also has cpu_ns = cpu x its wall_ns */
	int single_threaded;  /* the record's workload has the flag single_threaded */
	/* counts: the total of its one rep has cpu_ns = its time, these getrusage deltas, majflt
	 * 0, nvcsw 2, nivcsw 5, as a driver writes them */
	int counts;
	double user_ns, sys_ns, minflt;
};

struct cmpdoc_run {
	double t_ns; /* the total (for "pipeline" also the phase read, half of it) */
	struct cmpdoc_opt o;
};

/* A document to write: arms (the first the baseline unless one is "system") and workloads,
 * comma-separated; rounds measured (warmup more before them, each run as in measured round 0);
 * machine: NULL this machine, else this machine with " MACHINE" after its CPU model (another
 * machine); time: config.time (NULL: wall); facts: the machine's facts at the start and the end. */
struct cmpdoc {
	char arms[128], wls[128];
	char arm[CMPDOC_ARMS][32], wl[CMPDOC_WLS][32];
	int narms, nwl;
	unsigned rounds, warmup;
	const char *machine, *time;
	const struct facts *facts;
	struct cmpdoc_run run[CMPDOC_ROUNDS][CMPDOC_ARMS][CMPDOC_WLS];
};

static inline int cmpdoc_split(const char *list, char names[][32], int max)
{
	int n = 0;

	for (const char *p = list; *p && n < max; n++) {
		size_t k = strcspn(p, ",");
		snprintf(names[n], 32, "%.*s", (int)k, p);
		p += k + (p[k] == ',');
	}
	return n;
}

/* A new document of rounds measured rounds (at most CMPDOC_ROUNDS), every run CMPDOC_BASE_NS and
 * ok. */
static inline struct cmpdoc *cmpdoc_new(const char *arms, const char *workloads, unsigned rounds)
{
	struct cmpdoc *s = calloc(1, sizeof *s);

	if (!s || rounds > CMPDOC_ROUNDS)
		abort();
	snprintf(s->arms, sizeof s->arms, "%s", arms);
	snprintf(s->wls, sizeof s->wls, "%s", workloads);
	s->narms = cmpdoc_split(arms, s->arm, CMPDOC_ARMS);
	s->nwl = cmpdoc_split(workloads, s->wl, CMPDOC_WLS);
	s->rounds = rounds;
	for (unsigned r = 0; r < rounds; r++)
		for (int a = 0; a < CMPDOC_ARMS; a++)
			for (int w = 0; w < CMPDOC_WLS; w++)
				s->run[r][a][w].t_ns = CMPDOC_BASE_NS;
	return s;
}

static inline int cmpdoc_index(char names[][32], int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	abort();
}

/* Arm arm's run of workload wl in measured round r takes t_ns, and is as o says (NULL: ok). */
static inline void cmpdoc_set(struct cmpdoc *s, unsigned r, const char *arm, const char *wl,
                              double t_ns, const struct cmpdoc_opt *o)
{
	struct cmpdoc_run *x =
	    &s->run[r][cmpdoc_index(s->arm, s->narms, arm)][cmpdoc_index(s->wl, s->nwl, wl)];

	x->t_ns = t_ns;
	x->o = o ? *o : (struct cmpdoc_opt){.end = CMPDOC_OK};
}

static inline const struct cmpdoc_run *cmpdoc_at(const struct cmpdoc *s, long m, int a, size_t w)
{
	return &s->run[m < 0 ? 0 : m][a][w];
}

static inline void cmpdoc_hook_run(void *ctx, long m, int a, size_t w, struct runner_result *r,
                                   uint64_t *steal)
{
	const struct cmpdoc_run *x = cmpdoc_at(ctx, m, a, w);

	r->wall_ns = (int64_t)llround(x->t_ns);
	*steal = (uint64_t)x->o.steal_ticks;
	if (x->o.end == CMPDOC_FAILED) {
		r->exit_code = 1;
	} else if (x->o.end == CMPDOC_CRASHED) {
		r->end = RUNNER_SIGNALED;
		r->term_signal = SIGSEGV;
		r->tail_len = (size_t)snprintf(r->tail, sizeof r->tail, "boom\n");
	}
}

static inline void cmpdoc_hook_record(void *ctx, long m, int a, size_t w, cJSON *rec)
{
	const struct cmpdoc_run *x = cmpdoc_at(ctx, m, a, w);
	cJSON *wl = cJSON_GetObjectItem(rec, "workload"), *rep, *tot;

	if (x->o.checksum)
		cJSON_ReplaceItemInObject(rec, "checksum", cJSON_CreateString(x->o.checksum));
	if (x->o.rows)
		cJSON_ReplaceItemInObject(cJSON_GetObjectItem(wl, "params"), "rows",
		                          cJSON_CreateNumber(x->o.rows));
	if (x->o.single_threaded) {
		cJSON *flags = cJSON_GetObjectItem(wl, "flags");
		if (!flags)
			flags = cJSON_AddArrayToObject(wl, "flags");
		cJSON_AddItemToArray(flags, cJSON_CreateString("single_threaded"));
	}
	cJSON_ArrayForEach(rep, cJSON_GetObjectItem(rec, "reps"))
	{
		cJSON *read = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "phases"), "read");
		tot = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "phases"), "total");
		if (read)
			cJSON_ReplaceItemInObject(read, "wall_ns",
			                          cJSON_CreateNumber(round(x->t_ns / 2)));
		if (x->o.cpu > 0)
			cJSON_AddNumberToObject(
			    tot, "cpu_ns",
			    round(x->o.cpu * cJSON_GetObjectItem(tot, "wall_ns")->valuedouble));
		if (x->o.counts) {
			cJSON_AddNumberToObject(tot, "cpu_ns", round(x->t_ns));
			cJSON_AddNumberToObject(tot, "user_ns", x->o.user_ns);
			cJSON_AddNumberToObject(tot, "sys_ns", x->o.sys_ns);
			cJSON_AddNumberToObject(tot, "minflt", x->o.minflt);
			cJSON_AddNumberToObject(tot, "majflt", 0);
			cJSON_AddNumberToObject(tot, "nvcsw", 2);
			cJSON_AddNumberToObject(tot, "nivcsw", 5);
		}
	}
}

static inline void cmpdoc_hook_facts(void *ctx, const char *when, struct facts *f)
{
	(void)when;
	*f = *((const struct cmpdoc *)ctx)->facts;
}

/* The allocation: a cell leaves after the last round before its first CMPDOC_LEFT. */
static inline int cmpdoc_hook_alloc(void *ctx, const struct rf_doc *d, unsigned char *need,
                                    size_t ncells, char *err, size_t errlen)
{
	const struct cmpdoc *s = ctx;

	(void)err;
	(void)errlen;
	for (size_t c = 0; d->nrounds < s->rounds && c < ncells; c++)
		if (s->run[d->nrounds][c / (size_t)s->nwl][c % (size_t)s->nwl].o.end == CMPDOC_LEFT)
			need[c] = 0;
	return 0;
}

/* The document s describes, written by the engine with the fake runner and read back as its
 * allocab-bench/1-shaped document (the caller's); NULL (a failed check) when it cannot be. */
static inline cJSON *cmpdoc_write(struct cmpdoc *s, const char *name)
{
	char dir[] = "/tmp/allocab-cmpdoc-XXXXXX", path[64], err[512] = "";
	char kv[6][160];
	char *kvp[] = {"mode=drivers", kv[0], kv[1], kv[2], kv[3], kv[4], kv[5]};
	struct bench_alloc alloc = {.name = "test", .ctx = s, .update = cmpdoc_hook_alloc};
	int left = 0, n = 5;
	struct fakebench_hooks h = {.ctx = s,
	                            .run = cmpdoc_hook_run,
	                            .record = cmpdoc_hook_record,
	                            .facts = s->facts ? cmpdoc_hook_facts : NULL};
	cJSON *doc = NULL;
	struct rf_file info;
	enum jl_why why;
	char arms[160] = "";

	for (int a = 0; a < s->narms; a++)
		snprintf(arms + strlen(arms), sizeof arms - strlen(arms), "%s%s=1", a ? "," : "",
		         s->arm[a]);
	for (unsigned r = 0; r < s->rounds; r++)
		for (int a = 0; a < s->narms; a++)
			for (int w = 0; w < s->nwl; w++)
				left |= s->run[r][a][w].o.end == CMPDOC_LEFT;
	h.alloc = left ? &alloc : NULL;
	snprintf(kv[0], sizeof kv[0], "arms=%s", arms);
	snprintf(kv[1], sizeof kv[1], "wls=%s", s->wls);
	snprintf(kv[2], sizeof kv[2], "rounds=%u", s->rounds);
	snprintf(kv[3], sizeof kv[3], "warmup=%u", s->warmup);
	snprintf(kv[4], sizeof kv[4], "time=%s", s->time ? s->time : "wall");
	if (s->machine)
		snprintf(kv[n++], sizeof kv[5], "id=%s", s->machine);
	if (!mkdtemp(dir)) {
		CHECK(0, "%s: a temporary directory", name);
		return NULL;
	}
	snprintf(path, sizeof path, "%s/bench.json", dir);
	if (fakebench_write_hooks(path, n + 1, kvp, &h, err, sizeof err) != 0 ||
	    rf_bench_read(path, &doc, &info, &why, err, sizeof err) != 0)
		doc = NULL;
	else
		cJSON_Delete(info.disk);
	CHECK(doc != NULL, "%s: written by the engine with the fake runner%s%s", name,
	      doc ? "" : ": ", doc ? "" : err);
	unlink(path);
	rmdir(dir);
	return doc;
}

/* cmpdoc_write, and s freed. */
static inline cJSON *cmpdoc_done(struct cmpdoc *s, const char *name)
{
	cJSON *doc = cmpdoc_write(s, name);

	free(s);
	return doc;
}

static inline struct rf_doc *cmpdoc_load(const cJSON *doc, const char *name)
{
	char err[512] = "";
	struct rf_doc *d = doc ? rf_from_json(doc, name, err, sizeof err) : NULL;

	CHECK(d != NULL, "%s loads%s%s", name, d ? "" : ": ", d ? "" : err);
	return d;
}

static inline struct cmp_report *cmpdoc_build(const struct rf_doc *b, const struct rf_doc *c,
                                              const struct cmp_opts *o)
{
	struct cmp_report *r = NULL;
	char err[512] = "";

	if (cmp_build(b, c, o, &r, err, sizeof err) != 0)
		printf("# cmp_build: %s\n", err);
	return r;
}

static inline const struct cmp_row *cmpdoc_row(const struct cmp_report *r, const char *wl,
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

static const struct cmp_opts cmpdoc_defaults = {.conf = 0.95, .seed = 1};

/* The report in the format named (export.h), or NULL. */
static inline char *cmpdoc_render(const struct cmp_report *r, const char *format)
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
