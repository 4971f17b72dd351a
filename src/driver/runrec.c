/* runrec.c - builds the allocab-run/1 cJSON document from a struct runrec, and writes it. */
#include "driver/runrec.h"
#include "common/atomicio.h"
#include "common/errmsg.h"
#include "common/fingerprint.h"
#include "common/jsonstrict.h"
#include "common/utf8.h"
#include "driver/config.h"
#include "driver/params.h"
#include "driver/runmarks.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(RUNREC_MAX_REPS == PARAMS_REPS_MAX, "one cap on reps");

void runrec_hex64(uint64_t v, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)v);
}

int runrec_first_mismatch(const struct runrec_rep *reps, int nreps)
{
	for (int i = 1; i < nreps; i++)
		if (reps[i].checksum != reps[0].checksum)
			return i;
	return -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void runrec_regimes(const struct runrec *r, struct runrec_regimes *out)
{
	double t[RUNREC_MAX_REPS];
	int64_t s[RUNREC_MAX_REPS];
	int n = r->nreps < RUNREC_MAX_REPS ? r->nreps : RUNREC_MAX_REPS, ns = 0;

	steady_assign((size_t)n, &r->how.rule, out->regime);
	out->nwarmup = out->nsteady = 0;
	for (int k = 0; k < n; k++) {
		out->nwarmup += out->regime[k] == STEADY_WARMUP;
		if (out->regime[k] == STEADY_STEADY)
			s[ns++] = r->reps[k].phase[0].wall_ns;
		t[k] = (double)(r->how.cpu ? r->reps[k].phase[0].cpu_ns : r->reps[k].phase[0].wall_ns);
	}
	out->nsteady = ns;
	out->cold_ns = r->reps[0].phase[0].wall_ns;
	qsort(s, (size_t)ns, sizeof *s, cmp_i64);
	out->steady_ns = ns == 0 ? -1 : ns % 2 ? s[ns / 2] : (s[ns / 2 - 1] + s[ns / 2]) / 2;
	out->settled = n < 2 ? -1 : steady_is_settled(t + 1, (size_t)n - 1, &r->how.rule);
}

static int64_t timeval_ns(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
}

void runrec_usage_from(const struct rusage *ru, struct runrec_usage *out)
{
	out->user_ns = timeval_ns(ru->ru_utime);
	out->sys_ns = timeval_ns(ru->ru_stime);
	out->max_rss_kib = ru->ru_maxrss;
	out->minor_faults = ru->ru_minflt;
	out->major_faults = ru->ru_majflt;
	out->voluntary_ctx_switches = ru->ru_nvcsw;
	out->involuntary_ctx_switches = ru->ru_nivcsw;
}

static cJSON *add_string(cJSON *o, const char *key, const char *s)
{
	return s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key);
}

/* Integers go in as raw text: cJSON 1.7.15 prints doubles with 15 significant digits whenever
 * that is within an epsilon, which rounds e.g. the seed 9007199254740991 to 9.00719925474099e+15.
 */
static cJSON *add_int(cJSON *o, const char *key, int64_t v)
{
	char text[24];

	snprintf(text, sizeof text, "%lld", (long long)v);
	return cJSON_AddRawToObject(o, key, text);
}

cJSON *runrec_int(int64_t v)
{
	char text[24];

	snprintf(text, sizeof text, "%lld", (long long)v);
	return cJSON_CreateRaw(text);
}

static cJSON *add_int_or_null(cJSON *o, const char *key, int64_t v)
{
	return v < 0 ? cJSON_AddNullToObject(o, key) : add_int(o, key, v);
}

/* The cJSON_Add* calls return NULL on failure; every builder below returns 0 or -1 likewise. */
static int add_allocator(cJSON *root, const struct runrec *r)
{
	cJSON *a = cJSON_AddObjectToObject(root, "allocator");

	if (!a || !cJSON_AddStringToObject(a, "name", r->allocator) ||
	    !add_string(a, "version", r->allocator_version) ||
	    !add_string(a, "library", r->library) ||
	    !cJSON_AddBoolToObject(a, "verified", r->verified))
		return -1;
	return 0;
}

cJSON *runrec_wl_flags(unsigned flags)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < WL_FLAG_COUNT; i++)
		if (flags & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateString(wl_flag_names[i]));
	return a;
}

/* workload.input: the input a workload ran on (struct wl_input_desc). */
static int add_input(cJSON *w, const struct wl_input_desc *d)
{
	cJSON *o = cJSON_AddObjectToObject(w, "input");
	const int64_t num[] = {d->index, d->pid, d->threads, d->events, d->duration_ns};
	static const char *const numk[] = {"index", "pid", "threads", "events", "duration_ns"};
	const char *str[] = {d->exe, d->command, d->ended};
	static const char *const strk[] = {"exe", "command", "ended"};

	if (!o)
		return -1;
	for (size_t i = 0; i < sizeof num / sizeof num[0]; i++)
		if (!add_int_or_null(o, numk[i], num[i]))
			return -1;
	for (size_t i = 0; i < sizeof str / sizeof str[0]; i++)
		if (!add_string(o, strk[i], str[i][0] ? str[i] : NULL))
			return -1;
	return 0;
}

