/* benchopt.c - parsing of the `allocab bench` command line into struct bench_opts: syntax,
 * ranges, defaults and the rules between options; no file system access. Also the parsers of
 * name lists and of a driver's `list --json`, and the routing of --param values to the selected
 * workloads by that list. */
#include "front/run/bench.h"
#include "common/errmsg.h"
#include "common/numparse.h"
#include "front/analysis/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_ROUNDS     10
#define DEFAULT_WARMUP     1
#define DEFAULT_MIN_ROUNDS 3
#define SPARE_ROUNDS       3    /* beyond the rule's minimum: a few disagreeing rounds may occur */
#define RULE_ALPHA         0.05 /* compare's default level */
/* With n < 6 no signed-rank interval reaches 95%: a sequential gate must not look earlier. */
#define GATE_MIN_ROUNDS   6
#define DEFAULT_TIMEOUT_S 120.0
#define DEFAULT_PAD_MAX   4096

static const char *const scales[] = {"small", "default", "large", NULL};

static int valid_name(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
		            s[i]))
			return 0;
	return 1;
}

static int in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

void bench_free_list(char **items, size_t n)
{
	for (size_t i = 0; items && i < n; i++)
		free(items[i]);
	free(items);
}

int bench_split_list(const char *list, const char *what, char ***items, char *err, size_t errlen)
{
	size_t n = 0, cap = 1;
	char **v;

	for (const char *p = list; *p; p++)
		cap += *p == ',';
	if (!(v = calloc(cap, sizeof *v)))
		return errmsg_fail(err, errlen, "out of memory");
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");

		if (!valid_name(p, len)) {
			bench_free_list(v, n);
			return len ? errmsg_fail(err, errlen, "%s: '%.*s' is not a valid name",
			                         what, (int)len, p)
			           : errmsg_fail(err, errlen, "%s: empty name in '%s'", what, list);
		}
		for (size_t i = 0; i < n; i++)
			if (strlen(v[i]) == len && strncmp(v[i], p, len) == 0) {
				bench_free_list(v, n);
				return errmsg_fail(err, errlen, "%s: '%.*s' is given twice", what,
				                   (int)len, p);
			}
		if (!(v[n] = strndup(p, len))) {
			bench_free_list(v, n);
			return errmsg_fail(err, errlen, "out of memory");
		}
		n++;
		p += len;
		if (!*p)
			break;
	}
	*items = v;
	return (int)n;
}

static int check_param(const char *kv, const char **seen, size_t nseen, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	size_t klen = eq ? (size_t)(eq - kv) : 0;

	if (!eq || klen == 0 || eq[1] == '\0')
		return errmsg_fail(err, errlen, "--param: '%s' is not KEY=VALUE", kv);
	if (strspn(kv, "abcdefghijklmnopqrstuvwxyz0123456789_") != klen)
		return errmsg_fail(err, errlen, "--param: '%.*s' is not a parameter name",
		                   (int)klen, kv);
	for (size_t i = 0; i < nseen; i++)
		if (strncmp(seen[i], kv, klen + 1) == 0)
			return errmsg_fail(err, errlen, "--param: %.*s is given twice", (int)klen,
			                   kv);
	return 0;
}

enum opt_id {
	O_ALLOC,
	O_WL,
	O_SCALE,
	O_SEED,
	O_PARAM,
	O_REPS,
	O_ROUNDS,
	O_BUDGET,
	O_WARMUP,
	O_MINR,
	O_TIMEOUT,
	O_SHUF,
	O_PAD,
	O_OUT,
	O_RDIR,
	O_DDIR,
	O_CMD,
	O_PROGRAM,
	O_PRELOAD,
	O_EXPECT,
	O_COUNT
};

