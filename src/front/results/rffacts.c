/* rffacts.c - what the results reader keeps of a bench's machine facts (the top-level "facts",
 * measured at the bench's start and its end; docs/results-format.md, "facts"): the cost of a minor
 * fault and the CPU vendor, which `allocab merge` relates the machines' effects to
 * (docs/fleet.md, "A fleet that explains itself"). */
#include "front/results/rfload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RF_MAX_VENDOR 64

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

/* One end's facts: fault_ns.median into *fault (NAN absent), cpu_vendor into *vendor (NULL). */
static int one_end(struct loader *l, const cJSON *end, const char *name, double *fault,
                   const char **vendor)
{
	const cJSON *f, *v;
	char at[32];

	*fault = NAN;
	*vendor = NULL;
	if (!end || cJSON_IsNull(end))
		return 0;
	if (!cJSON_IsObject(end))
		return rl_fail(l, "facts.%s: not an object", name);
	snprintf(at, sizeof at, "facts.%s", name);
	f = rl_get(end, "fault_ns");
	if (f && !cJSON_IsNull(f) && !cJSON_IsObject(f))
		return rl_fail(l, "facts.%s.fault_ns: not an object", name);
	if (rl_opt_num(l, f, "median", RF_MAX_WALL_NS, at, "fault_ns", fault) != 0)
		return -1;
	v = rl_get(end, "cpu_vendor");
	if (v && !cJSON_IsNull(v)) {
		size_t n = cJSON_IsString(v) ? strlen(v->valuestring) : 0;
		if (n == 0 || n > RF_MAX_VENDOR || !rl_is_name(v->valuestring))
			return rl_fail(l, "facts.%s.cpu_vendor: want a name of 1 to %d characters",
			               name, RF_MAX_VENDOR);
		*vendor = v->valuestring;
	}
	return 0;
}

int rl_facts(struct loader *l, const cJSON *facts, const cJSON *machine)
{
	struct rf_doc *d = l->d;
	double fs, fe;
	const char *vs, *ve, *vendor;

	d->fault_ns = NAN;
	if (facts && !cJSON_IsNull(facts) && !cJSON_IsObject(facts))
		return rl_fail(l, "facts: not an object");
	if (one_end(l, rl_get(facts, "start"), "start", &fs, &vs) != 0 ||
	    one_end(l, rl_get(facts, "end"), "end", &fe, &ve) != 0)
		return -1;
	d->fault_ns = isnan(fs) ? fe : isnan(fe) ? fs : (fs + fe) / 2;
	vendor = vs ? vs : ve ? ve : vendor_of_model(rl_get_str(machine, "cpu_model"));
	free(d->cpu_vendor);
	d->cpu_vendor = NULL;
	if (vendor && !(d->cpu_vendor = strdup(vendor)))
		return rl_nomem(l);
	return 0;
}
