/* claims.c - quoted speedups checked against a comparison (claims.h, docs/claims.md). */
#include "front/claims/claims.h"

#include "common/errmsg.h"
#include "common/jsonload.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_MAX_LEN 256

static const char *const verdict_names[] = {"confirmed", "partly", "refuted", "not measured"};

const char *claims_verdict_name(enum claims_verdict v)
{
	return verdict_names[v];
}

const char *claims_verdict_text(const struct claims_check *k, char *buf, size_t len)
{
	if (k->verdict == CLAIM_REFUTED && k->equivalent)
		snprintf(buf, len, "%s: equivalent within ±%g%%", verdict_names[k->verdict],
		         k->equiv_pct);
	else
		snprintf(buf, len, "%s", verdict_names[k->verdict]);
	return buf;
}

void claims_free(struct claims_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		struct claim *c = &f->c[i];
		free(c->name);
		free(c->allocator);
		free(c->baseline);
		free(c->source);
		for (size_t t = 0; t < c->ntargets; t++) {
			free(c->targets[t].workload);
			free(c->targets[t].phase);
		}
		free(c->targets);
	}
	free(f->c);
	free(f->path);
	free(f->title);
	free(f);
}

/* A string member v (NULL: missing) named key into *dst: non-empty, at most NAME_MAX_LEN bytes, no
 * control byte or DEL. */
static int str_member(const cJSON *v, const char *key, char **dst, const char *where, char *err,
                      size_t errlen)
{
	*dst = NULL;
	if (!cJSON_IsString(v) || !v->valuestring[0])
		return errmsg_fail(err, errlen, "%s: \"%s\" must be a non-empty string", where,
		                   key);
	if (strlen(v->valuestring) > NAME_MAX_LEN)
		return errmsg_fail(err, errlen, "%s: \"%s\" is longer than %d bytes", where, key,
		                   NAME_MAX_LEN);
	for (const char *s = v->valuestring; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return errmsg_fail(err, errlen, "%s: \"%s\" holds a control character",
			                   where, key);
	if (!(*dst = strdup(v->valuestring)))
		return errmsg_fail(err, errlen, "out of memory");
	return 0;
}

/* A required string member (str_member). */
static int get_str(const cJSON *o, const char *key, char **dst, const char *where, char *err,
                   size_t errlen)
{
	return str_member(cJSON_GetObjectItemCaseSensitive(o, key), key, dst, where, err, errlen);
}

/* An optional string member: *dst NULL when it is missing, else as str_member. */
static int opt_str(const cJSON *o, const char *key, char **dst, const char *where, char *err,
                   size_t errlen)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*dst = NULL;
	return v ? str_member(v, key, dst, where, err, errlen) : 0;
}

/* "speedup": [lo, hi] (t_base/t_cand), or "improvement_pct": [lo, hi] (time saved, %). */
static int get_range(const cJSON *o, struct claim *c, const char *where, char *err, size_t errlen)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "speedup");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "improvement_pct");
	const cJSON *r = s ? s : p;
	double a, b;

	if (!!s == !!p)
		return errmsg_fail(err, errlen,
		                   "%s: give one of \"speedup\" or \"improvement_pct\"", where);
	if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 ||
	    !cJSON_IsNumber(cJSON_GetArrayItem(r, 0)) || !cJSON_IsNumber(cJSON_GetArrayItem(r, 1)))
		return errmsg_fail(err, errlen, "%s: \"%s\" must be [low, high]", where,
		                   s ? "speedup" : "improvement_pct");
	a = cJSON_GetArrayItem(r, 0)->valuedouble;
	b = cJSON_GetArrayItem(r, 1)->valuedouble;
	if (s && !(a > 0 && a <= b && b <= 1000))
		return errmsg_fail(err, errlen, "%s: \"speedup\" wants 0 < low <= high <= 1000",
		                   where);
	if (p && !(a > -1000 && a <= b && b < 100))
		return errmsg_fail(
		    err, errlen, "%s: \"improvement_pct\" wants -1000 < low <= high < 100", where);
	c->lo = s ? a : 1 / (1 - a / 100);
	c->hi = s ? b : 1 / (1 - b / 100);
	return 0;
}