static const struct {
	const char *lng;
	char shrt;
	int repeat;
} opts[O_COUNT] = {
    [O_ALLOC] = {"--allocators", 'a', 0},
    [O_WL] = {"--workloads", 'w', 0},
    [O_SCALE] = {"--scale", 0, 0},
    [O_SEED] = {"--seed", 0, 0},
    [O_PARAM] = {"--param", 0, 1},
    [O_REPS] = {"--reps", 0, 0},
    [O_ROUNDS] = {"--rounds", 0, 0},
    [O_BUDGET] = {"--budget", 0, 0},
    [O_WARMUP] = {"--warmup", 0, 0},
    [O_MINR] = {"--min-rounds", 0, 0},
    [O_TIMEOUT] = {"--timeout", 0, 0},
    [O_SHUF] = {"--shuffle-seed", 0, 0},
    [O_PAD] = {"--pad-max", 0, 0},
    [O_OUT] = {"--output", 'o', 0},
    [O_RDIR] = {"--results-dir", 0, 0},
    [O_DDIR] = {"--driver-dir", 0, 0},
    [O_CMD] = {"--cmd", 0, 1},
    [O_PROGRAM] = {"--program", 0, 0},
    [O_PRELOAD] = {"--preload", 0, 1},
    [O_EXPECT] = {"--expect", 0, 1},
};

/* Matches argv[*i] against the option table; sets *val (from "=VALUE", "-aVALUE" or the next
 * argument). Returns the option, or -1 with err set. */
static int match_option(int argc, char **argv, int *i, const char **val, char *err, size_t errlen)
{
	const char *a = argv[*i];

	for (int k = 0; k < O_COUNT; k++) {
		size_t n = strlen(opts[k].lng);
		const char *name = opts[k].lng;

		if (strncmp(a, opts[k].lng, n) == 0 && (a[n] == '\0' || a[n] == '=')) {
			if (a[n] == '=') {
				*val = a + n + 1;
				return k;
			}
		} else if (opts[k].shrt && a[0] == '-' && a[1] == opts[k].shrt) {
			name = a;
			if (a[2]) {
				*val = a + 2;
				return k;
			}
		} else {
			continue;
		}
		if (*i + 1 >= argc)
			return errmsg_fail(err, errlen, "%s: missing value", name);
		*val = argv[++*i];
		return k;
	}
	return errmsg_fail(err, errlen, "unknown option '%s' (allocab bench --help lists them)", a);
}

static int add_cmd(struct bench_opts *o, const char *v, char *err, size_t errlen)
{
	const char *eq = strchr(v, '=');
	size_t n = eq ? (size_t)(eq - v) : 0;
	char *name;

	if (!eq || !valid_name(v, n))
		return errmsg_fail(
		    err, errlen, "--cmd: '%s' is not NAME=COMMAND with NAME in [A-Za-z0-9_.-]", v);
	if (strspn(eq + 1, " \t") == strlen(eq + 1))
		return errmsg_fail(err, errlen, "--cmd %.*s: empty command", (int)n, v);
	for (size_t i = 0; i < o->ncmds; i++)
		if (strlen(o->cmd_names[i]) == n && strncmp(o->cmd_names[i], v, n) == 0)
			return errmsg_fail(err, errlen, "--cmd: name '%.*s' is given twice", (int)n,
			                   v);
	if (!(name = strndup(v, n)))
		return errmsg_fail(err, errlen, "out of memory");
	o->cmd_names[o->ncmds] = name;
	o->cmd_lines[o->ncmds++] = eq + 1;
	return 0;
}

/* --preload NAME=PATH and --expect NAME=ALLOCATOR: split at the first '=', names unique. */
static int add_pair(const char *opt, const char **names, const char **values, size_t *n,
                    const char *v, char *err, size_t errlen)
{
	const char *eq = strchr(v, '=');
	size_t len = eq ? (size_t)(eq - v) : 0;
	char *name;

	if (!eq || !valid_name(v, len) || !eq[1])
		return errmsg_fail(err, errlen,
		                   "%s: '%s' is not NAME=%s with NAME in [A-Za-z0-9_.-]", opt, v,
		                   strcmp(opt, "--expect") == 0 ? "ALLOCATOR" : "PATH");
	for (size_t i = 0; i < *n; i++)
		if (strlen(names[i]) == len && strncmp(names[i], v, len) == 0)
			return errmsg_fail(err, errlen, "%s: name '%.*s' is given twice", opt,
			                   (int)len, v);
	if (!(name = strndup(v, len)))
		return errmsg_fail(err, errlen, "out of memory");
	names[*n] = name;
	values[(*n)++] = eq + 1;
	return 0;
}

