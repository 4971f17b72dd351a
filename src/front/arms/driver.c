/* driver.c - the driver family of arm kinds (arms.h): driver, an allocator driver allocab-NAME,
 * and configured, a driver run with allocator settings (--arm, docs/tuning.md); their mode,
 * "drivers". */
#include "front/arms/arms.h"

#include <stdio.h>
#include <stdlib.h>

/* The argv of one driver run: DRIVER run WORKLOAD --scale S --seed N [--reps N] [--steady-time
 * cpu] [--param KV]... [--config KV]... --out -. */
static char **driver_argv(const struct arm_run_args *a, char num[2][24], const char **path)
{
	size_t n = 0;
	char **v = calloc(14 + 2 * a->nparams + 2 * a->nconfig, sizeof *v);

	if (!v)
		return NULL;
	snprintf(num[0], 24, "%llu", (unsigned long long)a->seed);
	snprintf(num[1], 24, "%u", a->reps);
	v[n++] = (char *)a->path;
	v[n++] = "run";
	v[n++] = (char *)a->workload;
	v[n++] = "--scale";
	v[n++] = (char *)a->scale;
	v[n++] = "--seed";
	v[n++] = num[0];
	if (a->reps) {
		v[n++] = "--reps";
		v[n++] = num[1];
	}
	if (a->steady_cpu) {
		v[n++] = "--steady-time";
		v[n++] = "cpu";
	}
	for (size_t i = 0; i < a->nparams; i++) {
		v[n++] = "--param";
		v[n++] = a->params[i];
	}
	for (size_t i = 0; i < a->nconfig; i++) {
		v[n++] = "--config";
		v[n++] = a->config[i];
	}
	v[n++] = "--out";
	v[n++] = "-";
	*path = a->path;
	return v;
}

static const char *describe_driver(const struct arm_run_args *a)
{
	return a->path;
}

static void driver_run_args(const void *data, struct arm_run_args *q)
{
	const struct arm_driver_data *d = data;

	if (!d)
		return;
	q->path = d->path;
	q->backend = d->backend;
	q->config = d->config;
	q->nconfig = d->nconfig;
}

static void driver_free(void *data)
{
	struct arm_driver_data *d = data;

	if (d)
		free(d->path);
	free(d);
}

struct arm_driver_data *arm_new_driver(const char *dir, const char *exe, const char *backend,
                                       char *const *config, size_t nconfig)
{
	struct arm_driver_data *d = calloc(1, sizeof *d);

	if (!d || asprintf(&d->path, "%s/allocab-%s", dir, exe) < 0) {
		free(d);
		return NULL;
	}
	d->backend = backend;
	d->config = config;
	d->nconfig = nconfig;
	return d;
}

static const struct arm_mode drivers_mode = {
    .mode = "drivers",
    .runs = "driver",
    .flags = ARM_MODE_DRIVER_RECORD,
    .fallback_baseline = "system",
};

const struct arm_kind_ops arm_kind_driver = {
    .name = "driver",
    .flags = ARM_KIND_DRIVER_RECORD | ARM_KIND_PAIRABLE,
    .doc_mode = &drivers_mode,
    .argv = driver_argv,
    .describe = describe_driver,
    .run_args = driver_run_args,
    .free_data = driver_free,
};

const struct arm_kind_ops arm_kind_configured = {
    .name = "configured",
    .flags = ARM_KIND_DRIVER_RECORD | ARM_KIND_CONFIGURED | ARM_KIND_PAIRABLE,
    .doc_mode = &drivers_mode,
    .argv = driver_argv,
    .describe = describe_driver,
    .run_args = driver_run_args,
    .free_data = driver_free,
};
