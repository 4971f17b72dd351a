/* config.c - allocator configurations of a driver: parsing, environment, re-execution, applying,
 * read-back and JSON (docs/tuning.md). */
#include "driver/config.h"
#include "common/errmsg.h"
#include "common/opt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const proof_names[] = {
    [BACKEND_PROOF_READ] = "read",         [BACKEND_PROOF_PROBE] = "probe",
    [BACKEND_PROOF_LOADER] = "loader",     [BACKEND_PROOF_REQUESTED] = "requested",
    [BACKEND_PROOF_ACCEPTED] = "accepted", [BACKEND_PROOF_ENV] = "environment",
};

const char *config_proof_name(enum backend_opt_proof p)
{
	return proof_names[p];
}

void config_init(struct config *c, const struct backend_ops *b)
{
	memset(c, 0, sizeof *c);
	c->b = b;
	c->verified = 1;
}

static const struct backend_option *find_option(const struct backend_ops *b, const char *key,
                                                size_t klen)
{
	for (size_t i = 0; i < b->noptions; i++)
		if (strlen(b->options[i].name) == klen &&
		    strncmp(b->options[i].name, key, klen) == 0)
			return &b->options[i];
	return NULL;
}

static void join_names(const struct backend_ops *b, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < b->noptions && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", b->options[i].name);
}

const char *backend_choice(const struct backend_option *o, int64_t i, char *buf, size_t len)
{
	const char *p = o->choices;

	for (; i > 0 && p; i--)
		p = (p = strchr(p, ',')) ? p + 1 : NULL;
	snprintf(buf, len, "%.*s", p && i == 0 ? (int)strcspn(p, ",") : 0, p ? p : "");
	return buf;
}

int64_t backend_choice_index(const struct backend_option *o, const char *name)
{
	char buf[64];

	for (int64_t i = 0; *backend_choice(o, i, buf, sizeof buf); i++)
		if (strcmp(buf, name) == 0)
			return i;
	return -1;
}

/* "a, b, c" from the comma-separated choices. */
static void join_choices(const struct backend_option *o, char *buf, size_t len)
{
	char one[64];
	size_t k = 0;

	buf[0] = '\0';
	for (int64_t i = 0; *backend_choice(o, i, one, sizeof one) && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "", one);
}

