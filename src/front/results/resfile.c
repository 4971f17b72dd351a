/* resfile.c - loading and validating bench files, allocab-bench/2 (its lines: rflines.c) and /1
 * (docs/results-format.md), into the flat per-round tables of results.h. The checks that make a comparison meaningful live here too:
 * every ok run of a workload must have done the same work (checksum, params, seed, scale). */
#include "front/results/results.h"

#include "common/fingerprint.h"
#include "front/results/rfload.h"
#include "common/jsonload.h"
#include "common/jsonstream.h"
#include "common/status.h"
#include "common/utf8.h"
#include "front/stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *const bench_statuses[] = {"running",     "complete", "budget", "decided",
                                             "interrupted", "aborted",  NULL};

int rf_machine_id_check(const cJSON *machine, char id[17])
{
	const char *stored = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(machine, "id"));
	cJSON *none = cJSON_CreateObject();
	char empty[17] = "";

	fingerprint_id(machine, id);
	if (none)
		fingerprint_id(none, empty);
	cJSON_Delete(none);
	if (strcmp(id, empty) == 0) {
		snprintf(id, 17, "%.16s", stored && strlen(stored) == 16 ? stored : "");
		return stored ? 1 : 0;
	}
	if (!stored)
		return 0;
	return strcmp(stored, id) == 0 ? 1 : -1;
}

static int load_machine(struct loader *l, const cJSON *m)
{
	struct rf_doc *d = l->d;
	const char *id = rl_get_str(m, "id"), *cpu = rl_get_str(m, "cpu_model"),
	           *kern = rl_get_str(m, "kernel");
	double ncpu;
	char desc[512];

	d->online_cpus = NAN;
	if (!cJSON_IsObject(m))
		return 0;
	if (rl_opt_num(l, m, "online_cpus", 1e6, "machine", "machine", &ncpu) != 0)
		return -1;
	d->online_cpus = ncpu;
	if (rf_machine_id_check(m, d->machine_id) < 0 && id &&
	    !(d->machine_id_stored = strndup(id, 64)))
		return rl_nomem(l);
	snprintf(desc, sizeof desc, "%.200s, %.0f CPUs, kernel %.100s", cpu ? cpu : "unknown CPU",
	         isnan(ncpu) ? 0.0 : ncpu, kern ? kern : "unknown");
	if (!(d->machine_desc = strdup(desc)) || !(d->env = rl_compact(rl_get(m, "env"))))
		return rl_nomem(l);
	return 0;
}

#define LABEL_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:@+-"

/* A name of task: absent or null (NULL), else 1..RF_MAX_LABEL bytes of chars (labels and hosts:
 * the rule `allocab bench --label` applies; shown as what in messages). */
static int load_task_name(struct loader *l, const cJSON *task, const char *key,
                          const char *chars, const char *what, char **out)
{
	const cJSON *v = rl_get(task, key);
	size_t n;

	if (!v || cJSON_IsNull(v))
		return 0;
	n = cJSON_IsString(v) ? strlen(v->valuestring) : 0;
	if (n == 0 || n > RF_MAX_LABEL || strspn(v->valuestring, chars) != n)
		return rl_fail(l, "task.%s: want 1 to %d characters of %s", key, RF_MAX_LABEL,
		               what);
	return (*out = strdup(v->valuestring)) ? 0 : rl_nomem(l);
}

/* The task of a job array that wrote the file (docs/results-format.md, "task"): optional. */
static int load_task(struct loader *l, const cJSON *task)
{
	if (!task || cJSON_IsNull(task))
		return 0;
	if (!cJSON_IsObject(task))
		return rl_fail(l, "task: want an object");
	static const char names[] = "[A-Za-z0-9_.:@+-]";

	if (load_task_name(l, task, "label", LABEL_CHARS, names, &l->d->label) != 0 ||
	    load_task_name(l, task, "host", LABEL_CHARS, names, &l->d->host) != 0)
		return -1;
	return load_task_name(l, task, "boot_id", "0123456789abcdef-", "[0-9a-f-]",
	                      &l->d->boot_id);
}

/* A second member "rounds" in the document in memory: refused, as the stream refuses it. */
static int rounds_once(struct loader *l, const cJSON *bench)
{
	int n = 0;

	for (const cJSON *m = bench->child; m; m = m->next)
		n += m->string && strcmp(m->string, "rounds") == 0;
	return n > 1 ? rl_fail(l, "member 'rounds' appears twice in the top-level object") : 0;
}

