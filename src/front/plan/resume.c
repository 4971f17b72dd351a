/* resume.c - `allocab bench --resume FILE`: the checks that a bench continues the one FILE holds
 * (bench_resume_load, plan.h) and the session it adds to FILE's "sessions"; the engine starts
 * from FILE's rounds itself (engine_resume, front/engine/benchresume.c). The rules:
 * docs/methodology.md, "Resuming a bench"; the format: docs/results-format.md, "sessions". */
#include "front/plan/plan.h"
#include "common/errmsg.h"
#include "common/fingerprint.h"
#include "common/jsonload.h"
#include "common/jsonstrict.h"
#include "common/status.h"
#include "common/trackmode.h"
#include "front/proc/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The members of config a session may change: they are recorded per session instead
 * (process_tracking: a file keeps the weaker of the two). */
static const char *const per_session[] = {
    "argv",       "shuffle_seed",     "rounds",     "budget_s",
    "min_rounds", "process_tracking", "containment", "sequential", NULL};

static int is_per_session(const char *key)
{
	for (size_t i = 0; per_session[i]; i++)
		if (strcmp(per_session[i], key) == 0)
			return 1;
	return 0;
}

/* v as compact JSON, cut to 60 bytes, into buf. */
static const char *short_json(const cJSON *v, char *buf, size_t len)
{
	char *t = v ? jst_print(v, 0) : NULL;

	snprintf(buf, len, "%s", v ? (t ? t : "?") : "nothing");
	if (strlen(buf) > 60)
		strcpy(buf + 57, "...");
	free(t);
	return buf;
}

static int differs(const char *path, const char *field, const cJSON *was, const cJSON *now,
                   char *err, size_t errlen)
{
	char a[64], b[64];

	return errmsg_status(ST_USAGE, err, errlen,
	                     "%s: %s differs: %s in the file, %s in this bench (--resume takes the "
	                     "command line of the bench it continues)",
	                     path, field, short_json(was, a, sizeof a),
	                     short_json(now, b, sizeof b));
}

/* The value --param KEY=V last gave KEY ("KEY=" is the entry's start up to its '='), or NULL. */
static const char *param_last(const cJSON *list, const char *entry)
{
	size_t k = strcspn(entry, "=");
	const char *v = NULL;
	const cJSON *p;

	cJSON_ArrayForEach(p, list)
	{
		const char *s = cJSON_GetStringValue(p);
		if (s && strncmp(s, entry, k) == 0 && (s[k] == '=' || s[k] == '\0'))
			v = s;
	}
	return v;
}

/* Two lists of --param KEY=VALUE: the same when every key ends with the same value, in any
 * order (a later --param of a key overrides an earlier one). */
static int same_params(const cJSON *a, const cJSON *b)
{
	const cJSON *p;

	if (!cJSON_IsArray(a) || !cJSON_IsArray(b))
		return cJSON_Compare(a, b, 1);
	for (int pass = 0; pass < 2; pass++, p = a, a = b, b = p)
		cJSON_ArrayForEach(p, a)
		{
			const char *s = cJSON_GetStringValue(p), *x, *y;
			if (!s)
				return 0;
			x = param_last(a, s);
			y = param_last(b, s);
			if (!y || strcmp(x, y) != 0)
				return 0;
		}
	return 1;
}

static int same_member(const char *key, const cJSON *f, const cJSON *m)
{
	return strcmp(key, "params") == 0 ? same_params(f, m) : cJSON_Compare(f, m, 1);
}

/* Every arm's executable (config.executables) as the file recorded it: one line naming the first
 * that changed (a rebuilt program measures something else). */