void config_format(const struct backend_option *o, int64_t v, char *buf, size_t len)
{
	static const char suffix[] = "GMk";

	if (o->type == BACKEND_OPT_ENUM) {
		backend_choice(o, v, buf, len);
		return;
	}
	for (int i = 0; o->type == BACKEND_OPT_BYTES && v != 0 && i < 3; i++) {
		int shift = 30 - 10 * i;
		if (v % ((int64_t)1 << shift) == 0) {
			snprintf(buf, len, "%lld%c", (long long)(v >> shift), suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%lld", (long long)v);
}

/* v read by a row made from the option (name "--config KEY", its type and range: common/opt.h), so
 * it gets the rows' messages; then the option's alignment. */
static int parse_value(const struct backend_option *o, const char *v, int64_t *out, char *err,
                       size_t errlen)
{
	char name[64], buf[sizeof o->choices];
	const char *words[sizeof o->choices / 2 + 1];
	struct opt_values values = {words, NULL};
	struct opt row = {.name = name};
	size_t n = 0;
	int idx;

	snprintf(name, sizeof name, "--config %s", o->name);
	if (o->type == BACKEND_OPT_ENUM) {
		snprintf(buf, sizeof buf, "%s", o->choices);
		for (char *w = buf, *save = NULL; (w = strtok_r(w, ",", &save)); w = NULL)
			words[n++] = w;
		words[n] = NULL;
		row.type = OPT_T_ENUM;
		row.values = &values;
		if (opt_value(&row, v, &idx, err, errlen) != 0)
			return -1;
		*out = idx;
		return 0;
	}
	row.type = OPT_T_I64;
	row.flags = o->type == BACKEND_OPT_BYTES ? OPT_BYTES : 0;
	row.lo = (double)o->min;
	row.hi = (double)o->max;
	if (opt_value(&row, v, out, err, errlen) != 0)
		return -1;
	if (o->align > 1 && *out % o->align != 0)
		return errmsg_fail(err, errlen, "--config %s: %s is not a multiple of %lld", o->name,
		                   v, (long long)o->align);
	return 0;
}

int config_add(struct config *c, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	const struct backend_option *o;
	char known[1024];
	int64_t v;

	if (!eq || eq == kv || !eq[1])
		return errmsg_fail(err, errlen, "--config: '%s' is not KEY=VALUE", kv);
	if (!(o = find_option(c->b, kv, (size_t)(eq - kv)))) {
		join_names(c->b, known, sizeof known);
		return errmsg_fail(err, errlen, "--config: %s has no option '%.*s' (known: %s)",
		                   c->b->name, (int)(eq - kv), kv, c->b->noptions ? known : "none");
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->set[i].opt == o)
			return errmsg_fail(err, errlen, "--config %s is given twice", o->name);
	if (c->n == CONFIG_MAX)
		return errmsg_fail(err, errlen, "--config: more than %d settings", CONFIG_MAX);
	if (parse_value(o, eq + 1, &v, err, errlen) != 0)
		return -1;
	c->set[c->n++] = (struct backend_setting){o, v};
	return 0;
}

int config_opt_set(void *settings, const struct opt *o, const char *v, char *err, size_t errlen)
{
	struct config *c = *(struct config **)((char *)settings + o->dest - 1);

	if (!c)
		return errmsg_fail(err, errlen, "--config is not an option here");
	return config_add(c, v, err, errlen);
}

static struct config_env *env_slot(struct config_env *out, size_t *n, size_t cap, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp(out[i].name, name) == 0)
			return &out[i];
	if (*n == cap)
		return NULL;
	snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
	out[*n].value[0] = '\0';
	return &out[(*n)++];
}

int config_env(const struct config *c, int all, struct config_env *out, size_t cap, char *err,
               size_t errlen)
{
	const struct backend_ops *b = c->b;
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct backend_option *o = c->set[i].opt;
		char v[64];
		struct config_env *e;
		size_t len;

		if (!all && o->apply != BACKEND_APPLY_ENV)
			continue;
		if (o->type == BACKEND_OPT_ENUM)
			config_format(o, c->set[i].value, v, sizeof v);
		else
			snprintf(v, sizeof v, "%lld", (long long)c->set[i].value);
		if (!(e = env_slot(out, &n, cap, b->env_var ? b->env_var : o->env)))
			return errmsg_fail(err, errlen, "too many environment variables");
		len = strlen(e->value);
		if (!b->env_var)
			snprintf(e->value, sizeof e->value, "%s", v);
		else if ((size_t)snprintf(e->value + len, sizeof e->value - len, "%s%s%c%s",
		                          len ? (char[]){b->env_sep, 0} : "", o->env, b->env_assign,
		                          v) >= sizeof e->value - len)
			return errmsg_fail(err, errlen, "%s: value too long", e->name);
	}
	return (int)n;
}

int config_probe_spec(const struct config *c, char *buf, size_t len, char *err, size_t errlen)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < c->n; i++) {
		const struct backend_option *o = c->set[i].opt;
		char v[64], rd[96];
		int n;

		if (o->type == BACKEND_OPT_ENUM)
			config_format(o, c->set[i].value, v, sizeof v);
		else
			snprintf(v, sizeof v, "%lld", (long long)c->set[i].value);
		if (!c->b->config_probe || c->b->config_probe(o, rd, sizeof rd) != 0)
			snprintf(rd, sizeof rd, "none:");
		n = snprintf(buf + k, len - k, "%s%s=%s%s:%s", k ? ";" : "", o->name,
		             o->proof == BACKEND_PROOF_REQUESTED && strncmp(rd, "none:", 5) != 0
		                 ? PROBE_REQUESTED_PREFIX
		                 : "",
		             rd, v);
		if (n < 0 || (size_t)n >= len - k)
			return errmsg_fail(err, errlen, "%s: too many settings", PROBE_CONFIG_VAR);
		k += (size_t)n;
	}
	return 0;
}

int config_exec_env(const struct config *c, char *const *argv, char *err, size_t errlen)
{
	struct config_env env[CONFIG_MAX];
	int n = config_env(c, 0, env, CONFIG_MAX, err, errlen), missing = -1;

	if (n < 0)
		return -1;
	for (int i = 0; i < n && missing < 0; i++) {
		const char *have = getenv(env[i].name);
		if (!have || strcmp(have, env[i].value) != 0)
			missing = i;
	}
	if (missing < 0)
		return 0;
	if (getenv(CONFIG_EXEC_VAR))
		return errmsg_fail(err, errlen,
		                   "configuration: %s is not %s after re-executing the driver",
		                   env[missing].name, env[missing].value);
	for (int i = 0; i < n; i++)
		if (setenv(env[i].name, env[i].value, 1) != 0)
			return errmsg_fail(err, errlen, "setenv %s: %s", env[i].name,
			                   strerror(errno));
	if (setenv(CONFIG_EXEC_VAR, "1", 1) != 0)
		return errmsg_fail(err, errlen, "setenv: %s", strerror(errno));
	fflush(NULL);
	execv("/proc/self/exe", argv);
	return errmsg_fail(err, errlen, "re-executing /proc/self/exe: %s", strerror(errno));
}