/* The rounds: from the array in memory, or one at a time from js or ln when not NULL. */
static int load_rounds(struct loader *l, const cJSON *bench, struct js_stream *js,
                       struct rl_lines *ln)
{
	const cJSON *jr, *rounds = rl_get(bench, "rounds");
	enum jl_why why;
	int k;

	if (ln)
		return rl_lines_rounds(l, ln);
	if (!js && rounds_once(l, bench) != 0)
		return -1;
	if (!js && !cJSON_IsArray(rounds))
		return rl_fail(l, "rounds: missing");
	if (!js) {
		cJSON_ArrayForEach(jr, rounds)
		{
			if (rl_round(l, jr) != 0)
				return -1;
		}
		return 0;
	}
	if (!js_has_array(js))
		return rl_fail(l, "rounds: missing");
	while ((k = js_next(js, &jr, &why, l->err, l->errlen)) == 1)
		if (rl_round(l, jr) != 0)
			return -1;
	l->nomem = why == JL_NOMEM;
	return k;
}

/* A new, empty document named name, or NULL (err set) when memory ran out. */
static struct rf_doc *doc_new(const char *name, char *err, size_t errlen)
{
	struct rf_doc *d = calloc(1, sizeof *d);

	if (!d || !(d->path = strdup(name))) {
		free(d);
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	d->equivalence = NAN;
	return d;
}

/* What precedes the rounds: schema, status and config. */
static int load_head(struct loader *l, const cJSON *bench)
{
	const char *schema = rl_get_str(bench, "schema"), *status = rl_get_str(bench, "status");

	if (!cJSON_IsObject(bench))
		return rl_fail(l, "not an allocab results document (not a JSON object)");
	if (!schema)
		return rl_fail(l, "not an allocab results document (no schema)");
	if (strcmp(schema, RF_SCHEMA1) != 0 && strcmp(schema, RF_SCHEMA2) != 0)
		return rl_fail(l, "schema '%.100s' is not %s or %s", schema, RF_SCHEMA2, RF_SCHEMA1);
	if (!status)
		return rl_fail(l, "status missing");
	if (!rl_in_list(status, bench_statuses))
		return rl_fail(l, "status '%.100s' is not a bench status", status);
	if (!(l->d->status = strdup(status)))
		return rl_nomem(l);
	return rl_config(l, rl_get(bench, "config"));
}

/* Workloads without an ok run yet time only their total: their phase list, as rl_record would
 * have set it, while (on) the document is looked at; off takes it back (a later ok run sets the
 * real list). */
static int default_phases(struct loader *l, int on, unsigned char *set)
{
	struct rf_doc *d = l->d;

	for (size_t w = 0; w < d->nwl; w++) {
		if (on && d->wl[w].nphases == 0) {
			d->wl[w].nphases = 1;
			if (!(d->wl[w].phases[0] = strdup("total")))
				return rl_nomem(l);
			if (set)
				set[w] = 1;
		} else if (!on && set && set[w]) {
			free(d->wl[w].phases[0]);
			d->wl[w].phases[0] = NULL;
			d->wl[w].nphases = 0;
			set[w] = 0;
		}
	}
	return 0;
}

/* What follows the rounds (rc: how they went) in the reading of document bench: the inputs, the
 * loader's memory freed, the machine, facts, task and sessions, the phases of workloads without
 * an ok run, and the time compared on. Returns 0, or -1 with the reason set. */
static int load_rest(struct loader *l, const cJSON *bench, int rc)
{
	if (rc == 0)
		rc = rl_inputs(l);
	rl_forget(l);
	if (rc == 0)
		rc = load_machine(l, rl_get(bench, "machine"));
	if (rc == 0)
		rc = rl_facts(l, rl_get(bench, "facts"), rl_get(bench, "machine"));
	if (rc == 0)
		rc = load_task(l, rl_get(bench, "task"));
	if (rc == 0)
		rc = rl_sessions(l, rl_get(bench, "sessions"), bench_statuses);
	if (rc == 0)
		rc = default_phases(l, 1, NULL);
	if (rc != 0)
		return -1;
	rl_cpu_auto(l->d);
	rf_use_time(l->d, l->d->time_given);
	return 0;
}

/* Where a document's rounds are read from when not from its own "rounds": a stream of the
 * document (js) or the lines of an allocab-bench/2 file (ln). */
struct rounds_from {
	struct js_stream *js;
	struct rl_lines *ln;
};

/* The document bench, its rounds read from src->js when it is not NULL (bench is then js_head)
 * or from src->ln; *oom set when memory ran out. */
static struct rf_doc *from_json(const cJSON *bench, const struct rounds_from *src, const char *name,
                                int *oom, char *err, size_t errlen)
{
	struct rf_doc *d = doc_new(name, err, errlen);
	struct loader l = {.d = d, .err = err, .errlen = errlen};
	int rc;

	if (!d) {
		*oom = 1;
		return NULL;
	}
	rc = load_head(&l, bench);
	if (rc == 0)
		rc = load_rounds(&l, bench, src->js, src->ln);
	rc = load_rest(&l, bench, rc);
	if (rc != 0) {
		*oom = l.nomem;
		rf_free(d);
		return NULL;
	}
	return d;
}

struct rf_builder {
	struct loader l;
	const cJSON *head; /* the live document: its config.sequential is read at every look */
	unsigned char *defaulted;
	char err[1024];
};

struct rf_builder *rf_builder_new(const cJSON *head, const char *name, char *err, size_t errlen)
{
	struct rf_builder *b = calloc(1, sizeof *b);
	struct rf_doc *d = doc_new(name, err, errlen);