/* "regime": "cold" or "steady"; absent: -1. */
static int get_regime(const cJSON *o, struct claim *c, const char *where, char *err, size_t errlen)
{
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(o, "regime");

	c->regime = -1;
	if (!g)
		return 0;
	for (int i = 0; i < RF_NREGIMES; i++)
		if (cJSON_IsString(g) &&
		    strcmp(g->valuestring, rf_regime_name((enum rf_regime)i)) == 0)
			c->regime = i;
	if (c->regime < 0)
		return errmsg_fail(err, errlen, "%s: \"regime\" must be \"cold\" or \"steady\"",
		                   where);
	return 0;
}

static int get_targets(const cJSON *o, struct claim *c, const char *where, char *err, size_t errlen)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "targets"), *e;
	int n = cJSON_GetArraySize(t);
	char w[320];

	if (!cJSON_IsArray(t) || n < 1 || n > CLAIMS_MAX_TARGETS)
		return errmsg_fail(err, errlen,
		                   "%s: \"targets\" must be an array of 1 to %d objects", where,
		                   CLAIMS_MAX_TARGETS);
	if (!(c->targets = calloc((size_t)n, sizeof *c->targets)))
		return errmsg_fail(err, errlen, "out of memory");
	cJSON_ArrayForEach(e, t)
	{
		struct claims_target *g = &c->targets[c->ntargets++];
		snprintf(w, sizeof w, "%s, target %zu", where, c->ntargets);
		if (!cJSON_IsObject(e))
			return errmsg_fail(err, errlen, "%s: must be an object", w);
		if (get_str(e, "workload", &g->workload, w, err, errlen) != 0 ||
		    opt_str(e, "phase", &g->phase, w, err, errlen) != 0)
			return -1;
		if (!g->phase && !(g->phase = strdup("total")))
			return errmsg_fail(err, errlen, "out of memory");
	}
	return 0;
}

static int parse_claim(const cJSON *o, struct claim *c, size_t i, char *err, size_t errlen)
{
	char where[64];

	snprintf(where, sizeof where, "claim %zu", i + 1);
	if (!cJSON_IsObject(o))
		return errmsg_fail(err, errlen, "%s: must be an object", where);
	if (get_str(o, "name", &c->name, where, err, errlen) != 0 ||
	    get_str(o, "allocator", &c->allocator, where, err, errlen) != 0 ||
	    opt_str(o, "baseline", &c->baseline, where, err, errlen) != 0 ||
	    get_str(o, "source", &c->source, where, err, errlen) != 0)
		return -1;
	if (get_range(o, c, where, err, errlen) != 0 || get_regime(o, c, where, err, errlen) != 0)
		return -1;
	return get_targets(o, c, where, err, errlen);
}

static int parse_doc(const cJSON *doc, struct claims_file *f, char *err, size_t errlen)
{
	const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "claims"), *e;
	int n = cJSON_GetArraySize(list);

	if (!cJSON_IsObject(doc))
		return errmsg_fail(err, errlen, "not a JSON object");
	if (!cJSON_IsString(schema) || strcmp(schema->valuestring, CLAIMS_SCHEMA) != 0)
		return errmsg_fail(err, errlen, "not an %s document (\"schema\")", CLAIMS_SCHEMA);
	if (opt_str(doc, "title", &f->title, "the file", err, errlen) != 0)
		return -1;
	if (!cJSON_IsArray(list) || n < 1 || n > CLAIMS_MAX_CLAIMS)
		return errmsg_fail(err, errlen, "\"claims\" must be an array of 1 to %d claims",
		                   CLAIMS_MAX_CLAIMS);
	if (!(f->c = calloc((size_t)n, sizeof *f->c)))
		return errmsg_fail(err, errlen, "out of memory");
	cJSON_ArrayForEach(e, list)
	{
		if (parse_claim(e, &f->c[f->n], f->n, err, errlen) != 0) {
			f->n++;
			return -1;
		}
		f->n++;
	}
	return 0;
}

struct claims_file *claims_parse(const char *text, size_t n, const char *name, char *err,
                                 size_t errlen)
{
	struct claims_file *f = calloc(1, sizeof *f);
	cJSON *doc;
	char why[512];

	if (!f || !(f->path = strdup(name))) {
		free(f);
		errmsg_fail(err, errlen, "out of memory");
		return NULL;
	}
	if (!(doc = jl_parse(name, text, n, err, errlen))) {
		claims_free(f);
		return NULL;
	}
	if (parse_doc(doc, f, why, sizeof why) != 0) {
		errmsg_fail(err, errlen, "%s: %s", name, why);
		cJSON_Delete(doc);
		claims_free(f);
		return NULL;
	}
	cJSON_Delete(doc);
	return f;
}

