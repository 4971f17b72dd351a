/* optval.c - the declarative half of the parser (common/opt.h): typed values into a command's
 * settings, their ranges and defaults, the rules between rows, and the default in the help. */
#include "common/opt.h"

#include "common/errmsg.h"
#include "common/numparse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void *field(void *settings, size_t at)
{
	return (char *)settings + at - 1;
}

static int is_whole(const struct opt *o)
{
	return o->type == OPT_T_UINT || o->type == OPT_T_U64 || o->type == OPT_T_SIZE;
}

/* The largest value of a whole type. */
static uint64_t type_max(const struct opt *o)
{
	if (o->type == OPT_T_UINT)
		return (uint64_t)(unsigned)-1;
	return o->type == OPT_T_SIZE ? (uint64_t)(size_t)-1 : UINT64_MAX;
}

static int has_range(const struct opt *o)
{
	return o->lo != 0 || o->hi != 0;
}

/* An OPT_T_I64 bound: a double of 2^63 or more (INT64_MAX as a double) is INT64_MAX, likewise
 * below; a cast would overflow. */
static int64_t i64_bound(double x)
{
	if (x >= 0x1p63)
		return INT64_MAX;
	return x <= -0x1p63 ? INT64_MIN : (int64_t)x;
}

/* A bound as the user writes it: whole numbers in full, percentages with '%'. */
static void bound(const struct opt *o, double x, char *buf, size_t len)
{
	if (o->type == OPT_T_I64)
		snprintf(buf, len, "%lld", (long long)i64_bound(x));
	else if (is_whole(o))
		snprintf(buf, len, "%llu", (unsigned long long)x);
	else
		snprintf(buf, len, "%.10g%s", x, o->type == OPT_T_PCT ? "%" : "");
}

static int out_of_range(const struct opt *o, const char *name, const char *v, char *err,
                        size_t errlen)
{
	char lo[40], hi[40];

	bound(o, o->lo, lo, sizeof lo);
	bound(o, o->hi, hi, sizeof hi);
	return errmsg_fail(err, errlen, "%s: %s is out of range %c%s, %s%c", name, v,
	                   o->flags & OPT_OPEN_LO ? '(' : '[', lo, hi,
	                   o->flags & OPT_OPEN_HI ? ')' : ']');
}

static int in_range(const struct opt *o, double x)
{
	if (!has_range(o))
		return 1;
	if (o->flags & OPT_OPEN_LO ? !(x > o->lo) : !(x >= o->lo))
		return 0;
	return o->flags & OPT_OPEN_HI ? x < o->hi : x <= o->hi;
}

static int store_whole(const struct opt *o, void *dst, const char *name, const char *v, char *err,
                       size_t errlen)
{
	uint64_t u = 0;
	int rc = num_parse_u64(v, &u), over = rc != 0 && errno == ERANGE;

	if (rc != 0 && !over)
		return errmsg_fail(err, errlen, "%s: '%s' is not a whole number", name, v);
	if (over || u > type_max(o) || !in_range(o, (double)u) ||
	    (has_range(o) && u > (uint64_t)o->hi))
		return has_range(o) ? out_of_range(o, name, v, err, errlen)
		                    : errmsg_fail(err, errlen, "%s: %s is too large", name, v);
	if (o->type == OPT_T_UINT)
		*(unsigned *)dst = (unsigned)u;
	else if (o->type == OPT_T_SIZE)
		*(size_t *)dst = (size_t)u;
	else
		*(uint64_t *)dst = u;
	return 0;
}

/* A signed whole number, or with OPT_BYTES a byte count; its range compared exactly. */
static int store_i64(const struct opt *o, void *dst, const char *name, const char *v, char *err,
                     size_t errlen)
{
	int bytes = (o->flags & OPT_BYTES) != 0;
	int64_t x = 0;
	int rc = num_parse_i64(v, bytes, &x), over = rc != 0 && errno == ERANGE;

	if (rc != 0 && !over)
		return errmsg_fail(err, errlen, "%s: '%s' is not %s", name, v,
		                   bytes ? "a byte count (a whole number, optional k, M or G suffix)"
		                         : "a whole number");
	if (over || (has_range(o) && (x < i64_bound(o->lo) || x > i64_bound(o->hi) ||
	                              ((o->flags & OPT_OPEN_LO) && x == i64_bound(o->lo)) ||
	                              ((o->flags & OPT_OPEN_HI) && x == i64_bound(o->hi)))))
		return has_range(o) ? out_of_range(o, name, v, err, errlen)
		                    : errmsg_fail(err, errlen, "%s: %s is too large", name, v);
	*(int64_t *)dst = x;
	return 0;
}

