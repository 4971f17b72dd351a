/* rfrecord.c - the driver records inside a results file (docs/results-format.md): phases, reps,
 * checksums and the same-work check; and the strict field readers of the results loader. */
#include "front/results/rfload.h"

#include "common/jsonload.h"
#include "common/steady.h"
#include "common/utf8.h"
#include "front/stats/stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_fail(struct loader *l, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];
	int n = snprintf(msg, sizeof msg, "%s: ", l->d->path);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < sizeof msg)
		vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	if (l->errlen >= 8)
		utf8_quote(l->err, l->errlen, msg);
	return -1;
}

int rl_is_name(const char *s)
{
	if (!s || !s[0])
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

int rl_nomem(struct loader *l)
{
	l->nomem = 1;
	return rl_fail(l, "out of memory");
}

int rl_grow(struct loader *l, void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (n < need)
		n = n > SIZE_MAX / 2 / elem ? need : n * 2;
	if (n > SIZE_MAX / elem || !(np = realloc(*p, n * elem)))
		return rl_nomem(l);
	*p = np;
	*cap = n;
	return 0;
}

int rl_in_list(const char *s, const char *const *list)
{
	for (size_t i = 0; s && list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

static int is_named(const cJSON *c, const char *key)
{
	const char *a = c->string, *b = key;

	while (a && *a && *a == *b)
		a++, b++;
	return a && *a == *b;
}

const cJSON *rl_get(const cJSON *o, const char *key)
{
	const cJSON *c;

	if (!cJSON_IsObject(o))
		return NULL;
	for (c = o->child; c; c = c->next)
		if (is_named(c, key))
			return c;
	return NULL;
}

const cJSON *rl_get_after(const cJSON *o, const cJSON **cur, const char *key)
{
	const cJSON *from = *cur && (*cur)->next ? (*cur)->next : NULL, *c;

	if (!cJSON_IsObject(o))
		return NULL;
	for (c = from; c; c = c->next)
		if (is_named(c, key))
			return *cur = c;
	for (c = o->child; c && c != from; c = c->next)
		if (is_named(c, key))
			return *cur = c;
	return NULL;
}

const char *rl_get_str(const cJSON *o, const char *key)
{
	const cJSON *v = rl_get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

char *rl_compact(const cJSON *v)
{
	return v ? jst_print(v, 0) : strdup("null");
}

int rl_opt_num(struct loader *l, const cJSON *o, const char *key, double hi, const char *at,
               const char *obj, double *out)
{
	const cJSON *v = rl_get(o, key);

	*out = NAN;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!jl_range(v, 0, hi, out))
		return rl_fail(l, "%s: %s.%s is not a number in 0..%g", at, obj, key, hi);
	return 0;
}

int rl_count(const cJSON *v, double *out)
{
	uint64_t n;

	*out = NAN;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!jl_uint(v, (uint64_t)RF_MAX_FIGURE, &n))
		return -1;
	*out = (double)n;
	return 0;
}

int rl_opt_count(struct loader *l, const cJSON *o, const char *key, const char *at,
                 const char *obj, double *out)
{
	if (rl_count(rl_get(o, key), out) != 0)
		return rl_fail(l, "%s: %s.%s is not an integer in 0..%g", at, obj, key,
		               RF_MAX_FIGURE);
	return 0;
}

int rl_wall_ns(const cJSON *v, double *out)
{
	uint64_t ns;

	if (!jl_uint(v, (uint64_t)RF_MAX_WALL_NS, &ns) || ns == 0)
		return 0;
	*out = (double)ns;
	return 1;
}

static char *work_of(const cJSON *wl)
{
	char *params = rl_compact(rl_get(wl, "params")), *seed = rl_compact(rl_get(wl, "seed"));
	char *scale = rl_compact(rl_get(wl, "scale")), *out = NULL;

	if (params && seed && scale &&
	    asprintf(&out, "params %s, seed %s, scale %s", params, seed, scale) < 0)
		out = NULL;
	free(params);
	free(seed);
	free(scale);
	return out;
}

/* Whether two records' workload objects name the same work: params, seed and scale. */
static int same_members(const cJSON *a, const cJSON *b)
{
	static const char *const keys[] = {"params", "seed", "scale"};

	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const cJSON *x = rl_get(a, keys[k]), *y = rl_get(b, keys[k]);
		if (!x != !y || (x && !cJSON_Compare(x, y, 1)))
			return 0;
	}
	return 1;
}

/* Records (or checks against the first ok run) what work workload wi did: its checksum and the
 * record's workload object wl. */
static int same_work(struct loader *l, size_t wi, const char *arm, const char *checksum,
                     const cJSON *wl)
{
	struct rf_workload *w = &l->d->wl[wi];
	char *work;

	if (!w->work) {
		l->first_arm[wi] = arm;
		if (!(w->work = work_of(wl)) || !(l->first_wl[wi] = cJSON_Duplicate(wl, 1)) ||
		    (checksum && !(w->checksum = strdup(checksum))))
			return rl_nomem(l);
		return 0;
	}
	if (checksum && w->checksum && strcmp(checksum, w->checksum) != 0)
		return rl_fail(
		    l, "%s: checksum differs between %s (%s) and %s (%s): not the same work",
		    w->name, l->first_arm[wi], w->checksum, arm, checksum);
	if (same_members(l->first_wl[wi], wl))
		return 0;
	if (!(work = work_of(wl)))
		return rl_nomem(l);
	rl_fail(l,
	        "%s: effective parameters differ between %s (%s) and %s (%s): not the same "
	        "work",
	        w->name, l->first_arm[wi], w->work, arm, work);
	free(work);
	return -1;
}

static int load_phases(struct loader *l, struct rf_workload *w, const cJSON *list, const char *at)
{
	const cJSON *v;
	size_t n = 0;
	int has_total = 0;

	if (!cJSON_IsArray(list))
		return rl_fail(l, "%s: record.phases missing", at);
	if (cJSON_GetArraySize(list) > RF_MAX_PHASES)
		return rl_fail(l, "%s: more than %d phases", at, RF_MAX_PHASES);
	cJSON_ArrayForEach(v, list)
	{
		if (!cJSON_IsString(v) || !rl_is_name(v->valuestring))
			return rl_fail(l,
			               "%s: record.phases: not a list of names (each non-empty, "
			               "without control characters)",
			               at);
		for (const cJSON *u = list->child; u != v; u = u->next)
			if (strcmp(u->valuestring, v->valuestring) == 0)
				return rl_fail(l, "%s: record.phases: '%s' listed twice", at,
				               v->valuestring);
		has_total |= strcmp(v->valuestring, "total") == 0;
		if (w->nrecord == 0) {
			if (!(w->phases[n] = strdup(v->valuestring)))
				return rl_nomem(l);
		} else if (n >= w->nrecord || strcmp(w->phases[n], v->valuestring) != 0) {
			return rl_fail(l, "%s: record.phases differ from other runs of %s", at,
			               w->name);
		}
		n++;
	}
	if (!has_total)
		return rl_fail(l, "%s: record.phases lacks \"total\"", at);
	if (w->nrecord != 0 && n != w->nrecord)
		return rl_fail(l, "%s: record.phases differ from other runs of %s", at, w->name);
	if (w->nrecord == 0)
		w->nphases = w->nrecord = n;
	return 0;
}

/* Every rep's checksum, when it has one, is the record's: reps that disagree did other work. */
static int rep_checksums(struct loader *l, const cJSON *reps, const char *checksum, const char *at)
{
	const cJSON *rep;
	size_t i = 0;

	cJSON_ArrayForEach(rep, reps)
	{
		const cJSON *c = rl_get(rep, "checksum");
		if (c && (!cJSON_IsString(c) || strcmp(c->valuestring, checksum) != 0))
			return rl_fail(
			    l, "%s: reps[%zu].checksum %s%.40s%s differs from record.checksum %s",
			    at, i, cJSON_IsString(c) ? "'" : "",
			    cJSON_IsString(c) ? c->valuestring : "(not a string)",
			    cJSON_IsString(c) ? "'" : "", checksum);
		i++;
	}
	return 0;
}

/* Every rep's wall_ns of every phase, checked, into l->rep_t (phase p, rep i at
 * p * RF_MAX_REPS + i) for load_regimes, and its cpu_ns into l->rep_c (NAN when it has none;
 * a present one is checked like wall_ns). */
static int load_reps(struct loader *l, const struct rf_workload *w, const cJSON *reps,
                     const char *checksum, const char *at)
{
	size_t n = (size_t)cJSON_GetArraySize(reps), i = 0;
	const cJSON *rep;

	if (!cJSON_IsArray(reps) || n < 1)
		return rl_fail(l, "%s: record.reps missing or empty", at);
	if (n > RF_MAX_REPS)
		return rl_fail(l,
		               "%s: record.reps holds %zu reps, more than the %d a record may hold",
		               at, n, RF_MAX_REPS);
	if (rep_checksums(l, reps, checksum, at) != 0)
		return -1;
	if ((!l->rep_t && !(l->rep_t = malloc(RF_MAX_PHASES * RF_MAX_REPS * sizeof *l->rep_t))) ||
	    (!l->rep_c && !(l->rep_c = malloc(RF_MAX_PHASES * RF_MAX_REPS * sizeof *l->rep_c))))
		return rl_nomem(l);
	cJSON_ArrayForEach(rep, reps)
	{
		const cJSON *phases = rl_get(rep, "phases");
		for (size_t p = 0; p < w->nrecord; p++) {
			const cJSON *ph = rl_get(phases, w->phases[p]), *c = rl_get(ph, "cpu_ns");
			if (!rl_wall_ns(rl_get(ph, "wall_ns"), &l->rep_t[p * RF_MAX_REPS + i]))
				return rl_fail(
				    l,
				    "%s: reps[%zu].phases.%s.wall_ns missing or not a positive "
				    "integer of at most %.0f",
				    at, i, w->phases[p], RF_MAX_WALL_NS);
			l->rep_c[p * RF_MAX_REPS + i] = NAN;
			if (c && !rl_wall_ns(c, &l->rep_c[p * RF_MAX_REPS + i]))
				return rl_fail(l,
				               "%s: reps[%zu].phases.%s.cpu_ns not a positive "
				               "integer of at most %.0f",
				               at, i, w->phases[p], RF_MAX_WALL_NS);
		}
		i++;
	}
	return 0;
}

/* The regime of each rep: its "regime" field, or for a record without them (written before
 * regimes existed) the assignment of steady_assign: rep 0 cold, the last up to 3 steady. */
static int rep_regimes(struct loader *l, const cJSON *reps, size_t n, enum steady_regime *g,
                       const char *at)
{
	const cJSON *rep;
	size_t i = 0, labelled = 0;
	struct steady_rule rule = steady_default_rule();

	steady_assign(n, &rule, g);
	cJSON_ArrayForEach(rep, reps)
	{
		const cJSON *v = rl_get(rep, "regime");
		int k = -1;
		if (v && (!cJSON_IsString(v) || (k = steady_regime_parse(v->valuestring)) < 0))
			return rl_fail(l, "%s: reps[%zu].regime is not cold, warmup or steady", at,
			               i);
		if (v) {
			g[i] = (enum steady_regime)k;
			labelled++;
		}
		i++;
	}
	if (labelled && labelled != n)
		return rl_fail(l, "%s: record.reps: some reps have a regime and some do not", at);
	l->d->legacy_reps |= labelled == 0;
	return 0;
}

/* Per regime and phase the median wall_ns and cpu_ns of the reps of that regime (the times
 * load_reps left in l->rep_t and l->rep_c; CPU NAN unless every rep of the regime has one), the
 * wall times also as t_regime until rf_use_time; the resident set after the first and the last
 * rep; whether the run settled. */
static int load_regimes(struct loader *l, const struct rf_workload *w, const cJSON *rec,
                        struct rf_run *run, const char *at)
{
	static const enum steady_regime of[RF_NREGIMES] = {STEADY_COLD, STEADY_STEADY};
	const cJSON *reps = rl_get(rec, "reps"),
	            *settled = rl_get(rl_get(rec, "regimes"), "settled");
	size_t n = (size_t)cJSON_GetArraySize(reps);
	enum steady_regime g[RF_MAX_REPS];
	double v[RF_MAX_REPS];

	if (rep_regimes(l, reps, n, g, at) != 0)
		return -1;
	if (settled && !cJSON_IsBool(settled) && !cJSON_IsNull(settled))
		return rl_fail(l, "%s: record.regimes.settled is not true, false or null", at);
	for (int r = 0; r < RF_NREGIMES; r++)
		for (size_t p = 0; p < w->nrecord; p++)
			for (int t = 0; t < RF_NTIMES; t++) {
				const double *src = t == RF_TIME_CPU ? l->rep_c : l->rep_t;
				size_t k = 0, nan = 0;
				for (size_t i = 0; i < n; i++)
					if (g[i] == of[r]) {
						v[k++] = src[p * RF_MAX_REPS + i];
						nan += isnan(v[k - 1]);
					}
				run->t_basis[t][r][p] = k && !nan ? stats_median(v, k) : NAN;
			}
	memcpy(run->t_regime, run->t_basis[RF_TIME_WALL], sizeof run->t_regime);
	run->settled = cJSON_IsBool(settled) ? cJSON_IsTrue(settled) : -1;
	memset(run->settled_phase, run->settled, sizeof run->settled_phase);
	if (rl_opt_num(l, cJSON_GetArrayItem(reps, 0), "rss_after_bytes", RF_MAX_FIGURE, at,
	               "record.reps[0]", &run->rss_first) ||
	    rl_opt_num(l, cJSON_GetArrayItem(reps, (int)n - 1), "rss_after_bytes", RF_MAX_FIGURE,
	               at, "record.reps[last]", &run->rss_last))
		return -1;
	return 0;
}

/* Whether the array of strings flags holds name. */
static int has_flag(const cJSON *flags, const char *name)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, flags)
	{
		if (cJSON_IsString(f) && strcmp(f->valuestring, name) == 0)
			return 1;
	}
	return 0;
}