int config_apply(const struct config *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->set[i].opt->apply == BACKEND_APPLY_CALL &&
		    c->b->config_apply(&c->set[i], err, errlen) != 0)
			return -1;
	return 0;
}

/* Whether the environment the process started with holds setting s as config_env spells it. */
static int env_holds(const struct config *c, const struct backend_setting *s)
{
	struct config one = *c;
	struct config_env env[1];
	char err[64];
	const char *have;

	one.n = 1;
	one.set[0] = *s;
	if (config_env(&one, 1, env, 1, err, sizeof err) != 1 || !(have = getenv(env[0].name)))
		return 0;
	if (!c->b->env_var)
		return strcmp(have, env[0].value) == 0;
	for (const char *p = have; (p = strstr(p, env[0].value)); p++) {
		size_t len = strlen(env[0].value);
		if ((p == have || p[-1] == c->b->env_sep) && (!p[len] || p[len] == c->b->env_sep))
			return 1;
	}
	return 0;
}

static void note_problem(struct config *c, size_t i, const char *what)
{
	char want[64], got[64];
	const struct backend_option *o = c->set[i].opt;

	if (!c->verified)
		return;
	c->verified = 0;
	config_format(o, c->set[i].value, want, sizeof want);
	if (what) {
		snprintf(c->problem, sizeof c->problem, "%s=%s: %s", o->name, want, what);
		return;
	}
	config_format(o, c->in_force[i], got, sizeof got);
	if (o->proof == BACKEND_PROOF_REQUESTED)
		snprintf(c->problem, sizeof c->problem, "%s=%s requested, %s read back", o->name,
		         want, got);
	else
		snprintf(c->problem, sizeof c->problem, "%s=%s requested, %s in force", o->name,
		         want, got);
}

void config_verify(struct config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct backend_option *o = c->set[i].opt;

		c->why[i][0] = '\0';
		c->read[i] = c->b->config_read(o, c->set, c->n, &c->in_force[i], c->why[i],
		                               sizeof c->why[i]);
		if (c->read[i] == BACKEND_READ_FAIL)
			note_problem(c, i, c->why[i]);
		else if (c->read[i] == BACKEND_READ_VALUE && c->in_force[i] != c->set[i].value)
			note_problem(c, i, NULL);
		else if (o->apply == BACKEND_APPLY_ENV && !env_holds(c, &c->set[i]))
			note_problem(c, i, "not in the environment the driver started with");
	}
}

static cJSON *value_json(const struct backend_option *o, int64_t v)
{
	char text[32];

	if (o->type == BACKEND_OPT_ENUM)
		return cJSON_CreateString(backend_choice(o, v, text, sizeof text));
	snprintf(text, sizeof text, "%lld", (long long)v);
	return cJSON_CreateRaw(text);
}

cJSON *config_json(const struct config *c)
{
	cJSON *root = cJSON_CreateObject(), *req, *got, *proof, *env;
	struct config_env e[CONFIG_MAX];
	char err[128];
	int ne = config_env(c, 0, e, CONFIG_MAX, err, sizeof err);

	if (!root || !(req = cJSON_AddObjectToObject(root, "requested")) ||
	    !(got = cJSON_AddObjectToObject(root, "in_force")) ||
	    !(proof = cJSON_AddObjectToObject(root, "proof")) ||
	    !(env = cJSON_AddObjectToObject(root, "environment")))
		goto fail;
	for (size_t i = 0; i < c->n; i++) {
		const struct backend_option *o = c->set[i].opt;
		cJSON *v = c->read[i] == BACKEND_READ_VALUE && o->proof != BACKEND_PROOF_REQUESTED
		               ? value_json(o, c->in_force[i])
		               : cJSON_CreateNull();
		if (!cJSON_AddItemToObject(req, o->name, value_json(o, c->set[i].value)) ||
		    !cJSON_AddItemToObject(got, o->name, v) ||
		    !cJSON_AddStringToObject(proof, o->name, config_proof_name(o->proof)))
			goto fail;
	}
	for (int i = 0; i < ne; i++)
		if (!cJSON_AddStringToObject(env, e[i].name, e[i].value))
			goto fail;
	if (!cJSON_AddBoolToObject(root, "verified", c->verified) ||
	    !(c->verified ? cJSON_AddNullToObject(root, "problem")
	                  : cJSON_AddStringToObject(root, "problem", c->problem)))
		goto fail;
	return root;
fail:
	cJSON_Delete(root);
	return NULL;
}

