/* workloads.c - a driver's workloads as its `list --json` gives them (names, parameters, phases,
 * flags, and the flags its backend declares), the workloads run by default, and the routing of
 * the -w selection and the --param values by that list (front/plan/plan.h). */
#include "front/plan/plan.h"

#include "common/errmsg.h"
#include "front/proc/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long `DRIVER list --json` may take. */
#define LIST_TIMEOUT_S 30.0

/* ",a,b," from a workload's "params" array, for lookup with strstr(",KEY,"). */
static char *param_set(const cJSON *params)
{
	const cJSON *p;
	size_t len = 2;
	char *set;

	cJSON_ArrayForEach(p, params)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
		len += cJSON_IsString(name) ? strlen(name->valuestring) + 1 : 0;
	}
	if (!(set = malloc(len)))
		return NULL;
	strcpy(set, ",");
	cJSON_ArrayForEach(p, params)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
		if (cJSON_IsString(name))
			strcat(strcat(set, name->valuestring), ",");
	}
	return set;
}

int bench_parse_workload_list(const char *json, char ***names, char ***params)
{
	cJSON *root = cJSON_Parse(json), *arr, *w;
	size_t n = 0, cap;
	char **nv = NULL, **pv = NULL;

	arr = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "workloads");
	cap = cJSON_IsArray(arr) ? (size_t)cJSON_GetArraySize(arr) : 0;
	if (cap == 0 || !(nv = calloc(cap, sizeof *nv)) || !(pv = calloc(cap, sizeof *pv)))
		goto bad;
	cJSON_ArrayForEach(w, arr)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(w, "name");

		if (!cJSON_IsString(name) ||
		    !bench_valid_name(name->valuestring, strlen(name->valuestring)))
			goto bad;
		nv[n] = strdup(name->valuestring);
		pv[n] = param_set(cJSON_GetObjectItemCaseSensitive(w, "params"));
		n++;
		if (!nv[n - 1] || !pv[n - 1])
			goto bad;
	}
	cJSON_Delete(root);
	*names = nv;
	*params = pv;
	return (int)n;
bad:
	cJSON_Delete(root);
	bench_free_list(nv, n);
	bench_free_list(pv, n);
	return -1;
}

/* The bits of the flag names a "flags" array holds, names[i] being bit i; unknown names are
 * ignored. */
static unsigned flag_bits(const cJSON *flags, const char *const *names, unsigned n)
{
	const cJSON *f;
	unsigned bits = 0;

	cJSON_ArrayForEach(f, flags)
	{
		for (unsigned i = 0; cJSON_IsString(f) && i < n; i++)
			if (strcmp(f->valuestring, names[i]) == 0)
				bits |= 1u << i;
	}
	return bits;
}

static const char *const wl_flag_names[] = {
    [0] = "single_threaded", [1] = "show_phases", [2] = "needs_input"};
_Static_assert(BENCH_WL_SINGLE_THREADED == 1u << 0 && BENCH_WL_SHOW_PHASES == 1u << 1 &&
                   BENCH_WL_NEEDS_INPUT == 1u << 2,
               "wl_flag_names[] is in bit order");

static const char *const backend_flag_names[] = {[0] = "baseline", [1] = "calibration"};
_Static_assert(BENCH_BACKEND_BASELINE == 1u << 0 && BENCH_BACKEND_CALIBRATION == 1u << 1,
               "backend_flag_names[] is in bit order");

unsigned bench_parse_backend_flags(const char *json)
{
	cJSON *root = cJSON_Parse(json);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "allocator");
	unsigned bits = flag_bits(cJSON_GetObjectItemCaseSensitive(a, "flags"), backend_flag_names,
	                          sizeof backend_flag_names / sizeof backend_flag_names[0]);

	cJSON_Delete(root);
	return bits;
}

int bench_parse_workload_info(const char *json, size_t n, size_t **nphases, unsigned **flags)
{
	cJSON *root = cJSON_Parse(json), *arr, *w;
	size_t *ph = calloc(n + 1, sizeof *ph), k = 0;
	unsigned *fl = calloc(n + 1, sizeof *fl);

	arr = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "workloads");
	cJSON_ArrayForEach(w, arr)
	{
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(w, "phases");
		int np = cJSON_IsArray(p) ? cJSON_GetArraySize(p) : 0;

		if (ph && fl && k < n) {
			fl[k] = flag_bits(cJSON_GetObjectItemCaseSensitive(w, "flags"), wl_flag_names,
			                  sizeof wl_flag_names / sizeof wl_flag_names[0]);
			ph[k++] = np > 0 ? (size_t)np : 1;
		}
	}
	cJSON_Delete(root);
	if (!ph || !fl || k < n) {
		free(ph);
		free(fl);
		return -1;
	}
	*nphases = ph;
	*flags = fl;
	return 0;
}

long bench_wl_index(const struct bench_wl_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->names[i], name) == 0)
			return (long)i;
	return -1;
}

