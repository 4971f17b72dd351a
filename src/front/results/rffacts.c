/* rffacts.c - the document's "facts" (docs/results-format.md): what the bench measured of the
 * machine at its start and its end, read strictly when present; and what `allocab merge` relates
 * the machines' effects to (docs/fleet.md, "A fleet that explains itself"): the cost of a minor
 * fault and the CPU vendor. */
#include "front/results/rfload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fact_str(struct loader *l, const cJSON *o, const char *when, const char *key, char *out,
                    size_t len)
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
		return rl_fail(l,
		               "facts.%s: want an object with fault_ns, hypervisor, cpu_vendor, "
		               "cpu_model, kernel and thp",
		               when);
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

/* The vendor a CPU model names, for files without facts: the two vendors a model string names
 * unambiguously, as the kernel's vendor ids. */
static const struct {
	const char *word, *vendor;
} model_vendors[] = {
    {"Intel", "GenuineIntel"},
    {"AMD", "AuthenticAMD"},
};

static const char *vendor_of_model(const char *model)
{
	for (size_t i = 0; model && i < sizeof model_vendors / sizeof model_vendors[0]; i++)
		if (strstr(model, model_vendors[i].word))
			return model_vendors[i].vendor;
	return NULL;
}

/* d->fault_ns (the mean of the two ends' medians, or the one measured) and d->cpu_vendor from
 * d->facts, else from the CPU model. */
static int summarise(struct loader *l, const cJSON *machine)
{
	struct rf_doc *d = l->d;
	double fs = d->facts[0].present ? d->facts[0].fault_median : NAN;
	double fe = d->facts[1].present ? d->facts[1].fault_median : NAN;
	const char *vendor = d->facts[0].cpu_vendor[0] ? d->facts[0].cpu_vendor
	                     : d->facts[1].cpu_vendor[0]
	                         ? d->facts[1].cpu_vendor
	                         : vendor_of_model(rl_get_str(machine, "cpu_model"));

	d->fault_ns = isnan(fs) ? fe : isnan(fe) ? fs : (fs + fe) / 2;
	free(d->cpu_vendor);
	d->cpu_vendor = NULL;
	if (vendor && !(d->cpu_vendor = strdup(vendor)))
		return rl_nomem(l);
	return 0;
}

int rl_facts(struct loader *l, const cJSON *facts, const cJSON *machine)
{
	static const char *const when[2] = {"start", "end"};

	memset(l->d->facts, 0, sizeof l->d->facts);
	if (facts && !cJSON_IsNull(facts) && !cJSON_IsObject(facts))
		return rl_fail(l, "facts: want an object with start and end");
	for (int k = 0; facts && cJSON_IsObject(facts) && k < 2; k++) {
		const cJSON *o = rl_get(facts, when[k]);
		if (o && !cJSON_IsNull(o) && load_one(l, o, when[k], &l->d->facts[k]) != 0)
			return -1;
	}
	return summarise(l, machine);
}