int rl_record(struct loader *l, size_t wi, const char *arm, const cJSON *rec, struct rf_run *run,
              const char *at)
{
	struct rf_workload *w = &l->d->wl[wi];
	const char *schema = rl_get_str(rec, "schema"),
	           *name = rl_get_str(rl_get(rec, "workload"), "name");
	const char *checksum = rl_get_str(rec, "checksum");
	const cJSON *ru = rl_get(rec, "rusage");

	if (!cJSON_IsObject(rec))
		return rl_fail(l, "%s: status ok but no record", at);
	if (!schema || strcmp(schema, RUN_SCHEMA) != 0)
		return rl_fail(l, "%s: record.schema is not %s", at, RUN_SCHEMA);
	if (!name || strcmp(name, w->name) != 0)
		return rl_fail(l, "%s: record is of workload '%.100s', not '%s'", at,
		               name ? name : "?", w->name);
	if (!checksum)
		return rl_fail(l, "%s: record.checksum missing", at);
	if (load_phases(l, w, rl_get(rec, "phases"), at) != 0 ||
	    load_reps(l, w, rl_get(rec, "reps"), checksum, at) != 0 ||
	    load_regimes(l, w, rec, run, at) != 0)
		return -1;
	if (rl_opt_num(l, ru, "max_rss_kib", RF_MAX_FIGURE, at, "record.rusage",
	               &run->max_rss_kib) ||
	    rl_opt_num(l, rl_get(rec, "rss"), "retained_bytes", RF_MAX_FIGURE, at, "record.rss",
	               &run->retained_bytes))
		return -1;
	if (cJSON_IsNumber(rl_get(ru, "involuntary_ctx_switches")) &&
	    rl_opt_num(l, ru, "involuntary_ctx_switches", RF_MAX_FIGURE, at, "record.rusage",
	               &run->invol_ctx))
		return -1;
	w->show_phases |= has_flag(rl_get(rl_get(rec, "workload"), "flags"), "show_phases");
	w->single_threaded |=
	    has_flag(rl_get(rl_get(rec, "workload"), "flags"), "single_threaded");
	return same_work(l, wi, arm, checksum, rl_get(rec, "workload"));
}