static const char *apply_name(const struct backend_option *o)
{
	return o->apply == BACKEND_APPLY_ENV ? "environment at start" : "call before the first rep";
}

static cJSON *option_json(const struct backend_ops *b, const struct backend_option *o, int current)
{
	cJSON *j = cJSON_CreateObject(), *ch;
	char err[160], envname[128];
	int64_t v;

	if (!j)
		return NULL;
	cJSON_AddStringToObject(j, "name", o->name);
	cJSON_AddStringToObject(j, "type",
	                        o->type == BACKEND_OPT_ENUM    ? "enum"
	                        : o->type == BACKEND_OPT_BYTES ? "bytes"
	                                                       : "integer");
	cJSON_AddStringToObject(j, "unit", o->unit);
	if (o->type == BACKEND_OPT_ENUM) {
		ch = cJSON_AddArrayToObject(j, "choices");
		for (int64_t i = 0; *backend_choice(o, i, envname, sizeof envname); i++)
			cJSON_AddItemToArray(ch, cJSON_CreateString(envname));
	} else {
		cJSON_AddItemToObject(j, "min", value_json(o, o->min));
		cJSON_AddItemToObject(j, "max", value_json(o, o->max));
	}
	if (o->align > 1)
		cJSON_AddItemToObject(j, "multiple_of", value_json(o, o->align));
	cJSON_AddItemToObject(
	    j, "default", o->def_text[0] ? cJSON_CreateString(o->def_text) : value_json(o, o->def));
	cJSON_AddStringToObject(j, "help", o->help);
	cJSON_AddStringToObject(j, "source", o->source);
	snprintf(envname, sizeof envname, "%s%s%s", b->env_var ? b->env_var : "",
	         b->env_var ? " " : "", o->env);
	cJSON_AddStringToObject(j, "env", envname);
	cJSON_AddStringToObject(j, "applied_by", apply_name(o));
	cJSON_AddStringToObject(j, "proof", config_proof_name(o->proof));
	if (current)
		cJSON_AddItemToObject(j, "in_force",
		                      o->proof != BACKEND_PROOF_REQUESTED &&
		                              b->config_read(o, NULL, 0, &v, err, sizeof err) ==
		                                  BACKEND_READ_VALUE
		                          ? value_json(o, v)
		                          : cJSON_CreateNull());
	return j;
}

cJSON *config_options_json(const struct backend_ops *b, int current)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; a && i < b->noptions; i++) {
		cJSON *o = option_json(b, &b->options[i], current);
		if (!o || !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

void config_options_text(const struct backend_ops *b, FILE *f, int current)
{
	if (!b->noptions) {
		fprintf(f, "options: none\n");
		return;
	}
	fprintf(f, "options of %s (--config KEY=VALUE; docs/tuning.md):\n", b->name);
	fprintf(f, "  %-28s %-6s %14s  %-*s%s\n", "option", "unit", "default", current ? 26 : 0,
	        "range", current ? "  in force" : "");
	for (size_t i = 0; i < b->noptions; i++) {
		const struct backend_option *o = &b->options[i];
		char def[64], lo[32], hi[32], range[512], now[64] = "-", err[160];
		int64_t v;

		if (o->def_text[0])
			snprintf(def, sizeof def, "%s", o->def_text);
		else
			config_format(o, o->def, def, sizeof def);
		if (o->type == BACKEND_OPT_ENUM) {
			join_choices(o, range, sizeof range);
		} else {
			config_format(o, o->min, lo, sizeof lo);
			config_format(o, o->max, hi, sizeof hi);
			snprintf(range, sizeof range, "%s..%s", lo, hi);
		}
		if (current && o->proof != BACKEND_PROOF_REQUESTED &&
		    b->config_read(o, NULL, 0, &v, err, sizeof err) == BACKEND_READ_VALUE)
			config_format(o, v, now, sizeof now);
		fprintf(f, "  %-28s %-6s %14s  %-*s%s%s\n      %s\n      %s; %s; proof: %s\n",
		        o->name, o->unit, def, current ? 26 : 0, range, current ? "  " : "",
		        current ? now : "", o->help, o->source, apply_name(o),
		        config_proof_name(o->proof));
	}
}