unsigned bench_wl_flags(const struct bench_wl_list *l, const char *name)
{
	long k = bench_wl_index(l, name);

	return k >= 0 && l->flags ? l->flags[k] : 0;
}

int bench_wl_defaults(struct bench_wl_list *l)
{
	l->ndefaults = 0;
	if (!(l->defaults = calloc(l->n + 1, sizeof *l->defaults)))
		return -1;
	for (size_t k = 0; k < l->n; k++)
		if (!(l->flags && (l->flags[k] & BENCH_WL_NEEDS_INPUT)) &&
		    !(l->defaults[l->ndefaults++] = strdup(l->names[k])))
			return -1;
	return 0;
}

void bench_wl_list_free(struct bench_wl_list *l)
{
	if (!l)
		return;
	free(l->nphases);
	free(l->flags);
	bench_free_list(l->defaults, l->ndefaults);
	bench_free_list(l->names, l->n);
	bench_free_list(l->params, l->n);
	*l = (struct bench_wl_list){0};
}

/* Whether the ",a,b," set of a workload's parameter names holds the KEY of "KEY=VALUE". */
static int takes_param(const char *set, const char *kv)
{
	char key[256];

	snprintf(key, sizeof key, ",%.*s,", (int)strcspn(kv, "="), kv);
	return strstr(set, key) != NULL;
}

static int param_routed(const struct bench_config *c, const char *kv)
{
	for (size_t i = 0; i < c->nwl; i++)
		for (size_t j = 0; j < c->wl[i].nparams; j++)
			if (c->wl[i].params[j] == kv)
				return 1;
	return 0;
}

enum bench_route bench_route_workloads(struct bench_config *c, char *const *sel, size_t nsel,
                                       const struct bench_wl_list *l, const char **bad)
{
	char *const *params = c->params;
	size_t nparams = c->nparams;

	if (!(c->wl = calloc(nsel, sizeof *c->wl)))
		return BENCH_ROUTE_NOMEM;
	for (size_t i = 0; i < nsel; i++) {
		struct bench_workload *w = &c->wl[c->nwl];
		size_t k = 0;

		while (k < l->n && strcmp(l->names[k], sel[i]) != 0)
			k++;
		if (k == l->n) {
			*bad = sel[i];
			return BENCH_ROUTE_UNKNOWN_WL;
		}
		if (!(w->name = strdup(sel[i])) ||
		    !(w->params = calloc(nparams + 1, sizeof *w->params))) {
			free(w->name);
			w->name = NULL;
			return BENCH_ROUTE_NOMEM;
		}
		c->nwl++;
		w->single_threaded = l->flags && (l->flags[k] & BENCH_WL_SINGLE_THREADED);
		for (size_t p = 0; p < nparams; p++)
			if (takes_param(l->params[k], params[p]))
				w->params[w->nparams++] = params[p];
	}
	for (size_t p = 0; p < nparams; p++)
		if (!param_routed(c, params[p])) {
			*bad = params[p];
			return BENCH_ROUTE_UNUSED_PARAM;
		}
	return BENCH_ROUTED;
}

void bench_free_workloads(struct bench_config *c)
{
	for (size_t i = 0; i < c->nwl; i++) {
		free(c->wl[i].name);
		free(c->wl[i].params);
	}
	free(c->wl);
	c->wl = NULL;
	c->nwl = 0;
}

int bench_list_workloads(const char *path, const volatile sig_atomic_t *stop,
                         struct bench_wl_list *l, char *err, size_t errlen)
{
	char *argv[] = {(char *)path, "list", "--json", NULL};
	struct runner_spec spec = {.path = path,
	                           .argv = argv,
	                           .timeout_s = LIST_TIMEOUT_S,
	                           .grace_s = BENCH_KILL_GRACE_S,
	                           .capture_stdout = 1,
	                           .stop = stop};
	struct runner_result r;
	int n;

	*l = (struct bench_wl_list){0};
	if (runner_run(&spec, &r, err, errlen) != 0)
		return -1;
	n = r.end == RUNNER_EXITED && r.exit_code == 0 && r.out
	        ? bench_parse_workload_list(r.out, &l->names, &l->params)
	        : -1;
	if (n >= 0 && bench_parse_workload_info(r.out, (size_t)n, &l->nphases, &l->flags) != 0) {
		bench_free_list(l->names, (size_t)n);
		bench_free_list(l->params, (size_t)n);
		l->names = l->params = NULL;
		runner_result_free(&r);
		return errmsg_fail(err, errlen, "out of memory");
	}
	if (n < 0) {
		errmsg_fail(err, errlen, "%s list --json: %s", path,
		            r.tail_len ? r.tail : "no workload list on stdout");
		runner_result_free(&r);
		return -1;
	}
	l->n = (size_t)n;
	l->backend_flags = bench_parse_backend_flags(r.out);
	if (bench_wl_defaults(l) != 0) {
		runner_result_free(&r);
		bench_wl_list_free(l);
		return errmsg_fail(err, errlen, "out of memory");
	}
	runner_result_free(&r);
	return 0;
}
