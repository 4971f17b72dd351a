/* benchimages.c - the executable images a commands bench's runs exec'd, each with its identity,
 * so that --resume tells a rebuilt program whatever the command's shell syntax (benchengine.h;
 * docs/methodology.md, "Resuming a bench"). */
#include "front/engine/benchengine.h"
#include "common/errmsg.h"
#include "front/proc/proc.h"

#include <stdio.h>
#include <string.h>

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Adds the identity of every image run's probe saw exec'd that images lacks. */
static void note_run(cJSON *images, const cJSON *run)
{
	const cJSON *p;

	cJSON_ArrayForEach(p, get(get(run, "probe"), "processes"))
	{
		const char *exe = cJSON_GetStringValue(get(p, "exe"));
		cJSON *id;

		if (!exe || exe[0] != '/' || get(images, exe))
			continue;
		if (!(id = exeid_path_json(exe)))
			id = cJSON_CreateNull(); /* gone already: nothing to compare with later */
		if (id)
			cJSON_AddItemToObject(images, exe, id);
	}
}

void bench_images_note(cJSON *doc, const cJSON *rounds, unsigned from, unsigned to)
{
	cJSON *images = cJSON_GetObjectItemCaseSensitive(get(doc, "config"), "images");
	const cJSON *run;

	if (!cJSON_IsObject(images))
		return;
	for (unsigned i = from; i < to; i++)
		cJSON_ArrayForEach(run, get(cJSON_GetArrayItem(rounds, (int)i), "runs"))
			note_run(images, run);
}

/* The arm of the fresh bench whose command names no executable, or NULL. */
static const char *unidentified_arm(const cJSON *file_cfg, const cJSON *fresh_cfg)
{
	const cJSON *c, *exes = get(fresh_cfg, "executables");

	if (!cJSON_IsObject(exes))
		return NULL;
	cJSON_ArrayForEach(c, get(fresh_cfg, "commands"))
	{
		if (!get(exes, c->string) && !get(get(file_cfg, "executables"), c->string))
			return c->string;
	}
	return NULL;
}

enum status bench_images_same(const char *path, const cJSON *file_cfg, const cJSON *fresh_cfg,
                              char *err, size_t errlen)
{
	const cJSON *images = get(file_cfg, "images"), *m;
	const char *arm = unidentified_arm(file_cfg, fresh_cfg);
	char why[512];

	if (arm && (!cJSON_IsObject(images) || !images->child))
		return errmsg_status(ST_USAGE, err, errlen,
		                     "%s: arm %s: no executable identified: its command (%.80s) names "
		                     "none this can resolve and the file lists no image its runs "
		                     "exec'd, so a rebuilt program would go unnoticed: not continued",
		                     path, arm,
		                     cJSON_GetStringValue(get(get(fresh_cfg, "commands"), arm)));
	cJSON_ArrayForEach(m, images)
	{
		cJSON *now;
		int same;

		if (cJSON_IsNull(m))
			continue;
		if (!(now = exeid_path_json(m->string)))
			return errmsg_status(ST_USAGE, err, errlen,
			                     "%s: the image %s that its runs exec'd cannot be read now: "
			                     "not continued",
			                     path, m->string);
		same = exeid_same(m, now, why, sizeof why);
		cJSON_Delete(now);
		if (!same)
			return errmsg_status(ST_USAGE, err, errlen,
			                     "%s: an image its runs exec'd changed since the file was "
			                     "written: %s: its rounds would measure another program",
			                     path, why);
	}
	return ST_OK;
}