/* The whole of a regular file of at most CLAIMS_MAX_BYTES, NUL-terminated; never blocks. */
static char *read_bounded(const char *path, size_t *n, char *why, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t got = 0, r;

	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		snprintf(why, len, "not a regular file");
	else if (st.st_size > CLAIMS_MAX_BYTES)
		snprintf(why, len, "larger than %d bytes", CLAIMS_MAX_BYTES);
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		snprintf(why, len, "out of memory");
	while (buf && got < st.st_size && (r = read(fd, buf + got, (size_t)(st.st_size - got))) > 0)
		got += r;
	if (buf && got != st.st_size) {
		snprintf(why, len, "short read");
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[got] = '\0';
	*n = (size_t)got;
	close(fd);
	return buf;
}

struct claims_file *claims_load(const char *path, char *err, size_t errlen)
{
	char why[256];
	size_t n = 0;
	char *text = read_bounded(path, &n, why, sizeof why);
	struct claims_file *f;

	if (!text) {
		errmsg_fail(err, errlen, "%s: %s", path, why);
		return NULL;
	}
	f = claims_parse(text, n, path, err, errlen);
	free(text);
	return f;
}

static const struct cmp_row *find_row(const struct cmp_report *r, const struct claim *c,
                                      const struct claims_target *t, enum rf_regime g)
{
	int geo = strcmp(t->workload, "geomean") == 0;

	for (size_t i = 0; i < r->nrows; i++) {
		const struct cmp_row *row = &r->rows[i];
		if (geo != !row->workload || (!geo && strcmp(row->workload, t->workload) != 0))
			continue;
		if (row->regime != g || strcmp(row->phase, t->phase) != 0 ||
		    strcmp(row->candidate, c->allocator) != 0)
			continue;
		if (c->baseline && strcmp(row->baseline, c->baseline) != 0)
			continue;
		return row;
	}
	return NULL;
}

static void judge(struct claims_check *k)
{
	const struct cmp_row *row = k->row;

	k->s_lo = k->s_hi = k->s_est = k->level = k->equiv_pct = NAN;
	k->equivalent = 0;
	k->verdict = CLAIM_NOT_MEASURED;
	if (!row || !row->usable || row->verdict == CMP_TOO_FEW)
		return;
	k->equivalent = row->equivalent;
	k->equiv_pct = row->equiv_pct;
	k->s_est = cmp_speedup(row->d.est);
	k->s_lo = cmp_speedup(row->d.hi);
	k->s_hi = cmp_speedup(row->d.lo);
	k->level = row->d.level;
	if (k->s_lo >= k->claim->lo && k->s_hi <= k->claim->hi)
		k->verdict = CLAIM_CONFIRMED;
	else if (k->s_hi < k->claim->lo || k->s_lo > k->claim->hi)
		k->verdict = CLAIM_REFUTED;
	else
		k->verdict = CLAIM_PARTLY;
}

struct claims_result *claims_check(const struct claims_file *f, const struct cmp_report *r)
{
	struct claims_result *res = calloc(1, sizeof *res);
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += f->c[i].ntargets;
	if (!res || !(res->checks = calloc(n ? n : 1, sizeof *res->checks))) {
		free(res);
		return NULL;
	}
	res->file = f;
	for (size_t i = 0; i < f->n; i++)
		for (size_t t = 0; t < f->c[i].ntargets; t++) {
			struct claims_check *k = &res->checks[res->n++];
			k->claim = &f->c[i];
			k->target = &f->c[i].targets[t];
			k->regime = k->claim->regime >= 0    ? (enum rf_regime)k->claim->regime
			            : r->compared[RF_STEADY] ? RF_STEADY
			                                     : RF_COLD;
			k->row = find_row(r, k->claim, k->target, k->regime);
			if (!k->row && k->claim->regime < 0 && k->regime == RF_STEADY &&
			    r->compared[RF_COLD] &&
			    (k->row = find_row(r, k->claim, k->target, RF_COLD)))
				k->regime = RF_COLD;
			judge(k);
			res->count[k->verdict]++;
		}
	return res;
}

void claims_result_free(struct claims_result *res)
{
	if (!res)
		return;
	free(res->checks);
	free(res);
}