static int add_workload(cJSON *root, const struct runrec *r)
{
	cJSON *w = cJSON_AddObjectToObject(root, "workload"), *p;

	if (!w || !cJSON_AddStringToObject(w, "name", r->wl->name) ||
	    !cJSON_AddItemToObject(w, "flags", runrec_wl_flags(r->wl->flags)) ||
	    !cJSON_AddStringToObject(w, "scale", params_scale_name(r->scale)) ||
	    !add_int(w, "seed", (int64_t)r->seed) || !(p = cJSON_AddObjectToObject(w, "params")))
		return -1;
	for (size_t i = 0; i < r->wl->nparams; i++) {
		const struct wl_param *q = &r->wl->params[i];
		if (params_is_string(q)
		        ? !cJSON_AddStringToObject(p, q->name, r->str && r->str[i] ? r->str[i] : "")
		        : !add_int(p, q->name, r->params[i]))
			return -1;
	}
	return r->input ? add_input(w, r->input) : 0;
}

/* A span's getrusage deltas, beside its times (docs/results-format.md, "Resource counts"). */
static int add_counts(cJSON *t, const struct wl_usage *u)
{
	const int64_t v[] = {u->user_ns, u->sys_ns, u->minflt, u->majflt, u->nvcsw, u->nivcsw};
	static const char *const k[] = {"user_ns", "sys_ns", "minflt", "majflt", "nvcsw", "nivcsw"};

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (!add_int(t, k[i], v[i]))
			return -1;
	return 0;
}

static const char *phase_name(const struct workload *wl, size_t i)
{
	return i == 0 ? "total" : wl->phases[i - 1];
}

static int add_reps(cJSON *root, const struct runrec *r, const struct runrec_regimes *g)
{
	size_t nphases = 1 + params_nphases(r->wl);
	cJSON *names = cJSON_AddArrayToObject(root, "phases");
	cJSON *reps = names ? cJSON_AddArrayToObject(root, "reps") : NULL;
	char hex[17];

	if (!reps)
		return -1;
	for (size_t i = 0; i < nphases; i++) {
		cJSON *s = cJSON_CreateString(phase_name(r->wl, i));
		if (!s || !cJSON_AddItemToArray(names, s))
			return cJSON_Delete(s), -1;
	}
	for (int k = 0; k < r->nreps; k++) {
		cJSON *rep = cJSON_CreateObject(), *ph;
		if (!rep || !cJSON_AddItemToArray(reps, rep))
			return cJSON_Delete(rep), -1;
		runrec_hex64(r->reps[k].checksum, hex);
		if (!cJSON_AddStringToObject(rep, "checksum", hex) ||
		    !cJSON_AddStringToObject(rep, "regime", steady_regime_name(g->regime[k])) ||
		    !add_int_or_null(rep, "rss_after_bytes", r->reps[k].rss_after_bytes) ||
		    !(ph = cJSON_AddObjectToObject(rep, "phases")))
			return -1;
		for (size_t i = 0; i < nphases; i++) {
			cJSON *t = cJSON_AddObjectToObject(ph, phase_name(r->wl, i));
			if (!t || !add_int(t, "wall_ns", r->reps[k].phase[i].wall_ns) ||
			    !add_int(t, "cpu_ns", r->reps[k].phase[i].cpu_ns) ||
			    add_counts(t, &r->reps[k].phase[i].usage) != 0)
				return -1;
		}
	}
	runrec_hex64(r->reps[0].checksum, hex);
	return cJSON_AddStringToObject(root, "checksum", hex) ? 0 : -1;
}

static int add_usage(cJSON *root, const struct runrec *r)
{
	const struct runrec_usage *u = &r->rusage;
	cJSON *o = cJSON_AddObjectToObject(root, "rusage");

	if (!o || !add_int(o, "user_ns", u->user_ns) || !add_int(o, "sys_ns", u->sys_ns) ||
	    !add_int(o, "max_rss_kib", u->max_rss_kib) ||
	    !add_int(o, "minor_faults", u->minor_faults) ||
	    !add_int(o, "major_faults", u->major_faults) ||
	    !add_int(o, "voluntary_ctx_switches", u->voluntary_ctx_switches) ||
	    !add_int(o, "involuntary_ctx_switches", u->involuntary_ctx_switches))
		return -1;
	return 0;
}