static int same_executables(const char *path, const cJSON *file, const cJSON *fresh, char *err,
                            size_t errlen)
{
	const cJSON *was = cJSON_GetObjectItemCaseSensitive(file, "executables"), *now, *m;
	char why[512];

	now = cJSON_GetObjectItemCaseSensitive(fresh, "executables");
	cJSON_ArrayForEach(m, now)
	{
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(was, m->string);

		if (!f)
			return errmsg_status(ST_USAGE, err, errlen,
			                     "%s: arm %s: the file recorded no executable, this bench "
			                     "runs %s",
			                     path, m->string,
			                     cJSON_GetStringValue(cJSON_GetObjectItem(m, "path")));
		if (!exeid_same(f, m, why, sizeof why))
			return errmsg_status(ST_USAGE, err, errlen,
			                     "%s: arm %s: the executable changed since the file was "
			                     "written: %s: its rounds would measure another program",
			                     path, m->string, why);
	}
	cJSON_ArrayForEach(m, was)
	{
		if (!cJSON_GetObjectItemCaseSensitive(now, m->string))
			return errmsg_status(ST_USAGE, err, errlen,
			                     "%s: arm %s: its executable %s cannot be found now", path,
			                     m->string,
			                     cJSON_GetStringValue(cJSON_GetObjectItem(m, "path")));
	}
	return ST_OK;
}

/* The first member of config (or of the file's) that differs but for per_session. */
static int same_config(const char *path, const cJSON *file, const cJSON *fresh, char *err,
                       size_t errlen)
{
	const cJSON *m;
	char field[128];

	cJSON_ArrayForEach(m, fresh)
	{
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(file, m->string);

		if (strcmp(m->string, "executables") == 0 || strcmp(m->string, "images") == 0)
			continue;
		if (is_per_session(m->string) || (f && same_member(m->string, f, m)))
			continue;
		snprintf(field, sizeof field, "config.%s", m->string);
		return differs(path, field, f, m, err, errlen);
	}
	cJSON_ArrayForEach(m, file)
	{
		if (is_per_session(m->string) || cJSON_GetObjectItemCaseSensitive(fresh, m->string))
			continue;
		snprintf(field, sizeof field, "config.%s", m->string);
		return differs(path, field, m, NULL, err, errlen);
	}
	if (same_executables(path, file, fresh, err, errlen) != ST_OK)
		return ST_USAGE;
	return bench_images_same(path, file, fresh, err, errlen);
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* An aborted file is continued when its write failed (status_reason "write", or none: a file
 * whose document could not be written was patched in place, "running" to "aborted", and the
 * patch adds nothing), not when the bench itself failed ("error") or its proofs cannot succeed
 * ("proof"); a running one only when no live bench holds the lock it was written under. */
static int resumable_status(const char *path, const cJSON *doc, const char *status, char *err,
                            size_t errlen)
{
	const char *why = cJSON_GetStringValue(get(doc, "status_reason"));
	const char *lock = cJSON_GetStringValue(get(get(doc, "task"), "lock"));
	char who[512];

	if (strcmp(status, "aborted") == 0 && why && strcmp(why, "write") != 0)
		return errmsg_status(
		    ST_USAGE, err, errlen,
		    "%s: status aborted (%s): %s; only a bench stopped by a write that failed "
		    "(a full disk) or interrupted is resumed (docs/methodology.md, \"Resuming a "
		    "bench\")",
		    path, why,
		    strcmp(why, "proof") == 0 ? "its first round showed proofs no later round can change"
		                              : "the bench itself failed");
	if (strcmp(status, "running") == 0 && lock && bench_task_lock_held(lock, who, sizeof who))
		return errmsg_status(ST_USAGE, err, errlen,
		                     "%s: status running, and its bench still runs (%.300s; lock %s): "
		                     "resume it after that bench ends",
		                     path, who, lock);
	return ST_OK;
}

/* What no continuation can change: the version, the machine, a gate, a decision, a spent plan. */
static int resumable(const char *path, const cJSON *doc, const struct rf_doc *d, char *err,
                     size_t errlen)
{
	const cJSON *cfg = get(doc, "config"), *seq = get(cfg, "sequential");
	const char *version = cJSON_GetStringValue(get(get(doc, "tool"), "version"));
	cJSON *machine = fingerprint_json();
	char here[17] = "", there[17] = "";
	const cJSON *planned = get(seq, "planned_rounds");
	int rc;

	if (machine)
		fingerprint_id(machine, here);
	cJSON_Delete(machine);
	if (cJSON_IsObject(get(doc, "machine")))
		fingerprint_id(get(doc, "machine"), there);
	if (!version || strcmp(version, ALLOCAB_VERSION) != 0)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "%s: written by allocab %s, this is %s: resume it with that "
		                     "version",
		                     path, version ? version : "(unknown)", ALLOCAB_VERSION);
	if (!there[0] || strcmp(there, here) != 0)
		return errmsg_status(ST_USAGE, err, errlen,
		                     "%s: measured on another machine (fingerprint %s, here %s): "
		                     "rounds of two machines are not one bench",
		                     path, there[0] ? there : "none", here);
	if (cJSON_IsObject(get(doc, "machine")) &&
	    (!cJSON_GetStringValue(get(get(doc, "machine"), "id")) ||
	     strcmp(cJSON_GetStringValue(get(get(doc, "machine"), "id")), there) != 0))
		return errmsg_status(ST_USAGE, err, errlen,
		                     "%s: its machine.id does not match its machine's fields (they "
		                     "give %s): the file was edited",
		                     path, there);
	if ((rc = resumable_status(path, doc, d->status, err, errlen)) != ST_OK)
		return rc;
	if (strcmp(d->status, "decided") == 0)
		return errmsg_status(
		    ST_USAGE, err, errlen,
		    "%s: status decided: its decision ended the bench, more rounds "
		    "would not be covered by it",
		    path);
	if (!cJSON_IsNull(get(cfg, "gate")) || !cJSON_IsNull(get(doc, "gate_decision")))
		return errmsg_status(
		    ST_USAGE, err, errlen,
		    "%s: a bench with --gate cannot be resumed: its sequential plan "
		    "was fixed at its first look (docs/methodology.md, \"Resuming a "
		    "bench\")",
		    path);
	if (cJSON_IsNumber(planned) && planned->valuedouble <= (double)d->nrounds &&
	    !(d->seq.share > 0))
		return errmsg_status(
		    ST_USAGE, err, errlen,
		    "%s: its sequential plan of %.0f rounds is spent: rounds past it "
		    "are not covered by its decisions; for more rounds run a longer bench, "
		    "or one with --allocation none, which can be resumed for ever "
		    "(docs/methodology.md, \"Resuming a bench\")",
		    path, planned->valuedouble);
	return ST_OK;
}