static int set_option(struct bench_opts *o, int k, const char *v, char *err, size_t errlen)
{
	uint64_t u;
	double d;

	switch (k) {
	case O_ALLOC:
		o->allocators = v;
		return 0;
	case O_WL:
		o->workloads = v;
		return 0;
	case O_SCALE:
		if (!in_list(scales, v))
			return errmsg_fail(
			    err, errlen, "--scale: unknown scale '%s' (small, default, large)", v);
		o->scale = v;
		return 0;
	case O_SEED:
	case O_SHUF:
		if (num_parse_u64(v, &u) != 0 || u > BENCH_SEED_MAX)
			return errmsg_fail(err, errlen, "%s: '%s' is not an integer in 0..%llu",
			                   opts[k].lng, v, BENCH_SEED_MAX);
		*(k == O_SEED ? &o->seed : &o->shuffle_seed) = u;
		*(k == O_SEED ? &o->seed_set : &o->shuffle_seed_set) = 1;
		return 0;
	case O_PARAM:
		if (check_param(v, o->params, o->nparams, err, errlen) != 0)
			return -1;
		o->params[o->nparams++] = v;
		return 0;
	case O_REPS:
	case O_ROUNDS:
	case O_WARMUP:
	case O_MINR: {
		static const uint64_t lo[] = {
		    [O_REPS] = 1, [O_ROUNDS] = 1, [O_WARMUP] = 0, [O_MINR] = 1};
		static const uint64_t hi[] = {
		    [O_REPS] = 1000, [O_ROUNDS] = 100000, [O_WARMUP] = 1000, [O_MINR] = 100000};
		if (num_parse_u64(v, &u) != 0 || u < lo[k] || u > hi[k])
			return errmsg_fail(err, errlen, "%s: '%s' is not an integer in %llu..%llu",
			                   opts[k].lng, v, (unsigned long long)lo[k],
			                   (unsigned long long)hi[k]);
		if (k == O_REPS)
			o->reps = (unsigned)u, o->reps_set = 1;
		else if (k == O_ROUNDS)
			o->rounds = (unsigned)u, o->rounds_set = 1;
		else if (k == O_WARMUP)
			o->warmup = (unsigned)u;
		else
			o->min_rounds = (unsigned)u, o->min_rounds_set = 1;
		return 0;
	}
	case O_BUDGET:
	case O_TIMEOUT:
		if (num_parse_double(v, 0, &d) != 0 || !(d >= 0.001 && d <= 1e7))
			return errmsg_fail(err, errlen,
			                   "%s: '%s' is not a number of seconds in 0.001..1e7",
			                   opts[k].lng, v);
		*(k == O_BUDGET ? &o->budget_s : &o->timeout_s) = d;
		return 0;
	case O_PAD:
		if (num_parse_u64(v, &u) != 0 || u > BENCH_PAD_MAX_LIMIT)
			return errmsg_fail(err, errlen,
			                   "--pad-max: '%s' is not an integer in 0..%d", v,
			                   BENCH_PAD_MAX_LIMIT);
		o->pad_max = (size_t)u;
		return 0;
	case O_OUT:
		if (!*v || strcmp(v, "-") == 0)
			return errmsg_fail(err, errlen,
			                   "-o: needs a file name (the results are rewritten "
			                   "after every round)");
		o->out = v;
		return 0;
	case O_RDIR:
	case O_DDIR:
		if (!*v)
			return errmsg_fail(err, errlen, "%s: empty directory name", opts[k].lng);
		*(k == O_RDIR ? &o->results_dir : &o->driver_dir) = v;
		return 0;
	case O_CMD:
		return add_cmd(o, v, err, errlen);
	case O_PROGRAM:
		if (strspn(v, " \t") == strlen(v))
			return errmsg_fail(err, errlen, "--program: empty command");
		o->program = v;
		return 0;
	case O_PRELOAD:
		return add_pair("--preload", o->preload_names, o->preload_paths, &o->npreloads, v,
		                err, errlen);
	case O_EXPECT:
		return add_pair("--expect", o->expect_names, o->expect_allocs, &o->nexpects, v, err,
		                errlen);
	}
	return -1;
}