static int add_regimes(cJSON *root, const struct runrec *r, const struct runrec_regimes *g)
{
	cJSON *o = cJSON_AddObjectToObject(root, "regimes"), *rule;
	const struct runrec_reps_how *h = &r->how;

	if (!o || !cJSON_AddStringToObject(o, "mode", h->automatic ? "auto" : "fixed") ||
	    !(g->settled < 0 ? cJSON_AddNullToObject(o, "settled")
	                     : cJSON_AddBoolToObject(o, "settled", g->settled)) ||
	    !add_int(o, "cold_ns", g->cold_ns) || !add_int_or_null(o, "steady_ns", g->steady_ns) ||
	    !add_int(o, "warmup_reps", g->nwarmup) || !add_int(o, "steady_reps", g->nsteady) ||
	    !(rule = cJSON_AddObjectToObject(o, "rule")) ||
	    !add_int(rule, "window", (int64_t)h->rule.window) ||
	    !add_int(rule, "min_reps", (int64_t)h->rule.min_after) ||
	    !cJSON_AddNumberToObject(rule, "tolerance", h->rule.tol) ||
	    !cJSON_AddStringToObject(rule, "time", h->cpu ? "cpu" : "wall"))
		return -1;
	if (!h->automatic)
		return cJSON_AddNullToObject(rule, "max_reps") &&
		               cJSON_AddNullToObject(rule, "max_steady_s")
		           ? 0
		           : -1;
	return add_int(rule, "max_reps", h->max_reps) &&
	               cJSON_AddNumberToObject(rule, "max_steady_s", h->max_steady_s)
	           ? 0
	           : -1;
}

static int add_memory(cJSON *root, const struct runrec *r)
{
	cJSON *rss = cJSON_AddObjectToObject(root, "rss");
	cJSON *c = rss ? cJSON_AddObjectToObject(root, "counters") : NULL;
	int64_t first = r->reps[0].rss_after_bytes, last = r->reps[r->nreps - 1].rss_after_bytes;

	if (!c || !add_int_or_null(rss, "start_bytes", r->rss_start_bytes) ||
	    !add_int_or_null(rss, "retained_bytes", r->rss_retained_bytes) ||
	    !add_int_or_null(rss, "after_first_bytes", first) ||
	    !(first < 0 || last < 0 ? cJSON_AddNullToObject(rss, "growth_bytes")
	                            : add_int(rss, "growth_bytes", last - first)))
		return -1;
	for (size_t i = 0; i < r->ncounters; i++)
		if (!add_int(c, r->counters[i].name, r->counters[i].value))
			return -1;
	return 0;
}

static const char *utc_stamp(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	return buf;
}

cJSON *runrec_json(const struct runrec *r, cJSON *machine)
{
	cJSON *root = cJSON_CreateObject(), *tool;
	struct runrec_regimes *g = malloc(sizeof *g);
	char stamp[32];

	if (g)
		runrec_regimes(r, g);
	if (!g || !root || !cJSON_AddStringToObject(root, "schema", RUNREC_SCHEMA) ||
	    !(tool = cJSON_AddObjectToObject(root, "tool")) ||
	    !cJSON_AddStringToObject(tool, "name", "allocab") ||
	    !cJSON_AddStringToObject(tool, "version", r->tool_version) ||
	    !add_string(root, "started_utc", utc_stamp(r->started, stamp, sizeof stamp)) ||
	    add_allocator(root, r) != 0 || add_workload(root, r) != 0 ||
	    add_reps(root, r, g) != 0 || add_regimes(root, r, g) != 0 || add_usage(root, r) != 0 ||
	    add_memory(root, r) != 0)
		goto fail;
	if (!machine)
		machine = cJSON_CreateNull();
	if (!machine || !cJSON_AddItemToObject(root, "machine", machine))
		goto fail;
	free(g);
	return root;
fail:
	free(g);
	cJSON_Delete(machine);
	cJSON_Delete(root);
	return NULL;
}

int runrec_out_usable(const char *path, char *err, size_t errlen)
{
	char copy[4096];
	const char *problem = NULL, *dir;
	struct stat st;

	if (strcmp(path, "-") == 0)
		return 0;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		if (access(path, W_OK) == 0)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(copy, sizeof copy, "%s", path);
	dir = dirname(copy);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		problem = "Is a directory";
	else if (stat(dir, &st) != 0)
		problem = strerror(errno);
	else if (!S_ISDIR(st.st_mode))
		problem = "Not a directory";
	else if (access(dir, W_OK | X_OK) != 0)
		problem = strerror(errno);
	if (!problem)
		return 0;
	snprintf(err, errlen, "%s: %s", path, problem);
	return -1;
}

int runrec_write(const struct runrec *rec, const struct runmarks *marks, const struct config *cfg,
                 const char *out, char *err, size_t errlen)
{
	cJSON *machine = fingerprint_json();
	cJSON *doc = machine ? runrec_json(rec, machine) : NULL;
	cJSON *conf = doc && runmarks_json(doc, marks) == 0 ? config_json(cfg) : NULL;
	char *text = conf && cJSON_AddItemToObject(doc, "configuration", conf)
	                 ? utf8_fix(jst_print(doc, 1))
	                 : NULL;
	char why[4096 + 128];
	size_t n;
	int rc = 0;

	cJSON_Delete(doc);
	if (!text)
		return errmsg_fail(err, errlen, "out of memory building the run record");
	n = strlen(text);
	text[n] = '\n';
	if (atomic_write(out, text, n + 1, why, sizeof why) != 0)
		rc = errmsg_fail(err, errlen, "--out %s", why);
	free(text);
	return rc;
}