/* Seconds with an optional unit: 90, 90s, 10m, 1.5h; -1 when v is not one. */
static int parse_seconds(const char *v, double *out)
{
	static const struct {
		char unit;
		double s;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}};
	size_t n = strlen(v);
	char num[64];

	if (n == 0 || n >= sizeof num)
		return -1;
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (v[n - 1] == units[i].unit) {
			memcpy(num, v, n - 1);
			num[n - 1] = '\0';
			if (num_parse_double(num, 0, out) < 0)
				return -1;
			*out *= units[i].s;
			return 0;
		}
	return num_parse_double(v, 0, out);
}

static int store_number(const struct opt *o, void *dst, const char *name, const char *v,
                        char *err, size_t errlen)
{
	int pct = o->type == OPT_T_PCT;
	double d;

	if (o->type == OPT_T_SECONDS) {
		if (parse_seconds(v, &d) < 0)
			return errmsg_fail(err, errlen, "%s: '%s' is not a time (90, 90s, 10m or 1.5h)",
			                   name, v);
	} else if (num_parse_double(v, pct, &d) < 0)
		return errmsg_fail(err, errlen, "%s: '%s' is not %s", name, v,
		                   pct ? "a percentage (5, 5% or 2.5%)" : "a number");
	if (!in_range(o, d))
		return out_of_range(o, name, v, err, errlen);
	*(double *)dst = d;
	return 0;
}

/* The i-th word of o's values (a list or a registry), NULL past the end. */
static const char *word(const struct opt *o, size_t i)
{
	const char *sum = NULL;

	if (o->values->words)
		return o->values->words[i];
	return o->values->at ? o->values->at(i, &sum) : NULL;
}