/* Rules between options, checked after all of them are read. */
static int check_combinations(struct bench_opts *o, const unsigned char *given, char *err,
                              size_t errlen)
{
	static const int drivers_only[] = {O_ALLOC, O_WL, O_SCALE, O_SEED, O_PARAM, O_REPS, O_DDIR};

	static const int program_excludes[] = {O_WL, O_SCALE, O_SEED, O_PARAM, O_REPS, O_DDIR};

	if (o->ncmds == 1)
		return errmsg_fail(err, errlen, "--cmd: a comparison needs at least two commands");
	if (o->program && o->ncmds)
		return errmsg_fail(err, errlen, "--program and --cmd exclude each other");
	for (size_t i = 0; o->program && i < sizeof program_excludes / sizeof *program_excludes;
	     i++)
		if (given[program_excludes[i]])
			return errmsg_fail(err, errlen, "--program cannot be combined with %s",
			                   opts[program_excludes[i]].lng);
	if (o->npreloads && !o->program)
		return errmsg_fail(err, errlen, "--preload needs --program");
	if (o->nexpects && !o->ncmds)
		return errmsg_fail(err, errlen, "--expect needs --cmd arms");
	for (size_t i = 0; i < o->nexpects; i++) {
		size_t k = 0;

		while (k < o->ncmds && strcmp(o->cmd_names[k], o->expect_names[i]) != 0)
			k++;
		if (k == o->ncmds)
			return errmsg_fail(err, errlen, "--expect %s: no --cmd arm of that name",
			                   o->expect_names[i]);
	}
	if (o->count_calls && !o->program && !o->nexpects)
		return errmsg_fail(err, errlen,
		                   "--count-calls needs --program, or --cmd arms with --expect");
	if (o->duet && o->program)
		return errmsg_fail(
		    err, errlen, "--duet pairs driver runs; it cannot be combined with --program");
	for (size_t i = 0; o->ncmds && i < sizeof drivers_only / sizeof drivers_only[0]; i++)
		if (given[drivers_only[i]])
			return errmsg_fail(err, errlen, "--cmd cannot be combined with %s",
			                   opts[drivers_only[i]].lng);
	if (o->out && o->results_dir)
		return errmsg_fail(err, errlen, "-o and --results-dir exclude each other");
	if (o->duet && o->ncmds)
		return errmsg_fail(err, errlen,
		                   "--duet pairs driver runs; it cannot be combined with --cmd");
	if (!o->rounds_set)
		o->rounds = o->budget_s > 0 ? 0 : DEFAULT_ROUNDS;
	if (!given[O_MINR]) {
		unsigned want = o->gate_argv ? GATE_MIN_ROUNDS : DEFAULT_MIN_ROUNDS;
		o->min_rounds = o->rounds && o->rounds < want ? o->rounds : want;
	} else if (o->rounds && o->min_rounds > o->rounds)
		return errmsg_fail(err, errlen, "--min-rounds %u is more than --rounds %u",
		                   o->min_rounds, o->rounds);
	return 0;
}

int bench_parse_args(int argc, char **argv, struct bench_opts *o, char *err, size_t errlen)
{
	unsigned char given[O_COUNT] = {0};

	memset(o, 0, sizeof *o);
	o->scale = "default";
	o->seed = 42;
	o->reps = 1;
	o->warmup = DEFAULT_WARMUP;
	o->timeout_s = DEFAULT_TIMEOUT_S;
	o->pad_max = DEFAULT_PAD_MAX;
	o->params = calloc((size_t)argc + 1, sizeof *o->params);
	o->cmd_names = calloc((size_t)argc + 1, sizeof *o->cmd_names);
	o->cmd_lines = calloc((size_t)argc + 1, sizeof *o->cmd_lines);
	o->preload_names = calloc((size_t)argc + 1, sizeof *o->preload_names);
	o->preload_paths = calloc((size_t)argc + 1, sizeof *o->preload_paths);
	o->expect_names = calloc((size_t)argc + 1, sizeof *o->expect_names);
	o->expect_allocs = calloc((size_t)argc + 1, sizeof *o->expect_allocs);
	if (!o->params || !o->cmd_names || !o->cmd_lines || !o->preload_names ||
	    !o->preload_paths || !o->expect_names || !o->expect_allocs)
		goto fail_oom;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int k;

		if (strcmp(a, "--gate") == 0) {
			o->gate_argv = argv + i;
			o->gate_argc = argc - i;
			break;
		}
		if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			o->quiet = 1;
			continue;
		}
		if (strcmp(a, "--duet") == 0) {
			o->duet = 1;
			continue;
		}
		if (strcmp(a, "--count-calls") == 0) {
			o->count_calls = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			o->help = 1;
			return 0;
		}
		if (a[0] != '-') {
			errmsg_fail(err, errlen, "unexpected argument '%s'", a);
			goto fail;
		}
		if ((k = match_option(argc, argv, &i, &v, err, errlen)) < 0)
			goto fail;
		if (given[k] && !opts[k].repeat) {
			errmsg_fail(err, errlen, "%s is given twice", opts[k].lng);
			goto fail;
		}
		given[k] = 1;
		if (set_option(o, k, v, err, errlen) != 0)
			goto fail;
	}
	if (check_combinations(o, given, err, errlen) == 0)
		return 0;
	goto fail;
