/* rffacts.c - the document's "facts" (docs/results-format.md): what the bench measured of the
 * machine at its start and its end, read strictly when present. */
#include "front/results/rfload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int fact_str(struct loader *l, const cJSON *o, const char *when, const char *key,
                    char *out, size_t len)
{
	const cJSON *v = rl_get(o, key);

	out[0] = '\0';
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= len || !rl_is_name(v->valuestring))
		return rl_fail(l, "facts.%s.%s: want null or a string of at most %zu bytes", when,
		               key, len - 1);
	snprintf(out, len, "%s", v->valuestring);
	return 0;
}

static int load_one(struct loader *l, const cJSON *o, const char *when, struct rf_facts *f)
{
	const cJSON *fn = rl_get(o, "fault_ns");
	char obj[32];

	snprintf(obj, sizeof obj, "facts.%s", when);
	if (!cJSON_IsObject(o) || (fn && !cJSON_IsObject(fn)))
		return rl_fail(l, "facts.%s: want an object with fault_ns, hypervisor, cpu_vendor, "
		                  "cpu_model, kernel and thp", when);
	f->present = 1;
	if (rl_opt_num(l, fn, "median", RF_MAX_WALL_NS, obj, "fault_ns", &f->fault_median) ||
	    rl_opt_num(l, fn, "min", RF_MAX_WALL_NS, obj, "fault_ns", &f->fault_min) ||
	    rl_opt_num(l, fn, "max", RF_MAX_WALL_NS, obj, "fault_ns", &f->fault_max) ||
	    rl_opt_num(l, fn, "trials", 1e6, obj, "fault_ns", &f->trials))
		return -1;
	if (!isnan(f->fault_median) &&
	    !(f->fault_min <= f->fault_median && f->fault_median <= f->fault_max))
		return rl_fail(l, "facts.%s.fault_ns: want min <= median <= max", when);
	return fact_str(l, o, when, "hypervisor", f->hypervisor, sizeof f->hypervisor) ||
	               fact_str(l, o, when, "cpu_vendor", f->cpu_vendor, sizeof f->cpu_vendor) ||
	               fact_str(l, o, when, "cpu_model", f->cpu_model, sizeof f->cpu_model) ||
	               fact_str(l, o, when, "kernel", f->kernel, sizeof f->kernel) ||
	               fact_str(l, o, when, "thp", f->thp, sizeof f->thp)
	           ? -1
	           : 0;
}

int rl_facts(struct loader *l, const cJSON *facts)
{
	static const char *const when[2] = {"start", "end"};

	memset(l->d->facts, 0, sizeof l->d->facts);
	if (!facts || cJSON_IsNull(facts))
		return 0;
	if (!cJSON_IsObject(facts))
		return rl_fail(l, "facts: want an object with start and end");
	for (int k = 0; k < 2; k++) {
		const cJSON *o = rl_get(facts, when[k]);
		if (o && load_one(l, o, when[k], &l->d->facts[k]) != 0)
			return -1;
	}
	return 0;
}