/* --rounds N on resume is N more measured rounds, always: refused when the file's sequential
 * plan cannot be extended (it spends all of alpha: no alpha_share) and does not cover that many
 * (its decisions would not cover the rounds past it). */
static int rounds_fit(const char *path, const cJSON *doc, const struct rf_doc *d,
                      const struct bench_config *c, char *err, size_t errlen)
{
	const cJSON *planned = get(get(get(doc, "config"), "sequential"), "planned_rounds");
	double left;

	if (!cJSON_IsNumber(planned) || !c->rounds || d->seq.share > 0)
		return ST_OK;
	left = planned->valuedouble - (double)d->nrounds;
	if ((double)c->rounds <= left)
		return ST_OK;
	return errmsg_status(ST_USAGE, err, errlen,
	                     "%s: --rounds %u: its sequential plan of %.0f measured rounds covers %.0f "
	                     "more (it holds %zu): give --rounds %.0f or less (docs/methodology.md, "
	                     "\"Resuming a bench\")",
	                     path, c->rounds, planned->valuedouble, left, d->nrounds, left);
}

/* A session entry (docs/results-format.md, "sessions"). */
static cJSON *session_new(const char *started, double seed, double first, cJSON *argv,
                          const char *status)
{
	cJSON *s = cJSON_CreateObject();

	if (!s || !argv || !cJSON_AddStringToObject(s, "started_utc", started ? started : "") ||
	    !cJSON_AddNumberToObject(s, "shuffle_seed", seed) ||
	    !cJSON_AddNumberToObject(s, "first_round", first) ||
	    !cJSON_AddItemToObject(s, "argv", argv) ||
	    !cJSON_AddStringToObject(s, "status", status)) {
		if (s && argv && !get(s, "argv"))
			cJSON_Delete(argv);
		cJSON_Delete(s);
		return NULL;
	}
	return s;
}