static int store_enum(const struct opt *o, void *dst, const char *name, const char *v, char *err,
                      size_t errlen)
{
	const char *w;
	char list[512];
	size_t n = 0;

	for (size_t i = 0; (w = word(o, i)); i++)
		if (strcmp(w, v) == 0) {
			*(int *)dst = o->map ? o->map[i] : (int)i;
			return 0;
		}
	list[0] = '\0';
	for (size_t i = 0; (w = word(o, i)) && n < sizeof list; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", w);
	return errmsg_fail(err, errlen, "%s: '%s' is not one of %s", name, v, list);
}

/* The name the messages give the row: its long name, else -x. */
static const char *row_name(const struct opt *o, char buf[3])
{
	if (o->name)
		return o->name;
	buf[0] = '-', buf[1] = o->short_name, buf[2] = '\0';
	return buf;
}

int opt_store(const struct opt *o, void *settings, const char *v, char *err, size_t errlen)
{
	char nb[3];
	const char *name = row_name(o, nb);
	void *dst = o->dest ? field(settings, o->dest) : NULL;

	if (o->given_at)
		*(int *)field(settings, o->given_at) = 1;
	if (v && !v[0] && !(o->flags & OPT_EMPTY) && o->type != OPT_T_NONE)
		return errmsg_fail(err, errlen, "%s: empty value", name);
	if (o->set)
		return o->set(settings, o, v, err, errlen);
	if (!dst)
		return 0;
	switch ((enum opt_type)o->type) {
	case OPT_T_NONE:
		return 0;
	case OPT_T_FLAG:
		*(int *)dst = 1;
		return 0;
	case OPT_T_UINT:
	case OPT_T_U64:
	case OPT_T_SIZE:
		return store_whole(o, dst, name, v, err, errlen);
	case OPT_T_I64:
		return store_i64(o, dst, name, v, err, errlen);
	case OPT_T_DOUBLE:
	case OPT_T_PCT:
	case OPT_T_SECONDS:
		return store_number(o, dst, name, v, err, errlen);
	case OPT_T_STRING:
		*(const char **)dst = v;
		return 0;
	case OPT_T_ENUM:
		return store_enum(o, dst, name, v, err, errlen);
	case OPT_T_LIST: {
		size_t *n = field(settings, o->count);
		(*(const char ***)dst)[(*n)++] = v;
		return 0;
	}
	}
	return 0;
}

int opt_value(const struct opt *o, const char *v, void *out, char *err, size_t errlen)
{
	struct opt w = *o;

	w.set = NULL;
	w.given_at = 0;
	w.dest = 1;
	return opt_store(&w, out, v, err, errlen);
}

void opt_defaults(const struct opt *opts, size_t nopts, void *settings)
{
	for (size_t k = 0; k < nopts; k++) {
		const struct opt *o = &opts[k];
		void *dst = o->dest ? field(settings, o->dest) : NULL;

		if (!dst || !o->has_def)
			continue;
		if (o->type == OPT_T_UINT)
			*(unsigned *)dst = (unsigned)o->def_u;
		else if (o->type == OPT_T_SIZE)
			*(size_t *)dst = (size_t)o->def_u;
		else if (o->type == OPT_T_U64)
			*(uint64_t *)dst = o->def_u;
		else if (o->type == OPT_T_I64)
			*(int64_t *)dst = (int64_t)o->def_u;
		else if (o->type == OPT_T_DOUBLE || o->type == OPT_T_PCT || o->type == OPT_T_SECONDS)
			*(double *)dst = o->def_d;
		else if (o->type == OPT_T_STRING)
			*(const char **)dst = o->def_s;
		else if (o->type == OPT_T_ENUM || o->type == OPT_T_FLAG)
			*(int *)dst = (int)o->def_u;
	}
}

int opt_parse(struct opt_parser *p, void *settings, const char **val, char *err, size_t errlen)
{
	int k;

	while ((k = opt_next(p, val, err, errlen)) >= 0) {
		const struct opt *o = &p->opts[k];

		if (!o->dest && !o->set && !o->given_at)
			return k;
		if (opt_store(o, settings, *val, err, errlen) != 0)
			return OPT_ERROR;
	}
	return k;
}

/* The row of p's table that name ("--name" or "-x") names, or -1. */
static long row_named(const struct opt_parser *p, const char *name)
{
	for (size_t k = 0; k < p->nopts; k++) {
		const struct opt *o = &p->opts[k];

		if (name[1] == '-' ? o->name && strcmp(o->name, name) == 0
		                   : !o->name && o->short_name && o->short_name == name[1])
			return (long)k;
	}
	return -1;
}

/* Whether the option name names was given. */
static int given_named(const struct opt_parser *p, const char *name)
{
	long k = row_named(p, name);

	return k >= 0 && p->given[k];
}

int opt_check(struct opt_parser *p, char *err, size_t errlen)
{
	char a[3], b[3], list[512];

	for (size_t k = 0; k < p->nopts; k++) {
		const struct opt *o = &p->opts[k];
		int any = 0;
		size_t n = 0;

		if (!p->given[k])
			continue;
		for (const char *const *x = o->excludes; x && *x; x++)
			if (given_named(p, *x))
				return errmsg_fail(err, errlen, "%s cannot be combined with %s%s%s",
				                   row_name(o, a),
				                   row_name(&p->opts[row_named(p, *x)], b),
				                   o->why ? ": " : "", o->why ? o->why : "");
		list[0] = '\0';
		for (const char *const *x = o->needs; x && *x; x++) {
			long r = row_named(p, *x);

			any |= r >= 0 && p->given[r];
			n += (size_t)snprintf(list + n, n < sizeof list ? sizeof list - n : 0, "%s%s",
			                      n ? " or " : "", r >= 0 ? row_name(&p->opts[r], b) : *x);
		}
		if (o->needs && !any)
			return errmsg_fail(err, errlen, "%s needs %s", row_name(o, a), list);
	}
	return 0;
}

/* The default as the help writes it. */
static void default_value(const struct opt *o, char *buf, size_t len)
{
	const char *w;

	buf[0] = '\0';
	if (o->type == OPT_T_ENUM && o->values) {
		for (size_t i = 0; (w = word(o, i)); i++)
			if ((o->map ? (uint64_t)o->map[i] : i) == o->def_u) {
				snprintf(buf, len, "%s", w);
				return;
			}
	} else if (o->type == OPT_T_STRING)
		snprintf(buf, len, "%s", o->def_s ? o->def_s : "");
	else if (is_whole(o))
		snprintf(buf, len, "%llu", (unsigned long long)o->def_u);
	else if (o->type == OPT_T_I64)
		snprintf(buf, len, "%lld", (long long)(int64_t)o->def_u);
	else if (o->type == OPT_T_DOUBLE || o->type == OPT_T_PCT || o->type == OPT_T_SECONDS)
		snprintf(buf, len, "%g%s", o->def_d, o->type == OPT_T_PCT ? "%" : "");
}

/* A help that introduces the list of values (", one of:") keeps that lead-in last. */
#define LEAD_IN ", one of:"

const char *opt_help(const struct opt *o, char *buf, size_t len)
{
	char v[128], r[128] = "", lo[40], hi[40], d[1024] = "";
	size_t n = o->help ? strlen(o->help) : 0, lead = strlen(LEAD_IN);
	int tail = n > lead && strcmp(o->help + n - lead, LEAD_IN) == 0;

	if (!o->help || (!o->has_def && !o->def_doc && !has_range(o)))
		return o->help;
	if (has_range(o)) {
		bound(o, o->lo, lo, sizeof lo);
		bound(o, o->hi, hi, sizeof hi);
		snprintf(r, sizeof r, ", in %c%s, %s%c", o->flags & OPT_OPEN_LO ? '(' : '[', lo, hi,
		         o->flags & OPT_OPEN_HI ? ')' : ']');
	}
	if (o->has_def)
		default_value(o, v, sizeof v);
	if (o->has_def || o->def_doc)
		snprintf(d, sizeof d, " (default: %s%s%s)", o->has_def ? v : "",
		         o->has_def && o->def_doc ? "; " : "", o->def_doc ? o->def_doc : "");
	snprintf(buf, len, "%.*s%s%s%s", (int)(tail ? n - lead : n), o->help, r, d,
	         tail ? LEAD_IN : "");
	return buf;
}