fail_oom:
	errmsg_fail(err, errlen, "out of memory");
fail:
	bench_opts_free(o);
	return -1;
}

unsigned bench_rounds_rule(struct bench_opts *o, size_t m, char *warn, size_t len)
{
	unsigned need = (unsigned)stats_signrank_min_n(RULE_ALPHA, m ? m : 1);

	warn[0] = '\0';
	if (!o->rounds_set && o->budget_s <= 0) {
		unsigned r = need + SPARE_ROUNDS;
		r = r > DEFAULT_ROUNDS ? r : DEFAULT_ROUNDS;
		o->rounds = o->min_rounds > r ? o->min_rounds : r;
	} else if (!o->rounds_set && !o->min_rounds_set && !o->gate_argv) {
		o->min_rounds = need > o->min_rounds ? need : o->min_rounds;
	} else if (o->rounds_set && o->rounds < need && !o->gate_argv) {
		snprintf(
		    warn, len,
		    "--rounds %u cannot give a verdict: %zu comparison%s at alpha %.2g need %u "
		    "paired rounds (the smallest n with 2/2^n <= alpha/%zu); compare will say "
		    "\"too few rounds for a verdict\" (use --rounds %u or more, or omit it)",
		    o->rounds, m, m == 1 ? "" : "s", RULE_ALPHA, need, m, need);
	}
	return need;
}

void bench_opts_free(struct bench_opts *o)
{
	if (!o)
		return;
	for (size_t i = 0; o->cmd_names && i < o->ncmds; i++)
		free((char *)o->cmd_names[i]);
	for (size_t i = 0; o->preload_names && i < o->npreloads; i++)
		free((char *)o->preload_names[i]);
	for (size_t i = 0; o->expect_names && i < o->nexpects; i++)
		free((char *)o->expect_names[i]);
	free(o->cmd_names);
	free(o->cmd_lines);
	free(o->params);
	free(o->preload_names);
	free(o->preload_paths);
	free(o->expect_names);
	free(o->expect_allocs);
	o->cmd_names = o->cmd_lines = o->params = NULL;
	o->preload_names = o->preload_paths = o->expect_names = o->expect_allocs = NULL;
	o->ncmds = o->nparams = o->npreloads = o->nexpects = 0;
}
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
		    !valid_name(name->valuestring, strlen(name->valuestring)))
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

size_t *bench_parse_phase_counts(const char *json, size_t n)
{
	cJSON *root = cJSON_Parse(json), *arr, *w;
	size_t *v = calloc(n + 1, sizeof *v), k = 0;

	arr = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "workloads");
	cJSON_ArrayForEach(w, arr)
	{
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(w, "phases");
		int np = cJSON_IsArray(ph) ? cJSON_GetArraySize(ph) : 0;

		if (v && k < n)
			v[k++] = np > 0 ? (size_t)np : 1;
	}
	cJSON_Delete(root);
	if (v && k < n) {
		free(v);
		return NULL;
	}
	return v;
}

size_t bench_comparisons(const struct bench_config *c, const size_t *nphases)
{
	size_t per_arm = c->nwl >= 2;

	for (size_t i = 0; i < c->nwl; i++)
		per_arm += strcmp(c->wl[i].name, "pipeline") == 0 && nphases ? nphases[i] : 1;
	return c->narms > 1 ? (c->narms - 1) * per_arm : 0;
}

void bench_wl_list_free(struct bench_wl_list *l)
{
	if (!l)
		return;
	free(l->nphases);
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
                                       const struct bench_wl_list *l, const char *const *params,
                                       size_t nparams, const char **bad)
{
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
		for (size_t p = 0; p < nparams; p++)
			if (takes_param(l->params[k], params[p]))
				w->params[w->nparams++] = (char *)params[p];
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
