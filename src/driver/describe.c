/* describe.c - what a driver says about itself: `list` (workloads, phases, parameters, allocator
 * options; allocab-list/1) and `info` (allocator, proof, counters, options in force, machine;
 * allocab-info/1), as JSON documents and as text (docs/results-format.md). */
#include "driver/describe.h"

#include "driver/config.h"
#include "common/fingerprint.h"
#include "driver/params.h"
#include "driver/registry.h"
#include "driver/runrec.h"

#include <stdio.h>

#ifndef ALLOCAB_VERSION
#define ALLOCAB_VERSION "unknown"
#endif

static cJSON *param_json(const struct wl_param *p)
{
	cJSON *o = cJSON_CreateObject(), *def;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "unit", p->unit);
	cJSON_AddStringToObject(o, "help", p->help);
	if (params_is_string(p)) {
		cJSON_AddStringToObject(o, "type", "string");
		return o;
	}
	cJSON_AddStringToObject(o, "type", "integer");
	if ((def = cJSON_AddObjectToObject(o, "default")))
		for (int s = 0; s < WL_SCALE_COUNT; s++)
			cJSON_AddNumberToObject(def, params_scale_name(s), (double)p->def[s]);
	cJSON_AddNumberToObject(o, "min", (double)p->min);
	cJSON_AddNumberToObject(o, "max", (double)p->max);
	return o;
}

/* The backend's declared flags (backend.h) by name. */
static cJSON *backend_flags_json(const struct backend_ops *b)
{
	cJSON *f = cJSON_CreateArray();

	if (f && (b->flags & BACKEND_BASELINE))
		cJSON_AddItemToArray(f, cJSON_CreateString("baseline"));
	if (f && (b->flags & BACKEND_CALIBRATION))
		cJSON_AddItemToArray(f, cJSON_CreateString("calibration"));
	return f;
}

cJSON *describe_list_json(const struct backend_ops *b)
{
	cJSON *root = cJSON_CreateObject(), *arr, *a;

	cJSON_AddStringToObject(root, "schema", "allocab-list/1");
	a = cJSON_AddObjectToObject(root, "allocator");
	cJSON_AddStringToObject(a, "name", b->name);
	cJSON_AddItemToObject(a, "flags", backend_flags_json(b));
	cJSON_AddItemToObject(root, "options", config_options_json(b, 0));
	arr = cJSON_AddArrayToObject(root, "workloads");
	for (const struct workload *const *w = wl_registry; *w; w++) {
		cJSON *o = cJSON_CreateObject(), *ph, *ps;
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, "name", (*w)->name);
		cJSON_AddStringToObject(o, "description", (*w)->description);
		ph = cJSON_AddArrayToObject(o, "phases");
		cJSON_AddItemToArray(ph, cJSON_CreateString("total"));
		for (size_t i = 0; i < params_nphases(*w); i++)
			cJSON_AddItemToArray(ph, cJSON_CreateString((*w)->phases[i]));
		cJSON_AddItemToObject(o, "flags", runrec_wl_flags((*w)->flags));
		ps = cJSON_AddArrayToObject(o, "params");
		for (size_t i = 0; i < (*w)->nparams; i++)
			cJSON_AddItemToArray(ps, param_json(&(*w)->params[i]));
	}
	return root;
}

void describe_list_text(const struct backend_ops *b)
{
	for (const struct workload *const *w = wl_registry; *w; w++) {
		const struct workload *wl = *w;
		char v[WL_SCALE_COUNT + 2][32];

		printf("%s: %s\n  phases: total", wl->name, wl->description);
		for (size_t i = 0; i < params_nphases(wl); i++)
			printf(", %s", wl->phases[i]);
		printf("\n  %-22s %-8s %8s %8s %8s  %s\n", "parameter", "unit", "small", "default",
		       "large", "range");
		for (size_t i = 0; i < wl->nparams; i++) {
			const struct wl_param *p = &wl->params[i];
			if (params_is_string(p)) {
				printf("  %-22s %-8s %8s %8s %8s  %s\n      %s\n", p->name, p->unit,
				       "-", "-", "-", "text", p->help);
				continue;
			}
			for (int s = 0; s < WL_SCALE_COUNT; s++)
				params_format(p, p->def[s], v[s], sizeof v[s]);
			params_format(p, p->min, v[WL_SCALE_COUNT], sizeof v[0]);
			params_format(p, p->max, v[WL_SCALE_COUNT + 1], sizeof v[0]);
			printf("  %-22s %-8s %8s %8s %8s  %s..%s\n      %s\n", p->name, p->unit,
			       v[0], v[1], v[2], v[3], v[4], p->help);
		}
		printf("\n");
	}
	config_options_text(b, stdout, 0);
}

static cJSON *counters_json(const struct backend_ops *b)
{
	struct backend_counter c[BACKEND_MAX_COUNTERS];
	size_t n = b->counters(c, BACKEND_MAX_COUNTERS);
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; o && i < n; i++)
		cJSON_AddNumberToObject(o, c[i].name, (double)c[i].value);
	return o;
}

cJSON *describe_info_json(const struct backend_ops *b, const struct proof *pr, const char *version)
{
	cJSON *root = cJSON_CreateObject(), *tool, *a, *syms;

	cJSON_AddStringToObject(root, "schema", "allocab-info/1");
	tool = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(tool, "name", "allocab");
	cJSON_AddStringToObject(tool, "version", ALLOCAB_VERSION);
	a = cJSON_AddObjectToObject(root, "allocator");
	cJSON_AddStringToObject(a, "name", b->name);
	cJSON_AddItemToObject(a, "flags", backend_flags_json(b));
	if (version)
		cJSON_AddStringToObject(a, "version", version);
	else
		cJSON_AddNullToObject(a, "version");
	cJSON_AddStringToObject(a, "library", pr->library);
	cJSON_AddBoolToObject(a, "verified", pr->verified);
	cJSON_AddStringToObject(a, "expected", pr->expected);
	syms = cJSON_AddArrayToObject(a, "symbols");
	for (int i = 0; i < PROOF_NSYMS; i++)
		cJSON_AddItemToArray(syms, cJSON_CreateString(proof_symbols[i]));
	cJSON_AddItemToObject(root, "counters", counters_json(b));
	cJSON_AddItemToObject(root, "options", config_options_json(b, 1));
	cJSON_AddItemToObject(root, "machine", fingerprint_json());
	return root;
}

static const char *text_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "unknown";
}

void describe_info_text(const struct backend_ops *b, const cJSON *doc)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, "allocator");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	const cJSON *c, *cpus = cJSON_GetObjectItemCaseSensitive(m, "online_cpus");

	printf("allocator  %s %s\n", b->name, text_of(a, "version"));
	printf("library    %s\n", text_of(a, "library"));
	printf("verified   yes: malloc, free, calloc, realloc, posix_memalign resolve into %s\n",
	       text_of(a, "expected"));
	printf("counters  ");
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "counters"))
	    printf(" %s=%.0f", c->string, c->valuedouble);
	printf(
	    "\nmachine    %s, %d online CPUs, kernel %s, glibc %s, THP %s, governor %s (id %s)\n",
	    text_of(m, "cpu_model"), cJSON_IsNumber(cpus) ? cpus->valueint : 0,
	    text_of(m, "kernel"), text_of(m, "glibc"), text_of(m, "thp"), text_of(m, "governor"),
	    text_of(m, "id"));
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(m, "env"))
	    printf("env        %s=%s\n", c->string, cJSON_IsString(c) ? c->valuestring : "");
	config_options_text(b, stdout, 1);
}