	if (!b || !d) {
		free(b);
		rf_free(d);
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	b->head = head;
	b->l = (struct loader){.d = d, .err = b->err, .errlen = sizeof b->err};
	if (load_head(&b->l, head) != 0 || load_machine(&b->l, rl_get(head, "machine")) != 0 ||
	    rl_facts(&b->l, rl_get(head, "facts"), rl_get(head, "machine")) != 0 ||
	    load_task(&b->l, rl_get(head, "task")) != 0 ||
	    !(b->defaulted = calloc(d->nwl + 1, 1))) {
		snprintf(err, errlen, "%s", b->err[0] ? b->err : "out of memory");
		rf_builder_free(b);
		return NULL;
	}
	return b;
}

int rf_builder_round(struct rf_builder *b, const cJSON *round, char *err, size_t errlen)
{
	default_phases(&b->l, 0, b->defaulted);
	if (rl_round(&b->l, round) != 0) {
		snprintf(err, errlen, "%s", b->err);
		return -1;
	}
	return 0;
}

const struct rf_doc *rf_builder_doc(struct rf_builder *b, char *err, size_t errlen)
{
	if (default_phases(&b->l, 1, b->defaulted) != 0 ||
	    rl_decision_plan(&b->l, rl_get(b->head, "config")) != 0) {
		snprintf(err, errlen, "%s", b->err);
		return NULL;
	}
	rl_cpu_auto(b->l.d);
	rf_use_time(b->l.d, b->l.d->time_given);
	return b->l.d;
}

void rf_builder_free(struct rf_builder *b)
{
	if (!b)
		return;
	rl_forget(&b->l);
	rf_free(b->l.d);
	free(b->defaulted);
	free(b);
}

struct rf_doc *rf_from_json(const cJSON *bench, const char *name, char *err, size_t errlen)
{
	const struct rounds_from in_bench = {NULL, NULL};
	int oom = 0;