/* FILE's sessions (the first made up from its head when it has none) and this one. */
static int add_session(const char *path, cJSON *doc, const cJSON *fresh,
                       const struct bench_config *c, char *err, size_t errlen)
{
	cJSON *cfg = (cJSON *)get(doc, "config"), *list = (cJSON *)get(doc, "sessions"), *s, *last = NULL;
	const cJSON *seed = get(cfg, "shuffle_seed");
	const char *status = cJSON_GetStringValue(get(doc, "status"));
	char now[32];

	if (!list) {
		list = cJSON_AddArrayToObject(doc, "sessions");
		s = session_new(cJSON_GetStringValue(get(doc, "created_utc")),
		                cJSON_IsNumber(seed) ? seed->valuedouble : 0, 0,
		                cJSON_Duplicate(get(cfg, "argv"), 1), status);
		if (!list || !s || !cJSON_AddItemToArray(list, s))
			return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	}
	cJSON_ArrayForEach(s, list)
	{
		if (get(s, "shuffle_seed")->valuedouble == (double)c->shuffle_seed)
			return errmsg_status(ST_USAGE, err, errlen,
			                     "%s: --shuffle-seed %llu is the seed of a session it "
			                     "holds: the new rounds would repeat its orders",
			                     path, (unsigned long long)c->shuffle_seed);
		last = s;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(last, "status", cJSON_CreateString(status));
	benchdoc_utc_now(now);
	s = session_new(now, (double)c->shuffle_seed,
	                (double)cJSON_GetArraySize(get(doc, "rounds")),
	                cJSON_Duplicate(get(get(fresh, "config"), "argv"), 1), "running");
	if (!s || !cJSON_AddItemToArray(list, s))
		return errmsg_status(ST_FAIL, err, errlen, "out of memory");
	if (c->tracking && !trackmode_has(c->tracking, TRACKMODE_EVERY_PROCESS))
		benchdoc_set_string(cfg, "process_tracking", c->tracking);
	return ST_OK;
}

/* The task's label: the machine's name in a fleet is part of what the bench is. */
static int same_label(const char *path, const cJSON *doc, const cJSON *fresh, char *err,
                      size_t errlen)
{
	const cJSON *a = get(get(doc, "task"), "label"), *b = get(get(fresh, "task"), "label");

	if ((!a || cJSON_IsNull(a)) && (!b || cJSON_IsNull(b)))
		return ST_OK;
	return a && b && cJSON_Compare(a, b, 1) ? ST_OK
	                                        : differs(path, "task.label", a, b, err, errlen);
}

void bench_resume_free(struct bench_config *c)
{
	cJSON_Delete(c->resume);
	cJSON_Delete(c->resume_disk);
	c->resume = c->resume_disk = NULL;
}

enum status bench_resume_load(struct bench_config *c, const char *path, const char *out,
                              char *err, size_t errlen)
{
	cJSON **doc = &c->resume, **disk = &c->resume_disk;
	long *keep = &c->resume_keep;
	enum jl_why why;
	struct rf_file info;
	cJSON *fresh = NULL, *d;
	struct rf_doc *rf = NULL;
	int rc = ST_USAGE;

	*doc = *disk = NULL;
	*keep = -1;
	if (rf_bench_read(path, &d, &info, &why, err, errlen) != 0)
		return why == JL_NOMEM ? ST_FAIL : ST_USAGE;
	if (info.torn && c->progress != PROGRESS_NONE)
		fprintf(stderr, "allocab: bench: --resume: %.900s; it is cut off and the bench goes "
		        "on after them\n", info.torn_msg);
	if (!(rf = rf_from_json(d, path, err, errlen)))
		goto out;
	if ((rc = resumable(path, d, rf, err, errlen)) != ST_OK ||
	    (rc = rounds_fit(path, d, rf, c, err, errlen)) != ST_OK)
		goto out;
	rc = ST_FAIL;
	if (!(fresh = benchdoc_new(c))) {
		errmsg_fail(err, errlen, "out of memory");
		goto out;
	}
	if ((rc = same_config(path, get(d, "config"), get(fresh, "config"), err, errlen)) ||
	    (rc = same_label(path, d, fresh, err, errlen)) ||
	    (rc = add_session(path, d, fresh, c, err, errlen)))
		goto out;
	*doc = d;
	d = NULL;
	if (out && strcmp(out, path) == 0) { /* -o elsewhere: the output is written anew */
		*keep = info.keep;
		*disk = info.disk;
		info.disk = NULL;
	}
out:
	cJSON_Delete(info.disk);
	rf_free(rf);
	cJSON_Delete(fresh);
	cJSON_Delete(d);
	return rc;
}