	return from_json(bench, &in_bench, name, &oom, err, errlen);
}

int rf_same_work(const struct rf_doc *a, const struct rf_doc *b, char *err, size_t errlen)
{
	if (a->kind != b->kind) {
		snprintf(err, errlen, "%s holds %s runs and %s holds %s runs: not comparable",
		         a->path, a->kind->runs, b->path, b->kind->runs);
		return -1;
	}
	for (size_t i = 0; i < b->nwl; i++) {
		const struct rf_workload *y = &b->wl[i];
		int j = rf_workload(a, y->name);
		const struct rf_workload *x = j < 0 ? NULL : &a->wl[j];
		const char *what = NULL, *vx = NULL, *vy = NULL;
		if (!x || !x->work || !y->work)
			continue;
		if (x->checksum && y->checksum && strcmp(x->checksum, y->checksum) != 0)
			what = "checksum", vx = x->checksum, vy = y->checksum;
		else if (strcmp(x->work, y->work) != 0)
			what = "effective parameters", vx = x->work, vy = y->work;
		if (what) {
			char msg[1024];
			snprintf(msg, sizeof msg,
			         "%s: %s differs between %s (%s) and %s (%s): not the same work",
			         y->name, what, a->path, vx, b->path, vy);
			utf8_quote(err, errlen, msg);
			return -1;
		}
		int same = x->nphases == y->nphases;
		for (size_t p = 0; same && p < x->nphases; p++)
			same = strcmp(x->phases[p], y->phases[p]) == 0;
		if (!same) {
			snprintf(err, errlen, "%s: phases differ between %s and %s", y->name,
			         a->path, b->path);
			return -1;
		}
	}
	return 0;
}

/* An allocab-bench/2 file: a torn last line is reported on stderr and left out. */
/* What update lines may change of what load_head read from the header, read again from head,
 * the file's whole head: the status and the sequential plan. 0, or -1 when either is not one (the
 * second reading then says why). */
static int live_head(struct loader *l, const cJSON *head)
{
	const char *status = rl_get_str(head, "status");
	char *copy;

	if (!status || !rl_in_list(status, bench_statuses))
		return -1;
	if (strcmp(status, l->d->status) != 0) {
		if (!(copy = strdup(status)))
			return -1;
		free(l->d->status);
		l->d->status = copy;
	}
	l->d->seq = (struct stats_seq_plan){0};
	return rl_decision_plan(l, rl_get(head, "config"));
}

/* A file in the lines form of allocab-bench/2 into *out. *whole set (and nothing loaded): its
 * only line holds "rounds", so it is the whole document on one line, which the document's reader
 * reads as a document does (rf_from_json). */
static enum status load_lines_file(const char *path, struct rf_doc **out, int *whole, char *err,
                                  size_t errlen)
{
	struct rl_lines ln;
	enum jl_why why;
	char msg[1024];
	int oom = 0;

	char live_err[1024];
	struct loader live = {.d = doc_new(path, live_err, sizeof live_err),
	                      .err = live_err,
	                      .errlen = sizeof live_err};

	const struct rl_live on = {&live, load_head};

	if (rl_lines_open(&ln, path, live.d ? &on : NULL, &why, err, errlen) != 0) {
		rl_forget(&live);
		rf_free(live.d);
		return why == JL_NOMEM ? ST_FAIL : ST_USAGE;
	}
	if ((*whole = ln.nrounds == 0 && rl_get(ln.head, "rounds") != NULL)) {
		rl_forget(&live);
		rf_free(live.d);
		rl_lines_close(&ln);
		return ST_OK;
	}
	if (ln.torn) {
		rl_lines_torn(&ln, msg, sizeof msg);
		fprintf(stderr, "allocab: warning: %s\n", msg);
	}
	if (live.d && !ln.reread && live_head(&live, ln.head) == 0 &&
	    load_rest(&live, ln.head, 0) == 0) {
		*out = live.d;
		rl_lines_close(&ln);
		return ST_OK;
	}
	rl_forget(&live);
	rf_free(live.d);
	const struct rounds_from lines = {NULL, &ln};
	*out = from_json(ln.head, &lines, path, &oom, err, errlen);
	rl_lines_close(&ln);
	return *out ? ST_OK : oom ? ST_FAIL : ST_USAGE;
}

enum status rf_load(const char *path, struct rf_doc **out, char *err, size_t errlen)
{
	/* what load_rounds needs; machine is read after the rounds, when the head is whole */
	static const char *const before[] = {"schema", "status", "config", NULL};
	enum jl_why why;
	struct js_stream *js;
	int oom = 0, lines, whole = 0;
	enum status rc;

	*out = NULL;
	if ((lines = rf_path_is_lines(path, err, errlen)) < 0)
		return ST_USAGE;
	if (lines && ((rc = load_lines_file(path, out, &whole, err, errlen)) != ST_OK || !whole))
		return rc;
	if (!(js = js_open(path, "rounds", before, &why, err, errlen)))
		return why == JL_NOMEM ? ST_FAIL : ST_USAGE;
	const struct rounds_from stream = {js, NULL};
	*out = from_json(js_head(js), &stream, path, &oom, err, errlen);
	js_close(js);
	return *out ? ST_OK : oom ? ST_FAIL : ST_USAGE;
}
